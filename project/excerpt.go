package project

import (
	"context"
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// An excerpt is a run of the result shown as it is (each line rendered by
// Input.Line): whole lines, except that a line too long for the budget is
// shown in part and marked with "…".
type excerpt struct {
	from, to int64    // byte offsets; to is exclusive
	first    int64    // number of the line that holds from
	lines    []string // rendered lines
	offs     []int64  // offs[i] is where lines[i] starts; offs[len] == to
	cutStart bool     // from is inside a line
	cutEnd   bool     // to is inside a line
	headed   bool     // it opens with what matters (a heading): trimmed from its end
}

func (x excerpt) empty() bool { return len(x.lines) == 0 }

// last returns the number of the last line shown.
func (x excerpt) last() int64 { return x.first + int64(len(x.lines)) - 1 }

// excerptor cuts excerpts from an input and renders views made of them.
type excerptor struct {
	in      *Input
	doc     *lines.Doc
	total   int64 // lines
	numbers bool  // prefix lines with their numbers
	width   int   // digits of the largest line number
}

func newExcerptor(in *Input, numbers bool) (*excerptor, error) {
	doc := in.Doc()
	total, err := doc.Lines()
	if err != nil {
		return nil, err
	}
	return &excerptor{in: in, doc: doc, total: total, numbers: numbers, width: len(textfmt.Int(total))}, nil
}

// maxLineBytes bounds how much of one line is read: a line can't cost fewer
// than about one token per 16 bytes, so more could never fit the budget.
func (e *excerptor) maxLineBytes() int { return tokens.MaxBytes(e.in.Budget) }

func (e *excerptor) render(b []byte, line int64, fragment bool) string {
	return e.numPrefix(line) + e.in.Line(b, fragment)
}

// numPrefix returns the line-number column for a line, or "" when lines are
// not numbered.
func (e *excerptor) numPrefix(line int64) string {
	if !e.numbers {
		return ""
	}
	num := textfmt.Int(line)
	return strings.Repeat(" ", max(0, e.width-len(num))) + num + "\t"
}

func (e *excerptor) cost(s string) int { return e.in.Counter.Count(s) + 1 }

// forward returns the whole lines from offset from (a line start) onward,
// stopping before limit, within room tokens. When not even the first line
// fits, it returns as much of that line as fits.
func (e *excerptor) forward(from, limit int64, room int) (excerpt, int, error) {
	first, err := e.doc.LineAt(from)
	if err != nil {
		return excerpt{}, 0, err
	}
	x := excerpt{from: from, to: from, first: first}
	used := 0
	for pos, line := from, first; pos < limit; line++ {
		l, err := e.doc.ReadLine(pos, e.maxLineBytes())
		if err != nil {
			return excerpt{}, 0, err
		}
		if l.End > limit {
			break
		}
		s := e.render(l.Text, line, false)
		n := e.cost(s)
		if used+n > room || l.Cut {
			if x.empty() && room > 8 {
				k := e.fitPrefix(l.Text, line, room-2)
				if k > 0 {
					x.lines = append(x.lines, e.render(l.Text[:k], line, true)+" …")
					x.offs = append(x.offs, pos)
					x.to, x.cutEnd = pos+int64(k), true
					used += e.cost(x.lines[0])
				}
			}
			break
		}
		x.lines = append(x.lines, s)
		x.offs = append(x.offs, pos)
		used += n
		pos = l.End
		x.to = pos
	}
	x.offs = append(x.offs, x.to)
	return x, used, nil
}

// ends returns the head and the tail of the whole result within room
// tokens: the head takes at most share of it, the tail what is left.
func (e *excerptor) ends(room int, share float64) ([]excerpt, error) {
	size := e.doc.Size()
	head, used, err := e.forward(0, size, int(float64(room)*share))
	if err != nil {
		return nil, err
	}
	tail, _, err := e.backward(size, head.to, room-used)
	if err != nil {
		return nil, err
	}
	return []excerpt{head, tail}, nil
}

// backward returns the whole lines that end at offset end (a line start or
// the end of the result), going back no further than limit, within room
// tokens. When not even the last line fits, it returns as much of that
// line's end as fits.
func (e *excerptor) backward(end, limit int64, room int) (excerpt, int, error) {
	var rev []string
	var offs []int64
	used := 0
	pos := end
	x := excerpt{to: end}
	if end <= limit {
		x.from, x.offs = end, []int64{end}
		return x, 0, nil
	}
	// The number of the line that ends at end; earlier lines count down.
	line, err := e.doc.LineAt(end - 1)
	if err != nil {
		return excerpt{}, 0, err
	}
	line++
	for pos > limit {
		start, err := e.doc.PrevLineStart(pos)
		if err != nil {
			return excerpt{}, 0, err
		}
		line--
		// A line that begins inside what comes before limit can only be
		// shown in part, and only when nothing else is.
		if start < limit && len(rev) > 0 {
			break
		}
		l, err := e.doc.ReadLine(start, e.maxLineBytes())
		if err != nil {
			return excerpt{}, 0, err
		}
		if start >= limit {
			s := e.render(l.Text, line, false)
			if n := e.cost(s); used+n <= room && !l.Cut {
				rev = append(rev, s)
				offs = append(offs, start)
				x.first = line
				used += n
				pos = start
				continue
			}
		}
		if len(rev) == 0 && room > 8 {
			// Show the end of the line, which matters most at the end of
			// a result.
			contentEnd := l.End
			if nl, err := e.doc.ReadRange(l.End-1, l.End); err == nil && len(nl) == 1 && nl[0] == '\n' {
				contentEnd--
			}
			k := min(int64(e.maxLineBytes()), contentEnd-max(start, limit))
			tail, err := e.doc.ReadRange(contentEnd-k, contentEnd)
			if err != nil {
				return excerpt{}, 0, err
			}
			if j := e.fitSuffix(tail, line, room-2); j < len(tail) {
				s := e.numPrefix(line) + "… " + e.in.Line(tail[j:], true)
				cut := contentEnd - k + int64(j)
				rev = append(rev, s)
				offs = append(offs, cut)
				x.first = line
				used += e.cost(s)
				pos, x.cutStart = cut, cut > start
			}
		}
		break
	}
	x.from = pos
	for i := len(rev) - 1; i >= 0; i-- {
		x.lines = append(x.lines, rev[i])
		x.offs = append(x.offs, offs[i])
	}
	x.offs = append(x.offs, end)
	return x, used, nil
}

// fitPrefix returns the length of the longest prefix of b whose rendering
// fits in room tokens.
func (e *excerptor) fitPrefix(b []byte, line int64, room int) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		k := len(textfmt.CutUTF8(b, mid))
		if e.cost(e.render(b[:k], line, true)) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return len(textfmt.CutUTF8(b, lo))
}

