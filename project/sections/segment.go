package sections

import (
	"bytes"
	"sort"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/rank"
)

// Bounds of one pass.
const (
	// MaxSections bounds the sections a Result lists; those past it are
	// counted, and ranked, but not listed.
	MaxSections = 1 << 13
	// MaxRanked bounds the sections ranked for an intent that a Result
	// keeps, the best.
	MaxRanked = 64
	// maxCands bounds the matching sections held until the pass ends, when
	// their scores are known; past it, the weaker half is dropped.
	maxCands = 4096
	// maxHeading bounds a heading's text.
	maxHeading = 200
	// lookahead is how many lines past the current one a heading may need:
	// an underline, the rest of a multi-line tag or HTML heading.
	lookahead = 4
	// maxTags bounds the tag lines of one term ("-L port:host:hostport",
	// "-L local_socket:remote_socket", ...).
	maxTags = 4
	// headLines is how many of a section's first non-blank lines count as
	// its head when ranking.
	headLines = 3
)

// line is one line the segmenter holds, as read.
type line struct {
	n      int64
	raw    []byte // without trailing blanks
	t      []byte // raw without its indentation
	indent int
}

func (l *line) blank() bool { return len(l.t) == 0 }

// heading is what classifying a line found.
type heading struct {
	text, anchor string
	// beside is the start of a term's text on its tag's line.
	beside string
	// head marks a heading that is the first line of a block's text.
	head bool
	// describe marks a heading whose first line of text says what the
	// section is (a commit's subject): it counts as its name.
	describe bool
	names    []string
	level    int
	term     bool
	span     int // lines the heading takes, its first included
}

// open is the section being read: its fields for ranking.
type open struct {
	sec    Section
	idx    int // its index in Result.Sections, -1 when not listed
	fields *rank.Fields
	lv     rank.Levels // every level met in it, for the counts
	option bool        // its name is a short option the intent names
	// matchWeight is what the words met on line sec.Match weigh.
	matchWeight float64
	lines       int64
	head        int // non-blank body lines counted as its head
	// describe marks a term whose first line of text is still to come:
	// it says what the term is, and counts as its name.
	describe bool
}

// cand is a section the intent matches, held until the pass ends.
type cand struct {
	sec    Section
	idx    int
	fields *rank.Fields
	lines  int64
}

// Segmenter finds the sections of one document as its lines are fed to it
// in order (Line), and ranks them for an intent (Close). It is not safe
// for concurrent use.
type Segmenter struct {
	f Format
	m *rank.Matcher // nil without an intent
	q []line        // the current line and the lookahead
	// ahead is how many lines of lookahead the format's headings need.
	ahead int
	// prevBlank reports that the line before the current one was blank
	// (true at the start); prevAdorn is its adornment character, when it
	// was an underline or an overline.
	prevBlank bool
	prevAdorn byte
	// prevHeading reports that the line before was a heading's last.
	prevHeading bool
	skip        int    // lines of the current heading still to pass
	fence       []byte // the open fence of Markdown code
	adorns      []string
	headLevel   int   // the level of the last heading that is not a term
	terms       []int // the indents of the open terms (man pages)
	skipTag     []byte
	opts        []string // the short options the intent names ("-X")
	cur         *open
	res         Result
	cands       []cand
	st          *rank.Stats
	units       int64
	unitLines   int64
	last        int64
	scratch     []byte
	low         []byte // scratch: a line in lower case
	run         []line // scratch: the current line and the lookahead
}

// Result is what a pass found.
type Result struct {
	// Format is the document's format.
	Format Format
	// Sections are the sections in order, at most MaxSections.
	Sections []Section
	// Total counts the sections found, listed or not.
	Total int
	// Ranked are the sections the intent matches, best first, at most
	// MaxRanked; empty without an intent.
	Ranked []Ranked
}

// Ranked is a section with its score for the intent.
type Ranked struct {
	Section
	// Score is the section's score (rank.Score of its signals).
	Score float64
}

// New returns a segmenter for a document of format f. With a matcher, it
// ranks the sections for the matcher's intent.
func New(f Format, m *rank.Matcher) *Segmenter {
	s := &Segmenter{f: f, prevBlank: true, res: Result{Format: f}, ahead: lookahead}
	if f == Git {
		s.ahead = gitLookahead
	}
	if m != nil {
		s.opts = m.Intent().Options()
	}
	if m != nil && m.N()+len(m.Intent().Keys)+len(s.opts) > 0 {
		s.m = m
		s.st = rank.NewStats(m)
	}
	return s
}

