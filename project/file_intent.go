package project

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/rank"
)

// Bounds of the intent focus.
const (
	// maxIntentSection is the longest definition or block a focus shows
	// whole; a longer one is shown from its start, or around the line.
	maxIntentSection = 80
	// maxIntentDefs is how many definitions a view centres on: the best
	// one, whole when it fits, and the heads of the next.
	maxIntentDefs = 3
	// intentRunnerUp is the share of the best definition's score another
	// must reach to have its head shown too.
	intentRunnerUp = 0.5
	// intentInner is the share of a definition's score a definition inside
	// it must reach to be preferred, as the more specific.
	intentInner = 0.6
	// maxIntentCands bounds the definitions scored in full, and
	// maxIntentLines the best lines whose definitions are.
	maxIntentCands = 16
	maxIntentLines = 8
	// maxRecent bounds the definitions remembered before a best line, to
	// find those that enclose it.
	maxRecent = 16
	// maxLevelSets bounds the distinct sets of matched words remembered, and
	// linesPerSet the lines remembered for each.
	maxLevelSets = 4096
	linesPerSet  = 2
	// maxDefScan bounds the lines of one definition scored.
	maxDefScan = 4000
	// defHeadBefore and defHeadAfter bound the head of a definition shown
	// for a runner-up: doc lines above its first line, body lines below.
	defHeadBefore = 6
	defHeadAfter  = 6
	// maxParents bounds the enclosing lines a focus line is shown with,
	// and maxParentScan the lines searched above it for them.
	maxParents    = 6
	maxParentScan = 4000
)

// lineCand is a line that matches an intent, with its score.
type lineCand struct {
	line  int64
	lv    rank.Levels
	score float64
}

// defCand is a definition that matches an intent, with what its name and
// signature hold and its score.
type defCand struct {
	d      *srcDef
	name   rank.Levels // levels in its name
	sig    rank.Levels // levels in its signature
	prior  float64     // score of its name and signature
	score  float64     // full score, doc and body included
	inner  float64     // score of its best line, its name and signature as one
	innerN int64       // that line
}

// focusIntent centres the view on what best matches the intent's words: the
// definitions that score highest (the best whole when it fits, the heads of
// the runners-up) and the line that scores highest, when no definition
// shown holds it, with the lines that enclose it.
func (v *fileView) focusIntent(ctx context.Context) (*focusPlan, error) {
	it := rank.Parse(v.args.Intent)
	asked := "intent " + strconv.Quote(view.Clip(v.args.Intent, 60))
	if len(it.Words) == 0 {
		return nil, nil
	}
	// Paths the intent names select the regions of a bundle they head;
	// what else it says ranks what is in them.
	scored := it
	if len(it.Paths) > 0 {
		head, err := v.e.Doc.ReadRange(0, bundleHeadBytes)
		if err != nil {
			return nil, err
		}
		if ok, diff := isBundle(head); ok {
			v.bundle = newBundleRegions(it)
			scored = bundleScoring(it, diff)
		}
	}
	m := rank.NewMatcher(scored)
	n := m.N()
	st, lines, err := v.intentLines(ctx, m)
	if err != nil {
		return nil, err
	}
	defs, before, err := v.intentDefs(ctx, m, st, lines)
	if err != nil {
		return nil, err
	}
	var best lineCand
	if len(lines) > 0 {
		best = lines[0]
	}
	good := best.lv.Count(n) >= min(2, n)
	for i := 0; i < n && !good; i++ {
		good = best.lv.At(i) >= rank.Form
	}
	if len(defs) == 0 && !good {
		return &focusPlan{note: fmt.Sprintf("[the read's %s matches no definition or line; showing the head and the tail]", asked)}, nil
	}
	f := &focusPlan{}
	var also []string
	if len(defs) > 0 {
		d := defs[0].d
		f.near = d
		f.regions = append(f.regions, focusRegion{from: d.start, to: max(d.end, d.line)})
		if l := defs[0].innerN; l-d.start >= maxIntentSection/2 {
			// Its best line is too far in to be sure to show: it is shown
			// on its own too.
			f.regions = append(f.regions, v.lineWindow(l, true))
		}
		f.note = fmt.Sprintf("[focus: %s (%s), the definition that best matches the %s", view.Clip(d.text, 80), linesText(d.line, max(d.end, d.line)), asked)
		for _, c := range defs[1:] {
			h := v.defHead(c.d)
			if c.innerN > h.to {
				// Its head, and its best line.
				h.to = c.d.line
				f.regions = append(f.regions, v.lineWindow(c.innerN, true))
			}
			f.regions = append(f.regions, h)
			also = append(also, fmt.Sprintf("%s (line %s)", view.Clip(c.d.text, 60), textfmt.Int(c.d.line)))
		}
	}
	// The best line, unless a definition shown holds one as good.
	show := good && !f.covers(best.line)
	for _, c := range defs {
		show = show && best.score > c.inner
	}
	if show {
		rs, around, err := v.lineRegions(ctx, best.line, len(defs) > 0, before)
		if err != nil {
			return nil, err
		}
		f.regions = append(f.regions, rs...)
		if len(defs) == 0 {
			f.note = fmt.Sprintf("[focus: line %s, the line that best matches the %s", textfmt.Int(best.line), asked)
			if around != "" {
				f.note += ", in " + around
			}
		} else {
			also = append(also, "line "+textfmt.Int(best.line))
		}
	}
	if len(also) > 0 {
		f.note += "; also matching: " + strings.Join(also, ", ")
	}
	at := best.line
	if f.near != nil {
		at = f.near.line
	}
	if p := v.bundle.at(at); p != "" {
		f.note += "; in the part headed by " + view.Clip(p, 80)
	}
	f.note += "]"
	f.regions = normRegions(f.regions)
	return f, nil
}

