package project

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"strings"
)

// MCPCost is what a model is charged for a CallToolResult. A client sends
// the payloads of media blocks to the model as media, not as text: an image
// costs what its size costs (ImageTokens), audio and blobs nothing here, and
// the text is the result's JSON with every payload left out wherever it
// occurs (structuredContent may repeat a block).
type MCPCost struct {
	// Text is the JSON with every media payload replaced by "".
	Text string
	// Images is the tokens of the images, each distinct one counted once.
	Images int
	// Media counts the image and audio blocks that hold data.
	Media int
	// Payloads holds the base64 payloads of the media blocks (image and
	// audio data, resources' blobs), in order.
	Payloads []string
	// Refused counts the images the API does not take as they are: over
	// MaxImageBytes, or with a side over 8000 pixels.
	Refused int
}

// mcpMedia is what MCPCostOf reads of a CallToolResult.
type mcpMedia struct {
	Content []struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		Resource *struct {
			Blob string `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
}

// MCPCostOf measures a CallToolResult; ok is false when doc is none.
func MCPCostOf(doc []byte) (c MCPCost, ok bool) {
	var res mcpMedia
	if json.Unmarshal(doc, &res) != nil || res.Content == nil {
		return MCPCost{}, false
	}
	for _, b := range res.Content {
		switch {
		case (b.Type == "image" || b.Type == "audio") && b.Data != "":
			c.Payloads = append(c.Payloads, b.Data)
			c.Media++
		case b.Type == "resource" && b.Resource != nil && b.Resource.Blob != "":
			c.Payloads = append(c.Payloads, b.Resource.Blob)
		}
	}
	c.Text = string(doc)
	seen := map[string]bool{}
	for _, d := range c.Payloads {
		if seen[d] {
			continue
		}
		seen[d] = true
		c.Text = strings.ReplaceAll(c.Text, `"`+d+`"`, `""`)
		if n, refused := base64Image(d); n > 0 {
			c.Images += n
			if refused {
				c.Refused++
			}
		}
	}
	return c, true
}

// Base64ImageTokens is what an image sent as base64 data costs a model
// (ImageTokens); 0 for data that is no image (audio, a blob).
func Base64ImageTokens(b64 string) int {
	n, _ := base64Image(b64)
	return n
}

// base64Image returns what an image sent as base64 data costs, and whether
// the API refuses it as it is. It decodes only as much of the data as the
// image's header needs (all of it when the header lies further on).
func base64Image(b64 string) (tokens int, refused bool) {
	size := len(b64)/4*3 - (len(b64) - len(strings.TrimRight(b64, "=")))
	head := b64[:min(len(b64), headerBase64)&^3]
	for _, part := range []string{head, b64} {
		raw, err := base64.StdEncoding.DecodeString(part)
		if err != nil {
			return 0, false
		}
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(raw)); err == nil {
			return ImageTokens(cfg.Width, cfg.Height), refusedImage(size, cfg.Width, cfg.Height)
		}
		if len(part) == len(b64) {
			break
		}
	}
	return 0, false
}

// headerBase64 is how much of an image's base64 data base64Image decodes
// first: its header, for any common format.
const headerBase64 = 64 << 10

// refusedImage reports whether the API refuses an image of size bytes and
// w by h pixels as it is.
func refusedImage(size, w, h int) bool {
	return size > MaxImageBytes || max(w, h) > maxAPISide
}
