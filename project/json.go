package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

func init() {
	Register(KindJSON, ProjectorFunc(projectJSON))
}

// projectJSON shows a JSON document as a shape index: an outline of its
// top with the JSON pointer of every part it shortens or leaves out, the
// shape of its arrays of objects (keys, types, lengths, example values, as
// jq paths), and the reads that fetch exactly one part (crumb read REF
// --pointer /items/3, or --jq '.items[] | select(.status == "failed")').
// A document that fits the budget is shown whole, as it is, or else
// without the white space between its tokens when that fits. When the call
// carries an intent (see Call.Intent), the parts whose keys and values match
// its words come first, the best first, each with its pointer and as the
// document writes it (see json_intent.go). Base64 data inside it is stored
// apart and shown as a reference to its bytes.
//
// The document is read once by a byte-level scanner with bounded state;
// only the parts shown are decoded. A document larger than jsonSample.full
// is read in part, its start and its end, and the view says so, with "at
// least" on the counts that may be short and the read of what it did not
// read (see json_sample.go). A document that is not valid JSON is shown as
// text, with the place of the error named.
func projectJSON(ctx context.Context, in *Input) (Output, error) {
	// A test runner's JSON report (jest --json, ...) is shown decoded.
	if out, ok, err := projectTestReport(ctx, in, KindJSON); ok || err != nil {
		return out, err
	}
	// A prescan may have read the document while it was being stored.
	p, cut := takeJSON(ctx, in.Prescan, in.Source, in.Source.Size())
	var err error
	if p != nil {
		err = p.finish(ctx, in.Source, cut)
	} else {
		p, err = scanJSON(ctx, in.Source, in.Source.Size(), newJSONMatcher(in.Call().Intent))
	}
	if err != nil {
		return Output{}, err
	}
	if p.syntax != nil {
		return jsonInvalid(ctx, in, p.syntax)
	}
	v := &jsonView{ctx: ctx, in: in, p: p, assetNotes: map[int64]string{}, hits: p.hits(), doc: in.Doc(), indexed: indexedLines(in.Source)}
	if p.sampled && !v.indexed {
		// Counting the lines would read the whole document.
		v.lines = -1
	} else if v.lines, err = v.doc.Lines(); err != nil {
		return Output{}, err
	}
	if out, ok, err := v.whole(); ok || err != nil {
		return out, err
	}
	return v.render()
}

// what says what the document is, for the header.
func (v *jsonView) what() string {
	p := v.p
	if p.values > 1 {
		if p.sampled {
			return "at least " + textfmt.Int(p.rootCount(p.outer)) + " JSON values one after another"
		}
		return textfmt.Int(p.values) + " JSON values one after another"
	}
	if len(p.outer.kids) == 0 {
		return "empty"
	}
	c := p.outer.kids[0]
	switch c.kind {
	case jsonscan.BeginObject:
		if c.info != nil {
			return "object, " + v.atLeast(c.info.open) + textfmt.Plural(p.rootCount(c.info), "key")
		}
		return "object"
	case jsonscan.BeginArray:
		s := "array"
		if c.info != nil {
			s += ", " + v.atLeast(c.info.open) + textfmt.Plural(p.rootCount(c.info), "item")
		}
		if e := p.top.elem; e != nil && e.elem != nil && e.elem.count > 0 {
			s += " (" + kindsOf(e.elem) + ")"
		}
		return s
	case jsonscan.String:
		return "a string"
	case jsonscan.Number:
		return "a number"
	}
	return "a " + c.kind.String()
}

func (v *jsonView) facts() string {
	s := v.what() + ", " + textfmt.Size(v.in.Source.Size())
	if v.lines >= 0 {
		s += ", " + textfmt.Plural(v.lines, "line")
	}
	if v.in.Ref != "" {
		s += ", ref " + string(v.in.Ref)
	}
	return s
}

// wholeMaxBytes is the largest document the projector tries to show whole:
// none larger could fit a budget of that many bytes / 16 tokens anyway.
func (v *jsonView) wholeMaxBytes() int64 { return int64(tokens.MaxBytes(v.in.Budget)) }