// nameLevels returns the levels at which the words are met in a
// definition's names.
func nameLevels(m *rank.Matcher, d *srcDef) rank.Levels {
	lv := m.Levels([]byte(d.name))
	if d.alt != "" {
		lv = lv.Merge(m.Levels([]byte(d.alt)))
	}
	return lv
}

// covers reports whether a region holds a line.
func (f *focusPlan) covers(line int64) bool {
	for _, r := range f.regions {
		if r.from <= line && line <= r.to {
			return true
		}
	}
	return false
}

// defHead is the region of a definition's head: its doc comment (its end),
// its first line and the first lines of its body; a minor region.
func (v *fileView) defHead(d *srcDef) focusRegion {
	end := max(d.end, d.line)
	return focusRegion{from: max(d.start, d.line-defHeadBefore), to: min(end, d.line+defHeadAfter), minor: true, whole: end}
}

// intentLines scans the lines once: it counts the lines that hold each word
// and returns the best lines, best first.
func (v *fileView) intentLines(ctx context.Context, m *rank.Matcher) (*rank.Stats, []lineCand, error) {
	st := rank.NewStats(m)
	// The lines of each set of levels: in the regions of a bundle the
	// intent names (named), and anywhere.
	sets, named := map[rank.Levels][]int64{}, map[rank.Levels][]int64{}
	s := view.NewLineScanner(ctx, v.in.Source, v.in.Source.Size(), maxOutlineLine*4)
	for s.Scan() {
		t := s.Text
		if v.nb.On {
			t = view.StripNumber(t)
		}
		in := v.bundle.line(s.Line, t)
		lv := m.Levels(t)
		st.Add(lv)
		if lv == 0 {
			continue
		}
		keepLine(sets, lv, s.Line)
		if in {
			keepLine(named, lv, s.Line)
		}
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	if v.bundle.found() {
		sets = named
	}
	var out []lineCand
	for lv, ls := range sets {
		score := st.Score(lv)
		for _, l := range ls {
			out = append(out, lineCand{line: l, lv: lv, score: score})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].line < out[j].line
	})
	if len(out) > maxIntentLines {
		out = out[:maxIntentLines]
	}
	return st, out, nil
}

// keepLine keeps a line among those of its set of levels, while the sets
// and the lines of each are within their bounds.
func keepLine(sets map[rank.Levels][]int64, lv rank.Levels, line int64) {
	if ls, ok := sets[lv]; ok && len(ls) < linesPerSet || !ok && len(sets) < maxLevelSets {
		sets[lv] = append(ls, line)
	}
}

// intentDefs returns the definitions that best match the intent: the best
// and the runners-up whose heads deserve a place, best first.
// It also returns the last definitions that start before the best line.
func (v *fileView) intentDefs(ctx context.Context, m *rank.Matcher, st *rank.Stats, lines []lineCand) ([]defCand, []*srcDef, error) {
	cands, before, err := v.rankDefs(ctx, m, st, lines)
	if err != nil || len(cands) == 0 {
		return nil, before, err
	}
	return pickDefs(cands), before, nil
}

