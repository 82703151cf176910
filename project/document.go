package project

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/project/sections"
)

// Documents are shown by their sections. A document (HTML, Markdown,
// reStructuredText, a man page, a licence, an RFC: see package sections)
// read with an intent shows a short head; the section that best matches
// the intent, from its heading on, as much of it as fits, and its line that
// holds most of the intent when that lies past what fits; the heading of
// the section it is in and those of the next best, each with its first
// line; and the outline of the other headings, when room remains. What the
// best section leaves goes to the next best. Without an intent, or when no
// section matches, a document shows its head and tail like any text, with
// the outline of the headings between. Text without headings read for an
// intent is shown the same way by its blocks of lines (sections.Blocks).
// Every region goes through the excerpt packer (excerpt.go), which marks
// each omission and gives the continuation.

// Shares of the room in a document's view.
const (
	// docOutlineShare is the part of the room the outline of headings may
	// take beside the head and the tail; docFocusOutlineShare beside the
	// sections an intent asked for.
	docOutlineShare      = 0.45
	docFocusOutlineShare = 0.2
	// docRunnerShare bounds what the heading of one runner-up may take,
	// and docRunners their number.
	docRunnerShare = 0.06
	docRunners     = 4
	// docRunnerUp is the share of the best section's score a runner-up
	// must reach to be shown.
	docRunnerUp = 0.4
	// docMatchContext is the lines shown each side of the line of the
	// best section that holds most of the intent, when it is shown apart.
	docMatchContext = 1
	// docHeadLines bounds the head shown above the best section.
	docHeadLines = 3
)

// document is what one pass over a document found, and how to show it.
type document struct {
	e      *view.Excerptor
	res    sections.Result
	intent string
	// headShare is the head's part of the room for the head and the tail.
	headShare float64
}

// sniffDocument tells whether a result is a document with sections, from
// the name it was read by (if any) and its first bytes.
func sniffDocument(e *view.Excerptor, name string) (sections.Format, bool, error) {
	head, err := e.Doc.ReadRange(0, min(e.Doc.Size(), 8<<10))
	if err != nil {
		return 0, false, err
	}
	f, ok := sections.Detect(name, head)
	return f, ok, nil
}

// scanDocument runs the segmenter over every line, ranking the sections
// for the intent; strip drops the line numbers a tool put in front.
func scanDocument(ctx context.Context, e *view.Excerptor, f sections.Format, intent string, strip bool) (sections.Result, error) {
	var m *rank.Matcher
	if intent != "" {
		m = rank.NewMatcher(rank.Parse(intent))
	}
	seg := sections.New(f, m)
	s := view.NewLineScanner(ctx, e.Doc.ReaderAt(), e.Doc.Size(), maxOutlineLine*4)
	for s.Scan() {
		t := s.Text
		if strip {
			t = view.StripNumber(t)
		}
		seg.Line(s.Line, t)
	}
	if err := s.Err(); err != nil {
		return sections.Result{}, fmt.Errorf("project: finding a document's sections: %w", err)
	}
	return seg.Close(e.Total), nil
}

// documentView shows a document by its sections, within the frame of l. It
// reports false, and shows nothing, when the document has no headings.
func documentView(ctx context.Context, e *view.Excerptor, l view.Layout, f sections.Format, intent string, strip bool, headShare float64) (Output, bool, error) {
	res, err := scanDocument(ctx, e, f, intent, strip)
	if err != nil {
		return Output{}, false, err
	}
	if res.Total == 0 || f == sections.Blocks && len(res.Ranked) == 0 {
		return Output{}, false, nil
	}
	d := &document{e: e, res: res, intent: intent, headShare: headShare}
	if f != sections.Blocks && !slices.Contains(l.Facts, f.String()) {
		l.Facts = append(l.Facts, f.String())
	}
	var out Output
	if len(res.Ranked) > 0 {
		out, err = d.focused(ctx, l)
	} else {
		if intent != "" {
			l.Prelude = append(l.Prelude, fmt.Sprintf("[no section matches the intent %s; showing the head and the tail]", strconv.Quote(view.Clip(intent, 60))))
		}
		out, err = d.headTail(ctx, l)
	}
	return out, err == nil, err
}