// whole shows a document that fits the budget as it is.
func (v *jsonView) whole() (Output, bool, error) {
	size := v.in.Source.Size()
	if size > v.wholeMaxBytes() {
		return Output{}, false, nil
	}
	buf := make([]byte, size)
	if n, err := v.in.Source.ReadAt(buf, 0); n < len(buf) && err != nil && !errors.Is(err, io.EOF) {
		return Output{}, false, err
	}
	var b strings.Builder
	b.WriteString("[crumb json: " + v.facts() + "; shown whole]")
	for _, l := range bytes.Split(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n")) {
		b.WriteByte('\n')
		b.WriteString(v.in.Line(l, false))
	}
	text := b.String()
	if v.in.Counter.Count(text) <= v.in.Budget {
		return Output{Text: text, Complete: v.in.StoreError == ""}, true, nil
	}
	// The white space between tokens carries nothing: without it, the
	// document may still fit, every value shown as it is written.
	compact := compactValues(buf)
	if compactLen(compact) >= len(bytes.TrimSpace(buf)) {
		return Output{}, false, nil
	}
	b.Reset()
	b.WriteString("[crumb json: " + v.facts() + "; shown whole without the white space between its tokens, one value a line")
	if v.in.Ref != "" {
		b.WriteString("; as it is written: " + v.in.ReadHint(v.allRead()))
	}
	b.WriteString("]")
	for _, l := range compact {
		b.WriteByte('\n')
		b.WriteString(v.in.Line(l, false))
	}
	text = b.String()
	if v.in.Counter.Count(text) > v.in.Budget {
		return Output{}, false, nil
	}
	return Output{Text: text}, true, nil
}

