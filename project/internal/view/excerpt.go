package view

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// An excerpt is a run of the result shown as it is (each line rendered by
// Input.Line): whole lines, except that a line too long for the budget is
// shown in part and marked with "…".
type Excerpt struct {
	From, To int64    // byte offsets; to is exclusive
	First    int64    // number of the line that holds from
	Lines    []string // rendered lines
	Offs     []int64  // offs[i] is where lines[i] starts; offs[len] == to
	CutStart bool     // from is inside a line
	CutEnd   bool     // to is inside a line
	Headed   bool     // it opens with what matters (a heading): trimmed from its end
}

func (x Excerpt) Empty() bool { return len(x.Lines) == 0 }

// last returns the number of the last line shown.
func (x Excerpt) Last() int64 { return x.First + int64(len(x.Lines)) - 1 }

// viewInput is what an excerptor reads of a projector's input: how to
// count, render and continue, and what to say of the result as a whole.
type Input struct {
	// Budget is the most tokens a view may take.
	Budget int
	// Counter counts tokens.
	Counter tokens.Counter
	// Line renders one line of content.
	Line recall.LineFunc
	// Hint renders a read that continues the view.
	Hint recall.Hint
	// Ref names the stored result; empty when it could not be stored.
	Ref store.Ref
	// Rev is the revision continuations carry.
	Rev string
	// Truncated and SourceSize report that only the first part of a
	// SourceSize-byte result was kept.
	Truncated  bool
	SourceSize int64
	// StoreError, when set, says why the result could not be stored.
	StoreError string
}

// ReadHint renders a continuation, or says the rest cannot be read back
// when the result was not stored.
func (in *Input) ReadHint(r recall.Request) string {
	if in.Ref == "" {
		return "not recoverable: the result could not be stored"
	}
	return in.Hint(r)
}

// excerptor cuts excerpts from an input and renders views made of them.
type Excerptor struct {
	In      *Input
	Doc     *lines.Doc
	Total   int64 // lines
	Numbers bool  // prefix lines with their numbers
	Width   int   // digits of the largest line number
}

func New(in *Input, doc *lines.Doc, numbers bool) (*Excerptor, error) {
	total, err := doc.Lines()
	if err != nil {
		return nil, err
	}
	return &Excerptor{In: in, Doc: doc, Total: total, Numbers: numbers, Width: len(textfmt.Int(total))}, nil
}

// maxLineBytes bounds how much of one line is read: a line can't cost fewer
// than about one token per 16 bytes, so more could never fit the budget.
func (e *Excerptor) MaxLineBytes() int { return tokens.MaxBytes(e.In.Budget) }

func (e *Excerptor) Render(b []byte, line int64, fragment bool) string {
	return e.NumPrefix(line) + e.In.Line(b, fragment)
}

// numPrefix returns the line-number column for a line, or "" when lines are
// not numbered.
func (e *Excerptor) NumPrefix(line int64) string {
	if !e.Numbers {
		return ""
	}
	num := textfmt.Int(line)
	return strings.Repeat(" ", max(0, e.Width-len(num))) + num + "\t"
}

func (e *Excerptor) Cost(s string) int { return e.In.Counter.Count(s) + 1 }

// Forward returns the whole lines from offset from (a line start) onward,
// stopping before limit, within room tokens. When not even the first line
// fits, it returns as much of that line as fits if the line is longer than
// any view of the budget could show whole; a shorter line is left out
// whole, so that what is omitted stays whole lines, read back by lines.
func (e *Excerptor) Forward(from, limit int64, room int) (Excerpt, int, error) {
	first, err := e.Doc.LineAt(from)
	if err != nil {
		return Excerpt{}, 0, err
	}
	x := Excerpt{From: from, To: from, First: first}
	used := 0
	for pos, line := from, first; pos < limit; line++ {
		l, err := e.Doc.ReadLine(pos, e.MaxLineBytes())
		if err != nil {
			return Excerpt{}, 0, err
		}
		if l.End > limit {
			break
		}
		s := e.Render(l.Text, line, false)
		n := e.Cost(s)
		if used+n > room || l.Cut {
			if x.Empty() && room > 8 && (l.Cut || n > e.In.Budget) {
				k := e.FitPrefix(l.Text, line, room-2)
				if k > 0 {
					x.Lines = append(x.Lines, e.Render(l.Text[:k], line, true)+" …")
					x.Offs = append(x.Offs, pos)
					x.To, x.CutEnd = pos+int64(k), true
					used += e.Cost(x.Lines[0])
				}
			}
			break
		}
		x.Lines = append(x.Lines, s)
		x.Offs = append(x.Offs, pos)
		used += n
		pos = l.End
		x.To = pos
	}
	x.Offs = append(x.Offs, x.To)
	return x, used, nil
}

