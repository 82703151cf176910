package project

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
)

func init() {
	Register(KindFile, ProjectorFunc(projectFile))
}

// Shares of the room for excerpts and outline in a file view.
const (
	// fileOutlineShare is the part of the room an outline may take when the
	// view shows the head and the tail.
	fileOutlineShare = 0.45
	// fileFocusOutlineShare is the part it may take when the view centres on
	// what the read asked for.
	fileFocusOutlineShare = 0.25
	// fileHeadShare is the head's part of the room left for excerpts; the
	// tail gets the rest.
	fileHeadShare = 0.6
	// focusHeadShare bounds the short head shown above a focus region, and
	// focusHeadLines the lines it may have.
	focusHeadShare = 0.12
	focusHeadLines = 12
	// focusContext is the number of lines shown around a focus region.
	focusContext = 2
	// maxFocusWindows bounds the matches of a pattern shown, each with its
	// context.
	maxFocusWindows = 5
)

// projectFile shows a file read: whole numbered lines, either the head and
// the tail with an outline of the definitions in between, or, when the read's
// arguments say what it is after (a line range, a symbol, a pattern, an
// intent), that region whole with a short head for orientation.
func projectFile(ctx context.Context, in *Input) (Output, error) {
	// A test report read as a file (JUnit XML, ...) is shown decoded.
	if out, ok, err := projectTestReport(ctx, in, KindFile); ok || err != nil {
		return out, err
	}
	v, err := newFileView(in)
	if err != nil {
		return Output{}, err
	}
	// A file that holds a tool's report or a log is better seen as that
	// (see projectSniffedFile).
	if out, ok, err := v.projectSniffedFile(ctx); ok {
		return out, err
	}
	return v.project(ctx)
}

// fileView builds the view of one file read.
type fileView struct {
	in   *Input
	e    *view.Excerptor
	nb   view.Numbering
	args Call
	defs *defFinder
	l    view.Layout
	// bundle tracks the regions of a bundle of files that the intent's
	// paths name (see bundle.go); nil without an intent or paths.
	bundle *bundleRegions
}

func newFileView(in *Input) (*fileView, error) {
	e, err := newExcerptor(in, true)
	if err != nil {
		return nil, fmt.Errorf("project: file: %w", err)
	}
	v := &fileView{in: in, e: e, args: in.Call()}
	v.nb, err = view.DetectNumbering(e)
	if err != nil {
		return nil, fmt.Errorf("project: file: %w", err)
	}
	if v.nb.On {
		// The tool numbered the lines already.
		e.Numbers = false
	}
	head, err := e.Doc.ReadRange(0, 8<<10)
	if err != nil {
		return nil, fmt.Errorf("project: file: %w", err)
	}
	lg := langOf(v.args.Path, head)
	v.defs = &defFinder{in: in, lang: lg, strip: v.nb.On, total: e.Total}
	v.l.Title = "file"
	if p := view.DisplayPath(v.args.Path); p != "" {
		v.l.Title += " " + p
	}
	if lg != nil {
		v.l.Facts = append(v.l.Facts, lg.name)
	}
	v.l.Facts = append(v.l.Facts, "rev "+in.Rev())
	if v.nb.On && v.nb.First != 1 {
		v.l.Facts = append(v.l.Facts, fmt.Sprintf("numbered by the tool from %s (stored line N is file line N+%s)",
			textfmt.Int(v.nb.First), textfmt.Int(v.nb.First-1)))
	}
	return v, nil
}