// compactValues writes each top-level value of a valid JSON document on a
// line of its own, without the white space between its tokens.
func compactValues(doc []byte) [][]byte {
	var out [][]byte
	var cur []byte
	in, depth := false, 0
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch {
		case in && c == '\\' && i+1 < len(doc):
			cur = append(cur, c, doc[i+1])
			i++
			continue
		case c == '"':
			if !in && depth == 0 && len(cur) > 0 {
				out = append(out, cur) // a scalar ends where a string starts
				cur = nil
			}
			in = !in
		case in:
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			// A scalar at the top level ends at white space.
			if depth == 0 && len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		case c == '{' || c == '[':
			if depth == 0 && len(cur) > 0 {
				out = append(out, cur) // a scalar ends where a container starts
				cur = nil
			}
			depth++
		case c == '}' || c == ']':
			depth--
		}
		cur = append(cur, c)
		if depth == 0 && !in && (c == '}' || c == ']' || c == '"') && len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// compactLen is the length of lines written one after another, as a
// document would be.
func compactLen(lines [][]byte) int {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	return n - 1
}

// fitOutline picks the most detailed level at which the outline, with the
// root expanded, fits share tokens, then expands more containers while it
// fits.
func (v *jsonView) fitOutline(share int, cost func([]string) int) ([]string, int, error) {
	root := int64(-1) // the stream of top-level values
	array := true
	if v.p.values == 1 && len(v.p.outer.kids) > 0 {
		c := v.p.outer.kids[0]
		root, array = c.start, c.kind == jsonscan.BeginArray
	}
	for i := len(olevels) - 1; i >= 0; i-- {
		for _, n := range caps(olevels[i], array) {
			v.expand = map[int64]int{root: n}
			lines, err := v.outline(olevels[i])
			if err != nil {
				return nil, 0, err
			}
			if cost(lines) <= share {
				lines, err = v.grow(i, lines, share, cost)
				return lines, i, err
			}
			if i > 0 {
				break // try the root at full width on a terser level first
			}
		}
	}
	// Not even a few of the root's members fit: show it on one line.
	v.expand = map[int64]int{}
	lines, err := v.outline(olevels[0])
	return lines, 0, err
}

// caps lists how many members (or first elements) an expanded container
// may list at level lv, widest first.
func caps(lv olevel, array bool) []int {
	n := lv.members
	if array {
		n = lv.elems
	}
	var out []int
	for ; n >= 2; n /= 2 {
		out = append(out, n)
	}
	return append(out, 1)
}

// tiny is the outline for the smallest budgets: the root, or the first of
// several values, on one short line.
func (v *jsonView) tiny() []string {
	if len(v.p.outer.kids) == 0 {
		return nil
	}
	c := v.p.outer.kids[0]
	o := previewOpts{maxBytes: 200, depth: 1, members: 3, elems: 2, strCut: 16}
	var toks []string
	label := ""
	if v.p.values > 1 {
		toks, label = []string{"0"}, "the first value: "
	}
	text, complete, _, err := v.preview(c.start, c.end, toks, o)
	if err != nil {
		return nil
	}
	if !complete {
		v.omitted = true
	}
	return []string{label + text}
}

// maxExpandTries bounds how many renderings the outline tries while it
// grows.
const maxExpandTries = 64

// grow expands the containers the outline shows on one line, nearest the
// root first, each as wide as fits, while the outline fits share tokens;
// then lists more elements of the arrays it expanded.
func (v *jsonView) grow(level int, lines []string, share int, cost func([]string) int) ([]string, error) {
	if v.expand == nil {
		return lines, nil
	}
	tries := 0
	try := func(start int64, n int) (bool, error) {
		tries++
		old, had := v.expand[start]
		v.expand[start] = n
		next, err := v.outline(olevels[level])
		if err != nil {
			return false, err
		}
		if cost(next) <= share {
			lines = next
			return true, nil
		}
		if had {
			v.expand[start] = old
		} else {
			delete(v.expand, start)
		}
		return false, nil
	}
	tried := map[int64]bool{}
	cands := slices.Clone(v.collapsed)
	for tries < maxExpandTries {
		slices.SortStableFunc(cands, func(a, b collapsedNode) int { return a.depth - b.depth })
		progress := false
		for _, c := range cands {
			if tried[c.start] || tries >= maxExpandTries {
				continue
			}
			tried[c.start] = true
			for _, n := range caps(olevels[level], c.array) {
				ok, err := try(c.start, n)
				if err != nil {
					return nil, err
				}
				if ok {
					progress = true
					break
				}
			}
			if progress {
				break
			}
		}
		if !progress {
			break
		}
		// Re-render what was kept, for its collapsed containers.
		if _, err := v.outline(olevels[level]); err != nil {
			return nil, err
		}
		cands = slices.Clone(v.collapsed)
	}
	// List more elements of the arrays expanded, while it fits.
	starts := make([]int64, 0, len(v.expand))
	for s := range v.expand {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	for _, s := range starts {
		for n := v.expand[s] * 2; n <= outlineElems && tries < maxExpandTries*2; n *= 2 {
			ok, err := try(s, n)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
		}
	}
	_, err := v.outline(olevels[level])
	return lines, err
}

// render builds the outline and shape view within the budget.
func (v *jsonView) render() (Output, error) {
	in := v.in
	bs := v.blocks()
	header := func(matches bool) string {
		h := "[crumb json: " + v.facts() + "; shown: "
		if matches {
			h += "the parts that match the intent, "
		}
		h += "an outline"
		if len(bs) > 0 {
			h += " and the shape of its arrays"
		}
		return h + "; parts left out are marked … with their /pointer]"
	}
	footer := v.footer(bs)
	footer = append(footer[:0:0], footer...)
	cost := func(lines []string) int {
		if len(lines) == 0 {
			return 0
		}
		return v.count(lines...) + 1
	}
	fixed := in.Counter.Count(header(len(v.hits) > 0)) + cost(footer) + 8
	if in.StoreError != "" {
		fixed += in.Counter.Count(v.storeNote()) + 1
	}
	if v.p.sampled {
		note, err := v.sampleNote()
		if err != nil {
			return Output{}, err
		}
		v.note = note
		fixed += in.Counter.Count(note) + 1
	}
	room := in.Budget - fixed

	// The parts that match the intent come first, in up to half the room.
	matches, err := v.intentLines(room / 2)
	if err != nil {
		return Output{}, err
	}
	if len(matches) > 0 {
		matches = append(matches, "the outline:")
		room -= cost(matches)
	}

	// The outline takes up to 60% of the room when there is a shape to
	// show, then the shape takes what is left, then the outline grows
	// into what the shape left over.
	share := room
	if len(bs) > 0 {
		share = room * 6 / 10
	}
	outline, oi, err := v.fitOutline(share, cost)
	if err != nil {
		return Output{}, err
	}
	var shape []string
	si := 0
	for j := len(slevels) - 1; j >= 0; j-- {
		lines := v.shape(bs, slevels[j])
		if cost(lines) <= room-cost(outline) || j == 0 {
			shape, si = lines, j
			break
		}
	}
	if outline, err = v.grow(oi, outline, room-cost(shape), cost); err != nil {
		return Output{}, err
	}
	assets, err := v.assetLines(room - cost(outline) - cost(shape))
	if err != nil {
		return Output{}, err
	}

	// Render the chosen parts again, to know the first part they omit,
	// which the footer's example reads.
	v.omitted, v.firstPtr = false, nil
	if outline, err = v.outline(olevels[oi]); err != nil {
		return Output{}, err
	}
	shape = v.shape(bs, slevels[si])
	footer = v.footer(bs)
	text := v.assemble(header(len(matches) > 0), matches, outline, shape, assets, footer)
	for in.Counter.Count(text) > in.Budget {
		// The parts' token counts do not add up exactly: step down.
		switch {
		case len(assets) > 0:
			assets = assets[:len(assets)-1]
		case si > 0:
			si--
			shape = v.shape(bs, slevels[si])
		case oi > 0:
			oi--
			v.omitted, v.firstPtr = false, nil
			if outline, err = v.outline(olevels[oi]); err != nil {
				return Output{}, err
			}
		case len(outline) > 1:
			outline = v.tiny()
		case len(matches) > 0:
			matches = nil
		case len(outline) > 0:
			outline = nil
		default:
			footer = nil
		}
		text = v.assemble(header(len(matches) > 0), matches, outline, shape, assets, footer)
		if footer == nil && outline == nil && matches == nil {
			break
		}
	}
	out := Output{Text: text}
	if in.Ref != "" {
		next := v.allRead()
		out.Next = &next
	}
	return out, nil
}

func (v *jsonView) assemble(header string, parts ...[]string) string {
	var b strings.Builder
	b.WriteString(header)
	if v.in.StoreError != "" {
		b.WriteString("\n" + v.storeNote())
	}
	if v.note != "" {
		b.WriteString("\n" + v.note)
	}
	for _, lines := range parts[:len(parts)-1] {
		for _, l := range lines {
			b.WriteByte('\n')
			b.WriteString(v.in.Line([]byte(l), false))
		}
	}
	footer := parts[len(parts)-1]
	for _, l := range footer {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	return b.String()
}

func (v *jsonView) storeNote() string {
	return "[crumb could not store this result: " + v.in.StoreError + "; what is omitted here cannot be read back]"
}

// footer names the reads that fetch one part, a selection, or the text.
func (v *jsonView) footer(bs []shapeBlock) []string {
	in := v.in
	if in.Ref == "" {
		return nil
	}
	ptr := ""
	if v.firstPtr != nil {
		ptr = *v.firstPtr
	} else if len(v.p.outer.kids) > 0 {
		if c := v.p.outer.kids[0]; c.info != nil && len(c.info.kids) > 0 {
			k := c.info.kids[0]
			if c.kind == jsonscan.BeginObject {
				ptr = jsonscan.Pointer(k.key)
			} else {
				ptr = "/0"
			}
		}
	}
	if v.p.values > 1 {
		ptr = "/0"
	}
	p := recall.Request{Ref: in.Ref, Rev: in.Rev(), Pointer: &ptr}
	q := recall.Request{Ref: in.Ref, Rev: in.Rev(), Query: v.jqExample(bs)}
	raw := v.allRead()
	stream := ""
	if v.p.values > 1 {
		stream = " (it sees the values as one array, as jq -s does)"
	}
	if !v.jqOK() {
		// recall runs no jq query on a document this large.
		return []string{fmt.Sprintf("[read one part: %s · the raw text: %s]", in.ReadHint(p), in.ReadHint(raw))}
	}
	if in.Budget < 800 {
		return []string{fmt.Sprintf("[read one part: %s · select with jq%s: %s]", in.ReadHint(p), stream, in.ReadHint(q))}
	}
	return []string{fmt.Sprintf("[read one part: %s · select with jq%s: %s · the raw text: %s]", in.ReadHint(p), stream, in.ReadHint(q), in.ReadHint(raw))}
}

// assetLines names the base64 data found in the document and not already
// shown in the outline, within room tokens.
func (v *jsonView) assetLines(room int) ([]string, error) {
	var out []string
	used := 0
	for _, a := range v.p.assets {
		if _, shown := v.assetNotes[a.start]; shown {
			continue
		}
		note, ok, err := v.assetNote(a.start, a.end, a.ptr)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		line := ptrText(a.ptr) + " holds " + note
		c := v.count(line) + 1
		if used+c > room {
			break
		}
		out = append(out, line)
		used += c
	}
	if v.p.moreAssets > 0 {
		line := fmt.Sprintf("… %s more strings that look like base64 data were not extracted", textfmt.Int(int64(v.p.moreAssets)))
		if c := v.count(line) + 1; used+c <= room {
			out = append(out, line)
		}
	}
	return out, nil
}

// jsonInvalid shows a document that is not valid JSON as text, saying
// where it breaks.
func jsonInvalid(ctx context.Context, in *Input, se *jsonscan.SyntaxError) (Output, error) {
	e, err := newExcerptor(in, false)
	if err != nil {
		return Output{}, err
	}
	off := min(se.Offset, max(in.Source.Size()-1, 0))
	line, err := e.Doc.LineAt(off)
	if err != nil {
		return Output{}, err
	}
	msg := se.Msg
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	note := fmt.Sprintf("[crumb json: this is not valid JSON: %s, at byte %s (line %s); it is shown as text", msg, textfmt.Int(se.Offset), textfmt.Int(line))
	if in.Ref != "" {
		r := recall.Request{Ref: in.Ref, Rev: in.Rev(), Lines: &recall.Span{From: max(1, line-5), To: min(line+5, e.Total)}}
		note += "; the lines around the error: " + in.ReadHint(r)
	}
	note += "]"
	return headTail(e, ctx, view.Layout{Title: "text", Prelude: []string{note}})
}