// Line feeds the document's next line, numbered n (from 1, in order),
// without its line ending. The segmenter copies what it keeps.
func (s *Segmenter) Line(n int64, text []byte) {
	var recycled []byte
	if len(s.q) == s.ahead+1 {
		s.step()
		recycled = s.q[0].raw[:0]
		copy(s.q, s.q[1:])
		s.q = s.q[:s.ahead]
	}
	raw := append(recycled, bytes.TrimRight(text, " \t\r")...)
	t := bytes.TrimLeft(raw, " \t")
	s.q = append(s.q, line{n: n, raw: raw, t: t, indent: indentOf(raw[:len(raw)-len(t)])})
}

// Close ends the pass at line total and returns what it found.
func (s *Segmenter) Close(total int64) Result {
	for len(s.q) > 0 {
		s.step()
		s.q = s.q[1:]
	}
	s.last = max(s.last, total)
	s.closeCur(s.last)
	// The last line of each section with its subsections.
	var stack []int
	for i := range s.res.Sections {
		sec := &s.res.Sections[i]
		for len(stack) > 0 && s.res.Sections[stack[len(stack)-1]].Level >= sec.Level {
			s.res.Sections[stack[len(stack)-1]].Last = sec.Line - 1
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, i)
	}
	for _, i := range stack {
		s.res.Sections[i].Last = s.last
	}
	if s.st != nil {
		s.rank()
	}
	return s.res
}

// rank scores the candidates once the counts are complete.
func (s *Segmenter) rank() {
	avg := float64(s.unitLines) / float64(max(s.units, 1))
	out := make([]Ranked, 0, len(s.cands))
	for _, c := range s.cands {
		sec := c.sec
		if c.idx >= 0 {
			sec.Last = s.res.Sections[c.idx].Last
		} else {
			sec.Last = max(sec.Last, sec.End)
		}
		score := c.fields.Score(s.st, float64(c.lines), avg)
		if score <= 0 {
			continue
		}
		st := rank.Heading
		if sec.Term {
			st = rank.Definition
		}
		out = append(out, Ranked{Section: sec, Score: rank.Score(rank.Signals{Intent: score, Structure: st})})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Line < out[j].Line
	})
	if len(out) > MaxRanked {
		out = out[:MaxRanked]
	}
	s.res.Ranked = out
}

// step classifies the current line, s.q[0], with the lines after it.
func (s *Segmenter) step() {
	cur := &s.q[0]
	next := s.q[1:]
	s.last = cur.n
	if s.skip > 0 {
		s.skip--
		s.count(cur, false)
		s.after(cur)
		s.prevHeading = s.skip == 0
		return
	}
	h, ok := s.classify(cur, next)
	if ok {
		s.start(cur, h)
		s.skip = h.span - 1
		s.after(cur)
		s.prevHeading = s.skip == 0
		return
	}
	s.count(cur, true)
	s.after(cur)
	s.prevHeading = false
}

// after remembers what the next line's classification needs of this one.
func (s *Segmenter) after(cur *line) {
	s.prevBlank = cur.blank()
	s.prevAdorn = 0
	if c, ok := adornment(cur.t); ok && cur.indent == 0 {
		s.prevAdorn = c
	}
}

// start opens a section at the current line.
func (s *Segmenter) start(cur *line, h heading) {
	s.closeCur(cur.n - 1)
	s.res.Total++
	sec := Section{Heading: textfmt.Clip(h.text, maxHeading, "…"), Anchor: h.anchor, Names: h.names, Level: max(h.level, 1), Term: h.term,
		Line: cur.n, Body: cur.n + int64(h.span)}
	o := &open{sec: sec, idx: -1}
	if len(s.res.Sections) < MaxSections {
		o.idx = len(s.res.Sections)
		s.res.Sections = append(s.res.Sections, sec)
	}
	if s.m != nil {
		o.fields = rank.NewFields(s.m)
		lv := s.m.Levels([]byte(sec.Heading))
		if h.head {
			// A block's first line is text, not a name.
			o.fields.Add(lv, rank.FieldHead)
			o.head++
		} else {
			o.fields.Add(lv, rank.FieldName)
		}
		o.lv = lv
		for _, name := range h.names {
			if len(name) == 1 && h.term {
				for _, opt := range s.opts {
					if opt[1:] == name {
						o.fields.ExactOption()
						o.option = true
					}
				}
			}
			o.fields.ExactName(s.m, name)
			nl := s.m.Levels([]byte(name))
			o.fields.Add(nl, rank.FieldName)
			o.lv = o.lv.Merge(nl)
		}
	}
	o.lines = int64(h.span)
	o.describe = h.term || h.describe
	s.cur = o
	if h.beside != "" && s.m != nil {
		s.describe(o, []byte(h.beside))
	}
}

