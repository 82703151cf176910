package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// How much of a large JSON document the projector reads. A document up to
// jsonSample.full bytes is scanned whole. A larger one is read in part, so
// that projecting a 1 GB document costs about what a 36 MB one does: its
// first jsonSample.head bytes are scanned as a small document is (the
// outline, the shape of its arrays and the parts that match the intent come
// from them), and its last jsonSample.tail bytes are read from a line
// start, which in JSON always lies between tokens, for the last top-level
// values of a stream or the last members or elements of the outermost
// container (see jsonscan.ScanTail). The view says so: counts of what was
// not read whole say "at least", and it names the read of the bytes it did
// not read. Tests make these smaller.
//
// The end is read in two steps: its last jsonSample.tailFirst bytes, which
// hold the last items of all but documents whose last items are huge, and
// only when no item starts in them, its last jsonSample.tail bytes.
var jsonSample = struct{ full, head, tailFirst, tail int64 }{full: 64 << 20, head: 32 << 20, tailFirst: 1 << 20, tail: 4 << 20}

// jsonQueryMax is the largest document the view offers jq queries on:
// recall runs jq over the whole document in memory, up to
// recall.MaxQueryBytes. Above it, the view names pointers and lines
// instead. Tests make it smaller.
var jsonQueryMax int64 = recall.MaxQueryBytes

// jsonTailKeep is how many of the last items the pass keeps from the end
// of a sampled document.
const jsonTailKeep = 3

// jsonTail is what was read of the end of a sampled document.
type jsonTail struct {
	// from is where it starts: a line start.
	from int64
	// count is how many items start after from: members or elements of
	// the outermost container, or top-level values.
	count int64
	// items are the last of them, and starts where each starts (its key,
	// for a member).
	items  []*ochild
	starts []int64
	// why says why the end was not read, when it was not.
	why string
}

// finishCut ends the pass over the first part of a sampled document: the
// containers still open keep the counts read so far, as lower bounds, and
// the end of the document is read.
func (p *jsonPass) finishCut(ctx context.Context, r io.ReaderAt) error {
	for i := len(p.frames) - 1; i >= 1; i-- {
		g := &p.frames[i]
		if n := g.node; n != nil {
			n.open = true
			if g.obj {
				n.maxMembers = max(n.maxMembers, g.n)
			} else {
				n.maxLen = max(n.maxLen, g.n)
				n.items += g.n
			}
		}
		if g.info != nil {
			g.info.n, g.info.open, g.info.end = g.n, true, p.size
		}
		if g.self != nil {
			g.self.end = p.size
		}
		if f := &p.frames[i-1]; f.info != nil && !f.obj {
			f.info.last.end = p.size
		}
	}
	p.outer.open = true
	if p.outer.n == 0 {
		// The first value is a string or a number longer than the first
		// part: it runs on to where the scan stopped, at least.
		if err := p.firstScalar(r); err != nil {
			return err
		}
	}
	p.values = max(p.values, p.outer.n)
	if err := ctx.Err(); err != nil {
		return err
	}
	root := jsonscan.None
	if p.outer.n == 1 && len(p.frames) > 1 {
		root = p.outer.kids[0].kind
	}
	tail, stream, err := readJSONTail(r, p.read, p.size, root)
	if err != nil {
		return err
	}
	if stream {
		p.values = max(p.values, 2)
	}
	p.tail = tail
	return nil
}

// firstScalar records the first value of a document whose first part
// ends inside it: a string or a number, taken to run to the end.
func (p *jsonPass) firstScalar(r io.ReaderAt) error {
	var b [4096]byte
	n, err := r.ReadAt(b[:min(int64(len(b)), p.size)], 0)
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("project: reading the start of a JSON document: %w", err)
	}
	i := bytes.IndexFunc(b[:n], func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' && r != '\uFEFF' })
	if i < 0 {
		return nil
	}
	kind := jsonscan.Number
	if b[i] == '"' {
		kind = jsonscan.String
	}
	p.outer.kids = append(p.outer.kids, &ochild{kind: kind, start: int64(i), end: p.size})
	p.outer.n = 1
	return nil
}

// readJSONTail reads the end of a document from a line start at or after
// max(read, size-jsonSample.tailFirst), or, when no item starts there,
// max(read, size-jsonSample.tail): the last members or elements of the
// outermost container when root names its kind (the first value is still
// open where the first part ends), else the last top-level values. stream
// reports that top-level values were found after a first one that was
// still open.
func readJSONTail(r io.ReaderAt, read, size int64, root jsonscan.Kind) (*jsonTail, bool, error) {
	if first := max(read, size-jsonSample.tailFirst); first > max(read, size-jsonSample.tail) {
		t, stream, err := readJSONTailFrom(r, first, size, root)
		if err != nil || len(t.items) > 0 {
			return t, stream, err
		}
	}
	return readJSONTailFrom(r, max(read, size-jsonSample.tail), size, root)
}

