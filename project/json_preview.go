package project

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

// previewOpts bound the compact rendering of one value.
type previewOpts struct {
	maxBytes int64 // most bytes of the value read
	depth    int   // containers nested deeper are shown as {…} or […]
	members  int   // members shown per object
	elems    int   // elements shown per array
	strCut   int   // characters of a string shown
}

// quoteJSON writes s as a JSON string, without escaping <, > and &.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// jqPath writes reference tokens as a jq path: .items[3]."a b".
func jqPath(toks []string, indexes []bool) string {
	if len(toks) == 0 {
		return "."
	}
	var b strings.Builder
	for i, t := range toks {
		if indexes != nil && indexes[i] {
			b.WriteString("[" + t + "]")
			continue
		}
		b.WriteString(jqKey(t))
	}
	s := b.String()
	if strings.HasPrefix(s, "[") {
		return "." + s
	}
	return s
}

// jqKey writes one object key as a jq path step.
func jqKey(k string) string {
	ident := k != ""
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident && !jqKeywords[k] {
		return "." + k
	}
	return "." + quoteJSON(k)
}

var jqKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "if": true, "then": true, "elif": true, "else": true, "end": true,
	"as": true, "def": true, "reduce": true, "foreach": true, "try": true, "catch": true, "label": true,
	"import": true, "include": true, "__loc__": true,
}

// pframe is an open container in a preview.
type pframe struct {
	obj    bool
	n      int64 // members or elements seen
	shown  int
	hidden int64
}

// preview renders the value in [start, end) as compact JSON on one line,
// within o: deeper containers as {…} or […], long strings cut with their
// size and pointer, base64 data replaced by a reference to its stored bytes,
// and "…" where it stops. base holds the value's pointer tokens. complete
// reports that the whole value is shown; cut, that the bytes read ran out
// before its end.
func (v *jsonView) preview(start, end int64, base []string, o previewOpts) (text string, complete, cut bool, err error) {
	// The outline is rendered many times while it is fitted to the
	// budget: each preview is made once.
	k := previewKey{start: start, end: end, path: strings.Join(base, "\x00"), o: o, anon: v.anon}
	if r, ok := v.previews[k]; ok {
		return r.text, r.complete, r.cut, nil
	}
	text, complete, cut, err = v.previewOnce(start, end, base, o)
	if err != nil {
		return "", false, false, err
	}
	if v.previews == nil {
		v.previews = map[previewKey]previewResult{}
	}
	v.previews[k] = previewResult{text, complete, cut}
	return text, complete, cut, nil
}

// previewKey names a preview: its value, pointer, bounds and mode.
type previewKey struct {
	start, end int64
	path       string
	o          previewOpts
	anon       bool
	str        bool // a string's rendering (stringValue)
}

// previewResult is a preview made.
type previewResult struct {
	text          string
	complete, cut bool
}