// rankDefs ranks the definitions against the intent: those whose name or
// signature holds its words, and those that hold its best lines, scored in
// full (name, doc comment and signature, body), best first. It also
// returns the last definitions that start before the best line, innermost
// last.
func (v *fileView) rankDefs(ctx context.Context, m *rank.Matcher, st *rank.Stats, lines []lineCand) ([]defCand, []*srcDef, error) {
	if v.defs.lang == nil {
		return nil, nil, nil
	}
	var cands []defCand
	// before[i] holds the last definitions that start before lines[i].
	before := make([][]*srcDef, len(lines))
	count := 0
	err := v.defs.each(ctx, func(d *srcDef) {
		count++
		for i, l := range lines {
			if d.line <= l.line {
				r := append(before[i], d)
				if len(r) > maxRecent {
					r = r[1:]
				}
				before[i] = r
			}
		}
		if v.bundle.found() && v.bundle.at(d.line) == "" {
			return // in a part of the bundle the intent does not name
		}
		c := defCand{d: d, name: nameLevels(m, d), sig: m.Levels([]byte(d.text))}
		if c.name == 0 && c.sig == 0 {
			return
		}
		t := rank.NewFields(m)
		t.Add(c.name, rank.FieldName)
		t.Add(c.sig, rank.FieldHead)
		t.ExactName(m, d.name)
		c.prior = t.Score(st, 1, 1)
		cands = insertCand(cands, c, maxIntentCands)
	})
	if err != nil {
		return nil, nil, err
	}
	var chain []*srcDef
	if len(before) > 0 {
		chain = before[0]
	}
	// The definitions that hold the best lines, the innermost of each.
	for i, l := range lines {
		var in *srcDef
		for _, d := range before[i] {
			if d.start <= l.line && max(d.end, d.line) >= l.line {
				in = d
			}
		}
		if in == nil || hasCand(cands, in) {
			continue
		}
		cands = append(cands, defCand{d: in, name: nameLevels(m, in), sig: m.Levels([]byte(in.text))})
	}
	if len(cands) == 0 {
		return nil, chain, nil
	}
	avg := float64(v.e.Total) / float64(max(count, 1))
	for i := range cands {
		s, err := v.scoreDef(ctx, m, st, &cands[i], avg)
		if err != nil {
			return nil, nil, err
		}
		cands[i].score = s
	}
	sort.SliceStable(cands, func(i, j int) bool { return betterCand(cands[i], cands[j]) })
	if cands[0].score <= 0 {
		return nil, chain, nil
	}
	// A definition inside the best that scores nearly as well is the more
	// specific answer: a method rather than its class, a subsection
	// rather than its section.
	for changed := true; changed; {
		changed = false
		b := cands[0]
		for i, c := range cands[1:] {
			if c.d != b.d && inside(c.d, b.d) && c.score >= intentInner*b.score {
				cands[0], cands[i+1] = c, b
				changed = true
				break
			}
		}
	}
	return cands, chain, nil
}

// pickDefs keeps, of candidates ranked best first, the best and the
// runners-up close enough to it, none inside another.
func pickDefs(cands []defCand) []defCand {
	out := cands[:1]
	for _, c := range cands[1:] {
		if len(out) == maxIntentDefs || c.score < intentRunnerUp*cands[0].score {
			break
		}
		nested := false
		for _, o := range out {
			nested = nested || inside(c.d, o.d) || inside(o.d, c.d)
		}
		if !nested {
			out = append(out, c)
		}
	}
	return out
}

// inside reports whether definition a lies within definition b and is not
// b's twin (two definitions on one line).
func inside(a, b *srcDef) bool {
	ae, be := max(a.end, a.line), max(b.end, b.line)
	return b.start <= a.start && ae <= be && (b.start < a.start || ae < be || b.line < a.line)
}

func hasCand(cs []defCand, d *srcDef) bool {
	for _, c := range cs {
		if c.d == d {
			return true
		}
	}
	return false
}

// betterCand orders candidates: the higher score, then the more important
// definition, then the earlier.
func betterCand(a, b defCand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.prior != b.prior {
		return a.prior > b.prior
	}
	if a.d.score != b.d.score {
		return a.d.score > b.d.score
	}
	return a.d.line < b.d.line
}

// insertCand keeps the best k candidates by their name and signature.
func insertCand(cs []defCand, c defCand, k int) []defCand {
	better := func(a, b defCand) bool {
		if a.prior != b.prior {
			return a.prior > b.prior
		}
		if a.d.score != b.d.score {
			return a.d.score > b.d.score
		}
		return a.d.line < b.d.line
	}
	i := sort.Search(len(cs), func(i int) bool { return better(c, cs[i]) })
	if i >= k {
		return cs
	}
	cs = append(cs, defCand{})
	copy(cs[i+1:], cs[i:])
	cs[i] = c
	if len(cs) > k {
		cs = cs[:k]
	}
	return cs
}

