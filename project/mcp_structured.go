package project

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
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
//     it is kept whole, and a note says so and how to read it by parts.
//   - Otherwise (the tool is known to have no outputSchema, or nothing is
//     known of it), when the result has readable content (text, media, an
//     embedded resource), structuredContent becomes a bounded index of
//     itself: its shape, its first members and elements, short values
//     whole and long ones cut, each cut marked with the pointer of what it
//     leaves out. A note names the read of the whole.
//   - The tool is known to have no outputSchema and there is nothing
//     readable besides: it is dropped, and a note names it with a short
//     outline and the read that returns it; when nothing is known of the
//     schema it is kept whole, since dropping or changing it could break a
//     schema the projector cannot see.
//
// Base64 data (an image, a blob) is never cut: a prefix of it is not valid
// base64, and a client would take it for the data. A bounded version leaves
// out the member or element that holds it, and an index names its size.
//
// When it does not repeat the content blocks (a structured-only tool) and
// it was cut or dropped, or there is no text at all, a JSON projection of it
// (stored apart, with its own pointers) is added as a text block, so the
// model still sees the tool's answer and how to read it. When it repeats
// them, its note joins the note before it, if any: the model reads one
// block about one piece of data.
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
	whole := m.in.ReadHint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &ptr})
	size := textfmt.Size(int64(len(sc)))
	note := "[crumb: structuredContent (" + size + ")"
	if dup {
		note += " repeats the content above; it"
	}
	changed := false
	raw := bytes.TrimSpace(m.in.OutputSchema)
	declared := len(raw) > 0 && string(raw) != "null"
	switch {
	case declared:
		// A schema that does not parse cannot be checked: it is kept whole.
		var schema any
		_ = json.Unmarshal(raw, &schema)
		if b, ok := boundStructured(val, schema); ok && len(b) < len(sc) {
			m.setTop("structuredContent", b)
			changed = true
			note += " is cut to the start of its long arrays and strings, still valid for the tool's outputSchema"
		} else {
			note += " is kept whole: the tool's outputSchema allows no shorter form that crumb can check"
		}
		if !dup || m.in.Ref == "" {
			note += "; read it by parts: " + whole + "]"
		} else {
			note += "]"
		}
	case m.readable():
		idx := m.structuredIndex(sc)
		if idx == nil {
			return nil
		}
		m.setTop("structuredContent", idx)
		changed = true
		note += " is cut to an index of its shape and first values"
		if !dup || m.in.Ref == "" {
			note += ", whose cuts name their /pointer in the whole: " + whole
		}
		note += "]"
	case string(raw) == "null":
		m.setTop("structuredContent", nil)
		changed = true
		note += " is left out"
		if idx := m.index(sc); idx != "" {
			note += "; its outline: " + idx
		}
		note += "; the whole: " + whole + "]"
	default:
		// Nothing known of the schema and nothing else to read: kept
		// whole, and projected below.
		note = ""
	}
	noText := true
	for _, it := range m.items {
		if it.field == "text" {
			noText = false
		}
	}
	if note != "" {
		m.change = true
		m.addNote(note, dup)
	}
	if !dup && (changed || noText) {
		m.change = true
		it := &textItem{text: sc, label: "structuredContent", ptr: ptr, kind: KindJSON, projected: true, idx: len(m.items)}
		m.items = append(m.items, it)
		m.out = append(m.out, contentOut{item: it})
	}
	return nil
}

