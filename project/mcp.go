package project

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func init() {
	Register(KindMCP, ProjectorFunc(projectMCP))
}

// mcpMaxBytes is the largest CallToolResult the MCP projector reads into
// memory; a larger one is projected as JSON.
const mcpMaxBytes = 256 << 20

// mcpNoteTokens is the part of the budget set aside for a note the
// projection may add when it shares the budget among text blocks.
const mcpNoteTokens = 80

// projectMCP projects an MCP CallToolResult into a CallToolResult: the
// Output's Text is the projected result as JSON, which an MCP client takes
// in place of the original.
//
//   - Text blocks that do not fit the budget are each stored apart (so that
//     reads of them count the block's own lines, not the JSON envelope's) and
//     replaced by a projection of their text with its own header and reads.
//     Small blocks are kept whole; the budget is shared among the large
//     ones. It counts the whole result as a model reads it (its JSON, the
//     escapes of its text, the notes), the data of media blocks aside. A
//     text block that holds several files the call names (a
//     read_multiple_files result) is split into one item per file, so that
//     each gets its own projection (see mcp_sections.go); a JSON text block
//     is projected as JSON, with the call's intent.
//   - Image and audio blocks stay blocks, and are also returned in
//     Output.Media. An image larger than a model takes (MaxImageSide pixels
//     on its long side, or MaxImageBytes decoded) is downscaled for the view;
//     the original is stored and named in a one-line note after it.
//   - An embedded resource with text is handled like a text block; one with
//     a blob larger than a few bytes is stored and replaced by a note with
//     its type, size and ref. resource_link blocks pass through.
//   - structuredContent that is large is handled by the rule of
//     structuredRule, which never makes the result break the tool's
//     outputSchema.
//   - Unknown block types and top-level fields (_meta, isError, future ones)
//     pass through unchanged, and a result that needs nothing changed comes
//     back byte for byte.
func projectMCP(ctx context.Context, in *Input) (Output, error) {
	size := in.Source.Size()
	if size > mcpMaxBytes {
		return Project(ctx, KindJSON, in)
	}
	raw := make([]byte, size)
	if n, err := in.Source.ReadAt(raw, 0); n < len(raw) && err != nil && !errors.Is(err, io.EOF) {
		return Output{}, err
	}
	res, err := parseToolResult(raw)
	if err != nil {
		// Not a CallToolResult: show it for what it is.
		return Project(ctx, KindJSON, in)
	}
	m := &mcpProjection{ctx: ctx, in: in, raw: raw, res: res}
	return m.project()
}

// member is one member of a JSON object, in its original bytes.
type member struct {
	key string
	raw []byte // the key as written, with its quotes
	val []byte
}

// object is a JSON object as its members, in order.
type object []member

func (o object) get(key string) ([]byte, bool) {
	for _, m := range o {
		if m.key == key {
			return m.val, true
		}
	}
	return nil, false
}

func (o object) str(key string) string {
	v, ok := o.get(key)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// with returns o with key's value replaced (or added at the end).
func (o object) with(key string, val []byte) object {
	out := slices.Clone(o)
	for i := range out {
		if out[i].key == key {
			out[i].val = val
			return out
		}
	}
	return append(out, member{key: key, raw: []byte(quoteJSON(key)), val: val})
}

func (o object) without(key string) object {
	var out object
	for _, m := range o {
		if m.key != key {
			out = append(out, m)
		}
	}
	return out
}

func (o object) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.raw)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// parseObject splits a JSON object into its members without decoding the
// values.
func parseObject(raw []byte) (object, error) {
	s := jsonscan.New(bytes.NewReader(raw), int64(len(raw)))
	s.Single()
	t, err := s.Next()
	if err != nil {
		return nil, err
	}
	if t.Kind != jsonscan.BeginObject {
		return nil, fmt.Errorf("not an object")
	}
	var o object
	for {
		k, err := s.Next()
		if err != nil {
			return nil, err
		}
		if k.Kind == jsonscan.EndObject {
			// The scanner stops after one value: nothing may follow it.
			if len(bytes.TrimSpace(raw[k.End:])) > 0 {
				return nil, fmt.Errorf("more than one value")
			}
			break
		}
		v, err := s.Next()
		if err != nil {
			return nil, err
		}
		end := v.End
		if v.Kind == jsonscan.BeginObject || v.Kind == jsonscan.BeginArray {
			if end, err = s.Skip(); err != nil {
				return nil, err
			}
		}
		// The scanner lets a control byte in a key through, which a
		// client would reject: such an object is not valid JSON.
		if !json.Valid(raw[k.Start:k.End]) {
			return nil, fmt.Errorf("invalid key at byte %d", k.Start)
		}
		key, _ := jsonscan.KeyText(raw[k.Start:k.End], false)
		o = append(o, member{key: key, raw: raw[k.Start:k.End], val: raw[v.Start:end]})
	}
	if _, err := s.Next(); err != io.EOF {
		return nil, fmt.Errorf("more than one value")
	}
	return o, nil
}