// readJSONTailFrom is readJSONTail reading from a line start at or after
// from.
func readJSONTailFrom(r io.ReaderAt, from, size int64, root jsonscan.Kind) (*jsonTail, bool, error) {
	if from >= size {
		return &jsonTail{why: "nothing is left after the first part"}, false, nil
	}
	buf := make([]byte, size-from)
	if n, err := r.ReadAt(buf, from); n < len(buf) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, false, fmt.Errorf("project: reading the last %s of a JSON document: %w", textfmt.Size(size-from), err)
	}
	level := 0
	if root != jsonscan.None {
		level = 1
	}
	t, err := jsonscan.ScanTail(buf, from, level, jsonTailKeep)
	stream := false
	if err != nil && level == 1 {
		// The first value may end before: a stream whose first value is
		// large.
		if t0, err0 := jsonscan.ScanTail(buf, from, 0, jsonTailKeep); err0 == nil && t0.Count > 0 {
			t, err, stream = t0, nil, true
		}
	}
	if err != nil {
		var te *jsonscan.TailError
		if !errors.As(err, &te) {
			return nil, false, err
		}
		why := te.Msg
		if strings.Contains(why, "no line break") {
			why = "its last " + textfmt.Size(size-from) + " hold no line break to start reading at"
		} else {
			why = "it could not be read on its own (" + why + " at byte " + textfmt.Int(te.Offset) + ")"
		}
		return &jsonTail{why: why}, false, nil
	}
	switch {
	case t.Count == 0 && t.Depth == 0:
		// White space after the last line break: nothing was read.
		return &jsonTail{why: "its last " + textfmt.Size(size-from) + " hold no line break to start reading at"}, false, nil
	case t.Count == 0:
		return &jsonTail{why: "no value starts in its last " + textfmt.Size(size-from)}, false, nil
	case level == 1 && !stream && t.Outer != root:
		return &jsonTail{why: "it does not end as it begins: " + kindWord(root) + " closes with " + closer(t.Outer)}, false, nil
	}
	out := &jsonTail{from: t.From, count: t.Count}
	for _, it := range t.Items {
		c := &ochild{index: -1, kind: it.Kind, start: it.Start, end: it.End}
		at := it.Start
		if it.Key.Kind == jsonscan.Key {
			raw := buf[it.Key.Start-from : it.Key.End-from]
			c.key, c.keyCut = jsonscan.KeyText(raw, false)
			at = it.Key.Start
		}
		out.items = append(out.items, c)
		out.starts = append(out.starts, at)
	}
	return out, stream, nil
}

// kindWord names the kind of a container.
func kindWord(k jsonscan.Kind) string {
	if k == jsonscan.BeginObject {
		return "an object"
	}
	return "an array"
}

// closer is the bracket that closes a container of kind k.
func closer(k jsonscan.Kind) string {
	if k == jsonscan.BeginObject {
		return "'}'"
	}
	return "']'"
}

// trimFirst drops the index among top-level values from the pointers the
// shape keeps, for a document of one value.
func (p *jsonPass) trimFirst() {
	if !p.sampled {
		return
	}
	p.walkKeys(func(k *shapeKey) { k.first = strings.TrimPrefix(k.first, "/0") })
}

// walkKeys calls fn for every key of the shape.
func (p *jsonPass) walkKeys(fn func(k *shapeKey)) {
	seen := map[*shapeNode]bool{}
	var walk func(n *shapeNode)
	walk = func(n *shapeNode) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		for _, k := range n.keys {
			fn(k)
			walk(k.node)
		}
		walk(n.elem)
		walk(n.other)
	}
	walk(p.top)
}

// clearFirst drops the pointers to the first members of keys that the
// shape keeps, which only a sampled document's pass records: for the pass
// of a prescan that recorded them before it knew the document's size.
func (p *jsonPass) clearFirst() {
	p.walkKeys(func(k *shapeKey) { k.first = "" })
}

// atLeast is "at least " for counts of a sampled document that may not be
// whole.
func (v *jsonView) atLeast(open bool) string {
	if open {
		return "at least "
	}
	return ""
}

// jqOK reports whether the view may offer jq queries.
func (v *jsonView) jqOK() bool { return v.in.Source.Size() <= jsonQueryMax }

// lineAt returns the line that holds byte off, remembering it: the
// outline is rendered many times.
func (v *jsonView) lineAt(off int64) (int64, error) {
	if n, ok := v.lineMemo[off]; ok {
		return n, nil
	}
	n, err := v.doc.LineAt(off)
	if err != nil {
		return 0, err
	}
	if v.lineMemo == nil {
		v.lineMemo = map[int64]int64{}
	}
	v.lineMemo[off] = n
	return n, nil
}