func (v *fileView) project(ctx context.Context) (Output, error) {
	e, size := v.e, v.e.Doc.Size()
	// A file that fits is shown whole.
	whole, _, err := e.Forward(0, size, v.in.Budget-e.Overhead(v.l, 1))
	if err != nil {
		return Output{}, err
	}
	if whole.To == size && !whole.CutEnd {
		l := v.l
		l.Excerpts = []view.Excerpt{whole}
		text, next, err := e.Fit(l)
		if err != nil {
			return Output{}, err
		}
		if next == nil && v.in.Counter.Count(text) <= v.in.Budget {
			return Output{Text: text, Complete: v.in.StoreError == ""}, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	// A document (no source language) is shown by its sections, unless
	// the read asked for lines, a symbol or a pattern (document.go).
	if a := v.args; (v.defs.lang == nil || v.defs.lang == langMd) && !a.HasRange && a.Tail == 0 && a.Symbol == "" && a.Pattern == "" {
		if df, ok, err := sniffDocument(e, a.Path); err != nil {
			return Output{}, err
		} else if ok {
			out, ok, err := documentView(ctx, e, v.l, df, a.Intent, v.nb.On, fileHeadShare)
			if err != nil || ok && v.in.Counter.Count(out.Text) <= v.in.Budget {
				return out, err
			}
		}
	}
	f, err := v.focus(ctx)
	if err != nil {
		return Output{}, err
	}
	for _, withExtras := range []bool{true, false} {
		l, err := v.plan(ctx, f, withExtras)
		if err != nil {
			return Output{}, err
		}
		text, next, err := e.Fit(l)
		if err != nil {
			return Output{}, err
		}
		if v.in.Counter.Count(text) <= v.in.Budget {
			return Output{Text: text, Next: next}, nil
		}
	}
	return v.minimal()
}

// minimal is the view of last resort for a budget too small for anything
// else: the header and one marker, which name the whole file.
func (v *fileView) minimal() (Output, error) {
	text, next, err := v.e.Assemble(view.Layout{Title: "file"}, true)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: text, Next: next}, nil
}

// plan lays out the view: excerpts, and, withExtras, the focus note and the
// outline. The outline first gets a share of the room; what it leaves unused
// goes back to the excerpts.
func (v *fileView) plan(ctx context.Context, f *focusPlan, withExtras bool) (view.Layout, error) {
	e := v.e
	l := v.l
	nGaps := 1
	if f != nil {
		nGaps = len(f.regions) + 1
	}
	base := v.in.Budget - e.Overhead(l, nGaps)
	if withExtras && f != nil && f.note != "" {
		l.Prelude = append(l.Prelude, f.note)
		base -= e.Cost(f.note)
	}
	share := 0.0
	if withExtras && v.defs.lang != nil {
		share = fileOutlineShare
		if f != nil && len(f.regions) > 0 {
			share = fileFocusOutlineShare
		}
	}
	return e.Beside(ctx, l, base, int(float64(base)*share),
		func(room int) ([]view.Excerpt, error) { return v.excerpts(f, room) },
		func(shown view.LineSpans, room int) ([]string, int, error) {
			return outlineFor(e, ctx, v.defs, shown, room, f.boost())
		})
}

// excerpts cuts the excerpts of the view within room tokens: the head and
// the tail, or a short head and the focus regions.
func (v *fileView) excerpts(f *focusPlan, room int) ([]view.Excerpt, error) {
	e := v.e
	if room < 0 {
		room = 0
	}
	if f == nil || len(f.regions) == 0 {
		return e.Ends(room, fileHeadShare)
	}
	var xs []view.Excerpt
	first, err := e.Doc.LineStart(f.regions[0].from)
	if err != nil {
		return nil, err
	}
	if first > 0 {
		headRoom := int(float64(room) * focusHeadShare)
		limit, err := e.Doc.LineStart(min(focusHeadLines+1, f.regions[0].from))
		if err != nil {
			return nil, err
		}
		head, used, err := e.Forward(0, min(limit, first), headRoom)
		if err != nil {
			return nil, err
		}
		xs = append(xs, head)
		room -= used
	}
	// The minor regions (the heads of other matches, the lines that
	// enclose one) first, each within a bounded share; then the major ones,
	// in line order, with what is left.
	nMinor, nMajor := 0, 0
	for _, r := range f.regions {
		if r.minor {
			nMinor++
		} else {
			nMajor++
		}
	}
	minorRoom := room
	if nMajor > 0 && nMinor > 0 {
		minorRoom = int(float64(room) * min(focusMinorShare, 0.5/float64(nMinor)))
	}
	type placed struct {
		r    focusRegion
		x    view.Excerpt
		used int
	}
	var done []placed
	for _, minor := range []bool{true, false} {
		for _, r := range f.regions {
			if r.minor != minor || room <= 0 {
				continue
			}
			x, used, err := v.regionExcerpt(r, min(room, minorRoom))
			if err != nil {
				return nil, err
			}
			if x.Empty() {
				continue
			}
			done = append(done, placed{r, x, used})
			room -= used
		}
		minorRoom = room
	}
	// What the major regions left goes to the minor ones: first to show
	// those cut short to their end, then to show whole the definitions
	// they show the heads of, when that fits.
	sort.Slice(done, func(i, j int) bool { return done[i].x.From < done[j].x.From })
	for _, wholeDefs := range []bool{false, true} {
		for i := range done {
			p := &done[i]
			short := p.x.CutEnd || p.x.Last() < p.r.to
			if !p.r.minor || room <= 0 || short == wholeDefs || wholeDefs && p.r.whole <= p.r.to {
				continue
			}
			r := p.r
			if wholeDefs {
				if i+1 < len(done) && done[i+1].x.First <= r.whole {
					continue // another region shows a part of it
				}
				r.to = r.whole
			}
			x, used, err := v.regionExcerpt(r, room+p.used)
			if err != nil {
				return nil, err
			}
			if wholeDefs && (x.CutEnd || x.Last() < r.to) || x.To <= p.x.To {
				continue
			}
			room -= used - p.used
			p.x, p.used = x, used
		}
	}
	for _, p := range done {
		xs = append(xs, p.x)
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].From < xs[j].From })
	return xs, nil
}

