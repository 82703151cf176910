package project

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func init() {
	Register(KindCommand, ProjectorFunc(projectCommand))
}

// The command projector's view of a command's output (stdout and stderr
// interleaved) puts first what decides the agent's next step:
//
//   - the header states how the command ended — "exit status 1 (failed)",
//     "killed by SIGKILL", "timed out after 30s" — so that a failure never
//     reads as a success;
//   - then the evidence, as excerpts of the exact lines: compiler errors at
//     file:line, failed tests with their messages, panics and tracebacks with
//     their first frames, npm and make errors;
//   - then the end of the output, where summaries are ("FAIL pkg",
//     "3 failed, 10 passed");
//   - ordinary output fills what room is left: first past runs of
//     near-identical lines, then into them; what a marker leaves out of
//     such a run it describes, with counts that are exact ("532 lines like
//     `Downloading …`", see command_like.go), and says how to read it; the
//     room is used, so that a view is small only when the output is.
//
// Evidence is ranked by the shared ranker (project/rank, see
// command_rank.go): the classifier's severity and structure, the rarity of
// the line's template (the one error among thousands of notes of a few
// templates ranks first), the call's intent and the position.
//
// Evidence the budget has no room for is counted, with the search that finds
// it. The whole output is scanned once, with bounded state (see
// command_scan.go), so a 1 GB log costs memory proportional to the budget.
// Above 64 MiB only a sample is scanned (its start, its end and windows
// between; see command_sample.go), and the view says so and gives the
// search that covers the rest.

// Shares of the room for excerpts.
const (
	cmdTailMin   = 0.12 // the end of the output, shown first
	cmdTailShare = 0.40 // the most the end may take when filling
	cmdHeadShare = 0.15 // the most the start may take when filling
	cmdLineShare = 0.25 // the most one line may take
)

// cmdCompactBelow is the budget under which omission markers leave out
// their reads (the header still names the next one).
const cmdCompactBelow = 300

// cmdReserveFrom is the budget from which room is set aside for the notes
// on runs and the line that counts the evidence left out.
const cmdReserveFrom = 1000

// A marker names the longest run of near-identical lines in the stretch it
// omits when the run has at least cmdNoteRun lines; cmdNoteTokens is about
// what such a note costs.
const (
	cmdNoteRun    = 20
	cmdNoteTokens = 36
)

// Priorities of picked lines.
const (
	prioFill = iota
	prioContext
	prioEvidence
	prioEnd
)

func projectCommand(ctx context.Context, in *Input) (Output, error) {
	// A machine-readable test report (go test -json, ...) is shown decoded.
	if out, ok, err := projectTestReport(ctx, in, KindCommand); ok || err != nil {
		return out, err
	}
	e, err := newExcerptor(in, false)
	if err != nil {
		return Output{}, err
	}
	// A man page or another document, read for an intent, is shown by its
	// sections (document.go).
	if out, ok, err := commandDocument(ctx, in, e); err != nil || ok {
		return out, err
	}
	scan, sample, err := cmdScanInput(ctx, in, e.Doc)
	if err != nil {
		return Output{}, err
	}
	p := &cmdProjector{e: e, in: in, scan: scan, sample: sample, size: e.Doc.Size(), total: e.Total}
	return p.project(ctx)
}

// cmdScanSource runs the scan over the whole input, one chunk at a time,
// or, given the scan s of a prescan that read [0, from), over the rest.
func cmdScanSource(ctx context.Context, in *Input, s *cmdScan, from int64) (*cmdScan, error) {
	if s == nil {
		s, from = newCmdScan(in.Call().Intent), 0
	}
	size := in.Source.Size()
	buf := make([]byte, min(int64(store.ChunkSize), max(size, 1)))
	for off := from; off < size; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := in.Source.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if n > 0 {
			s.Write(buf[:n])
			off += int64(n)
		}
		if err != nil && !(errors.Is(err, io.EOF) && off >= size) {
			return nil, fmt.Errorf("project: scanning a command's output: %w", err)
		}
		if n == 0 && err == nil {
			return nil, fmt.Errorf("project: scanning a command's output: no progress at byte %d", off)
		}
	}
	s.finish()
	return s, nil
}

// cmdLine is a line picked for the view.
type cmdLine struct {
	no         int64
	start, end int64 // the whole line, its newline included
	from, to   int64 // the bytes shown: the whole line unless cut
	cutStart   bool  // only its end is shown
	cutEnd     bool  // only its start is shown
	text       string
	cost       int
	fam        classify.Family
	indent     int  // bytes of leading spaces and tabs
	blank      bool // nothing but white space
	prio       int
	picked     bool
}

// cmdProjector holds one projection's state.
type cmdProjector struct {
	e      *view.Excerptor
	in     *Input
	scan   *cmdScan
	sample *cmdSampled // what the scan read, when it did not read everything
	size   int64
	total  int64

	runs      []cmdRun // by first line
	noteCache map[[3]int64]string
	noteBuf   []byte // the text of the line a note reads, reused from line to line
	tallies   [cmdLikeLevels]cmdTallies
	cache     map[int64]*cmdLine
	order     []*cmdLine // picked lines, in the order they were picked
	used      int        // tokens of picked lines
	gaps      int        // omitted stretches between and around them
	room      int        // tokens for lines and the markers of gaps
	limit     int        // the most tokens the current pass may use
	perGap    int        // tokens one more omitted stretch costs
	lineCap   int        // the most tokens one line may take

	compact bool // markers without their reads, for small budgets
	notes   bool // markers name the runs they omit
	more    bool // the prelude counts the evidence left out

	status  string
	command string
}