// parseArray splits a JSON array into its elements.
func parseArray(raw []byte) ([][]byte, error) {
	s := jsonscan.New(bytes.NewReader(raw), int64(len(raw)))
	s.Single()
	t, err := s.Next()
	if err != nil {
		return nil, err
	}
	if t.Kind != jsonscan.BeginArray {
		return nil, fmt.Errorf("not an array")
	}
	var out [][]byte
	for {
		v, err := s.Next()
		if err != nil {
			return nil, err
		}
		if v.Kind == jsonscan.EndArray {
			return out, nil
		}
		end := v.End
		if v.Kind == jsonscan.BeginObject || v.Kind == jsonscan.BeginArray {
			if end, err = s.Skip(); err != nil {
				return nil, err
			}
		}
		out = append(out, raw[v.Start:end])
	}
}

// toolResult is a parsed CallToolResult.
type toolResult struct {
	top     object
	content [][]byte // nil when there is no content member
	blocks  []object // content, parsed; nil for a block that is not an object
}

func parseToolResult(raw []byte) (*toolResult, error) {
	// The scanner lets through what a client would reject (a control byte
	// in a string); a result that passes through must be valid JSON.
	if !json.Valid(raw) {
		return nil, errors.New("not valid JSON")
	}
	top, err := parseObject(bytes.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	r := &toolResult{top: top}
	c, ok := top.get("content")
	if !ok {
		if _, ok := top.get("structuredContent"); !ok {
			return nil, fmt.Errorf("neither content nor structuredContent")
		}
		return r, nil
	}
	if r.content, err = parseArray(c); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	for _, b := range r.content {
		o, err := parseObject(b)
		if err != nil {
			o = nil
		}
		r.blocks = append(r.blocks, o)
	}
	return r, nil
}

// mcpProjection is the state of one MCP projection.
type mcpProjection struct {
	ctx context.Context
	in  *Input
	raw []byte
	res *toolResult

	out   []contentOut // the new content, in order
	items []*textItem  // text that shares the budget
	notes int          // tokens of notes added
	media []json.RawMessage
	// hasMedia reports that the result holds image or audio blocks.
	hasMedia bool
	next     *recall.Request
	change   bool
	// topChange holds new values of top-level members; a nil value drops
	// the member.
	topChange map[string][]byte
	// squeeze is taken off the text items' share when the result came out
	// over the budget.
	squeeze int
	// seq reports that the text items are shown as one sequence (see
	// sequence), which any squeeze shortens.
	seq bool
}

// contentOut is one block of the new content: the block as it was, a new
// block, or a text item rendered once the budget is shared, or a text
// block made of several files, each an item (see mcp_sections.go).
type contentOut struct {
	raw   []byte
	item  *textItem
	parts []*textItem
	// spilled reports that raw holds a note where the text of the block
	// was stored apart (see Input.Spilled): it is written anew.
	spilled bool
	// note is the text of a note crumb added, whose block raw is.
	note string
}

// textItem is text the model reads: a text block, the text of an embedded
// resource, or a projection of structuredContent.
type textItem struct {
	text  []byte
	block object // the block it came from; nil for a block made anew
	field string // the member that holds the text: "text" for text blocks
	cost  int    // tokens; -1 when too large to count
	kind  Kind   // how to project it; "" to detect
	label string // what it is, for notes
	ptr   string // where it is in the stored result
	// out is the rendered text, and projected reports that it differs
	// from text; drop leaves the item out of the result.
	out       string
	projected bool
	drop      bool
	idx       int // its place among the items
	// head and tail surround the text of one file of several in a block;
	// args are the arguments its projection sees.
	head, tail string
	args       json.RawMessage
	// fresh is projected as it was made, before any sharing.
	fresh bool
	// spill is the text as the caller stored it apart, when it did (see
	// Input.Spilled); text is then nil when the text is longer than
	// spillReadMax.
	spill *Spill
}

// size is the length of the item's text.
func (t *textItem) size() int64 {
	if t.text == nil && t.spill != nil {
		return t.spill.Source.Size()
	}
	return int64(len(t.text))
}

// spillReadMax is the longest text stored apart by the caller that the
// projector reads into memory, to project it as any text is (split into
// the files it holds, for one); a longer one is projected from the store.
const spillReadMax = 4 << 20

// text returns the text of o's member key, at ptr in the result; ok is
// false when it is not a string. When the caller stored it apart (see
// Input.Spilled), sp is where, the text is nil if it is longer than
// spillReadMax, and the result is marked changed: the note that stands in
// its place must not reach the client.
func (m *mcpProjection) text(o object, key, ptr string) (sp *Spill, text []byte, ok bool, err error) {
	if s, found := m.in.Spilled[ptr]; found {
		m.change = true
		size := s.Source.Size()
		if size > spillReadMax {
			return &s, nil, true, nil
		}
		b := make([]byte, size)
		if n, err := s.Source.ReadAt(b, 0); int64(n) < size {
			return nil, nil, false, fmt.Errorf("reading the text stored apart at %s: %w", ptr, err)
		}
		return &s, b, true, nil
	}
	v, found := o.get(key)
	var str string
	if !found || json.Unmarshal(v, &str) != nil {
		return nil, nil, false, nil
	}
	return nil, []byte(str), true, nil
}

func (m *mcpProjection) project() (Output, error) {
	for i, b := range m.res.blocks {
		if err := m.ctx.Err(); err != nil {
			return Output{}, err
		}
		if err := m.block(i, b); err != nil {
			return Output{}, err
		}
	}
	if err := m.structured(); err != nil {
		return Output{}, err
	}
	for _, it := range m.items {
		it.fresh = it.projected
	}
	media := m.media // as the result holds them
	// The budget counts the whole result the model reads, its JSON and
	// the escapes of its text included (media data aside): when the
	// assembled result takes more, the text items share less, by more at
	// each try (a dense JSON text block escapes to more tokens than its
	// projection counted).
	for try := 0; ; try++ {
		if err := m.shareBudget(); err != nil {
			return Output{}, err
		}
		if !m.change {
			return Output{Text: string(m.raw), Media: m.media, Complete: true}, nil
		}
		out := m.assemble()
		over := m.viewTokens(out.Text) - m.in.Budget
		squeeze := m.squeeze + over + 8<<try
		if over <= 0 || try == 6 || !m.seq && m.in.Budget-m.notes-squeeze < recall.MinBudget*len(m.items) {
			// Within the budget, or what is over is not the text items'
			// doing (a structuredContent kept whole): nothing to gain.
			return m.noLarger(out, media), nil
		}
		m.squeeze = squeeze
		for _, it := range m.items {
			it.out, it.projected, it.drop = "", it.fresh, false
		}
		m.next = nil
	}
}

// mcpCountLimit is the most bytes of a result's text, media payloads
// aside, that noLarger counts.
const mcpCountLimit = 64 << 10

// noLarger returns the result itself, with the media it holds, when the
// view would cost a model more (MCPCost) and the API takes the result as it
// is: a result that holds media costs little for its bytes, and a view that
// cuts a repeated copy of a block and says so can cost more than the
// result. It applies to results that hold images or audio and no blob,
// whose text is short enough to count; one with text stored apart stays
// projected.
func (m *mcpProjection) noLarger(out Output, media []json.RawMessage) Output {
	if len(m.in.Spilled) > 0 || !m.hasMedia {
		return out
	}
	raw, ok := MCPCostOf(m.raw)
	if !ok || raw.Media == 0 || len(raw.Payloads) > raw.Media || len(raw.Text) > mcpCountLimit {
		// No images or audio, or a blob a client may show as text.
		return out
	}
	n := m.in.Counter.Count(raw.Text) + raw.Images
	out.ResultTokens = n
	if raw.Refused > 0 {
		return out // the API would refuse the result as it is
	}
	if view, ok := MCPCostOf([]byte(out.Text)); ok && m.in.Counter.Count(view.Text)+view.Images <= n {
		return out
	}
	return Output{Text: string(m.raw), Media: media, Complete: true, ResultTokens: n}
}

// assemble writes the new result.
func (m *mcpProjection) assemble() Output {
	var content bytes.Buffer
	content.WriteByte('[')
	n := 0
	for _, c := range m.out {
		if c.item != nil && c.item.drop {
			continue
		}
		if n > 0 {
			content.WriteByte(',')
		}
		n++
		switch {
		case c.item != nil && (c.item.projected || c.item.spill != nil):
			content.Write(c.item.marshal())
		case c.parts != nil:
			content.Write(marshalParts(c))
		default:
			content.Write(c.raw)
		}
	}
	content.WriteByte(']')
	top := m.res.top
	if m.res.content != nil || len(m.out) > 0 {
		top = top.with("content", content.Bytes())
	}
	keys := make([]string, 0, len(m.topChange))
	for k := range m.topChange {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := m.topChange[k]; v == nil {
			top = top.without(k)
		} else {
			top = top.with(k, v)
		}
	}
	// Media kept, in their final form.
	var media []json.RawMessage
	for _, c := range m.out {
		if c.item != nil || c.parts != nil || c.spilled {
			continue
		}
		if o, err := parseObject(c.raw); err == nil {
			if t := o.str("type"); t == "image" || t == "audio" {
				media = append(media, json.RawMessage(c.raw))
			}
		}
	}
	m.media = media
	return Output{Text: string(top.marshal()), Media: media, Next: m.next}
}

// marshalParts writes a text block made of several files, each as it was
// or as its projection.
func marshalParts(c contentOut) []byte {
	changed := false
	var b strings.Builder
	for _, it := range c.parts {
		b.WriteString(it.head)
		if it.projected {
			changed = true
			b.WriteString(it.out)
			if !strings.HasSuffix(it.out, "\n") && it.tail != "" {
				b.WriteByte('\n')
			}
		} else {
			b.WriteString(string(it.text))
		}
		b.WriteString(it.tail)
	}
	if !changed && !c.spilled {
		return c.raw
	}
	return c.parts[0].block.with("text", []byte(quoteJSON(b.String()))).marshal()
}

// viewTokens counts the tokens of a result as a model reads it: the data
// of its media blocks and resource blobs, which a client sends as media,
// left out.
func (m *mcpProjection) viewTokens(text string) int {
	if c, ok := MCPCostOf([]byte(text)); ok {
		return m.in.Counter.Count(c.Text)
	}
	return m.in.Counter.Count(text)
}

func mustGet(o object, key string) []byte {
	v, _ := o.get(key)
	return v
}

// marshal writes the item as a content block.
func (t *textItem) marshal() []byte {
	if t.block == nil {
		return object{{key: "type", raw: []byte(`"type"`), val: []byte(`"text"`)}, {key: "text", raw: []byte(`"text"`), val: []byte(quoteJSON(t.out))}}.marshal()
	}
	if t.field == "text" {
		return t.block.with("text", []byte(quoteJSON(t.out))).marshal()
	}
	// An embedded resource shown as a text block; its annotations stay.
	o := object{{key: "type", raw: []byte(`"type"`), val: []byte(`"text"`)}, {key: "text", raw: []byte(`"text"`), val: []byte(quoteJSON(t.out))}}
	if a, ok := t.block.get("annotations"); ok {
		o = o.with("annotations", a)
	}
	return o.marshal()
}

// block handles one content block.
func (m *mcpProjection) block(i int, b object) error {
	raw := m.res.content[i]
	if b == nil {
		m.out = append(m.out, contentOut{raw: raw})
		return nil
	}
	ptr := "/content/" + strconv.Itoa(i)
	switch b.str("type") {
	case "text":
		sp, text, ok, err := m.text(b, "text", ptr+"/text")
		if err != nil {
			return err
		}
		if !ok {
			m.out = append(m.out, contentOut{raw: raw})
			return nil
		}
		if secs := splitSections(string(text), m.in.Call().Paths()); secs != nil {
			c := contentOut{raw: raw, spilled: sp != nil}
			for _, sec := range secs {
				it := &textItem{text: []byte(sec.body), block: b, field: "text", label: "file " + sec.path + " in text block " + strconv.Itoa(i),
					ptr: ptr + "/text", idx: len(m.items), head: sec.head, tail: sec.tail, args: withPath(m.in.Args, sec.path)}
				m.notes += m.in.Counter.Count(sec.head+sec.tail) + 1
				m.items = append(m.items, it)
				c.parts = append(c.parts, it)
			}
			m.out = append(m.out, c)
			return nil
		}
		it := &textItem{text: text, block: b, field: "text", label: "text block " + strconv.Itoa(i), ptr: ptr + "/text", idx: len(m.items), spill: sp}
		m.items = append(m.items, it)
		m.out = append(m.out, contentOut{raw: raw, item: it, spilled: sp != nil})
	case "image":
		m.hasMedia = true
		nb, note, err := m.image(i, b)
		if err != nil {
			return err
		}
		if nb == nil {
			m.out = append(m.out, contentOut{raw: raw})
			m.media = append(m.media, json.RawMessage(raw))
			return nil
		}
		m.change = true
		m.out = append(m.out, contentOut{raw: nb})
		m.addNote(note, false)
	case "audio":
		m.hasMedia = true
		m.out = append(m.out, contentOut{raw: raw})
		m.media = append(m.media, json.RawMessage(raw))
	case "resource":
		return m.resource(i, b, raw)
	default:
		// resource_link and block types crumb does not know pass through.
		m.out = append(m.out, contentOut{raw: raw})
	}
	return nil
}

// addNote adds a note as a block of its own or, with join, at the end of
// the last note added, so that what is said about one piece of data is
// said in one block.
func (m *mcpProjection) addNote(text string, join bool) {
	if join {
		for i := len(m.out) - 1; i >= 0; i-- {
			if c := &m.out[i]; c.note != "" {
				m.notes -= m.in.Counter.Count(c.note) + 1
				c.note += " " + text
				c.raw = m.note(c.note)
				return
			}
		}
	}
	m.out = append(m.out, contentOut{raw: m.note(text), note: text})
}

// note makes a text block holding a note, and counts it.
func (m *mcpProjection) note(text string) []byte {
	m.notes += m.in.Counter.Count(text) + 1
	return object{{key: "type", raw: []byte(`"type"`), val: []byte(`"text"`)}, {key: "text", raw: []byte(`"text"`), val: []byte(quoteJSON(text))}}.marshal()
}

// blobKeep is the largest decoded blob an embedded resource keeps inline.
const blobKeep = 1024

// resource handles an embedded resource: its text shares the budget like a
// text block; a blob larger than blobKeep is stored and named.
func (m *mcpProjection) resource(i int, b object, raw []byte) error {
	rv, ok := b.get("resource")
	if !ok {
		m.out = append(m.out, contentOut{raw: raw})
		return nil
	}
	r, err := parseObject(rv)
	if err != nil {
		m.out = append(m.out, contentOut{raw: raw})
		return nil
	}
	uri, mime := r.str("uri"), r.str("mimeType")
	ptr := "/content/" + strconv.Itoa(i) + "/resource"
	if _, ok := r.get("text"); ok {
		sp, text, ok, err := m.text(r, "text", ptr+"/text")
		if err != nil {
			return err
		}
		if !ok {
			m.out = append(m.out, contentOut{raw: raw})
			return nil
		}
		label := "embedded resource " + uri
		if mime != "" {
			label += " (" + mime + ")"
		}
		it := &textItem{text: text, block: b, field: "resource", label: label, ptr: ptr + "/text", idx: len(m.items), spill: sp}
		m.items = append(m.items, it)
		m.out = append(m.out, contentOut{raw: raw, item: it, spilled: sp != nil})
		return nil
	}
	bv, ok := r.get("blob")
	var blob string
	if !ok || json.Unmarshal(bv, &blob) != nil {
		m.out = append(m.out, contentOut{raw: raw})
		return nil
	}
	data := decodeBase64(blob)
	if data == nil || len(data) <= blobKeep {
		m.out = append(m.out, contentOut{raw: raw})
		return nil
	}
	desc := sniff.Describe(data[:min(len(data), sniff.Len)])
	if mime != "" && !strings.HasPrefix(desc, mime) {
		desc = mime + ", detected " + desc
	}
	note := "[crumb: embedded resource " + uri + " (" + desc + ", " + textfmt.Size(int64(len(data))) + ")"
	ref, err := m.put(data, store.Meta{Tool: "crumb/asset", Kind: string(KindBinary)})
	switch {
	case err != nil && m.in.Ref != "":
		note += " could not be stored apart (" + err.Error() + "); it is in the stored result: " + m.in.ReadHint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &ptr}) + "]"
	case err != nil:
		note += " is left out and could not be stored: " + err.Error() + "]"
	default:
		note += " is stored as ref " + string(ref) + "; get it with: " + m.in.assetRead(ref) + "]"
	}
	m.change = true
	m.addNote(note, false)
	return nil
}