// jsonLongLines is the longest average line of a document whose parts the
// view names by lines; a longer one (minified JSON) is read by bytes.
const jsonLongLines = 64 << 10

// spanRead is the read of bytes [from, to) of the document: the lines that
// hold them when the store indexed the document's lines (else finding a
// line would read the document up to it) and its lines are not too long,
// or else those bytes.
func (v *jsonView) spanRead(from, to int64) (recall.Request, error) {
	r := recall.Request{Ref: v.in.Ref, Rev: v.in.Rev()}
	to = max(to, from+1)
	if !v.indexed || v.lines <= 0 || v.in.Source.Size()/v.lines > jsonLongLines {
		r.Bytes = &recall.Span{From: from, To: to}
		return r, nil
	}
	a, err := v.lineAt(from)
	if err != nil {
		return r, err
	}
	b, err := v.lineAt(to - 1)
	if err != nil {
		return r, err
	}
	r.Lines = &recall.Span{From: a, To: max(a, b)}
	return r, nil
}

// allRead is the read of the whole text of the document.
func (v *jsonView) allRead() recall.Request {
	if v.lines < 0 {
		return recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Bytes: &recall.Span{From: 0, To: max(v.in.Source.Size(), 1)}}
	}
	return recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Lines: &recall.Span{From: 1, To: max(v.lines, 1)}}
}

// unread is the span of bytes a sampled document's view did not read:
// from the end of the first part to the start of what was read of its end.
func (v *jsonView) unread() (from, to int64) {
	to = v.in.Source.Size()
	if t := v.p.tail; t != nil && t.why == "" {
		to = t.from
	}
	return v.p.read, to
}

// sampleNote says what of a sampled document was read, what its counts
// cover, and the read of the rest.
func (v *jsonView) sampleNote() (string, error) {
	size := v.in.Source.Size()
	from, to := v.unread()
	var b strings.Builder
	fmt.Fprintf(&b, "[crumb json: this document is over %s, so only part of it was read: its first %s", textfmt.Size(jsonSample.full), textfmt.Size(v.p.scanned))
	t := v.p.tail
	if t != nil && t.why == "" {
		fmt.Fprintf(&b, " and its last %s", textfmt.Size(size-t.from))
	} else if t != nil {
		fmt.Fprintf(&b, " (not its end: %s)", t.why)
	}
	b.WriteString("; counts that say \"at least\" are of what was read")
	if to > from {
		r, err := v.spanRead(from, to)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "; the %s between were not read: %s", textfmt.Size(to-from), v.in.ReadHint(r))
	}
	b.WriteString("]")
	return b.String(), nil
}

// restFrom is the read of the rest of a container open where the first
// part ends, from byte off: up to the last items the view shows from the
// end of the document when it is the outermost container, else to the
// end.
func (v *jsonView) restFrom(off int64, info *cinfo) (string, error) {
	to := v.in.Source.Size()
	if s := v.tailShownFrom(); s >= 0 && info == v.p.rootInfo() {
		to = s
	}
	r, err := v.spanRead(off, max(to, off+1))
	if err != nil {
		return "", err
	}
	return v.in.ReadHint(r), nil
}

// openArrayRest renders the line that ends the elements an outline shows
// of an array still open where the first part of a sampled document ends:
// the elements read and not shown, and the rest, not read.
func (v *jsonView) openArrayRest(info *cinfo, toks []string, shown int64, stream bool) (string, error) {
	v.omitted = true
	if rest := info.n - shown; rest > 0 {
		from := append(toks[:len(toks):len(toks)], strconv.FormatInt(shown, 10))
		to := append(toks[:len(toks):len(toks)], strconv.FormatInt(info.n-1, 10))
		v.notePtr(ptrOf(from))
		line := "… " + textfmt.Plural(rest, "more item") + " read: " + ptrText(ptrOf(from))
		if rest > 1 {
			line += " … " + ptrText(ptrOf(to))
		}
		line += ", and more not read"
		if v.jqOK() {
			q := recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Query: jqFrom(toks, shown)}
			return line + " (all of them: " + v.in.ReadHint(q) + ")", nil
		}
		start := info.kids[min(int(shown), len(info.kids)-1)].start
		read, err := v.restFrom(start, info)
		if err != nil {
			return "", err
		}
		return line + " (from " + ptrText(ptrOf(from)) + " on: " + read + ")", nil
	}
	read, err := v.restFrom(v.p.read, info)
	if err != nil {
		return "", err
	}
	return "… more items, not read (" + read + ")", nil
}

// jqFrom is the jq expression for the elements of the array at toks from
// index from on.
func jqFrom(toks []string, from int64) string {
	base := jqPathOf(toks)
	if base != "." {
		base = strings.TrimSuffix(base, ".")
	}
	return fmt.Sprintf("%s[%d:]", base, from)
}

