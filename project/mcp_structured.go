package project

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
)

// The rule for a large structuredContent.
//
// MCP clients validate structuredContent against the tool's outputSchema
// when it has one, and a tool with an outputSchema must return
// structuredContent; a client may reject a result that breaks either. The
// projector never knows more about the schema than Input.OutputSchema says,
// so:
//
//   - structuredContent that takes at most a quarter of the budget is kept
//     as it is, always.
//   - The tool has an outputSchema (Input.OutputSchema is a schema): a
//     bounded version (long arrays cut to their first items, long strings to
//     their start) replaces it only when it still validates against the
//     schema, checked by a validator of the common JSON Schema keywords; a
//     schema that uses any other keyword counts as not validated. Otherwise
//     it is kept whole.
//   - The tool is known to have no outputSchema (Input.OutputSchema is the
//     JSON null): it is dropped, and a note names it with a short index and
//     the read that returns it.
//   - Nothing is known of the schema (Input.OutputSchema is empty): it is
//     kept whole, since dropping or changing it could break a schema the
//     projector cannot see.
//
// When it does not repeat the text blocks (a structured-only tool) and it
// was cut or dropped, or there is no text at all, a JSON projection of it
// (stored apart, with its own pointers) is added as a text block, so the
// model still sees the tool's answer and how to read it.
func (m *mcpProjection) structured() error {
	sc, ok := m.res.top.get("structuredContent")
	if !ok {
		return nil
	}
	cost := m.count(sc)
	if cost >= 0 && cost <= m.in.Budget/4 {
		return nil
	}
	var val any
	if err := json.Unmarshal(sc, &val); err != nil {
		return nil
	}
	dup := m.repeatsText(val)
	ptr := "/structuredContent"
	whole := m.in.hint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &ptr})
	size := textfmt.Size(int64(len(sc)))
	var note string
	changed := false
	raw := bytes.TrimSpace(m.in.OutputSchema)
	switch {
	case string(raw) == "null":
		m.setTop("structuredContent", nil)
		changed = true
		note = "[crumb: structuredContent (" + size + ") is left out"
		if dup {
			note += ": it repeats the text above"
		}
		if idx := m.index(sc); idx != "" {
			note += "; its outline: " + idx
		}
		note += "; the whole: " + whole + "]"
	case len(raw) > 0:
		var schema any
		if json.Unmarshal(raw, &schema) != nil {
			break
		}
		if b, ok := boundStructured(val, schema); ok && len(b) < len(sc) {
			m.setTop("structuredContent", b)
			changed = true
			note = "[crumb: structuredContent (" + size + ") is cut to the start of its long arrays and strings, still valid for the tool's outputSchema; the whole: " + whole + "]"
		}
	}
	noText := true
	for _, it := range m.items {
		if it.field == "text" {
			noText = false
		}
	}
	if note != "" {
		m.change = true
		m.out = append(m.out, contentOut{raw: m.note(note)})
	}
	if !dup && (changed || noText) {
		it := &textItem{text: sc, label: "structuredContent", ptr: ptr, kind: KindJSON, projected: true, idx: len(m.items)}
		m.items = append(m.items, it)
		m.out = append(m.out, contentOut{item: it})
		m.change = true
	}
	return nil
}

func (m *mcpProjection) setTop(key string, val []byte) {
	if m.topChange == nil {
		m.topChange = map[string][]byte{}
	}
	m.topChange[key] = val
}

// index renders a one-line outline of structuredContent, its pointers
// rooted at /structuredContent of the stored result.
func (m *mcpProjection) index(sc []byte) string {
	sub := &Input{Source: newBytesSource(sc), Ref: m.in.Ref, Digest: m.in.Digest, Budget: m.in.Budget, Counter: m.in.Counter, Hint: m.in.Hint, Line: m.in.Line, Put: m.in.Put}
	v := &jsonView{ctx: m.ctx, in: sub, assetNotes: map[int64]string{}}
	s, _, _, err := v.preview(0, int64(len(sc)), []string{"structuredContent"}, previewOpts{maxBytes: 4000, depth: 2, members: 8, elems: 2, strCut: 40})
	if err != nil {
		return ""
	}
	return s
}

// repeatsText reports whether structuredContent repeats the text blocks:
// one of them is the same JSON, or they hold most of its values.
func (m *mcpProjection) repeatsText(val any) bool {
	var texts []string
	for _, b := range m.res.blocks {
		if b.str("type") == "text" {
			texts = append(texts, b.str("text"))
		}
	}
	// Media blocks count too: a tool may repeat an image's data.
	for _, b := range m.res.blocks {
		if t := b.str("type"); t == "image" || t == "audio" {
			texts = append(texts, b.str("data"), b.str("mimeType"), t)
		}
	}
	if len(texts) == 0 {
		return false
	}
	for _, t := range texts {
		t = strings.TrimSpace(t)
		if t == "" || (t[0] != '{' && t[0] != '[') {
			continue
		}
		var tv any
		if json.Unmarshal([]byte(t), &tv) == nil && reflect.DeepEqual(tv, val) {
			return true
		}
	}
	leaves := leafValues(val, nil, 64)
	if len(leaves) == 0 {
		return false
	}
	all := strings.Join(texts, "\n")
	found := 0
	for _, l := range leaves {
		if strings.Contains(all, l) {
			found++
		}
	}
	return found*5 >= len(leaves)*4
}

// leafValues collects up to n distinctive leaf values: strings of four
// characters or more, and numbers.
func leafValues(v any, out []string, n int) []string {
	if len(out) >= n {
		return out
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = leafValues(x[k], out, n)
		}
	case []any:
		for _, e := range x {
			out = leafValues(e, out, n)
		}
	case string:
		if len(x) >= 4 {
			out = append(out, x)
		}
	case float64:
		out = append(out, strconv.FormatFloat(x, 'f', -1, 64))
	}
	return out
}

// bounds tried for a bounded structuredContent, tightest first.
var structuredBounds = []struct{ items, chars int }{{3, 200}, {10, 1000}}

// boundStructured returns a bounded version of v that validates against
// schema, or false when none does or the schema cannot be checked.
func boundStructured(v, schema any) ([]byte, bool) {
	for _, b := range structuredBounds {
		bv, changed := boundValue(v, b.items, b.chars)
		if !changed {
			return nil, false
		}
		vd := &validator{root: schema}
		if ok := vd.valid(bv, schema); !ok || vd.unsupported {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(bv) != nil {
			return nil, false
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), true
	}
	return nil, false
}

// boundValue cuts arrays to their first items and strings to their first
// chars characters (marked with "…").
func boundValue(v any, items, chars int) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		changed := false
		for k, e := range x {
			b, c := boundValue(e, items, chars)
			out[k] = b
			changed = changed || c
		}
		return out, changed
	case []any:
		changed := len(x) > items
		n := min(len(x), items)
		out := make([]any, n)
		for i := range n {
			b, c := boundValue(x[i], items, chars)
			out[i] = b
			changed = changed || c
		}
		return out, changed
	case string:
		if len(x) > chars && looksAssetHead([]byte(x[:min(len(x), 512)])) {
			// Base64 data: its start says nothing.
			return x[:16] + "…", true
		}
		if len(x) > chars && len([]rune(x)) > chars {
			return cutRunes(x, chars) + "…", true
		}
	}
	return v, false
}
