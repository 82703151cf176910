package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/lazyre"
)

// This file models the parts of Craft Agents' large-response guard that look
// inside a result for media: extractAssetsFromStructuredJson and
// extractBase64Binary (lukilabs/craft-agents-oss,
// packages/shared/src/utils/large-response.ts and binary-detection.ts).

// craftAsset is a base64 payload found in a JSON document, decoded.
type craftAsset struct {
	data     []byte
	mime     string // "" when unknown
	ext      string
	source   string // "data-url" or "raw-base64"
	jsonPath string
	sha      string
}

// craftMinBase64 and craftMinDecoded are MIN_BASE64_LENGTH and
// MIN_DECODED_SIZE: shorter payloads are tokens and keys, not media.
const (
	craftMinBase64  = 256
	craftMinDecoded = 128
)

var craftDataURL = lazyre.New(`(?s)^data:([^;,]+);base64,(.+)$`)

// craftMimeExt is MIME_TO_EXT, for the media types the corpus meets and the
// common ones.
var craftMimeExt = map[string]string{
	"application/pdf": ".pdf", "application/zip": ".zip", "application/gzip": ".gz", "image/png": ".png",
	"image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg", "image/bmp": ".bmp",
	"audio/mpeg": ".mp3", "audio/wav": ".wav", "audio/ogg": ".ogg", "video/mp4": ".mp4",
}

// craftBase64 is extractBase64Binary: text that is one data: URL, or one
// blob of canonical base64, whose decoded bytes are binary.
func craftBase64(text string) (craftAsset, bool) {
	t := strings.TrimSpace(text)
	if m := craftDataURL.FindStringSubmatch(t); m != nil {
		mime, payload := m[1], m[2]
		if len(payload) < craftMinBase64 {
			return craftAsset{}, false
		}
		data := lenientBase64(payload)
		if len(data) < craftMinDecoded {
			return craftAsset{}, false
		}
		if !craftBinaryMime(mime) && !craftLooksBinary(data) {
			return craftAsset{}, false
		}
		ext := craftMimeExt[strings.TrimSpace(strings.ToLower(strings.SplitN(mime, ";", 2)[0]))]
		if ext == "" {
			ext = craftMagicExt(data)
		}
		if ext == "" {
			ext = ".bin"
		}
		return craftAsset{data: data, mime: mime, ext: ext, source: "data-url"}, true
	}
	if len(t) < craftMinBase64 || t[0] == '{' || t[0] == '[' || t[0] == '<' {
		return craftAsset{}, false
	}
	s := strings.NewReplacer("\r", "", "\n", "").Replace(t)
	body := strings.TrimRight(s, "=")
	if body == "" {
		return craftAsset{}, false
	}
	std, url := true, true
	for i := 0; i < len(body); i++ {
		c := body[i]
		alnum := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		std = std && (alnum || c == '+' || c == '/')
		url = url && (alnum || c == '-' || c == '_')
	}
	if !std && !url {
		return craftAsset{}, false
	}
	if !std {
		s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	}
	if r := len(s) % 4; r != 0 {
		s += strings.Repeat("=", 4-r)
	}
	data, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(data) < craftMinDecoded || base64.StdEncoding.EncodeToString(data) != s || !craftLooksBinary(data) {
		return craftAsset{}, false
	}
	ext := craftMagicExt(data)
	if ext == "" {
		ext = ".bin"
	}
	return craftAsset{data: data, ext: ext, source: "raw-base64"}, true
}

// lenientBase64 decodes as Node's Buffer.from(s, "base64") does: characters
// outside both alphabets are skipped and decoding stops at padding.
func lenientBase64(s string) []byte {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/':
			b.WriteByte(c)
		case c == '-':
			b.WriteByte('+')
		case c == '_':
			b.WriteByte('/')
		case c == '=':
			i = len(s)
		}
	}
	clean := b.String()
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1] // six bits alone make no byte
	}
	data, _ := base64.RawStdEncoding.DecodeString(clean)
	return data
}