// count adds a line to the current section: to its head or its body when
// body, else to its heading's lines.
func (s *Segmenter) count(cur *line, body bool) {
	o := s.cur
	if o == nil {
		return
	}
	o.lines++
	if s.m == nil || !body || cur.blank() {
		return
	}
	text := cur.t
	if s.f == HTML {
		s.scratch = stripTags(s.scratch[:0], text, true)
		text = s.scratch
	}
	if o.describe {
		s.describe(o, text)
		return
	}
	lv := s.m.Levels(text)
	field := rank.FieldBody
	if o.head < headLines {
		field = rank.FieldHead
		o.head++
	}
	if lv != 0 {
		o.fields.Add(lv, field)
		o.lv = o.lv.Merge(lv)
		w := 0.0
		for i := range s.m.N() {
			w += lv.At(i).Weight()
		}
		if w > o.matchWeight {
			o.sec.Match, o.matchWeight = cur.n, w
		}
	}
}

// describe counts the first line of a term's text: as its name, for it
// says what the term is ("-l  Show fingerprint of specified public key
// file").
func (s *Segmenter) describe(o *open, text []byte) {
	lv := s.m.Levels(text)
	o.fields.Add(lv, rank.FieldName)
	o.lv = o.lv.Merge(lv)
	o.describe = false
	o.head++
}

// closeCur ends the current section at line end and counts it.
func (s *Segmenter) closeCur(end int64) {
	o := s.cur
	if o == nil {
		return
	}
	s.cur = nil
	o.sec.End = max(end, o.sec.Line)
	o.sec.Last = o.sec.End
	if o.idx >= 0 {
		s.res.Sections[o.idx].End = o.sec.End
		s.res.Sections[o.idx].Match = o.sec.Match
	}
	if s.st == nil {
		return
	}
	s.st.Add(o.lv)
	if o.fields != nil {
		s.st.AddNamed(o.fields)
	}
	s.units++
	s.unitLines += o.lines
	if o.lv == 0 && !o.option {
		return
	}
	c := cand{sec: o.sec, idx: o.idx, fields: o.fields, lines: o.lines}
	if len(s.cands) == maxCands {
		s.prune()
	}
	s.cands = append(s.cands, c)
}

// prune keeps the better half of the candidates, by the counts so far, so
// that holding them costs a bounded amount of memory and each new one
// little time.
func (s *Segmenter) prune() {
	avg := float64(s.unitLines) / float64(max(s.units, 1))
	scores := make([]float64, len(s.cands))
	for i, c := range s.cands {
		scores[i] = c.fields.Score(s.st, float64(c.lines), avg)
	}
	idx := make([]int, len(s.cands))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	keep := idx[:maxCands/2]
	sort.Ints(keep)
	out := s.cands[:0]
	for _, i := range keep {
		out = append(out, s.cands[i])
	}
	clear(s.cands[len(out):])
	s.cands = out
}

// classify reports whether the current line starts a section.
func (s *Segmenter) classify(cur *line, next []line) (heading, bool) {
	switch s.f {
	case HTML:
		return s.htmlHeading(cur, next)
	case Markdown:
		return s.markdownHeading(cur, next)
	case Man:
		return s.manHeading(cur, next)
	case Blocks:
		return s.block(cur)
	case Git:
		return s.gitHeading(cur, next)
	}
	return s.plainHeading(cur, next)
}

// MaxBlock bounds the lines of one block of text without headings.
const MaxBlock = 40

// block starts a section at the first line of each block of lines, and
// every MaxBlock lines of a longer one.
func (s *Segmenter) block(cur *line) (heading, bool) {
	if cur.blank() || !s.prevBlank && (s.cur == nil || cur.n-s.cur.sec.Line < MaxBlock) {
		return heading{}, false
	}
	return heading{text: string(cur.t), level: 1, span: 1, head: true}, true
}

// indentOf measures leading white space, a tab reaching the next multiple
// of 8.
func indentOf(ws []byte) int {
	n := 0
	for _, c := range ws {
		if c == '\t' {
			n += 8 - n%8
		} else {
			n++
		}
	}
	return n
}