// regionExcerpt cuts the excerpt of one focus region within room tokens.
func (v *fileView) regionExcerpt(r focusRegion, room int) (view.Excerpt, int, error) {
	e := v.e
	from, err := e.Doc.LineStart(r.from)
	if err != nil {
		return view.Excerpt{}, 0, err
	}
	to, err := e.Doc.LineStart(min(r.to+1, e.Total+1))
	if err != nil {
		return view.Excerpt{}, 0, err
	}
	if from >= to {
		return view.Excerpt{}, 0, nil
	}
	return e.Forward(from, to, room)
}

// focusMinorShare bounds the part of the room one minor focus region may
// take when a major one is shown too.
const focusMinorShare = 0.2

// focusRegion is a range of stored lines (inclusive) a focus shows. A minor
// region (the head of another match, a line that encloses the focus) gets a
// bounded share of the room before the major ones.
type focusRegion struct {
	from, to int64
	minor    bool
	// whole, when past to, is the last line of the whole definition a
	// minor region shows the head of: shown whole if the room allows.
	whole int64
}

// normRegions sorts regions and merges those that overlap, or touch and are
// both minor or both major; a merged region is minor only when both were.
func normRegions(rs []focusRegion) []focusRegion {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].from != rs[j].from {
			return rs[i].from < rs[j].from
		}
		return rs[i].to > rs[j].to
	})
	var out []focusRegion
	for _, r := range rs {
		if r.from > r.to {
			continue
		}
		if n := len(out); n > 0 && (r.from <= out[n-1].to || r.from == out[n-1].to+1 && r.minor == out[n-1].minor) {
			o := &out[n-1]
			o.to = max(o.to, r.to)
			o.minor = o.minor && r.minor
			o.whole = max(o.whole, r.whole)
			continue
		}
		out = append(out, r)
	}
	return out
}

// focusPlan is where a view centres, from what the read asked for.
type focusPlan struct {
	// note tells the model what was asked and what the view shows for it.
	note string
	// regions are the stored line ranges to show (sorted, disjoint).
	regions []focusRegion
	// near is the definition the view centres on, if any: the outline
	// favours its relatives.
	near *srcDef
}

// boost ranks higher, in the outline, the definitions near the focus: those
// of the same type (its methods, the type itself), then those close by.
func (f *focusPlan) boost() func(*srcDef) int {
	if f == nil || len(f.regions) == 0 {
		return nil
	}
	typ := ""
	if f.near != nil {
		if i := strings.LastIndexByte(f.near.alt, '.'); i > 0 {
			typ = f.near.alt[:i]
		}
	}
	at := f.regions[0].from
	for _, r := range f.regions {
		if !r.minor {
			at = r.from
			break
		}
	}
	if f.near != nil {
		at = f.near.line
	}
	return func(d *srcDef) int {
		b := 0
		if typ != "" && (d.name == typ || strings.HasPrefix(d.alt, typ+".")) {
			b += 3
		}
		if d.line > at-300 && d.line < at+300 {
			b++
		}
		return b
	}
}