// assetRead is the read that gets back bytes stored apart (an image's
// original, a resource's blob): through MCP, a call of crumb_read with the
// ref alone, which returns them as an image block or as blobs; on the
// command line, which shows no binary, the command that writes them to a
// file.
func (in *Input) assetRead(ref store.Ref) string {
	r := recall.Request{Ref: ref}
	h := in.Hint(r)
	if h == recall.CLIHint(r) {
		return h + " --all > FILE"
	}
	return h
}

// put stores bytes extracted from the result.
func (m *mcpProjection) put(data []byte, meta store.Meta) (store.Ref, error) {
	if m.in.Put == nil {
		return "", errors.New("no store")
	}
	return m.in.Put(m.ctx, data, meta)
}

// count returns the tokens of b, or -1 when b is too long to fit the
// budget at all (about 16 bytes a token at best), without counting it.
func (m *mcpProjection) count(b []byte) int {
	if len(b) > tokens.MaxBytes(m.in.Budget) {
		return -1
	}
	return m.in.Counter.Count(string(b))
}

// shareBudget shares the budget among the text items: what fits is kept
// whole, smallest first, and the rest is projected in equal shares.
func (m *mcpProjection) shareBudget() error {
	if len(m.items) == 0 {
		return nil
	}
	room := m.in.Budget - m.notes - m.squeeze
	total := 0
	fits := true
	for _, it := range m.items {
		if it.text == nil && it.spill != nil {
			it.cost = -1 // too long to read, let alone fit
		} else {
			it.cost = m.count(it.text)
		}
		if it.cost < 0 {
			fits = false
		} else {
			total += it.cost + 1
		}
	}
	if fits && total <= room {
		for _, it := range m.items {
			it.out = string(it.text)
		}
		return nil
	}
	// Water-filling: keep the cheapest items whole while each fits its
	// fair share of what is left; share the rest among the others.
	order := make([]*textItem, len(m.items))
	copy(order, m.items)
	slices.SortStableFunc(order, func(a, b *textItem) int {
		ca, cb := a.cost, b.cost
		if ca < 0 {
			ca = int(^uint(0) >> 1)
		}
		if cb < 0 {
			cb = int(^uint(0) >> 1)
		}
		return ca - cb
	})
	left := room - mcpNoteTokens
	k := 0
	for ; k < len(order); k++ {
		it := order[k]
		fair := left / (len(order) - k)
		if it.cost < 0 || it.cost+1 > fair {
			break
		}
		it.out = string(it.text)
		left -= it.cost + 1
	}
	big := order[k:]
	// Back in document order: what is named first comes first.
	slices.SortStableFunc(big, func(a, b *textItem) int { return a.idx - b.idx })
	if left/len(big) < recall.MinBudget && m.smallItems() {
		// Many small items: as many as fit, whole and in order, and the
		// rest as one sequence with one continuation.
		return m.sequence()
	}
	if left/len(big) < recall.MinBudget {
		// Too many large items to project each: name their stored copies
		// while that fits, and leave out the rest with one note.
		used := 0
		for j, it := range big {
			if err := m.reference(it); err != nil {
				return err
			}
			c := m.in.Counter.Count(it.out) + 1
			if j < len(big)-1 && used+c+mcpNoteTokens > left || j == len(big)-1 && used+c > left {
				m.leaveOut(big[j:])
				break
			}
			used += c
		}
		m.change = true
		return nil
	}
	for n := 0; n < 4; n++ {
		share := left / len(big)
		used := 0
		for _, it := range big {
			if err := m.projectItem(it, max(share, recall.MinBudget)); err != nil {
				return err
			}
			used += m.in.Counter.Count(it.out) + 1
		}
		if used <= left {
			break
		}
		left -= (used - left) + 8
	}
	m.change = true
	return nil
}