func (p *cmdProjector) project(ctx context.Context) (Output, error) {
	in, e := p.in, p.e
	p.status = ExitSummary(in.ExitCode, in.Signal, in.TimedOut, in.Duration)
	if cmd := in.CommandLine(); cmd != "" {
		p.command = "$ " + textfmt.Clip(textfmt.CleanLine([]byte(cmd)), 240, "…")
	}
	p.runs = slices.Clone(p.scan.runs)
	slices.SortFunc(p.runs, func(a, b cmdRun) int { return int(a.first - b.first) })
	p.cache = map[int64]*cmdLine{}
	p.noteCache = map[[3]int64]string{}

	// Shown whole, a sampled output needs no word on its sample.
	sample := p.sample
	p.sample = nil
	l := p.layout(nil)
	p.sample = sample
	// Small enough to show whole?
	wholeRoom := in.Budget - e.Cost(e.Header(l, nil)) - 2
	for _, s := range l.Prelude {
		wholeRoom -= e.Cost(s)
	}
	if in.StoreError != "" {
		wholeRoom -= e.Cost("[crumb could not store this result: " + in.StoreError + "; what is omitted here cannot be read back]")
	}
	// A token holds at most about 16 bytes (see excerptor.maxLineBytes).
	x := view.Excerpt{To: -1}
	if p.size <= int64(wholeRoom)*16 {
		var err error
		if x, _, err = e.Forward(0, p.size, wholeRoom); err != nil {
			return Output{}, err
		}
	}
	if x.To == p.size && !x.CutEnd {
		whole := l
		whole.Excerpts = []view.Excerpt{x}
		text, next, err := e.Assemble(whole, false)
		if err != nil {
			return Output{}, err
		}
		if in.Counter.Count(text) <= in.Budget {
			return Output{Text: text, Next: next, Complete: next == nil && in.StoreError == ""}, nil
		}
	}

	// The room: the budget less the header, the prelude and the marker of
	// the first omitted stretch. It is an estimate; fit trims what does not
	// fit, least important first.
	l = p.layout(nil)
	p.compact = in.Budget < cmdCompactBelow
	worst := view.Gap{From: 0, To: p.size, Label: "lines " + textfmt.Int(p.total) + "-" + textfmt.Int(p.total),
		Req: recall.Request{Ref: in.Ref, Rev: in.Rev(), Lines: &recall.Span{From: p.total, To: p.total}}}
	hl := l
	hl.Excerpts = []view.Excerpt{{First: p.total, Lines: []string{""}}, {First: p.total, Lines: []string{""}}}
	p.room = in.Budget - e.Cost(e.Header(hl, []view.Gap{worst, worst})) - 2
	if in.StoreError != "" {
		p.room -= e.Cost("[crumb could not store this result: " + in.StoreError + "; what is omitted here cannot be read back]")
	}
	for _, s := range l.Prelude {
		p.room -= e.Cost(s)
	}
	p.notes, p.more = true, !p.compact
	if in.Budget >= cmdReserveFrom {
		// Room for notes on runs, and for saying what evidence is left
		// out, as if all of it were. With less, they are the first to go
		// when the lines do not leave them room (see fit).
		for _, r := range p.runs {
			if r.lines() >= cmdNoteRun {
				p.room -= 2 * cmdNoteTokens
				break
			}
		}
		if len(p.scan.ev) > 0 {
			p.room -= e.Cost(p.moreLine(p.omitted(nil)))
		}
	}
	p.perGap = e.Cost(e.Marker(worst, p.compact)) + in.Counter.Count(", lines "+textfmt.Int(p.total)+"-"+textfmt.Int(p.total))
	p.room -= p.perGap
	p.gaps = 1
	p.lineCap = max(24, int(float64(p.room)*cmdLineShare))
	p.limit = p.room
	if p.room > 0 {
		if err := p.pickAll(ctx); err != nil {
			return Output{}, err
		}
	}
	return p.fit(ctx)
}

// layout returns the view's frame: title, status, prelude.
func (p *cmdProjector) layout(more map[classify.Family]int64) view.Layout {
	l := view.Layout{Title: "command", Facts: []string{p.status}}
	if p.in.Duration > 0 && !p.in.TimedOut {
		l.Facts = append(l.Facts, "ran "+FormatDuration(p.in.Duration))
	}
	if p.sample != nil {
		l.Facts = append(l.Facts, p.sampleFact())
	}
	if p.command != "" {
		l.Prelude = append(l.Prelude, p.command)
	}
	if p.sample != nil {
		if s := p.sampleNote(); s != "" {
			l.Prelude = append(l.Prelude, s)
		}
	}
	if s := p.moreLine(more); s != "" && p.more {
		l.Prelude = append(l.Prelude, s)
	}
	return l
}