// headTail shows the head and the tail, and the outline of the headings
// between them.
func (d *document) headTail(ctx context.Context, l view.Layout) (Output, error) {
	return d.fill(ctx, l, 1, docOutlineShare, func(room int) ([]view.Excerpt, error) {
		return d.e.Ends(room, d.headShare)
	})
}

// focused shows the best section from its heading, the headings of the
// runners-up and the outline.
func (d *document) focused(ctx context.Context, l view.Layout) (Output, error) {
	e := d.e
	best := d.res.Ranked[0]
	var runners []sections.Ranked
	for _, r := range d.res.Ranked[1:] {
		if len(runners) == docRunners || r.Score < docRunnerUp*best.Score {
			break
		}
		runners = append(runners, r)
	}
	note := fmt.Sprintf("[focus: %s (%s), the section that best matches the intent %s", headingText(best.Section),
		linesText(best.Line, best.Last), strconv.Quote(view.Clip(d.intent, 60)))
	if d.res.Format == sections.Blocks {
		note = fmt.Sprintf("[focus: %s, the block of text that best matches the intent %s", linesText(best.Line, best.Last),
			strconv.Quote(view.Clip(d.intent, 60)))
	}
	if best.Match > 0 {
		note += "; most of it at line " + textfmt.Int(best.Match)
	}
	if len(runners) > 0 {
		also := make([]string, len(runners))
		for i, r := range runners {
			also[i] = fmt.Sprintf("%s (line %s)", headingText(r.Section), textfmt.Int(r.Line))
			if d.res.Format == sections.Blocks {
				also[i] = linesText(r.Line, r.Last)
			}
		}
		note += "; next best: " + strings.Join(also, ", ")
	}
	l.Prelude = append(l.Prelude, note+"]")
	// The section the best is in, by its heading, and the runners-up, by
	// theirs; each with its first line of text.
	heads := runners
	parent, hasParent := d.parent(best.Section)
	if hasParent {
		heads = append([]sections.Ranked{{Section: parent}}, runners...)
	}
	return d.fill(ctx, l, 3+len(heads), docFocusOutlineShare, func(room int) ([]view.Excerpt, error) {
		type placed struct {
			s    sections.Section
			x    view.Excerpt
			used int
			// parent marks the section the best is in: the last to be
			// shown on.
			parent bool
		}
		var ps []placed
		// A short head for orientation: the title, the page's header.
		// The most one heading may take: a commit's takes several lines.
		headRoom := int(float64(e.In.Budget) * docRunnerShare)
		if d.res.Format == sections.Git {
			headRoom *= 2
		}
		if best.Line > 1 {
			head := int64(docHeadLines)
			if first := d.res.Sections[0]; d.res.Format == sections.Git && first.Line == 1 {
				// The first commit's heading and subject: the latest.
				head = first.Body
			}
			limit, err := e.Doc.LineStart(min(head, best.Line-1) + 1)
			if err != nil {
				return nil, err
			}
			x, used, err := e.Forward(0, limit, min(room, headRoom))
			if err != nil {
				return nil, err
			}
			if !x.Empty() && !x.CutEnd {
				x.Headed = true
				ps = append(ps, placed{x: x, used: used, parent: true})
				room -= used
			}
		}
		for _, r := range heads {
			if r.Line >= best.Line && r.Line <= best.Last {
				continue // the best section holds it
			}
			to := min(max(r.Body, r.Line+1), r.Last)
			if r.Line < best.Line {
				to = min(to, best.Line-1)
			}
			// Together they take at most half the room: the best
			// section comes first.
			x, used, err := d.section(r.Section, to, min(room/(2*len(heads)), headRoom))
			if err != nil {
				return nil, err
			}
			if x.Empty() || x.CutEnd || overlapsAny(ps, x, func(p placed) view.Excerpt { return p.x }) {
				continue // a heading is shown whole or not at all
			}
			ps = append(ps, placed{r.Section, x, used, hasParent && r.Line == parent.Line})
			room -= used
		}
		// The best section, from its heading, with what is left.
		to := best.Last
		for _, p := range ps {
			if p.x.First > best.Line && p.x.First <= to {
				to = p.x.First - 1
			}
		}
		x, used, err := d.section(best.Section, to, room)
		if err != nil {
			return nil, err
		}
		// The line of it that holds most of the intent, when that is past
		// what fits, around it; the section's start gives it room.
		var near view.Excerpt
		if m := best.Match; m > x.Last() && m <= to && x.Last() > best.Line {
			from := max(m-docMatchContext, best.Line+1)
			y, yUsed, err := d.section(sections.Section{Line: from}, min(m+docMatchContext, to), min(room/3, int(float64(e.In.Budget)*docRunnerShare)))
			if err != nil {
				return nil, err
			}
			if !y.Empty() && !y.CutEnd {
				if x, used, err = d.section(best.Section, from-1, room-yUsed); err != nil {
					return nil, err
				}
				near, to, room = y, from-1, room-yUsed
			}
		}
		room -= used
		// What the best section leaves goes to the runners-up, in their
		// order, each shown on as far as the next excerpt; then to the
		// section the best is in.
		order := make([]int, 0, len(ps))
		for i, p := range ps {
			if !p.parent {
				order = append(order, i)
			}
		}
		for i, p := range ps {
			if p.parent {
				order = append(order, i)
			}
		}
		for _, i := range order {
			p := &ps[i]
			if room <= 0 || x.Last() < to || x.CutEnd {
				break
			}
			end := p.s.Last
			for _, q := range append(ps, placed{x: x}) {
				if q.x.First > p.x.First && q.x.First <= end {
					end = q.x.First - 1
				}
			}
			if end <= p.x.Last() {
				continue
			}
			y, u, err := d.section(p.s, end, room+p.used)
			if err != nil {
				return nil, err
			}
			if y.To > p.x.To {
				room -= u - p.used
				p.x, p.used = y, u
			}
		}
		xs := []view.Excerpt{x}
		if !near.Empty() {
			xs = append(xs, near)
		}
		for _, p := range ps {
			xs = append(xs, p.x)
		}
		sortExcerpts(xs)
		return xs, nil
	})
}

