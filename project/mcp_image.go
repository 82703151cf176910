package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/draw"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"

	_ "golang.org/x/image/webp" // decode WebP images
	_ "image/gif"               // decode GIF images
)

// Images larger than a model takes are downscaled for the view. The limits
// are those of the Anthropic API, the strictest of the common ones: images
// are resized to at most 1568 pixels on the long side and about 1.15
// megapixels (MaxImageTokens), one image may not exceed 5 MB, and none may
// have a side over 8000 pixels.
const (
	// MaxImageSide is the most pixels on an image's long side.
	MaxImageSide = 1568
	// MaxImageBytes is the most bytes of one encoded image.
	MaxImageBytes = 5 << 20
	// MaxImageTokens is the most one image costs: a larger one is scaled
	// down to this many tokens by the model's API.
	MaxImageTokens = 1600
	// maxAPISide is the longest side the API takes at all.
	maxAPISide = 8000
)

// ImageTokens is what a model is charged for an image of w by h pixels:
// its area over 750 pixels a token, Anthropic's rule, at most
// MaxImageTokens.
func ImageTokens(w, h int) int {
	return int(min((int64(w)*int64(h)+749)/750, MaxImageTokens))
}

// maxDecodePixels is the largest image decoded to be downscaled; a larger
// one (or a file that claims to be) is left as it is.
const maxDecodePixels = 64 << 20

// image checks an image block against the limits. When it is too large it
// returns the block with a downscaled image and a note naming the stored
// original; nil when the block stays as it is.
//
// A downscaled image is made no larger than what the model would see of
// the original, less the tokens of the note: the view never costs more
// than the block it replaces. When the note would take more than half of
// what the image costs and the API takes the original as it is, the
// original stays.
func (m *mcpProjection) image(i int, b object) ([]byte, string, error) {
	v, ok := b.get("data")
	var s string
	if !ok || json.Unmarshal(v, &s) != nil {
		return nil, "", nil
	}
	data := decodeBase64(s)
	if data == nil {
		return nil, "", nil
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", nil
	}
	long := max(cfg.Width, cfg.Height)
	if long <= MaxImageSide && len(data) <= MaxImageBytes {
		return nil, "", nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxDecodePixels {
		// Decoding it would take more memory than a view is worth.
		return nil, "", nil
	}
	if err := m.ctx.Err(); err != nil {
		return nil, "", err
	}
	// The note's cost as a block of its own, with the widest sizes a
	// downscaled image may have and a ref of the length every ref has; the
	// original is stored only once the image is downscaled.
	cost := ImageTokens(cfg.Width, cfg.Height)
	like := "the original: " + m.in.assetRead(store.RefOf(store.Sum(nil)))
	noteTokens := m.in.Counter.Count(`,{"type":"text","text":` + quoteJSON(imageNote(i, cfg.Width, cfg.Height, 9999, 9999, like)) + `}`)
	if !refusedImage(len(data), cfg.Width, cfg.Height) && noteTokens*2 > cost {
		return nil, "", nil
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", nil
	}
	small, mime, err := downscale(img, format, max(1, cost-noteTokens))
	if err != nil {
		return nil, "", nil
	}
	sb := small.Bounds()
	nb := b.with("data", []byte(quoteJSON(encodeBase64(small.data))))
	if mime != b.str("mimeType") {
		nb = nb.with("mimeType", []byte(quoteJSON(mime)))
	}
	return nb.marshal(), imageNote(i, cfg.Width, cfg.Height, sb.Dx(), sb.Dy(), m.original(i, data)), nil
}

// original stores a downscaled image's original bytes and says where they
// are: the read that gets them back, or their place in the stored result.
func (m *mcpProjection) original(i int, data []byte) string {
	ref, err := m.put(data, store.Meta{Tool: "crumb/asset", Kind: string(KindBinary)})
	switch {
	case err == nil:
		return "the original: " + m.in.assetRead(ref)
	case m.in.Ref != "":
		p := "/content/" + strconv.Itoa(i) + "/data"
		return "the original (base64): " + m.in.ReadHint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &p})
	default:
		return "the original could not be stored: " + err.Error()
	}
}

// imageNote is one short line: what was done to image i, and where the
// original is.
func imageNote(i, w, h, nw, nh int, where string) string {
	return fmt.Sprintf("[crumb: image %d downscaled from %dx%d to %dx%d; %s]", i, w, h, nw, nh, where)
}

// encoded is an encoded image and its size in pixels.
type encoded struct {
	data []byte
	w, h int
}

func (e encoded) Bounds() image.Rectangle { return image.Rect(0, 0, e.w, e.h) }

// downscale shrinks img to fit MaxImageSide, MaxImageBytes and a cost of
// at most tokens (ImageTokens), encoding it as JPEG when it was JPEG and
// as PNG otherwise (as JPEG when a PNG stays too large).
func downscale(img image.Image, format string, tokens int) (encoded, string, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	scale := min(1, float64(MaxImageSide)/float64(max(w, h)))
	if area := float64(w) * float64(h) * scale * scale; area > float64(tokens)*750 {
		scale *= math.Sqrt(float64(tokens) * 750 / area)
	}
	asJPEG := format == "jpeg"
	for try := 0; try < 8; try++ {
		nw, nh := max(1, int(float64(w)*scale)), max(1, int(float64(h)*scale))
		var dst draw.Image
		if asJPEG {
			rgba := image.NewRGBA(image.Rect(0, 0, nw, nh))
			// JPEG has no transparency: draw on white.
			draw.Draw(rgba, rgba.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
			dst = rgba
		} else {
			dst = image.NewNRGBA(image.Rect(0, 0, nw, nh))
		}
		draw.BiLinear.Scale(dst, dst.Bounds(), img, b, draw.Over, nil)
		var buf bytes.Buffer
		var err error
		mime := "image/png"
		if asJPEG {
			mime = "image/jpeg"
			err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
		} else {
			err = (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, dst)
		}
		if err != nil {
			return encoded{}, "", err
		}
		if buf.Len() <= MaxImageBytes {
			return encoded{data: buf.Bytes(), w: nw, h: nh}, mime, nil
		}
		if !asJPEG && try >= 1 {
			asJPEG = true
			continue
		}
		scale *= 0.75
	}
	return encoded{}, "", fmt.Errorf("could not fit the image in %s", textfmt.Size(MaxImageBytes))
}