// Ends returns the head and the tail of the whole result within room
// tokens: the head takes at most share of it, the tail what is left, and
// the head all of it when the last line is left out (see Backward).
func (e *Excerptor) Ends(room int, share float64) ([]Excerpt, error) {
	size := e.Doc.Size()
	head, used, err := e.Forward(0, size, int(float64(room)*share))
	if err != nil {
		return nil, err
	}
	tail, _, err := e.Backward(size, head.To, room-used)
	if err != nil {
		return nil, err
	}
	if tail.Empty() && !head.CutEnd && head.To < size {
		// The last line is left out whole: the head takes the room.
		if head, _, err = e.Forward(0, size, room); err != nil {
			return nil, err
		}
	}
	return []Excerpt{head, tail}, nil
}

// Backward returns the whole lines that end at offset end (a line start or
// the end of the result), going back no further than limit, within room
// tokens. When not even the last line fits, it returns as much of that
// line's end as fits if the line cannot be shown whole (it begins before
// limit, or it is longer than any view of the budget could show), and
// nothing otherwise.
func (e *Excerptor) Backward(end, limit int64, room int) (Excerpt, int, error) {
	var rev []string
	var offs []int64
	used := 0
	pos := end
	x := Excerpt{To: end}
	if end <= limit {
		x.From, x.Offs = end, []int64{end}
		return x, 0, nil
	}
	// The number of the line that ends at end; earlier lines count down.
	line, err := e.Doc.LineAt(end - 1)
	if err != nil {
		return Excerpt{}, 0, err
	}
	line++
	for pos > limit {
		start, err := e.Doc.PrevLineStart(pos)
		if err != nil {
			return Excerpt{}, 0, err
		}
		line--
		// A line that begins inside what comes before limit can only be
		// shown in part, and only when nothing else is.
		if start < limit && len(rev) > 0 {
			break
		}
		l, err := e.Doc.ReadLine(start, e.MaxLineBytes())
		if err != nil {
			return Excerpt{}, 0, err
		}
		if start >= limit {
			s := e.Render(l.Text, line, false)
			if n := e.Cost(s); used+n <= room && !l.Cut {
				rev = append(rev, s)
				offs = append(offs, start)
				x.First = line
				used += n
				pos = start
				continue
			}
		}
		// Show the end of the line, which matters most at the end of a
		// result, when the line cannot be shown whole: it begins before
		// limit, or no view of the budget could hold it. A shorter line
		// is left out whole, as Forward leaves one.
		if len(rev) == 0 && room > 8 && (start < limit || l.Cut || e.Cost(e.Render(l.Text, line, false)) > e.In.Budget) {
			contentEnd := l.End
			if nl, err := e.Doc.ReadRange(l.End-1, l.End); err == nil && len(nl) == 1 && nl[0] == '\n' {
				contentEnd--
			}
			k := min(int64(e.MaxLineBytes()), contentEnd-max(start, limit))
			tail, err := e.Doc.ReadRange(contentEnd-k, contentEnd)
			if err != nil {
				return Excerpt{}, 0, err
			}
			if j := e.FitSuffix(tail, line, room-2); j < len(tail) {
				s := e.NumPrefix(line) + "… " + e.In.Line(tail[j:], true)
				cut := contentEnd - k + int64(j)
				rev = append(rev, s)
				offs = append(offs, cut)
				x.First = line
				used += e.Cost(s)
				pos, x.CutStart = cut, cut > start
			}
		}
		break
	}
	x.From = pos
	for i := len(rev) - 1; i >= 0; i-- {
		x.Lines = append(x.Lines, rev[i])
		x.Offs = append(x.Offs, offs[i])
	}
	x.Offs = append(x.Offs, end)
	return x, used, nil
}