// blockTokens is about what the JSON of one text block costs besides its
// text.
const blockTokens = 10

// smallItems reports whether the text items are content blocks of their
// own (not files of one block, nor structuredContent), most of them
// smaller than a page: so many that projecting each, or naming each, would
// show no content.
func (m *mcpProjection) smallItems() bool {
	small := 0
	for _, it := range m.items {
		// A nil text is one the caller keeps elsewhere: not small.
		if it.block == nil || it.text == nil || it.head != "" || it.tail != "" {
			return false
		}
		if it.cost >= 0 && it.cost < recall.MinBudget {
			small++
		}
	}
	return small*2 >= len(m.items)
}

// sequence shows the text items whole, in document order, while they fit
// the budget, and leaves out the rest with one note: the texts left out
// are stored apart, one after the other (each ending with a newline), as
// one text the note's continuation reads by lines.
func (m *mcpProjection) sequence() error {
	m.seq = true
	room := m.in.Budget - m.notes - m.squeeze - mcpNoteTokens
	used, k := 0, 0
	for ; k < len(m.items); k++ {
		it := m.items[k]
		c := it.cost + 1 + blockTokens
		if it.cost < 0 || used+c > room {
			break
		}
		it.out = string(it.text)
		used += c
	}
	m.change = true
	if k == len(m.items) {
		return nil
	}
	rest := m.items[k:]
	var b bytes.Buffer
	for _, it := range rest {
		b.Write(it.text)
		if len(it.text) == 0 || it.text[len(it.text)-1] != '\n' {
			b.WriteByte('\n')
		}
		it.drop = true
	}
	what := rest[0].label
	if len(rest) > 1 {
		what += " to " + strings.TrimPrefix(rest[len(rest)-1].label, "text block ")
	}
	note := fmt.Sprintf("[crumb: %s more parts (%s; %s) are left out for lack of room", textfmt.Int(int64(len(rest))), what, textfmt.Size(int64(b.Len())))
	data := b.Bytes()
	ref, err := m.put(data, store.Meta{Tool: m.in.Tool, Kind: string(KindText), Args: m.in.Args})
	switch {
	case err == nil:
		next := recall.Request{Ref: ref, Rev: recall.Rev(store.Sum(data)), Lines: &recall.Span{From: 1}}
		note += "; they are stored one after another, each on its own lines, as " + string(ref) + "; read on: " + m.in.Hint(next) + "]"
		m.next = &next
	case m.ctx.Err() != nil:
		return m.ctx.Err()
	default:
		note += "; " + m.whereText(rest[0]) + " reads the first]"
	}
	rest[0].drop, rest[0].out, rest[0].projected = false, note, true
	return nil
}