// readable reports whether the content holds something a model reads
// besides structuredContent: text, media or an embedded resource.
func (m *mcpProjection) readable() bool {
	for _, b := range m.res.blocks {
		switch b.str("type") {
		case "text", "image", "audio", "resource":
			return true
		}
	}
	return false
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
	// Media blocks and embedded resources count too: a tool may repeat an
	// image's data or a resource's blob.
	for _, b := range m.res.blocks {
		switch t := b.str("type"); t {
		case "image", "audio":
			texts = append(texts, b.str("data"), b.str("mimeType"), t)
		case "resource":
			if r, err := parseObject(mustGet(b, "resource")); err == nil {
				texts = append(texts, r.str("uri"), r.str("mimeType"), r.str("text"), r.str("blob"), t)
			}
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

// bounds tried for a bounded structuredContent, in order: a few items
// first; more when the schema wants them; fewer when the first items hold
// base64 data, which is never cut.
var structuredBounds = []struct{ items, chars int }{{3, 200}, {10, 1000}, {1, 100}, {0, 100}}

// boundStructured returns a bounded version of v that validates against
// schema, or false when none does or the schema cannot be checked.
func boundStructured(v, schema any) ([]byte, bool) {
	for _, b := range structuredBounds {
		bv, changed, ok := boundValue(v, b.items, b.chars)
		if !ok {
			return nil, false
		}
		if !changed {
			continue
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
// chars characters (marked with "…"). Base64 data longer than chars is
// never cut, since a prefix of it is not valid base64: the object that
// holds it leaves the member out, the array that holds it ends before it,
// and ok is false when v itself is such data.
func boundValue(v any, items, chars int) (out any, changed, ok bool) {
	switch x := v.(type) {
	case map[string]any:
		o := make(map[string]any, len(x))
		for k, e := range x {
			b, c, ok := boundValue(e, items, chars)
			if !ok {
				changed = true
				continue
			}
			o[k] = b
			changed = changed || c
		}
		return o, changed, true
	case []any:
		o := make([]any, 0, min(len(x), items))
		for i := 0; i < len(x) && i < items; i++ {
			b, c, ok := boundValue(x[i], items, chars)
			if !ok {
				break
			}
			o = append(o, b)
			changed = changed || c
		}
		return o, changed || len(o) < len(x), true
	case string:
		if len(x) > chars && looksAssetHead([]byte(x[:min(len(x), 512)])) {
			return nil, true, false
		}
		if len(x) > chars && len([]rune(x)) > chars {
			return cutRunes(x, chars) + "…", true, true
		}
	}
	return v, false, true
}

// indexOpts bound an index of structuredContent: the depth of nesting
// shown, and the members, elements and characters kept at each level.
type indexOpts struct{ depth, members, elems, chars int }

// indexTries are the bounds tried for an index, loosest first; the first
// that fits a quarter of the budget is taken.
var indexTries = []indexOpts{{4, 16, 3, 200}, {3, 10, 2, 100}, {2, 8, 1, 60}, {1, 6, 1, 40}, {1, 3, 0, 20}}

// structuredIndex returns a bounded index of structuredContent: an
// object of its shape and first values, within a quarter of the budget
// when it can be (the tightest tried otherwise); nil when sc is not an
// object.
func (m *mcpProjection) structuredIndex(sc []byte) []byte {
	sc = bytes.TrimSpace(sc)
	if len(sc) == 0 || sc[0] != '{' {
		return nil
	}
	var last []byte
	for _, o := range indexTries {
		var b bytes.Buffer
		if !indexJSON(&b, sc, "/structuredContent", 0, o) {
			return nil
		}
		last = b.Bytes()
		if c := m.count(last); c >= 0 && c <= m.in.Budget/4 {
			break
		}
	}
	return last
}

// indexSmall is the size of a value an index always shows whole.
const indexSmall = 40

// indexJSON writes an index of the JSON value raw, found at ptr: objects
// keep their first members and arrays their first elements, each followed
// by a string that counts the rest and names where it starts; below the
// depth bound a value becomes a string that names its shape; long strings
// are cut, marked "…"; base64 data becomes a string that names its size,
// never a prefix of it. It reports false when raw is not valid JSON.
func indexJSON(b *bytes.Buffer, raw []byte, ptr string, depth int, o indexOpts) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '{':
		obj, err := parseObject(raw)
		if err != nil {
			return false
		}
		if depth > 0 && depth >= o.depth && len(raw) > indexSmall {
			b.WriteString(quoteJSON("{… " + textfmt.Plural(int64(len(obj)), "key") + " at " + ptr + "}"))
			return true
		}
		b.WriteByte('{')
		for i, mb := range obj {
			if i > 0 {
				b.WriteByte(',')
			}
			if i == o.members {
				b.WriteString(`"…":` + quoteJSON(textfmt.Plural(int64(len(obj)-i), "more key")+" at "+ptr))
				break
			}
			b.Write(mb.raw)
			b.WriteByte(':')
			if !indexJSON(b, mb.val, ptr+"/"+jsonscan.EscapeToken(mb.key), depth+1, o) {
				return false
			}
		}
		b.WriteByte('}')
	case '[':
		arr, err := parseArray(raw)
		if err != nil {
			return false
		}
		if depth >= o.depth && len(raw) > indexSmall {
			b.WriteString(quoteJSON("[… " + textfmt.Plural(int64(len(arr)), "item") + " at " + ptr + "]"))
			return true
		}
		b.WriteByte('[')
		n := min(len(arr), o.elems)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if !indexJSON(b, arr[i], ptr+"/"+strconv.Itoa(i), depth+1, o) {
				return false
			}
		}
		if n < len(arr) {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quoteJSON("… " + textfmt.Plural(int64(len(arr)-n), "more item") + " from " + ptr + "/" + strconv.Itoa(n)))
		}
		b.WriteByte(']')
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return false
		}
		switch {
		case len(s) > o.chars && looksAssetHead([]byte(s[:min(len(s), 512)])):
			b.WriteString(quoteJSON("[base64 data, " + textfmt.Size(int64(len(s))*3/4) + ", at " + ptr + "]"))
		case len([]rune(s)) > o.chars:
			b.WriteString(quoteJSON(cutRunes(s, o.chars) + "…"))
		default:
			b.Write(raw)
		}
	default:
		if !json.Valid(raw) {
			return false
		}
		b.Write(raw)
	}
	return true
}