// moreLine says how much evidence the view leaves out, and the search that
// finds it; "" when none is.
func (p *cmdProjector) moreLine(more map[classify.Family]int64) string {
	var parts, pats []string
	for f := classify.FamPanic; f < classify.NumFamilies; f++ {
		if f == classify.FamFrame || f == classify.FamSummary || f == classify.FamNote || more[f] <= 0 {
			continue
		}
		parts = append(parts, textfmt.Plural(more[f], classify.FamilyNames[f]+" line"))
		for _, pat := range strings.Split(classify.FamilyGrep[f], "|") {
			if !slices.Contains(pats, pat) {
				pats = append(pats, pat)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	req := recall.Request{Ref: p.in.Ref, Rev: p.in.Rev(), Grep: &recall.GrepSpec{Pattern: strings.Join(pats, "|")}}
	if p.sample != nil {
		return "[not shown: " + strings.Join(parts, ", ") + " found in the sample; find them and any others: " + p.in.ReadHint(req) + "]"
	}
	return "[not shown: " + strings.Join(parts, ", ") + "; find them: " + p.in.ReadHint(req) + "]"
}

// pickAll chooses the lines of the view, most important first.
func (p *cmdProjector) pickAll(ctx context.Context) error {
	evs := p.scan.ev // best first (see cmdRanker)
	if in := p.in; in.TimedOut || in.Signal != "" || in.ExitCode != nil && *in.ExitCode != 0 {
		// The run failed: what reports trouble comes first, whatever
		// else the intent names (a Bash call's description says what the
		// command does, not what went wrong).
		evs = slices.Clone(evs)
		slices.SortStableFunc(evs, func(a, b cmdEvidence) int {
			return cmp.Compare(b.severe(), a.severe())
		})
	}

	// The end of the output: how it ended is there.
	if err := p.pickTail(int(float64(p.room)*cmdTailMin), prioEnd, true); err != nil {
		return err
	}
	if len(evs) == 0 {
		// No evidence: the start and the end, as for any text.
		if err := p.pickHead(int(float64(p.room)*0.4), prioFill); err != nil {
			return err
		}
		if err := p.pickTail(p.room, prioFill, false); err != nil {
			return err
		}
		if err := p.pickRest(ctx); err != nil {
			return err
		}
		return p.bridge()
	}
	// The first line says what ran.
	if err := p.pickHead(min(40, p.room/20), prioFill); err != nil {
		return err
	}
	// Evidence: crashes with their frames; then each other line with a
	// little of its context, leaving room for the rest of the context of
	// those that rank first; then the lines that rank low (warnings,
	// frames, passing summaries).
	important := func(ev cmdEvidence) bool { return ev.score >= classify.ScoreDetail }
	for pass := 0; pass < 4; pass++ {
		p.limit = p.room
		switch pass {
		case 1:
			p.limit = int(float64(p.room) * 0.75)
		case 3:
			// More of the end before the evidence that ranks low.
			if err := p.pickTail(int(float64(p.room)*cmdTailShare), prioFill, false); err != nil {
				return err
			}
		}
		for _, ev := range evs {
			if err := ctx.Err(); err != nil {
				return err
			}
			switch {
			case pass == 0 && ev.score >= classify.ScoreCrash-5:
				p.pickEvidence(ev, ev.before, ev.after, false)
			case pass == 1 && important(ev):
				p.pickEvidence(ev, min(ev.before, 1), min(ev.after, 2), false)
			case pass == 2 && important(ev):
				p.pickEvidence(ev, ev.before, ev.after, cmdIsFailure(ev))
			case pass == 3 && !important(ev):
				p.pickEvidence(ev, 0, min(ev.after, 1), false)
			}
		}
	}
	p.limit = p.room
	if err := p.pickHead(int(float64(p.room)*cmdHeadShare), prioFill); err != nil {
		return err
	}
	if err := p.pickTail(p.room, prioFill, false); err != nil {
		return err
	}
	if err := p.pickRest(ctx); err != nil {
		return err
	}
	return p.bridge()
}

// pickRest fills the room the start and the end left, when they stopped at
// runs of near-identical lines: it goes on from the start, through the lines
// of short runs and those no run holds, past each long run (whose marker
// says what its lines are like, and how many are), and then into the long
// runs, a few lines of each in turn, until the room is used. A view is
// small only when the output is: near-identical lines are still not the
// same lines, and one among thousands may differ where no note looks.
func (p *cmdProjector) pickRest(ctx context.Context) error {
	if err := p.pickBetweenRuns(ctx); err != nil {
		return err
	}
	return p.pickInRuns(ctx)
}

// cmdFillStep is how many lines of each long run a round of pickInRuns
// shows.
const cmdFillStep = 8

// pickInRuns shows the lines of the long runs, cmdFillStep lines of each in
// turn from its start, while the room lasts.
func (p *cmdProjector) pickInRuns(ctx context.Context) error {
	type cursor struct{ no, pos, last int64 }
	var cs []cursor
	for _, r := range p.runs {
		if r.lines() >= cmdNoteRun {
			cs = append(cs, cursor{r.first, r.from, r.last})
		}
	}
	for len(cs) > 0 {
		live := cs[:0]
		for _, c := range cs {
			for n := 0; n < cmdFillStep && c.no <= c.last; {
				if err := ctx.Err(); err != nil {
					return err
				}
				if p.room-p.cost() < p.perGap {
					return nil
				}
				pl, err := p.line(c.no, c.pos, false)
				if err != nil {
					return err
				}
				if !pl.picked {
					if !p.pick(pl, prioFill) {
						return nil
					}
					n++
				}
				if pl.cutEnd {
					return nil
				}
				c.no, c.pos = c.no+1, pl.end
			}
			if c.no <= c.last {
				live = append(live, c)
			}
		}
		cs = live
	}
	return nil
}

// pickBetweenRuns goes on from the start through the lines no long run
// holds, while the room lasts.
func (p *cmdProjector) pickBetweenRuns(ctx context.Context) error {
	pos := int64(0)
	for no := int64(1); no <= p.total && pos < p.size; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.room-p.cost() < p.perGap {
			return nil
		}
		if r := p.runAt(no); r != nil && r.lines() >= cmdNoteRun {
			no, pos = r.last+1, r.to
			continue
		}
		pl, err := p.line(no, pos, false)
		if err != nil {
			return err
		}
		if !pl.picked && !p.pick(pl, prioFill) {
			return nil
		}
		if pl.cutEnd {
			return nil
		}
		no, pos = no+1, pl.end
	}
	return nil
}

// cost returns the tokens the picked lines and the markers of their gaps
// beyond the first take.
func (p *cmdProjector) cost() int { return p.used + (p.gaps-1)*p.perGap }

// line reads line no, which starts at start, rendered for the view. A line
// too long for the view is cut: its start is kept, or its end when tailCut.
func (p *cmdProjector) line(no, start int64, tailCut bool) (*cmdLine, error) {
	if pl, ok := p.cache[no]; ok {
		return pl, nil
	}
	e := p.e
	// Read no more of a line than its share of the view could show.
	l, err := e.Doc.ReadLine(start, min(e.MaxLineBytes(), tokens.MaxBytes(p.lineCap)))
	if err != nil {
		return nil, err
	}
	pl := &cmdLine{no: no, start: l.Start, end: l.End, from: l.Start, to: l.End}
	raw := l.Text
	pl.indent = classify.Indent(raw)
	pl.blank = len(bytes.TrimSpace(raw)) == 0 && !l.Cut
	if k := pl.indent; k < len(raw) {
		m, _, _ := classify.ClassifyLine(raw[k:min(len(raw), k+classify.ClassifyBytes)], k)
		pl.fam = m.Fam
	}
	pl.text = e.Render(raw, no, false)
	pl.cost = e.Cost(pl.text)
	if pl.cost > p.lineCap || l.Cut {
		if tailCut {
			contentEnd := l.End
			if b, err := e.Doc.ReadRange(l.End-1, l.End); err == nil && len(b) == 1 && b[0] == '\n' {
				contentEnd--
			}
			k := min(int64(tokens.MaxBytes(p.lineCap)), contentEnd-l.Start)
			tail, err := e.Doc.ReadRange(contentEnd-k, contentEnd)
			if err != nil {
				return nil, err
			}
			j := e.FitSuffix(tail, no, p.lineCap-2)
			pl.text = "… " + e.In.Line(tail[j:], true)
			pl.from, pl.cutStart = contentEnd-k+int64(j), true
		} else {
			k := e.FitPrefix(raw, no, p.lineCap-2)
			pl.text = e.Render(raw[:k], no, true) + " …"
			pl.to, pl.cutEnd = l.Start+int64(k), true
		}
		pl.cost = e.Cost(pl.text)
	}
	p.cache[no] = pl
	return pl, nil
}

// gapDelta returns how the number of omitted stretches changes when pl is
// picked.
func (p *cmdProjector) gapDelta(pl *cmdLine) int {
	left := pl.no > 1 && !p.isPicked(pl.no-1)
	right := pl.no < p.total && !p.isPicked(pl.no+1)
	d := 0
	switch {
	case left && right:
		d = 1
	case !left && !right:
		d = -1
	}
	if pl.cutStart || pl.cutEnd {
		d++ // the rest of the line is omitted too
	}
	return d
}

func (p *cmdProjector) isPicked(no int64) bool {
	pl, ok := p.cache[no]
	return ok && pl.picked
}

// pick adds a line to the view if it fits, and reports whether it did (or
// was in already).
func (p *cmdProjector) pick(pl *cmdLine, prio int) bool {
	if pl.picked {
		return true
	}
	d := p.gapDelta(pl)
	if p.cost()+pl.cost+d*p.perGap > min(p.room, p.limit) {
		return false
	}
	pl.picked, pl.prio = true, prio
	p.used += pl.cost
	p.gaps += d
	p.order = append(p.order, pl)
	return true
}

// unpick removes the least important line: of those with the lowest
// priority, the one picked last.
func (p *cmdProjector) unpick() *cmdLine {
	k := len(p.order) - 1
	for i := k - 1; i >= 0; i-- {
		if p.order[i].prio < p.order[k].prio {
			k = i
		}
	}
	pl := p.order[k]
	p.order = slices.Delete(p.order, k, k+1)
	pl.picked = false
	p.used -= pl.cost
	p.gaps -= p.gapDelta(pl)
	return pl
}

// inRun reports whether line no lies inside a long run of near-identical
// lines, after its first line.
func (p *cmdProjector) inRun(no int64) bool {
	r := p.runAt(no)
	return r != nil && no > r.first
}

// runAt returns the run of near-identical lines that holds line no, or nil.
func (p *cmdProjector) runAt(no int64) *cmdRun {
	// The first run that starts at no or after it, found by index: a
	// search that passes the runs by value copies each it compares.
	i := sort.Search(len(p.runs), func(i int) bool { return p.runs[i].first >= no })
	if i < len(p.runs) && p.runs[i].first == no {
		return &p.runs[i]
	}
	// runs[i-1] is the last run that starts before no.
	if i > 0 && no <= p.runs[i-1].last {
		return &p.runs[i-1]
	}
	return nil
}

// pickTail picks lines from the end of the output backward until those
// picked from the end take want tokens. It stops at a run of near-identical
// lines (except among the last three lines when end is set).
func (p *cmdProjector) pickTail(want int, prio int, end bool) error {
	if p.total == 0 {
		return nil
	}
	pos, no, got := p.size, p.total, 0
	for no >= 1 {
		if pl, ok := p.cache[no]; ok && pl.picked {
			// Go on through lines picked already; evidence near the end
			// does not count as the end's.
			if pl.prio == prioEnd || pl.prio == prioFill {
				got += pl.cost
			}
			if pl.cutStart {
				return nil
			}
			pos, no = pl.start, no-1
			continue
		}
		if got >= want {
			return nil
		}
		if no != p.total && p.inRun(no) && !(end && p.total-no < 3) {
			return nil
		}
		start, err := p.e.Doc.PrevLineStart(pos)
		if err != nil {
			return err
		}
		pl, err := p.line(no, start, no == p.total)
		if err != nil {
			return err
		}
		if got > 0 && got+pl.cost > want || !p.pick(pl, prio) {
			return nil
		}
		got += pl.cost
		if pl.cutStart {
			return nil
		}
		pos, no = start, no-1
	}
	return nil
}

// pickHead picks lines from the start forward until those picked from the
// start take want tokens, stopping at a run and at lines picked already.
func (p *cmdProjector) pickHead(want int, prio int) error {
	pos, got := int64(0), 0
	for no := int64(1); no <= p.total && pos < p.size; no++ {
		if pl, ok := p.cache[no]; ok && pl.picked {
			if pl.prio != prioFill || pl.cutEnd {
				return nil
			}
			got += pl.cost
			pos = pl.end
			continue
		}
		if got >= want || p.inRun(no) {
			return nil
		}
		pl, err := p.line(no, pos, false)
		if err != nil {
			return err
		}
		if got+pl.cost > want || !p.pick(pl, prio) {
			return nil
		}
		got += pl.cost
		if pl.cutEnd {
			return nil
		}
		pos = pl.end
	}
	return nil
}

// cmdBlockLines bounds the lines of a failure's block (see pickEvidence).
const cmdBlockLines = 80

// cmdIsFailure reports whether evidence opens a failed test's report
// ("not ok", "--- FAIL", "●", "✖"), which goes on in the lines indented
// deeper than it.
func cmdIsFailure(ev cmdEvidence) bool {
	return ev.fam == classify.FamTest && ev.score >= classify.ScoreFail-4
}

// pickEvidence picks an evidence line with up to before lines before it and
// after lines after it. With block, it picks also the rest of the lines
// indented deeper than it (blank lines among them), up to cmdBlockLines: a
// failed test's report kept whole, its diff and its stack, up to the next
// test.
func (p *cmdProjector) pickEvidence(ev cmdEvidence, before, after uint8, block bool) {
	pl, err := p.line(ev.line, ev.off, false)
	if err != nil || !p.pick(pl, prioEvidence) {
		return
	}
	if ev.headLine > 0 && ev.headLine < ev.line-int64(before) {
		// The line it belongs under: the file an eslint problem is in.
		if h, err := p.line(ev.headLine, ev.headOff, false); err == nil {
			p.pick(h, prioContext)
		}
	}
	// The heading of the commit it is in: its hash, author and date.
	for i, off := int64(0), ev.recOff; ev.recLine > 0 && i < int64(ev.recN); i++ {
		h, err := p.line(ev.recLine+i, off, false)
		if err != nil || !p.pick(h, prioContext) || h.cutEnd {
			break
		}
		off = h.end
	}
	next := pl
	for i := 0; (i < int(after) || block && i < cmdBlockLines) && next.no < p.total && !next.cutEnd; i++ {
		q, err := p.line(next.no+1, next.end, false)
		if err != nil {
			break
		}
		if i >= int(after) && !p.inBlock(pl, q) {
			break
		}
		if !p.pick(q, prioContext) {
			break
		}
		next = q
	}
	prev := pl
	for i := uint8(0); i < before && prev.no > 1 && !prev.cutStart; i++ {
		start, err := p.e.Doc.PrevLineStart(prev.start)
		if err != nil {
			break
		}
		q, err := p.line(prev.no-1, start, false)
		if err != nil || q.cutEnd || !p.pick(q, prioContext) {
			break
		}
		prev = q
	}
}

// inBlock reports whether q, a line after head, belongs to the block head
// opens: it is indented deeper, or it is blank and a line indented deeper
// follows the blank lines.
func (p *cmdProjector) inBlock(head, q *cmdLine) bool {
	for k := 0; q.blank && k < 4 && q.no < p.total; k++ {
		next, err := p.line(q.no+1, q.end, false)
		if err != nil {
			return false
		}
		q = next
	}
	return !q.blank && q.indent > head.indent
}

// bridge fills short omitted stretches between picked lines: first those
// that cost no more to show than their marker, then, while the room allows,
// any of up to 12 lines.
func (p *cmdProjector) bridge() error {
	for _, neutral := range []bool{true, false} {
		picked := p.sorted()
		for i := 0; i+1 < len(picked); i++ {
			a, b := picked[i], picked[i+1]
			n := b.no - a.no - 1
			if n <= 0 || n > 12 || neutral && n > 8 || a.cutEnd || b.cutStart {
				continue
			}
			var add []*cmdLine
			cost, pos := 0, a.end
			for no := a.no + 1; no < b.no; no++ {
				q, err := p.line(no, pos, false)
				if err != nil {
					return err
				}
				if q.cutEnd || q.cutStart {
					add = nil
					break
				}
				add = append(add, q)
				cost += q.cost
				pos = q.end
			}
			if add == nil || neutral && cost > p.perGap || p.cost()+cost-p.perGap > p.room {
				continue
			}
			for _, q := range add {
				p.pick(q, prioFill)
			}
		}
	}
	return nil
}

// sorted returns the picked lines in order.
func (p *cmdProjector) sorted() []*cmdLine {
	var out []*cmdLine
	for _, pl := range p.cache {
		if pl.picked {
			out = append(out, pl)
		}
	}
	slices.SortFunc(out, func(a, b *cmdLine) int { return int(a.no - b.no) })
	return out
}

// excerpts groups the picked lines into excerpts.
func (p *cmdProjector) excerpts(lines []*cmdLine) []view.Excerpt {
	var xs []view.Excerpt
	for _, pl := range lines {
		if n := len(xs); n == 0 || pl.no != xs[n-1].Last()+1 || pl.cutStart || xs[n-1].CutEnd {
			xs = append(xs, view.Excerpt{From: pl.from, First: pl.no, CutStart: pl.cutStart})
		}
		x := &xs[len(xs)-1]
		x.Lines = append(x.Lines, pl.text)
		x.Offs = append(x.Offs, pl.from)
		x.To, x.CutEnd = pl.to, pl.cutEnd
	}
	for i := range xs {
		xs[i].Offs = append(xs[i].Offs, xs[i].To)
	}
	return xs
}

// omitted counts the evidence lines, per family, that the view leaves out.
func (p *cmdProjector) omitted(lines []*cmdLine) map[classify.Family]int64 {
	more := map[classify.Family]int64{}
	for f := classify.FamPanic; f < classify.NumFamilies; f++ {
		more[f] = p.scan.counts[f]
	}
	for _, pl := range lines {
		if pl.fam != classify.FamNone {
			more[pl.fam]--
		}
	}
	return more
}

// note returns the layout's note: it says what the lines of an omitted
// stretch that holds a long run of near-identical lines are like, and how
// many are (see command_like.go). ends maps the offsets where omitted
// stretches start to their first line, and -(the offset where one ends)-1
// to its last.
func (p *cmdProjector) note(ends map[int64]int64) func(from, to int64) string {
	return func(from, to int64) string {
		a, ok := ends[from]
		if !ok {
			return ""
		}
		b, ok := ends[-to-1]
		if !ok || b < a || !p.notes {
			return ""
		}
		long := false
		for i := range p.runs {
			if r := &p.runs[i]; min(r.last, b)-max(r.first, a)+1 >= cmdNoteRun {
				long = true
				break
			}
		}
		if !long {
			return ""
		}
		k := [3]int64{a, b, 0}
		if p.compact {
			k[2] = 1
		}
		if s, ok := p.noteCache[k]; ok {
			return s
		}
		// The longer comparison unless the shorter names many more.
		s := p.likeNote(a, b, from)
		p.noteCache[k] = s
		return s
	}
}

// cmdNoteReads bounds the lines a note reads to count what the runs of
// its stretch did not count.
const cmdNoteReads = 4096

// cmdTally counts the lines of one kind in an omitted stretch.
type cmdTally struct {
	key uint64
	n   int64
	off int64 // where one of them starts
}

// cmdTallies is a note's tally at one level: the kinds of line in the
// order met, and where each is in the list by its key. A view reuses one
// per level from note to note.
type cmdTallies struct {
	at   map[uint64]int
	list []cmdTally
}

// reset empties the tally, keeping its room.
func (s *cmdTallies) reset() {
	if s.at == nil {
		s.at = map[uint64]int{}
	}
	clear(s.at)
	s.list = s.list[:0]
}

// add counts n lines of the kind key, one of which starts at off (or, for
// off < 0, lines of the kind met before).
func (s *cmdTallies) add(key uint64, n, off int64) {
	if i, ok := s.at[key]; ok {
		t := &s.list[i]
		t.n += n
		if off >= 0 {
			t.off = min(t.off, off)
		}
		return
	}
	s.at[key] = len(s.list)
	s.list = append(s.list, cmdTally{key: key, n: n, off: off})
}

// likeNote counts the lines of the omitted stretch of lines a-b, which
// starts at offset from, by kind (cmdLikeKey, at each level), and names the
// one or two kinds most of them are, with their number: "5,193 lines like
// `…`", or "including 23 lines like `…` and `…`" when they are fewer than
// nine in ten of the stretch; at the longer level unless the shorter names
// many more lines. The counts are exact: a run of the scan gives those of
// the kinds it counted when every line of it outside the stretch is shown,
// and the other lines are read, up to cmdNoteReads of them (past that, the
// note says nothing). It returns "" when no kind has cmdNoteRun lines.
func (p *cmdProjector) likeNote(a, b, from int64) string {
	tally := &p.tallies
	for lv := range tally {
		tally[lv].reset()
	}
	add := func(lv int, key uint64, n, off int64) { tally[lv].add(key, n, off) }
	var full [cmdLikeLevels][]*cmdRun // runs that met more kinds than they count
	reads := 0
	for no, pos := a, from; no <= b; {
		if r := p.runAt(no); r != nil && p.accounted(r, a, b) {
			if !p.tallyRun(r, a, b, add) {
				return ""
			}
			for lv := range full {
				if r.likes[lv][cmdRunLikes-1].key != 0 {
					full[lv] = append(full[lv], r)
				}
			}
			no, pos = r.last+1, r.to
			continue
		}
		if reads++; reads > cmdNoteReads {
			return ""
		}
		l, err := p.readNoteLine(pos)
		if err != nil {
			return ""
		}
		if keys, ok := cmdLikeKeysCut(l.Text, l.Cut); ok {
			for lv, key := range keys {
				add(lv, key, 1, pos)
			}
		}
		no, pos = no+1, l.End
	}
	s, like := p.likeName(0, a, b, tally[0].list, full[0])
	if s1, like1 := p.likeName(1, a, b, tally[1].list, full[1]); like1*4 > like*5 {
		s = s1
	}
	return s
}

// likeName names the one or two kinds of line at level lv that most lines
// of the stretch of lines a-b are, from their tally, and how many lines
// are of them; full holds the runs that met more kinds than they count.
func (p *cmdProjector) likeName(lv int, a, b int64, tally []cmdTally, full []*cmdRun) (string, int64) {
	// A kind a full run did not count may have lines there that no one
	// counted: only kinds every full run counted can be named.
	var ts []*cmdTally
	for i := range tally {
		t := &tally[i]
		ok := true
		for _, r := range full {
			if !slices.ContainsFunc(r.likes[lv][:], func(l cmdLike) bool { return l.key == t.key }) {
				ok = false
				break
			}
		}
		if ok {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(x, y *cmdTally) int {
		if x.n != y.n {
			return cmp.Compare(y.n, x.n)
		}
		return cmp.Compare(x.off, y.off)
	})
	if len(ts) > 2 {
		ts = ts[:2]
	}
	if len(ts) == 2 && (p.compact || ts[1].n < cmdMinRun) {
		ts = ts[:1]
	}
	var like int64
	for _, t := range ts {
		like += t.n
	}
	if like < cmdNoteRun {
		return "", 0
	}
	slices.SortFunc(ts, func(x, y *cmdTally) int { return cmp.Compare(x.off, y.off) })
	var samples []string
	for _, t := range ts {
		l, err := p.e.Doc.ReadLine(t.off, cmdSampleBytes)
		if err != nil {
			return "", 0
		}
		s, key, ok := cmdSampleOf(l.Text, l.Cut, lv)
		if !ok || key != t.key {
			return "", 0
		}
		samples = append(samples, s)
	}
	s := textfmt.Plural(like, "line") + " like " + strings.Join(samples, " and ")
	if like*10 < (b-a+1)*9 {
		s = "including " + s
	}
	return s, like
}

// accounted reports whether every line of run r outside the stretch of
// lines a-b is shown whole, so that what the run counted, less those
// lines, is what it holds in the stretch.
func (p *cmdProjector) accounted(r *cmdRun, a, b int64) bool {
	shown := func(no int64) bool {
		pl, ok := p.cache[no]
		return ok && pl.picked && !pl.cutStart && !pl.cutEnd
	}
	for no := r.first; no < a; no++ {
		if !shown(no) {
			return false
		}
	}
	for no := b + 1; no <= r.last; no++ {
		if !shown(no) {
			return false
		}
	}
	return true
}

// tallyRun adds, through add, the lines of run r in the stretch of lines
// a-b by level and kind: those the run counted, less those the view shows
// (r must be accounted), and its first lines, which it did not count. It
// reports false when a line cannot be read.
func (p *cmdProjector) tallyRun(r *cmdRun, a, b int64, add func(lv int, key uint64, n, off int64)) bool {
	counted := func(lv int, key uint64, no int64) bool {
		for _, l := range r.likes[lv] {
			if l.key == key {
				return no >= l.line
			}
		}
		return false
	}
	for lv := range r.likes {
		for _, l := range r.likes[lv] {
			if l.key != 0 {
				add(lv, l.key, l.n, l.off)
			}
		}
	}
	// The lines before since, which the scan read before it knew they
	// were a run's (at most cmdRunWindow).
	pos := r.from
	for no := r.first; no < r.since; no++ {
		l, err := p.readNoteLine(pos)
		if err != nil {
			return false
		}
		if keys, ok := cmdLikeKeysCut(l.Text, l.Cut); ok && a <= no && no <= b {
			for lv, key := range keys {
				add(lv, key, 1, pos)
			}
		}
		pos = l.End
	}
	// The lines counted that the view shows, outside the stretch.
	for _, span := range [2][2]int64{{r.since, a - 1}, {max(r.since, b+1), r.last}} {
		for no := span[0]; no <= span[1]; no++ {
			l, err := p.readNoteLine(p.cache[no].start)
			if err != nil {
				return false
			}
			keys, ok := cmdLikeKeysCut(l.Text, l.Cut)
			for lv, key := range keys {
				if ok && counted(lv, key, no) {
					add(lv, key, -1, -1)
				}
			}
		}
	}
	return true
}

// readNoteLine reads the first cmdSampleBytes bytes of the line at off
// for a note, into the one buffer notes reuse: its Text is valid until the
// next call.
func (p *cmdProjector) readNoteLine(off int64) (lines.Line, error) {
	l, err := p.e.Doc.ReadLineBuf(off, cmdSampleBytes, p.noteBuf)
	if err == nil {
		p.noteBuf = l.Text
	}
	return l, err
}

// fit renders the picked lines and, while the view is over the budget,
// gives up what matters least first: the lines that only fill, the notes on
// runs, the line that counts the evidence left out, the reads in the
// markers, the context of evidence, the command line, the evidence, the end.
// The header, which names the next read, always stays.
func (p *cmdProjector) fit(ctx context.Context) (Output, error) {
	e, in := p.e, p.in
	dropPrelude := 0
	for {
		if err := ctx.Err(); err != nil {
			return Output{}, err
		}
		lines := p.sorted()
		l := p.layout(p.omitted(lines))
		l.Prelude = l.Prelude[min(dropPrelude, len(l.Prelude)):]
		l.Excerpts = p.excerpts(lines)
		// The first and last lines of the omitted stretches, for the notes.
		ends := map[int64]int64{0: 1, -p.size - 1: p.total}
		for _, pl := range lines {
			ends[pl.to] = pl.no + 1
			if pl.cutEnd {
				ends[pl.to] = pl.no
			}
			ends[-pl.from-1] = pl.no - 1
			if pl.cutStart {
				ends[-pl.from-1] = pl.no
			}
		}
		l.Note = p.note(ends)
		text, next, err := e.Assemble(l, p.compact)
		if err != nil {
			return Output{}, err
		}
		n := in.Counter.Count(text)
		if n <= in.Budget {
			return Output{Text: text, Next: next, Complete: next == nil && in.StoreError == ""}, nil
		}
		over := n - in.Budget + p.perGap/2
		switch low := p.lowest(); {
		case low == prioFill:
			p.drop(over, prioFill)
		case p.notes:
			p.notes = false
		case p.more:
			p.more = false
		case !p.compact:
			p.compact = true
		case low == prioContext:
			p.drop(over, low)
		case len(l.Prelude) > 0:
			dropPrelude++
		case low >= 0:
			p.drop(over, low)
		default:
			// Nothing but the header and one marker: the header alone
			// names the omission and its read.
			gs, err := e.Gaps(nil)
			if err != nil {
				return Output{}, err
			}
			text := e.Header(l, gs)
			if n := in.Counter.Count(text); n > in.Budget {
				return Output{}, fmt.Errorf("project: a budget of %d tokens cannot hold the header of a command's view (%d tokens)", in.Budget, n)
			}
			var next *recall.Request
			if len(gs) > 0 && in.Ref != "" {
				r := view.Continuation(gs)
				next = &r
			}
			return Output{Text: text, Next: next, Complete: next == nil && in.StoreError == ""}, nil
		}
	}
}

// lowest returns the lowest priority among the picked lines, or -1.
func (p *cmdProjector) lowest() int {
	low := -1
	for _, pl := range p.order {
		if low < 0 || pl.prio < low {
			low = pl.prio
		}
	}
	return low
}

// drop removes lines of priority prio, the last picked first, until their
// tokens reach want or none is left.
func (p *cmdProjector) drop(want, prio int) {
	for dropped := 0; dropped < want && p.lowest() == prio; {
		dropped += p.unpick().cost
	}
}