// leaveOut drops items from the result, with one note in place of the
// first that says where each can be read.
func (m *mcpProjection) leaveOut(items []*textItem) {
	var names []string
	var size int64
	for i, it := range items {
		size += it.size()
		if i < 6 {
			names = append(names, it.label)
		}
		it.drop = true
	}
	if len(items) > len(names) {
		names = append(names, "…")
	}
	note := fmt.Sprintf("[crumb: %d more parts are left out for lack of room (%s; %s in all)", len(items), strings.Join(names, ", "), textfmt.Size(size))
	if first := items[0]; m.in.Ref != "" && first.ptr != "" {
		p := first.ptr
		note += "; they are in the stored result: " + m.in.ReadHint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &p}) + " reads the first"
		if len(items) > 1 {
			note += ", and the same with " + items[1].ptr + " the next"
		}
	} else {
		note += "; they could not be stored"
	}
	note += "]"
	items[0].drop = false
	items[0].out = note
	items[0].projected = true
}

// reference replaces an item by a note that names its stored copy.
func (m *mcpProjection) reference(it *textItem) error {
	ref, sub, err := m.storeItem(it)
	if err != nil {
		return err
	}
	desc := it.label + ": " + textfmt.Size(it.size())
	if n, err := sub.Doc().Lines(); err == nil {
		desc += ", " + textfmt.Plural(n, "line")
	}
	if ref == "" {
		it.out = "[crumb: " + desc + ", left out for lack of room; " + m.whereText(it) + "]"
	} else {
		it.out = "[crumb: " + desc + ", left out for lack of room; read it: " + m.in.Hint(recall.Request{Ref: ref, Rev: sub.Rev(), Lines: &recall.Span{From: 1}}) + "]"
	}
	it.projected = true
	return nil
}