// openObjectRest renders the line that ends the members an outline shows
// of an object still open where the first part of a sampled document
// ends.
func (v *jsonView) openObjectRest(info *cinfo, toks []string, shown int) (string, error) {
	v.omitted = true
	ptr := ptrOf(toks)
	v.notePtr(ptr)
	rest := info.n - int64(shown)
	if rest <= 0 || shown >= len(info.kids) {
		read, err := v.restFrom(v.p.read, info)
		if err != nil {
			return "", err
		}
		if rest > 0 {
			return "… " + textfmt.Plural(rest, "more key") + " read, and more not read (" + read + ")", nil
		}
		return "… more keys, not read (" + read + ")", nil
	}
	var names []string
	for _, k := range info.kids[shown:] {
		if len(names) == 4 {
			break
		}
		names = append(names, quoteJSON(k.key))
	}
	line := "… " + textfmt.Plural(rest, "more key") + " read: " + strings.Join(names, ", ")
	if rest > int64(len(names)) {
		line += ", …"
	}
	k := info.kids[shown]
	read, err := v.restFrom(k.start, info)
	if err != nil {
		return "", err
	}
	return line + ", and more not read (from " + quoteJSON(k.key) + " on: " + read + ")", nil
}

// tailShownFrom is where the last items the view shows from the end of a
// sampled document start; -1 when it shows none. It shows the last members
// of an object it keeps, and the last element or top-level value.
func (v *jsonView) tailShownFrom() int64 {
	t := v.p.tail
	info := v.p.rootInfo()
	if t == nil || t.why != "" || len(t.items) == 0 || info == nil {
		return -1
	}
	if info.kind == jsonscan.BeginObject && v.p.values <= 1 {
		return t.starts[0]
	}
	return t.starts[len(t.starts)-1]
}

// tailLines renders the last items read from the end of a sampled
// document, in the outline of the outermost container (or of the stream
// of top-level values): the last element, whose index was not counted, or
// the last members.
func (v *jsonView) tailLines(out *[]string, info *cinfo, toks []string, d int, inner string, lv olevel) error {
	t := v.p.tail
	if t == nil || t.why != "" || len(t.items) == 0 || info != v.p.rootInfo() {
		return nil
	}
	if info.kind == jsonscan.BeginObject && v.p.values <= 1 {
		*out = append(*out, inner+"… the last "+textfmt.Plural(int64(len(t.items)), "key")+", read from the end:")
		for _, k := range t.items {
			if err := v.node(out, k, quoteJSON(k.key)+": ", append(toks[:len(toks):len(toks)], k.key), d+1, inner, lv, false); err != nil {
				return err
			}
		}
		return nil
	}
	last := t.items[len(t.items)-1]
	text, _, _, err := v.anonPreview(last, lv.inline)
	if err != nil {
		return err
	}
	r, err := v.spanRead(last.start, last.end)
	if err != nil {
		return err
	}
	what := "item"
	if v.p.values > 1 && info == v.p.outer {
		what = "value"
	}
	*out = append(*out, inner+text+"  # the last "+what+", read from the end; its index was not counted: "+v.in.ReadHint(r))
	return nil
}

// anonPreview renders a value whose pointer is not known, on one line:
// what it leaves out is not named by pointers, and base64 data in it is
// not extracted; the read of the whole value goes with it.
func (v *jsonView) anonPreview(c *ochild, o previewOpts) (string, bool, bool, error) {
	v.anon = true
	defer func() { v.anon = false }()
	if c.kind == jsonscan.String {
		text, cut, err := v.stringValue(c.start, c.end, nil, o.strCut)
		return text, !cut, false, err
	}
	return v.preview(c.start, c.end, nil, o)
}

// rootInfo is the outline record whose end a sampled document's tail
// shows: the outermost container, or the stream of top-level values.
func (p *jsonPass) rootInfo() *cinfo {
	if p.values > 1 {
		return p.outer
	}
	if len(p.outer.kids) > 0 {
		return p.outer.kids[0].info
	}
	return nil
}

// rootCount is how many members or elements the outermost container (or
// values the stream) holds at least: those read from its start, and those
// read from its end.
func (p *jsonPass) rootCount(info *cinfo) int64 {
	n := info.n
	if t := p.tail; t != nil && t.why == "" && info == p.rootInfo() {
		n += t.count
	}
	return n
}

// indexedLines reports whether a store recorded the line index of src, so
// that finding a line reads one chunk at most.
func indexedLines(src Source) bool {
	info := src.Info()
	chunks := (src.Size() + store.ChunkSize - 1) / store.ChunkSize
	return info.Newlines != nil && int64(len(info.ChunkNewlines)) == chunks
}