func craftBinaryMime(mime string) bool {
	m := strings.ToLower(strings.TrimSpace(mime))
	for _, p := range []string{"image/", "audio/", "video/", "application/pdf", "application/zip", "application/gzip", "application/octet-stream"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// jnode is a JSON value that keeps the order of its object's keys, as
// JavaScript's objects do.
type jnode struct {
	kind  byte // '{', '[', '"' or 0 for a number, true, false or null
	keys  []string
	elems []*jnode
	str   string
	raw   string
}

// parseJSON parses exactly one JSON value, as JSON.parse does.
func parseJSON(text string) (*jnode, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &jnode{kind: byte(t)}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return n, nil
	case string:
		return &jnode{kind: '"', str: t}, nil
	case json.Number:
		return &jnode{raw: t.String()}, nil
	case bool:
		return &jnode{raw: strconv.FormatBool(t)}, nil
	case nil:
		return &jnode{raw: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// craftExtractAssets is extractAssetsFromStructuredJson: when text is one
// JSON document with base64 media in its strings, it returns the linked
// document (JSON.stringify(linked, null, 2), media replaced by references)
// and the assets, in document order.
func craftExtractAssets(text, tool string) (linked string, assets []craftAsset, ok bool) {
	t := strings.TrimSpace(text)
	if t == "" || t[0] != '{' && t[0] != '[' {
		return "", nil, false
	}
	root, err := parseJSON(t)
	if err != nil {
		return "", nil, false
	}
	var walk func(n *jnode, path string, parent *jnode) *jnode
	walk = func(n *jnode, path string, parent *jnode) *jnode {
		switch n.kind {
		case '"':
			a, ok := craftBase64(n.str)
			if !ok || parent == nil {
				return n
			}
			if a.mime == "" {
				a.mime = contextMime(parent)
			}
			sum := sha256.Sum256(a.data)
			a.sha = hex.EncodeToString(sum[:])
			a.jsonPath = path
			assets = append(assets, a)
			return a.ref(tool)
		case '[':
			for i, e := range n.elems {
				n.elems[i] = walk(e, fmt.Sprintf("%s[%d]", path, i), n)
			}
		case '{':
			for i, e := range n.elems {
				n.elems[i] = walk(e, path+"."+n.keys[i], n)
			}
		}
		return n
	}
	root = walk(root, "$", nil)
	if len(assets) == 0 {
		return "", nil, false
	}
	var b bytes.Buffer
	writeJS(&b, root, "")
	return b.String(), assets, true
}

// contextMime is inferMimeFromContext: the media type an object names for
// its own payload.
func contextMime(parent *jnode) string {
	if parent.kind != '{' {
		return ""
	}
	for _, want := range []string{"mimeType", "media_type", "mime", "contentType", "content_type"} {
		for i, k := range parent.keys {
			if k == want && parent.elems[i].kind == '"' && strings.TrimSpace(parent.elems[i].str) != "" {
				return strings.TrimSpace(parent.elems[i].str)
			}
		}
	}
	return ""
}

func (a craftAsset) path(tool string) (abs, rel string) {
	rel = fmt.Sprintf("downloads/assets/%s_%s%s", craftSanitize(tool), a.sha[:16], a.ext)
	return craftSession + "/" + rel, rel
}

// ref is the object that replaces an asset in the linked document.
func (a craftAsset) ref(tool string) *jnode {
	abs, rel := a.path(tool)
	str := func(s string) *jnode { return &jnode{kind: '"', str: s} }
	mime := &jnode{raw: "null"}
	if a.mime != "" {
		mime = str(a.mime)
	}
	inner := &jnode{kind: '{',
		keys: []string{"path", "relativePath", "mimeType", "ext", "size", "sizeHuman", "sha256", "jsonPath", "source"},
		elems: []*jnode{str(abs), str(rel), mime, str(a.ext), {raw: strconv.Itoa(len(a.data))},
			str(craftFormatBytes(int64(len(a.data)))), str(a.sha), str(a.jsonPath), str(a.source)}}
	return &jnode{kind: '{', keys: []string{"assetRef"}, elems: []*jnode{inner}}
}

// craftAssetsMessage is formatStructuredMediaExtractionMessage.
func craftAssetsMessage(tool string, assets []craftAsset) string {
	var list []string
	for i, a := range assets {
		abs, _ := a.path(tool)
		kind := a.mime
		if kind == "" {
			kind = strings.ToUpper(strings.TrimPrefix(a.ext, "."))
		}
		list = append(list, fmt.Sprintf("%d. %s (%s, %s, from %s)", i+1, abs, craftFormatBytes(int64(len(a.data))), kind, a.jsonPath))
	}
	return strings.Join([]string{
		"[Structured media assets extracted and saved]",
		"",
		fmt.Sprintf("Original JSON: %s/long_responses/%s_%s_original.json", craftSession, craftStamp, craftSanitize(tool)),
		fmt.Sprintf("Linked JSON: %s/long_responses/%s_%s_linked.json", craftSession, craftStamp, craftSanitize(tool)),
		fmt.Sprintf("Assets extracted: %d", len(assets)),
		"\n" + strings.Join(list, "\n"),
		"",
		"Use the linked JSON for analysis and click asset file paths to preview/open the extracted media.",
	}, "\n")
}

// writeJS writes n as JSON.stringify(n, null, 2) does. Numbers are kept as
// they were written (JavaScript would write 1.50 as 1.5).
func writeJS(b *bytes.Buffer, n *jnode, indent string) {
	switch n.kind {
	case '"':
		writeJSString(b, n.str)
	case '{', '[':
		open, close := byte('{'), byte('}')
		if n.kind == '[' {
			open, close = '[', ']'
		}
		if len(n.elems) == 0 {
			b.WriteByte(open)
			b.WriteByte(close)
			return
		}
		inner := indent + "  "
		b.WriteByte(open)
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + inner)
			if n.kind == '{' {
				writeJSString(b, n.keys[i])
				b.WriteString(": ")
			}
			writeJS(b, e, inner)
		}
		b.WriteString("\n" + indent)
		b.WriteByte(close)
	default:
		b.WriteString(n.raw)
	}
}

// writeJSString quotes s as JSON.stringify does.
func writeJSString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