// whereText says where an item's text can be read when it could not be
// stored apart.
func (m *mcpProjection) whereText(it *textItem) string {
	if m.in.Ref == "" || it.ptr == "" {
		return "it could not be stored"
	}
	p := it.ptr
	return "it is in the stored result: " + m.in.ReadHint(recall.Request{Ref: m.in.Ref, Rev: m.in.Rev(), Pointer: &p})
}

// storeItem stores an item's text apart and returns an input over it.
func (m *mcpProjection) storeItem(it *textItem) (store.Ref, *Input, error) {
	args := m.in.Args
	if it.args != nil {
		args = it.args
	}
	if it.spill != nil {
		// Stored already, by the caller: not again.
		src := it.spill.Source
		if it.kind == "" {
			head := make([]byte, min(src.Size(), int64(sniff.Len)))
			n, _ := src.ReadAt(head, 0)
			it.kind = Detect(head[:n], Hints{Tool: m.in.Tool})
		}
		sub := &Input{
			Source: src, Ref: it.spill.Ref, Digest: src.Info().Digest, Tool: m.in.Tool, Args: args,
			Counter: m.in.Counter, Hint: m.in.Hint, Line: m.in.Line, Put: m.in.Put,
		}
		return it.spill.Ref, sub, nil
	}
	src := newBytesSource(it.text)
	kind := it.kind
	if kind == "" {
		kind = Detect(it.text[:min(len(it.text), sniff.Len)], Hints{Tool: m.in.Tool})
	}
	sub := &Input{
		Source: src, Digest: src.info.Digest, Tool: m.in.Tool, Args: args,
		Counter: m.in.Counter, Hint: m.in.Hint, Line: m.in.Line, Put: m.in.Put,
	}
	ref, err := m.put(it.text, store.Meta{Tool: m.in.Tool, Kind: string(kind), Args: args})
	if err != nil {
		if m.ctx.Err() != nil {
			return "", nil, m.ctx.Err()
		}
		sub.StoreError = err.Error()
		return "", sub, nil
	}
	sub.Ref = ref
	it.kind = kind
	return ref, sub, nil
}

// projectItem projects an item's text, stored apart, within share tokens.
func (m *mcpProjection) projectItem(it *textItem, share int) error {
	_, sub, err := m.storeItem(it)
	if err != nil {
		return err
	}
	sub.Budget = share
	var out Output
	if sub.Ref == "" && m.in.Ref != "" {
		// Not stored apart, but the whole result is: say where.
		sub.Budget = max(share-m.in.Counter.Count(m.whereText(it))-4, recall.MinBudget)
	}
	out, err = Project(m.ctx, it.kind, sub)
	if err != nil && m.ctx.Err() == nil && it.kind != KindText {
		out, err = Project(m.ctx, KindText, sub)
	}
	if err != nil {
		return err
	}
	it.out = out.Text
	if sub.Ref == "" && m.in.Ref != "" {
		it.out = "[crumb: " + m.whereText(it) + "]\n" + it.out
	}
	it.projected = true
	if m.next == nil && out.Next != nil {
		m.next = out.Next
	}
	return nil
}

// encodeBase64 is the standard encoding MCP uses for data.
func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