// fitSuffix returns the start of the longest suffix of b whose rendering
// fits in room tokens.
func (e *excerptor) fitSuffix(b []byte, line int64, room int) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := (lo + hi) / 2
		j := mid
		for j < len(b) && b[j]&0xc0 == 0x80 {
			j++
		}
		if e.cost(e.numPrefix(line)+"… "+e.in.Line(b[j:], true)) <= room {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for lo < len(b) && b[lo]&0xc0 == 0x80 {
		lo++
	}
	return lo
}

// gap is an omitted stretch of the result, between excerpts.
type gap struct {
	from, to int64
	req      recall.Request
	label    string // "lines 41-1,999,840" or "bytes 1,024-9,876"
	note     string // what the stretch holds, when known ("532 lines like ...")
}

// gaps returns the omitted stretches around and between xs (sorted,
// non-overlapping excerpts), each with the read that recovers it.
func (e *excerptor) gaps(xs []excerpt) ([]gap, error) {
	var out []gap
	pos, cut := int64(0), false
	for i := 0; i <= len(xs); i++ {
		end, endCut := e.doc.Size(), false
		if i < len(xs) {
			end, endCut = xs[i].from, xs[i].cutStart
		}
		if end > pos {
			g, err := e.makeGap(pos, end, cut || endCut)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		if i < len(xs) {
			pos, cut = xs[i].to, xs[i].cutEnd
		}
	}
	return out, nil
}

func (e *excerptor) makeGap(from, to int64, byBytes bool) (gap, error) {
	g := gap{from: from, to: to, req: recall.Request{Ref: e.in.Ref, Rev: e.in.Rev()}}
	if byBytes {
		g.req.Bytes = &recall.Span{From: from, To: to}
		g.label = "bytes " + textfmt.Int(from) + "-" + textfmt.Int(to)
		return g, nil
	}
	a, err := e.doc.LineAt(from)
	if err != nil {
		return gap{}, err
	}
	b, err := e.doc.LineAt(to - 1)
	if err != nil {
		return gap{}, err
	}
	g.req.Lines = &recall.Span{From: a, To: b}
	if a == b {
		g.label = "line " + textfmt.Int(a)
	} else {
		g.label = "lines " + textfmt.Int(a) + "-" + textfmt.Int(b)
	}
	return g, nil
}

func (e *excerptor) marker(g gap, compact bool) string {
	size := textfmt.Size(g.to - g.from)
	if g.note != "" {
		size += "; " + g.note
	}
	if compact {
		return fmt.Sprintf("[… %s omitted (%s)]", g.label, size)
	}
	return fmt.Sprintf("[… %s omitted (%s); read them: %s]", g.label, size, e.in.hint(g.req))
}

// layout is a whole view: a title, summary lines, and excerpts.
type layout struct {
	// title names what the view shows, for the header ("text", "text (log)": the kind, and how the view reads it).
	title string
	// facts are extra header facts ("exit status 1").
	facts []string
	// prelude holds lines shown before the excerpts, such as summaries.
	prelude []string
	// excerpts are sorted and do not overlap.
	excerpts []excerpt
	// note, when set, describes what an omitted stretch [from, to) holds;
	// its answer goes in the stretch's marker.
	note func(from, to int64) string
}

// header says what the view shows and omits, and the next read.
func (e *excerptor) header(l layout, gs []gap) string {
	var b strings.Builder
	b.WriteString("[crumb ")
	b.WriteString(l.title)
	b.WriteString(": ")
	for _, f := range l.facts {
		b.WriteString(f)
		b.WriteString(", ")
	}
	b.WriteString(textfmt.Plural(e.total, "line"))
	b.WriteString(", ")
	b.WriteString(textfmt.Size(e.sourceSize()))
	if e.in.Ref != "" {
		b.WriteString(", ref ")
		b.WriteString(string(e.in.Ref))
	}
	if len(gs) == 0 {
		b.WriteString("; shown whole]")
		return b.String()
	}
	b.WriteString("; shown: ")
	for i, x := range l.excerpts {
		if x.empty() {
			continue
		}
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case x.cutStart || x.cutEnd:
			b.WriteString("bytes " + textfmt.Int(x.from) + "-" + textfmt.Int(x.to))
			if x.first == x.last() {
				b.WriteString(" (part of line " + textfmt.Int(x.first) + ")")
			} else {
				b.WriteString(" (lines " + textfmt.Int(x.first) + "-" + textfmt.Int(x.last()) + ")")
			}
		case x.first == x.last():
			b.WriteString("line " + textfmt.Int(x.first))
		default:
			b.WriteString("lines " + textfmt.Int(x.first) + "-" + textfmt.Int(x.last()))
		}
	}
	if len(l.excerpts) == 0 {
		b.WriteString("a summary")
	}
	b.WriteString("; omitted: ")
	for i, g := range gs {
		if i == 3 {
			b.WriteString(fmt.Sprintf(" and %d more", len(gs)-3))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(g.label)
	}
	if e.in.Truncated {
		b.WriteString(fmt.Sprintf("; only the first %s of %s were kept", textfmt.Size(e.doc.Size()), textfmt.Size(e.in.SourceSize)))
	}
	b.WriteString("; next: ")
	b.WriteString(e.in.hint(continuation(gs)))
	b.WriteString("]")
	return b.String()
}

// continuation returns the read of every omitted stretch, in order: one
// read of several ranges, whose pages carry the ranges still unread, so that
// following it from the view reaches the end of what the view omits. It
// counts lines, or bytes when a stretch starts or ends inside a line.
func continuation(gs []gap) recall.Request {
	r := recall.Request{Ref: gs[0].req.Ref, Rev: gs[0].req.Rev}
	byBytes := false
	for _, g := range gs {
		byBytes = byBytes || g.req.Bytes != nil
	}
	spans := make([]recall.Span, len(gs))
	for i, g := range gs {
		if byBytes {
			spans[i] = recall.Span{From: g.from, To: g.to}
		} else {
			spans[i] = *g.req.Lines
		}
	}
	r.SetRanges(byBytes, spans)
	return r
}

func (e *excerptor) sourceSize() int64 {
	if e.in.Truncated && e.in.SourceSize > 0 {
		return e.in.SourceSize
	}
	return e.doc.Size()
}

// assemble renders a layout and returns the view and its first continuation.
// A compact view leaves the reads out of the omission markers (the header
// still gives the next one), for budgets too small for both.
func (e *excerptor) assemble(l layout, compact bool) (string, *recall.Request, error) {
	xs := l.excerpts[:0:0]
	for _, x := range l.excerpts {
		if !x.empty() {
			xs = append(xs, x)
		}
	}
	l.excerpts = xs
	gs, err := e.gaps(xs)
	if err != nil {
		return "", nil, err
	}
	if l.note != nil {
		for i := range gs {
			gs[i].note = l.note(gs[i].from, gs[i].to)
		}
	}
	var b strings.Builder
	b.WriteString(e.header(l, gs))
	b.WriteByte('\n')
	if e.in.StoreError != "" {
		b.WriteString("[crumb could not store this result: " + e.in.StoreError + "; what is omitted here cannot be read back]\n")
	}
	for _, p := range l.prelude {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	gi := 0
	for _, x := range xs {
		for gi < len(gs) && gs[gi].to <= x.from {
			b.WriteString(e.marker(gs[gi], compact))
			b.WriteByte('\n')
			gi++
		}
		for _, s := range x.lines {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	for ; gi < len(gs); gi++ {
		b.WriteString(e.marker(gs[gi], compact))
		b.WriteByte('\n')
	}
	var next *recall.Request
	if len(gs) > 0 && e.in.Ref != "" {
		r := continuation(gs)
		next = &r
	}
	return strings.TrimSuffix(b.String(), "\n"), next, nil
}

// fit assembles the layout, then drops lines from the inner ends of its
// excerpts, largest first, until the view fits the budget. When the header
// and markers alone are too large, it makes the markers compact, then drops
// the prelude; the header, which names the next read, always stays.
func (e *excerptor) fit(l layout) (string, *recall.Request, error) {
	orig := l.excerpts
	l.excerpts = append([]excerpt(nil), orig...)
	compact := false
	for {
		text, next, err := e.assemble(l, compact)
		if err != nil {
			return "", nil, err
		}
		if e.in.Counter.Count(text) <= e.in.Budget || trimLargest(l.excerpts, e.doc.Size()) {
			if e.in.Counter.Count(text) <= e.in.Budget {
				return text, next, nil
			}
			continue
		}
		switch {
		case !compact:
			compact = true
			l.excerpts = append([]excerpt(nil), orig...)
		case len(l.prelude) > 0:
			l.prelude = l.prelude[:len(l.prelude)-1]
		default:
			return text, next, nil
		}
	}
}

// trimLargest drops one line from the largest excerpt: from its end when it
// starts the result, else from its start. It reports false when nothing is
// left to drop.
func trimLargest(xs []excerpt, size int64) bool {
	best := -1
	for i, x := range xs {
		if len(x.lines) > 0 && (best < 0 || len(x.lines) > len(xs[best].lines)) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	x := &xs[best]
	if x.from == 0 && x.to < size || x.headed && len(x.lines) > 1 {
		x.lines = x.lines[:len(x.lines)-1]
		x.offs = x.offs[:len(x.offs)-1]
		x.to = x.offs[len(x.offs)-1]
		x.cutEnd = false
	} else {
		x.lines = x.lines[1:]
		x.offs = x.offs[1:]
		x.from = x.offs[0]
		x.first++
		x.cutStart = false
	}
	return true
}

// beside lays out excerpts beside a list of what they leave out (an outline
// of definitions or headings): the list first gets outRoom of the base
// room, and what it leaves unused goes back to the excerpts, once, so that
// the list of the smaller gaps then fits in what it used. excerpts cuts the
// excerpts within a room; list renders the list for the lines they show,
// within a room, and its cost.
func (e *excerptor) beside(ctx context.Context, l layout, base, outRoom int, excerpts func(room int) ([]excerpt, error),
	list func(shown lineSpans, room int) ([]string, int, error)) (layout, error) {
	for pass := 0; ; pass++ {
		xs, err := excerpts(base - outRoom)
		if err != nil {
			return layout{}, err
		}
		if err := ctx.Err(); err != nil {
			return layout{}, err
		}
		var lines []string
		cost := 0
		if outRoom > 0 {
			if lines, cost, err = list(shownLines(xs), outRoom); err != nil {
				return layout{}, err
			}
		}
		if pass == 0 && outRoom-cost > base/10 {
			outRoom = cost
			continue
		}
		l.excerpts = xs
		l.prelude = append(l.prelude, lines...)
		return l, nil
	}
}