// scoreDef reads a candidate's lines and scores it in full: its name, its
// doc comment and signature, its body.
func (v *fileView) scoreDef(ctx context.Context, m *rank.Matcher, st *rank.Stats, c *defCand, avg float64) (float64, error) {
	d := c.d
	t := rank.NewFields(m)
	t.Add(c.name, rank.FieldName)
	t.Add(c.sig, rank.FieldHead)
	t.ExactName(m, d.name)
	c.inner, c.innerN = st.Score(c.name.Merge(c.sig)), d.line
	end := min(max(d.end, d.line), d.start+maxDefScan-1)
	sc, err := v.scanFrom(ctx, d.start)
	if err != nil {
		return 0, err
	}
	for sc.Scan() && sc.Line <= end {
		if sc.Line == d.line {
			continue // its signature counted above
		}
		text := sc.Text
		if v.nb.On {
			text = view.StripNumber(text)
		}
		w := rank.FieldBody
		if sc.Line < d.line {
			w = rank.FieldHead
		}
		lv := m.Levels(text)
		t.Add(lv, w)
		if ls := st.Score(lv); ls > c.inner {
			c.inner, c.innerN = ls, sc.Line
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return t.Score(st, float64(max(d.end, d.line)-d.start+1), avg), nil
}

// lineRegions is what a view shows for a line that matches: the block it
// starts or the one that encloses it, when short, and the lines that
// enclose that (its parents, as a breadcrumb); minor when definitions are
// shown too. It also names what encloses the line, for the note. chain
// holds the last definitions that start before the line, innermost last.
func (v *fileView) lineRegions(ctx context.Context, line int64, minor bool, chain []*srcDef) ([]focusRegion, string, error) {
	// Brace languages: the innermost definition around the line, whole when
	// short, else the lines around it under its first line.
	if lg := v.defs.lang; lg != nil && lg.closing != closeIndent {
		var encl []*srcDef // innermost first
		for i := len(chain) - 1; i >= 0 && len(encl) < maxParents; i-- {
			if d := chain[i]; d.start <= line && max(d.end, d.line) >= line && (len(encl) == 0 || inside(encl[len(encl)-1], d)) {
				encl = append(encl, d)
			}
		}
		var rs []focusRegion
		around := ""
		if len(encl) > 0 {
			d := encl[0]
			around = fmt.Sprintf("%s (%s)", view.Clip(d.text, 80), linesText(d.line, max(d.end, d.line)))
			if max(d.end, d.line)-d.start < maxIntentSection {
				rs = append(rs, focusRegion{from: d.start, to: max(d.end, d.line), minor: minor})
				encl = encl[1:]
			}
		}
		if len(rs) == 0 {
			rs = append(rs, v.lineWindow(line, minor))
		}
		for _, d := range encl {
			rs = append(rs, focusRegion{from: d.line, to: d.line, minor: true})
		}
		return rs, around, nil
	}
	// Indentation: the line's block, or its parent's when that is short
	// enough, under the lines that enclose it.
	parents, err := v.parents(line)
	if err != nil {
		return nil, "", err
	}
	// The outermost enclosing block short enough to show whole.
	from, to := line, line
	for len(parents) > 0 {
		end, ok, err := v.blockEnd(ctx, parents[0])
		if err != nil {
			return nil, "", err
		}
		if !ok || end < line {
			break
		}
		from, to = parents[0], end
		parents = parents[1:]
	}
	if from == line {
		end, ok, err := v.blockEnd(ctx, line)
		if err != nil {
			return nil, "", err
		}
		w := v.lineWindow(line, minor)
		from, to = w.from, w.to
		if ok && end > line {
			// The line opens a block: the block, from just above it.
			from, to = max(1, line-focusContext), min(v.e.Total, max(end, line+focusContext))
		}
	}
	rs := []focusRegion{{from: from, to: to, minor: minor}}
	for _, p := range parents {
		rs = append(rs, focusRegion{from: p, to: p, minor: true})
	}
	return rs, "", nil
}

// lineWindow is the region around a line shown without its block: a few
// lines when minor, more when the line is what the view centres on.
func (v *fileView) lineWindow(line int64, minor bool) focusRegion {
	if minor {
		return focusRegion{from: max(1, line-focusContext), to: min(v.e.Total, line+2*focusContext), minor: true}
	}
	return focusRegion{from: max(1, line-5), to: min(v.e.Total, line+10)}
}

// scanFrom returns a scanner of the lines from line n on, numbered from n.
func (v *fileView) scanFrom(ctx context.Context, n int64) (*view.LineScanner, error) {
	off, err := v.e.Doc.LineStart(n)
	if err != nil {
		return nil, err
	}
	rest := v.in.Source.Size() - off
	s := view.NewLineScanner(ctx, io.NewSectionReader(v.in.Source, off, rest), rest, maxOutlineLine)
	s.Line = n - 1
	return s, nil
}

// lineInfoOf tells a stored line's indentation (after a tool's number) and
// whether it is blank, a comment or a section header.
func (v *fileView) lineInfoOf(text []byte) lineInfo {
	if v.nb.On {
		text = view.StripNumber(text)
	}
	t := bytes.TrimLeft(text, " \t")
	l := lineInfo{indent: srcIndent(text[:len(text)-len(t)])}
	t = bytes.TrimRight(t, " \t\r")
	l.blank = len(t) == 0
	l.comment = !l.blank && v.isComment(t)
	l.section = l.indent == 0 && len(t) > 2 && t[0] == '[' && t[len(t)-1] == ']' && v.defs.lang == nil
	return l
}

// lineInfo is what the block logic needs of a line.
type lineInfo struct {
	indent         int
	blank, comment bool
	// section reports an INI or TOML section header: "[name]" alone on an
	// unindented line of a file in no known language.
	section bool
}

// isComment reports a comment line (t trimmed, not empty): the language's,
// or else one that starts with "#" or "//".
func (v *fileView) isComment(t []byte) bool {
	if lg := v.defs.lang; lg != nil && lg.comment != nil {
		return lg.comment(t) && t[0] != '@'
	}
	return t[0] == '#' || bytes.HasPrefix(t, []byte("//"))
}

// blockEnd returns the last line of the block a line starts: the lines
// after it indented more deeply, or, after a "[section]" header, those up to
// the next. ok is false when the block is longer than maxIntentSection
// lines.
func (v *fileView) blockEnd(ctx context.Context, line int64) (int64, bool, error) {
	s, err := v.scanFrom(ctx, line)
	if err != nil {
		return 0, false, err
	}
	if !s.Scan() {
		return line, true, s.Err()
	}
	head := v.lineInfoOf(s.Text)
	last := line
	for s.Scan() {
		if s.Line-line > maxIntentSection {
			return 0, false, nil
		}
		l := v.lineInfoOf(s.Text)
		if l.blank {
			continue
		}
		if head.section && l.section || !head.section && l.indent <= head.indent && !l.comment {
			break
		}
		last = s.Line
	}
	return last, true, s.Err()
}

// maxParentBytes bounds what is read above a line to find its parents.
const maxParentBytes = 256 << 10

// parents returns the lines that enclose a line by indentation, innermost
// first: each the nearest line above indented less than the one before;
// and, for an unindented line of an INI or TOML file, its "[section]".
func (v *fileView) parents(line int64) ([]int64, error) {
	start, err := v.e.Doc.LineStart(line)
	if err != nil {
		return nil, err
	}
	l, err := v.e.Doc.ReadLine(start, maxOutlineLine)
	if err != nil {
		return nil, err
	}
	cur := v.lineInfoOf(l.Text)
	from := max(0, start-maxParentBytes)
	above, err := v.e.Doc.ReadRange(from, start)
	if err != nil {
		return nil, err
	}
	above = bytes.TrimSuffix(above, []byte{'\n'})
	var out []int64
	limit := cur.indent
	section := !cur.section
	for n := line - 1; n >= 1 && line-n <= maxParentScan && (limit > 0 || section) && len(out) < maxParents; n-- {
		i := bytes.LastIndexByte(above, '\n')
		if i < 0 && from > 0 {
			break // the rest of the line is beyond the window
		}
		text := above[i+1:]
		above = above[:max(i, 0)]
		p := v.lineInfoOf(text)
		if p.blank || p.comment {
			continue
		}
		if limit == 0 {
			// Out of the indentation: the "[section]" the line is in, in
			// an INI or TOML file.
			if p.section {
				out = append(out, n)
				break
			}
			continue
		}
		if p.indent >= limit {
			continue
		}
		out = append(out, n)
		limit = p.indent
		section = section && !p.section
	}
	return out, nil
}