// previewOnce makes a preview (see preview).
func (v *jsonView) previewOnce(start, end int64, base []string, o previewOpts) (text string, complete, cut bool, err error) {
	limit := min(end, start+o.maxBytes)
	s := jsonscan.NewAt(v.in.Source, start, limit)
	s.Single()
	var b strings.Builder
	var stack []pframe
	path := append([]string(nil), base...)
	complete = true
	hid := false // something was left out along the way
	for complete {
		t, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *jsonscan.SyntaxError
			if !errors.As(err, &se) {
				return "", false, false, err
			}
			complete = false
			break
		}
		var top *pframe
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		switch t.Kind {
		case jsonscan.EndObject, jsonscan.EndArray:
			if top.hidden > 0 {
				hid = true
				if top.n > top.hidden {
					b.WriteString(", ")
				}
				if top.obj {
					b.WriteString("… " + textfmt.Plural(top.hidden, "more key"))
				} else {
					b.WriteString("… " + textfmt.Int(top.hidden) + " more")
				}
			}
			if top.obj {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				path = path[:len(path)-1]
			}
			continue
		case jsonscan.Key:
			if top.shown >= o.members {
				ok, err := skipValue(s)
				if err != nil {
					return "", false, false, err
				}
				complete = ok
				top.n++
				top.hidden++
				continue
			}
			raw, err := s.Bytes(t.Start, t.End, 1024)
			if err != nil {
				return "", false, false, err
			}
			key, keyCut := jsonscan.KeyText(raw, t.End-t.Start > 1024)
			if top.n > 0 {
				b.WriteString(", ")
			}
			if keyCut {
				b.WriteString(quoteJSON(cutRunes(key, o.strCut)+"…") + ": ")
			} else {
				b.WriteString(quoteJSON(key) + ": ")
			}
			top.n++
			top.shown++
			if t, err = s.Next(); err != nil {
				complete = false
				continue
			}
			path = append(path, key)
		default:
			if top != nil {
				if top.shown >= o.elems {
					if t.Kind == jsonscan.BeginObject || t.Kind == jsonscan.BeginArray {
						if _, err := s.Skip(); err != nil {
							complete = false
						}
					}
					top.n++
					top.hidden++
					continue
				}
				if top.n > 0 {
					b.WriteString(", ")
				}
				path = append(path, strconv.FormatInt(top.n, 10))
				top.n++
				top.shown++
			}
		}
		// A value: a member's or an element's, or the root.
		opened, ok := v.previewValue(&b, s, t, path, &stack, o, &hid)
		if !ok {
			complete = false
		} else if !opened && len(stack) > 0 {
			path = path[:len(path)-1]
		}
	}
	if !complete {
		b.WriteString("…")
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].obj {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
	}
	return b.String(), complete && !hid, !complete, nil
}

// skipValue moves past the next value; false means the preview's bytes
// ended first.
func skipValue(s *jsonscan.Scanner) (bool, error) {
	t, err := s.Next()
	if err != nil {
		return false, nil
	}
	if t.Kind == jsonscan.BeginObject || t.Kind == jsonscan.BeginArray {
		if _, err := s.Skip(); err != nil {
			return false, nil
		}
	}
	return true, nil
}

// previewValue writes one value that starts with t. It pushes a frame for
// a container it opens (opened); ok is false when the bytes ran out.
func (v *jsonView) previewValue(b *strings.Builder, s *jsonscan.Scanner, t jsonscan.Token, path []string, stack *[]pframe, o previewOpts, hid *bool) (opened, ok bool) {
	switch t.Kind {
	case jsonscan.BeginObject, jsonscan.BeginArray:
		if len(*stack) >= o.depth {
			*hid = true
			if _, err := s.Skip(); err != nil {
				return false, false
			}
			if t.Kind == jsonscan.BeginObject {
				b.WriteString("{…}")
			} else {
				b.WriteString("[…]")
			}
			return false, true
		}
		*stack = append(*stack, pframe{obj: t.Kind == jsonscan.BeginObject})
		if t.Kind == jsonscan.BeginObject {
			b.WriteByte('{')
		} else {
			b.WriteByte('[')
		}
		return true, true
	case jsonscan.String:
		str, cut, err := v.stringValue(t.Start, t.End, path, o.strCut)
		if err != nil {
			return false, false
		}
		*hid = *hid || cut
		b.WriteString(str)
		return false, true
	default:
		raw, err := s.Bytes(t.Start, t.End, 64)
		if err != nil {
			return false, false
		}
		b.Write(raw)
		if t.End-t.Start > 64 {
			b.WriteString("…")
		}
		return false, true
	}
}

// stringValue renders a string value: whole when short, else its first
// characters with its size and pointer; base64 data becomes a reference.
func (v *jsonView) stringValue(start, end int64, path []string, strCut int) (string, bool, error) {
	k := previewKey{start: start, end: end, path: strings.Join(path, "\x00"), o: previewOpts{strCut: strCut}, anon: v.anon, str: true}
	if r, ok := v.previews[k]; ok {
		return r.text, r.cut, nil
	}
	text, cut, err := v.stringOnce(start, end, path, strCut)
	if err != nil {
		return "", false, err
	}
	if v.previews == nil {
		v.previews = map[previewKey]previewResult{}
	}
	v.previews[k] = previewResult{text: text, cut: cut}
	return text, cut, nil
}