// focus resolves the read's intent against the file. It returns nil when
// the read asked for nothing in particular.
func (v *fileView) focus(ctx context.Context) (*focusPlan, error) {
	a := v.args
	switch {
	case a.HasRange:
		return v.focusRange(), nil
	case a.Symbol != "":
		return v.focusSymbol(ctx)
	case a.Pattern != "":
		return v.focusPattern(ctx)
	case a.Intent != "":
		return v.focusIntent(ctx)
	}
	return nil, nil
}

// context widens a region by n lines each side.
func (v *fileView) context(a, b, n int64) focusRegion {
	return focusRegion{from: max(1, a-n), to: min(v.e.Total, b+n)}
}

func (v *fileView) focusRange() *focusPlan {
	a := v.args
	total := v.e.Total
	from, to := a.From, a.To
	if a.Tail > 0 {
		from, to = total-a.Tail+1, total
	} else if v.nb.On {
		// The tool's numbers are the file's; stored lines count from 1.
		from -= v.nb.First - 1
		if to > 0 {
			to -= v.nb.First - 1
		}
	}
	from = max(from, 1)
	if to == 0 || to > total {
		to = total
	}
	asked := a.rangeText()
	if from > total || to < from {
		return &focusPlan{note: fmt.Sprintf("[the read asked for %s, which is not in the %s stored; showing the head and the tail]", asked, textfmt.Plural(total, "line"))}
	}
	if from == 1 && to == total {
		return nil
	}
	return &focusPlan{
		note:    fmt.Sprintf("[focus: %s, as the read asked]", linesText(from, to)),
		regions: []focusRegion{v.context(from, to, focusContext)},
	}
}

func linesText(a, b int64) string {
	if a == b {
		return "line " + textfmt.Int(a)
	}
	return "lines " + textfmt.Int(a) + "-" + textfmt.Int(b)
}