// parent returns the section s is in, the innermost, when s is not at the
// top.
func (d *document) parent(s sections.Section) (sections.Section, bool) {
	var p sections.Section
	ok := false
	for _, q := range d.res.Sections {
		if q.Line >= s.Line {
			break
		}
		if q.Last >= s.Line && q.Level < s.Level {
			p, ok = q, true
		}
	}
	return p, ok
}

// overlapsAny reports whether x shares a line with the excerpt of one of
// items.
func overlapsAny[T any](items []T, x view.Excerpt, of func(T) view.Excerpt) bool {
	for _, it := range items {
		if y := of(it); x.From < y.To && y.From < x.To {
			return true
		}
	}
	return false
}

// section cuts the excerpt of a section from its heading to line to, in
// room tokens; it is trimmed from its end, its heading being what matters.
func (d *document) section(s sections.Section, to int64, room int) (view.Excerpt, int, error) {
	e := d.e
	from, err := e.Doc.LineStart(s.Line)
	if err != nil {
		return view.Excerpt{}, 0, err
	}
	end, err := e.Doc.LineStart(min(to+1, e.Total+1))
	if err != nil {
		return view.Excerpt{}, 0, err
	}
	if end <= from {
		return view.Excerpt{}, 0, nil
	}
	x, used, err := e.Forward(from, end, max(room, 0))
	x.Headed = true
	return x, used, err
}

// fill lays out a view: the excerpts that excerpts cuts, and the outline of
// the headings they do not show, which first gets a share of the room;
// what it leaves unused goes back to the excerpts.
func (d *document) fill(ctx context.Context, l view.Layout, gaps int, share float64, excerpts func(room int) ([]view.Excerpt, error)) (Output, error) {
	e := d.e
	base := e.In.Budget - e.Overhead(l, gaps)
	for _, p := range l.Prelude {
		base -= e.Cost(p)
	}
	l, err := e.Beside(ctx, l, base, int(float64(base)*share), excerpts, d.outline)
	if err != nil {
		return Output{}, err
	}
	text, next, err := e.Fit(l)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: text, Next: next, Complete: next == nil && e.In.StoreError == ""}, nil
}