// stringOnce renders a string value (see stringValue).
func (v *jsonView) stringOnce(start, end int64, path []string, strCut int) (string, bool, error) {
	n := end - start
	if n >= assetMinLen && !v.anon {
		note, ok, err := v.assetNote(start, end, pointerOrRoot(path))
		if err != nil {
			return "", false, err
		}
		if ok {
			return note, false, nil
		}
	}
	limit := int64(strCut)*6 + 16
	raw := make([]byte, min(n, limit))
	if k, err := v.in.Source.ReadAt(raw, start); k < len(raw) {
		return "", false, fmt.Errorf("project: reading a string at byte %d: %w", start, err)
	}
	text, cut := jsonscan.KeyText(raw, n > limit)
	if !cut && utf8.RuneCountInString(text) <= strCut {
		return quoteJSON(text), false, nil
	}
	if v.anon {
		// Its pointer is not known: the read of the whole value goes
		// with it.
		return quoteJSON(cutRunes(text, strCut)+"…") + " (" + textfmt.Size(n-2) + ")", true, nil
	}
	return quoteJSON(cutRunes(text, strCut)+"…") + " (" + textfmt.Size(n-2) + " at " + ptrText(pointerOrRoot(path)) + ")", true, nil
}

func pointerOrRoot(path []string) string {
	return jsonscan.Pointer(path...)
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// maxAssetBytes is the longest base64 string decoded and stored.
const maxAssetBytes = 48 << 20

// assetNote decodes the base64 data in the string at [start, end), stores
// it, and returns a short note naming its type, size and ref. ok is false
// when the string is not base64 data after all.
func (v *jsonView) assetNote(start, end int64, ptr string) (string, bool, error) {
	if note, ok := v.assetNotes[start]; ok {
		return note, note != "", nil
	}
	note, err := v.extractAsset(start, end, ptr)
	if err != nil {
		return "", false, err
	}
	v.assetNotes[start] = note
	return note, note != "", nil
}

func (v *jsonView) extractAsset(start, end int64, ptr string) (string, error) {
	head := make([]byte, min(end-start, 512))
	if _, err := v.in.Source.ReadAt(head, start); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if !looksAssetHead(head[1:]) {
		return "", nil
	}
	size := end - start - 2
	if size > maxAssetBytes || v.extracted >= assetCap {
		return "[base64 data, " + textfmt.Size(size*3/4) + ", not extracted; read it: " + v.in.ReadHint(v.req(ptr)) + "]", nil
	}
	raw := make([]byte, end-start)
	if _, err := v.in.Source.ReadAt(raw, start); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		return "", nil
	}
	mime := ""
	payload := text
	if strings.HasPrefix(text, "data:") {
		i := strings.Index(text, ";base64,")
		if i < 0 {
			return "", nil
		}
		mime = text[len("data:"):i]
		if j := strings.IndexByte(mime, ';'); j >= 0 {
			mime = mime[:j]
		}
		payload = text[i+len(";base64,"):]
	}
	data := decodeBase64(payload)
	if data == nil {
		return "", nil
	}
	v.extracted++
	desc := sniff.Describe(data[:min(len(data), sniff.Len)])
	if mime != "" && !strings.HasPrefix(desc, mime) {
		desc = mime + ", detected " + desc
	}
	note := "[base64 " + desc + ", " + textfmt.Size(int64(len(data)))
	if v.in.Put == nil {
		return note + ", not stored]", nil
	}
	ref, err := v.in.Put(v.ctx, data, store.Meta{Tool: "crumb/asset", Kind: string(KindBinary)})
	if err != nil {
		return note + ", not stored: " + err.Error() + "]", nil
	}
	v.assetRefs = append(v.assetRefs, ref)
	return note + ", ref " + string(ref) + "]", nil
}

// decodeBase64 decodes standard or URL-safe base64, padded or not; nil
// when s is not base64.
func decodeBase64(s string) []byte {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) > 0 {
			return b
		}
	}
	return nil
}