// fitPrefix returns the length of the longest prefix of b whose rendering
// fits in room tokens.
func (e *Excerptor) FitPrefix(b []byte, line int64, room int) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		k := len(textfmt.CutUTF8(b, mid))
		if e.Cost(e.Render(b[:k], line, true)) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return len(textfmt.CutUTF8(b, lo))
}

// fitSuffix returns the start of the longest suffix of b whose rendering
// fits in room tokens.
func (e *Excerptor) FitSuffix(b []byte, line int64, room int) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := (lo + hi) / 2
		j := mid
		for j < len(b) && b[j]&0xc0 == 0x80 {
			j++
		}
		if e.Cost(e.NumPrefix(line)+"… "+e.In.Line(b[j:], true)) <= room {
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
type Gap struct {
	From, To int64
	Req      recall.Request
	Label    string // "lines 41-1,999,840" or "bytes 1,024-9,876"
	Note     string // what the stretch holds, when known ("532 lines like ...")
}

// gaps returns the omitted stretches around and between xs (sorted,
// non-overlapping excerpts), each with the read that recovers it.
func (e *Excerptor) Gaps(xs []Excerpt) ([]Gap, error) {
	var out []Gap
	pos, cut := int64(0), false
	for i := 0; i <= len(xs); i++ {
		end, endCut := e.Doc.Size(), false
		if i < len(xs) {
			end, endCut = xs[i].From, xs[i].CutStart
		}
		if end > pos {
			g, err := e.MakeGap(pos, end, cut || endCut)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
		if i < len(xs) {
			pos, cut = xs[i].To, xs[i].CutEnd
		}
	}
	return out, nil
}

func (e *Excerptor) MakeGap(from, to int64, byBytes bool) (Gap, error) {
	g := Gap{From: from, To: to, Req: recall.Request{Ref: e.In.Ref, Rev: e.In.Rev}}
	if byBytes {
		g.Req.Bytes = &recall.Span{From: from, To: to}
		g.Label = "bytes " + textfmt.Int(from) + "-" + textfmt.Int(to)
		return g, nil
	}
	a, err := e.Doc.LineAt(from)
	if err != nil {
		return Gap{}, err
	}
	b, err := e.Doc.LineAt(to - 1)
	if err != nil {
		return Gap{}, err
	}
	g.Req.Lines = &recall.Span{From: a, To: b}
	if a == b {
		g.Label = "line " + textfmt.Int(a)
	} else {
		g.Label = "lines " + textfmt.Int(a) + "-" + textfmt.Int(b)
	}
	return g, nil
}

func (e *Excerptor) Marker(g Gap, compact bool) string {
	size := textfmt.Size(g.To - g.From)
	if g.Note != "" {
		size += "; " + g.Note
	}
	if compact {
		return fmt.Sprintf("[… %s omitted (%s)]", g.Label, size)
	}
	return fmt.Sprintf("[… %s omitted (%s); read them: %s]", g.Label, size, e.In.ReadHint(g.Req))
}

// layout is a whole view: a title, summary lines, and excerpts.
type Layout struct {
	// title names what the view shows, for the header ("text", "text (log)": the kind, and how the view reads it).
	Title string
	// facts are extra header facts ("exit status 1").
	Facts []string
	// prelude holds lines shown before the excerpts, such as summaries.
	Prelude []string
	// excerpts are sorted and do not overlap.
	Excerpts []Excerpt
	// note, when set, describes what an omitted stretch [from, to) holds;
	// its answer goes in the stretch's marker.
	Note func(from, to int64) string
}

// header says what the view shows and omits, and the next read.
func (e *Excerptor) Header(l Layout, gs []Gap) string {
	var b strings.Builder
	b.WriteString("[crumb ")
	b.WriteString(l.Title)
	b.WriteString(": ")
	for _, f := range l.Facts {
		b.WriteString(f)
		b.WriteString(", ")
	}
	b.WriteString(textfmt.Plural(e.Total, "line"))
	b.WriteString(", ")
	b.WriteString(textfmt.Size(e.SourceSize()))
	if e.In.Ref != "" {
		b.WriteString(", ref ")
		b.WriteString(string(e.In.Ref))
	}
	if len(gs) == 0 {
		b.WriteString("; shown whole]")
		return b.String()
	}
	b.WriteString("; shown: ")
	for i, x := range l.Excerpts {
		if x.Empty() {
			continue
		}
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case x.CutStart || x.CutEnd:
			b.WriteString("bytes " + textfmt.Int(x.From) + "-" + textfmt.Int(x.To))
			if x.First == x.Last() {
				b.WriteString(" (part of line " + textfmt.Int(x.First) + ")")
			} else {
				b.WriteString(" (lines " + textfmt.Int(x.First) + "-" + textfmt.Int(x.Last()) + ")")
			}
		case x.First == x.Last():
			b.WriteString("line " + textfmt.Int(x.First))
		default:
			b.WriteString("lines " + textfmt.Int(x.First) + "-" + textfmt.Int(x.Last()))
		}
	}
	if len(l.Excerpts) == 0 {
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
		b.WriteString(g.Label)
	}
	if e.In.Truncated {
		b.WriteString(fmt.Sprintf("; only the first %s of %s were kept", textfmt.Size(e.Doc.Size()), textfmt.Size(e.In.SourceSize)))
	}
	b.WriteString("; next: ")
	b.WriteString(e.In.ReadHint(Continuation(gs)))
	b.WriteString("]")
	return b.String()
}

// continuation returns the read of every omitted stretch, in order: one
// read of several ranges, whose pages carry the ranges still unread, so that
// following it from the view reaches the end of what the view omits. It
// counts lines, or bytes when a stretch starts or ends inside a line.
func Continuation(gs []Gap) recall.Request {
	r := recall.Request{Ref: gs[0].Req.Ref, Rev: gs[0].Req.Rev}
	byBytes := false
	for _, g := range gs {
		byBytes = byBytes || g.Req.Bytes != nil
	}
	spans := make([]recall.Span, len(gs))
	for i, g := range gs {
		if byBytes {
			spans[i] = recall.Span{From: g.From, To: g.To}
		} else {
			spans[i] = *g.Req.Lines
		}
	}
	r.SetRanges(byBytes, spans)
	return r
}

func (e *Excerptor) SourceSize() int64 {
	if e.In.Truncated && e.In.SourceSize > 0 {
		return e.In.SourceSize
	}
	return e.Doc.Size()
}

// assemble renders a layout and returns the view and its first continuation.
// A compact view leaves the reads out of the omission markers (the header
// still gives the next one), for budgets too small for both.
func (e *Excerptor) Assemble(l Layout, compact bool) (string, *recall.Request, error) {
	xs := l.Excerpts[:0:0]
	for _, x := range l.Excerpts {
		if !x.Empty() {
			xs = append(xs, x)
		}
	}
	l.Excerpts = xs
	gs, err := e.Gaps(xs)
	if err != nil {
		return "", nil, err
	}
	if l.Note != nil {
		for i := range gs {
			gs[i].Note = l.Note(gs[i].From, gs[i].To)
		}
	}
	var b strings.Builder
	b.WriteString(e.Header(l, gs))
	b.WriteByte('\n')
	if e.In.StoreError != "" {
		b.WriteString(e.storeNote())
		b.WriteByte('\n')
	}
	for _, p := range l.Prelude {
		b.WriteString(p)
		b.WriteByte('\n')
	}
	gi := 0
	for _, x := range xs {
		for gi < len(gs) && gs[gi].To <= x.From {
			b.WriteString(e.Marker(gs[gi], compact))
			b.WriteByte('\n')
			gi++
		}
		for _, s := range x.Lines {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	for ; gi < len(gs); gi++ {
		b.WriteString(e.Marker(gs[gi], compact))
		b.WriteByte('\n')
	}
	var next *recall.Request
	if len(gs) > 0 && e.In.Ref != "" {
		r := Continuation(gs)
		next = &r
	}
	return strings.TrimSuffix(b.String(), "\n"), next, nil
}

// fit assembles the layout, then drops lines from the inner ends of its
// excerpts, largest first, until the view fits the budget. When the header
// and markers alone are too large, it makes the markers compact, then drops
// the prelude; the header, which names the next read, always stays.
func (e *Excerptor) Fit(l Layout) (string, *recall.Request, error) {
	orig := l.Excerpts
	l.Excerpts = append([]Excerpt(nil), orig...)
	compact := false
	for {
		text, next, err := e.Assemble(l, compact)
		if err != nil {
			return "", nil, err
		}
		if e.In.Counter.Count(text) <= e.In.Budget || TrimLargest(l.Excerpts, e.Doc.Size()) {
			if e.In.Counter.Count(text) <= e.In.Budget {
				return text, next, nil
			}
			continue
		}
		switch {
		case !compact:
			compact = true
			l.Excerpts = append([]Excerpt(nil), orig...)
		case len(l.Prelude) > 0:
			l.Prelude = l.Prelude[:len(l.Prelude)-1]
		default:
			return text, next, nil
		}
	}
}

// trimLargest drops one line from the largest excerpt: from its end when it
// starts the result, else from its start. It reports false when nothing is
// left to drop.
func TrimLargest(xs []Excerpt, size int64) bool {
	best := -1
	for i, x := range xs {
		if len(x.Lines) > 0 && (best < 0 || len(x.Lines) > len(xs[best].Lines)) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	x := &xs[best]
	if x.From == 0 && x.To < size || x.Headed && len(x.Lines) > 1 {
		x.Lines = x.Lines[:len(x.Lines)-1]
		x.Offs = x.Offs[:len(x.Offs)-1]
		x.To = x.Offs[len(x.Offs)-1]
		x.CutEnd = false
	} else {
		x.Lines = x.Lines[1:]
		x.Offs = x.Offs[1:]
		x.From = x.Offs[0]
		x.First++
		x.CutStart = false
	}
	return true
}

// beside lays out excerpts beside a list of what they leave out (an outline
// of definitions or headings): the list first gets outRoom of the base
// room, and what it leaves unused goes back to the excerpts, once, so that
// the list of the smaller gaps then fits in what it used. excerpts cuts the
// excerpts within a room; list renders the list for the lines they show,
// within a room, and its cost.
func (e *Excerptor) Beside(ctx context.Context, l Layout, base, outRoom int, excerpts func(room int) ([]Excerpt, error),
	list func(shown LineSpans, room int) ([]string, int, error)) (Layout, error) {
	for pass := 0; ; pass++ {
		xs, err := excerpts(base - outRoom)
		if err != nil {
			return Layout{}, err
		}
		if err := ctx.Err(); err != nil {
			return Layout{}, err
		}
		var lines []string
		cost := 0
		if outRoom > 0 {
			if lines, cost, err = list(ShownLines(xs), outRoom); err != nil {
				return Layout{}, err
			}
		}
		if pass == 0 && outRoom-cost > base/10 {
			outRoom = cost
			continue
		}
		l.Excerpts = xs
		l.Prelude = append(l.Prelude, lines...)
		return l, nil
	}
}

// lineSpans is a sorted list of line ranges, inclusive.
type LineSpans [][2]int64

func (s LineSpans) Has(line int64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i][1] >= line })
	return i < len(s) && s[i][0] <= line
}

// shownLines returns the lines the excerpts show whole.
func ShownLines(xs []Excerpt) LineSpans {
	var out LineSpans
	for _, x := range xs {
		if x.Empty() {
			continue
		}
		a, b := x.First, x.Last()
		if x.CutStart {
			a++
		}
		if x.CutEnd {
			b--
		}
		if a <= b {
			out = append(out, [2]int64{a, b})
		}
	}
	return out
}