// outline renders the headings the shown lines leave out, the higher
// levels first, within room tokens.
func (d *document) outline(shown view.LineSpans, room int) ([]string, int, error) {
	if room <= 0 || d.res.Format == sections.Blocks || d.res.Format == sections.Git {
		// Blocks have no headings; a commit's heading is its hash, which
		// says nothing without its subject.
		return nil, 0, nil
	}
	ranked := map[int64]bool{}
	for _, r := range d.res.Ranked {
		ranked[r.Line] = true
	}
	o := &outline{limit: min(room/minEntryTokens+1, 4096)}
	for i, s := range d.res.Sections {
		if shown.Has(s.Line) {
			continue
		}
		rank := headingScore(s.Level)
		if s.Term {
			rank--
		}
		if ranked[s.Line] {
			rank += 3
		}
		depth := s.Level - 1
		if d.res.Format == sections.Markdown {
			depth = 0 // its "#"s say it
		}
		o.offer(rankedDef{d: &srcDef{line: s.Line, start: s.Line, end: s.Last, depth: depth, ord: i,
			name: s.Heading, text: outlineText(d.res.Format, s)}, rank: rank})
	}
	if o.total == 0 {
		return nil, 0, nil
	}
	return renderOutline(d.e, o, docLang(d.res.Format), d.res.Format.Grep(), room)
}

// docLang describes a document format to the outline.
func docLang(f sections.Format) *srcLang {
	return &srcLang{name: f.String(), grep: f.Grep(), closing: closeHeading}
}

// outlineText is a heading as an outline lists it.
func outlineText(f sections.Format, s sections.Section) string {
	t := view.Clip(s.Heading, maxDefText)
	switch {
	case f == sections.Markdown && !s.Term:
		return strings.Repeat("#", min(s.Level, 6)) + " " + t
	case f == sections.HTML && !s.Term:
		return "h" + strconv.Itoa(min(s.Level, 6)) + " " + t
	}
	return t
}

// headingText quotes a heading for a note.
func headingText(s sections.Section) string { return strconv.Quote(view.Clip(s.Heading, 80)) }

// sortExcerpts orders excerpts by where they start.
func sortExcerpts(xs []view.Excerpt) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j].From < xs[j-1].From; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

// commandDocument shows a command's output by its sections when it is a
// man page, or an HTML page or git log's output (without diffs) the call
// says what it is after; it reports false otherwise, for the command
// projector to show it. A command that failed is the command projector's
// too: its error is the evidence.
func commandDocument(ctx context.Context, in *Input, e *view.Excerptor) (Output, bool, error) {
	intent := in.Call().Intent
	if in.TimedOut || in.Signal != "" || in.ExitCode != nil && *in.ExitCode != 0 {
		return Output{}, false, nil
	}
	f, ok, err := sniffDocument(e, "")
	if err != nil {
		return Output{}, false, err
	}
	if intent != "" {
		// git log: the commits are its sections (sections.Git). With
		// their diffs (log -p, show), the changed lines are what an
		// intent names, ranked one by one by the command projector, each
		// with the headings of its file and its commit.
		head, err := e.Doc.ReadRange(0, min(e.Doc.Size(), 4<<10))
		if err != nil {
			return Output{}, false, err
		}
		if sections.IsGit(head) && !bytes.Contains(head, []byte("\ndiff --git ")) {
			f, ok = sections.Git, true
		}
	}
	if !ok || f != sections.Man && (f != sections.HTML && f != sections.Git || intent == "") {
		return Output{}, false, nil
	}
	l := view.Layout{Title: "command", Facts: []string{ExitSummary(in.ExitCode, in.Signal, in.TimedOut, in.Duration)}}
	if in.Duration > 0 {
		l.Facts = append(l.Facts, "ran "+FormatDuration(in.Duration))
	}
	if cmd := in.CommandLine(); cmd != "" {
		l.Prelude = append(l.Prelude, "$ "+textfmt.Clip(textfmt.CleanLine([]byte(cmd)), 240, "…"))
	}
	out, ok, err := documentView(ctx, e, l, f, intent, false, headShare)
	if err != nil || !ok || in.Counter.Count(out.Text) > in.Budget {
		return Output{}, false, err
	}
	return out, true, nil
}