// bestDef returns the definition that scores highest (the more important,
// then the earlier, of equals) and up to 8 others that score as high, in
// line order. A score of 0 or less is no match.
func (v *fileView) bestDef(ctx context.Context, score func(*srcDef) int) (*srcDef, []*srcDef, error) {
	var best *srcDef
	bestScore := 0
	var others []*srcDef
	err := v.defs.each(ctx, func(d *srcDef) {
		s := score(d)
		if s <= 0 {
			return
		}
		switch {
		case best == nil || s > bestScore:
			best, bestScore, others = d, s, others[:0]
		case s == bestScore && d.score > best.score:
			if len(others) < 8 {
				others = append(others, best)
			}
			best = d
		case s == bestScore && len(others) < 8:
			others = append(others, d)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Slice(others, func(i, j int) bool { return others[i].line < others[j].line })
	return best, others, nil
}

func (v *fileView) focusSymbol(ctx context.Context) (*focusPlan, error) {
	sym := normalizeSymbol(v.args.Symbol)
	if v.defs.lang == nil {
		return v.focusPatternOf(ctx, regexp.QuoteMeta(v.args.Symbol), "symbol "+strconv.Quote(view.Clip(v.args.Symbol, 60)))
	}
	best, others, err := v.bestDef(ctx, func(d *srcDef) int {
		switch {
		case d.name == sym || d.alt == sym:
			return 3
		case strings.EqualFold(d.name, sym) || strings.EqualFold(d.alt, sym):
			return 2
		}
		return 0
	})
	if err != nil {
		return nil, err
	}
	if best == nil {
		return &focusPlan{note: fmt.Sprintf("[the read asked for symbol %s: no definition by that name; showing the head and the tail]", strconv.Quote(view.Clip(v.args.Symbol, 60)))}, nil
	}
	note := fmt.Sprintf("[focus: %s (%s), the definition of %s the read asked for", view.Clip(best.text, 80), linesText(best.line, max(best.end, best.line)), view.Clip(v.args.Symbol, 60))
	f := &focusPlan{regions: []focusRegion{v.context(best.start, max(best.end, best.line), focusContext)}, near: best}
	if len(others) > 0 {
		// The others by that name (overloads, declarations and their
		// implementations) are shown by their heads.
		lines := make([]int64, len(others))
		for i, d := range others {
			lines[i] = d.line
			if i < maxIntentDefs-1 {
				f.regions = append(f.regions, v.defHead(d))
			}
		}
		note += "; others by that name at " + linesList(lines)
	}
	f.note = note + "]"
	f.regions = normRegions(f.regions)
	return f, nil
}

// normalizeSymbol turns "(*Server).Serve", "Server::serve" or "Server#serve"
// into the "Server.Serve" form definitions answer to.
func normalizeSymbol(s string) string {
	s = strings.TrimSpace(s)
	s = strings.NewReplacer("(*", "", "(", "", ")", "", "*", "", "::", ".", "#", ".").Replace(s)
	return strings.TrimSuffix(s, ".")
}

func linesList(ls []int64) string {
	parts := make([]string, len(ls))
	for i, n := range ls {
		parts[i] = textfmt.Int(n)
	}
	return "lines " + strings.Join(parts, ", ")
}

func (v *fileView) focusPattern(ctx context.Context) (*focusPlan, error) {
	p := v.args.Pattern
	if _, err := regexp.Compile(p); err != nil {
		p = regexp.QuoteMeta(p)
	}
	if v.args.IgnoreCase {
		p = "(?i)" + p
	}
	return v.focusPatternOf(ctx, p, "pattern "+strconv.Quote(view.Clip(v.args.Pattern, 60)))
}

// maxMatchLines bounds the matching lines a pattern focus remembers.
const maxMatchLines = 64

// focusPatternOf centres the view on the first lines that match an RE2
// pattern, each with its context.
func (v *fileView) focusPatternOf(ctx context.Context, pattern, asked string) (*focusPlan, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, nil
	}
	s := view.NewLineScanner(ctx, v.in.Source, v.in.Source.Size(), maxOutlineLine*4)
	var hits []int64
	count := 0
	for s.Scan() {
		t := s.Text
		if v.nb.On {
			t = view.StripNumber(t)
		}
		if re.Match(t) {
			count++
			if len(hits) < maxMatchLines {
				hits = append(hits, s.Line)
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	grep := ""
	if v.in.Ref != "" {
		grep = "; every match: " + v.in.Hint(recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Grep: &recall.GrepSpec{Pattern: pattern}})
	}
	if count == 0 {
		return &focusPlan{note: fmt.Sprintf("[the read asked for %s: no line matches; showing the head and the tail]", asked)}, nil
	}
	heads, err := v.defsAt(ctx, hits)
	if err != nil {
		return nil, err
	}
	var regions []focusRegion
	for _, h := range hits {
		r := v.context(h, h, focusContext)
		if d := heads[h]; d != nil {
			// A match on a definition's first line brings the definition:
			// whole when short, else its head.
			end := max(d.end, d.line)
			r = focusRegion{from: d.start, to: min(end, d.line+2*defHeadAfter)}
			if end-d.start < maxIntentSection {
				r.to = end
			}
		}
		if n := len(regions); n > 0 && r.from <= regions[n-1].to+1 {
			regions[n-1].to = max(regions[n-1].to, r.to)
			continue
		}
		if len(regions) == maxFocusWindows {
			break
		}
		regions = append(regions, r)
	}
	return &focusPlan{
		note:    fmt.Sprintf("[focus: the lines matching %s (%s in all, the first at line %s)%s]", asked, matchesText(count), textfmt.Int(hits[0]), grep),
		regions: regions,
	}, nil
}

// defsAt maps each of the given lines (sorted) that is the first line of a
// definition, or of its doc comment, to the innermost such definition.
func (v *fileView) defsAt(ctx context.Context, lines []int64) (map[int64]*srcDef, error) {
	out := map[int64]*srcDef{}
	if v.defs.lang == nil || len(lines) == 0 {
		return out, nil
	}
	err := v.defs.each(ctx, func(d *srcDef) {
		i := sort.Search(len(lines), func(i int) bool { return lines[i] >= d.start })
		for ; i < len(lines) && lines[i] <= d.line; i++ {
			out[lines[i]] = d
		}
	})
	return out, err
}

func matchesText(n int) string {
	if n == 1 {
		return "1 match"
	}
	return textfmt.Int(int64(n)) + " matches"
}

func (a Call) rangeText() string {
	switch {
	case a.Tail > 0:
		return "the last " + textfmt.Plural(a.Tail, "line")
	case a.To == 0:
		return "the lines from " + textfmt.Int(a.From)
	}
	return linesText(a.From, a.To)
}
