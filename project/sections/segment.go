package sections

import (
	"bytes"
	"html"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/project/rank"
)

// Bounds of one pass.
const (
	// MaxSections bounds the sections a Result lists; those past it are
	// counted, and ranked, but not listed.
	MaxSections = 1 << 15
	// MaxRanked bounds the sections ranked for an intent that a Result
	// keeps, the best.
	MaxRanked = 64
	// maxCands bounds the matching sections held until the pass ends, when
	// their scores are known; past it, a new one replaces the weakest.
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
	names  []string
	level  int
	term   bool
	span   int // lines the heading takes, its first included
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
	s := &Segmenter{f: f, prevBlank: true, res: Result{Format: f}}
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
	if len(s.q) == lookahead+1 {
		s.step()
		recycled = s.q[0].raw[:0]
		copy(s.q, s.q[1:])
		s.q = s.q[:lookahead]
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
	sec := Section{Heading: clip(h.text), Anchor: h.anchor, Names: h.names, Level: max(h.level, 1), Term: h.term,
		Line: cur.n, Body: cur.n + int64(h.span)}
	o := &open{sec: sec, idx: -1}
	if len(s.res.Sections) < MaxSections {
		o.idx = len(s.res.Sections)
		s.res.Sections = append(s.res.Sections, sec)
	}
	if s.m != nil {
		o.fields = rank.NewFields(s.m)
		lv := s.m.Levels([]byte(sec.Heading))
		o.fields.Add(lv, rank.FieldName)
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
	o.describe = h.term
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
	}
	return s.plainHeading(cur, next)
}

// markdownHeading finds ATX and setext headings outside fenced code.
func (s *Segmenter) markdownHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(s.fence) > 0 {
		if cur.indent < 4 && bytes.HasPrefix(t, s.fence) {
			s.fence = s.fence[:0]
		}
		return heading{}, false
	}
	if cur.indent < 4 && (bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~"))) {
		s.fence = append(s.fence[:0], t[:3]...)
		return heading{}, false
	}
	if cur.indent >= 4 || len(t) == 0 {
		return heading{}, false
	}
	if n := atxLevel(t); n > 0 {
		text := strings.TrimSpace(strings.TrimRight(string(t[n:]), "# \t"))
		if text == "" {
			return heading{}, false
		}
		s.headLevel = n
		return heading{text: text, level: n, span: 1, names: codeNames(text)}, true
	}
	if len(next) > 0 && next[0].indent < 4 && !listOrQuote(t) {
		u := next[0].t
		if len(u) > 0 && (allOf(u, '=') || allOf(u, '-') && len(u) >= 2) {
			level := 2
			if u[0] == '=' {
				level = 1
			}
			text := string(t)
			s.headLevel = level
			return heading{text: text, level: level, span: 2, names: codeNames(text)}, true
		}
	}
	return heading{}, false
}

// plainHeading finds the headings of plain text and reStructuredText:
// underlined (and overlined) titles, numbered headings and capitalised
// ones, each standing apart.
func (s *Segmenter) plainHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 || utf8.RuneCount(t) > 100 {
		return heading{}, false
	}
	if _, ok := adornment(t); ok && cur.indent == 0 {
		return heading{}, false
	}
	if len(next) > 0 && next[0].indent == cur.indent {
		if c, ok := adornment(next[0].t); ok && utf8.RuneCount(next[0].t) >= max(3, utf8.RuneCount(t)/2) && !listOrQuote(t) {
			style := string(c)
			if s.prevAdorn == c {
				style += "/"
			}
			level := 0
			for i, a := range s.adorns {
				if a == style {
					level = i + 1
				}
			}
			if level == 0 {
				s.adorns = append(s.adorns, style)
				level = len(s.adorns)
			}
			s.headLevel = level
			text := string(t)
			return heading{text: text, level: level, span: 2, names: codeNames(text)}, true
		}
	}
	if !s.prevBlank {
		return heading{}, false
	}
	nextBlank := len(next) == 0 || next[0].blank()
	if cur.indent <= 4 && nextBlank {
		if depth, title := numbered(t); depth > 0 {
			s.headLevel = depth
			return heading{text: string(t), level: depth, span: 1, names: codeNames(title)}, true
		}
	}
	if capitalised(t) && (nextBlank || next[0].indent > cur.indent) {
		s.headLevel = 1
		return heading{text: string(t), level: 1, span: 1}, true
	}
	return heading{}, false
}

// manHeading finds the headings of a rendered man page: unindented
// SECTION lines, indented subsections, and the tags of tagged paragraphs
// (options, terms, exit codes), each tag line standing apart with its text
// indented below it or beside it.
func (s *Segmenter) manHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 {
		return heading{}, false
	}
	if cur.indent == 0 {
		if capitalised(t) && !bytes.Contains(t, []byte("   ")) {
			s.headLevel, s.terms = 1, s.terms[:0]
			return heading{text: string(t), level: 1, span: 1}, true
		}
		return heading{}, false
	}
	if !s.prevBlank && !s.prevHeading {
		return heading{}, false
	}
	// An option in a bulleted list ("○   -T#, --threads=#: Compress ..."),
	// as pages converted from Markdown have them.
	if opt, ok := bulletOption(t); ok {
		return s.term(cur.indent, opt, 1), true
	}
	if len(next) == 0 || next[0].blank() {
		return heading{}, false
	}
	if cur.indent <= 4 && next[0].indent > cur.indent && t[0] != '-' && unicode.IsUpper(rune(t[0])) && len(t) <= 60 && !endsSentence(t) {
		s.headLevel, s.terms = 2, s.terms[:0]
		return heading{text: string(t), level: 2, span: 1}, true
	}
	// A run of up to three tag lines at one indentation, then the text,
	// indented more; the last tag line may hold the start of the text,
	// at the column the next line is indented to.
	s.run = append(append(s.run[:0], *cur), next...)
	lines := s.run
	var tags []string
	for k := 1; k < len(lines) && k <= maxTags; k++ {
		tag, after := lines[k-1], lines[k]
		if tag.indent != cur.indent || after.blank() {
			break
		}
		if after.indent > cur.indent {
			t := tagBeside(tag.raw, after.indent)
			if !tagLike(t) {
				break
			}
			h := s.term(cur.indent, strings.Join(append(tags, string(t)), ", "), k)
			if len(t) < len(tag.t) {
				h.beside = strings.TrimSpace(string(tag.t[len(t):]))
			}
			return h, true
		}
		if after.indent != cur.indent || !tagLike(tag.t) {
			break
		}
		tags = append(tags, string(tag.t))
	}
	return heading{}, false
}

// bulletOption returns the option a bulleted line opens with, up to the
// colon that ends it.
func bulletOption(t []byte) (string, bool) {
	r, size := utf8.DecodeRune(t)
	if !strings.ContainsRune("•○◦·*o", r) || size >= len(t) || t[size] != ' ' {
		return "", false
	}
	rest := bytes.TrimLeft(t[size:], " ")
	if len(rest) < 2 || rest[0] != '-' {
		return "", false
	}
	end := bytes.Index(rest, []byte(": "))
	if end < 0 {
		if rest[len(rest)-1] != ':' {
			return "", false
		}
		end = len(rest) - 1
	}
	if end > 100 {
		return "", false
	}
	return string(rest[:end]), true
}

// tagBeside returns the tag of a tag line whose text, when it starts on the
// same line, starts at column c, where the lines below it are indented:
// after two spaces, or after one when the tag is one word ("--best These
// are ...").
func tagBeside(raw []byte, c int) []byte {
	t := bytes.TrimLeft(raw, " ")
	if c < 2 || c >= len(raw) || raw[c-1] != ' ' || raw[c] == ' ' {
		return t
	}
	tag := bytes.TrimSpace(raw[:c])
	if raw[c-2] == ' ' {
		return tag
	}
	if r, _ := utf8.DecodeRune(raw[c:]); bytes.IndexByte(tag, ' ') < 0 && unicode.IsLetter(r) && tag[len(tag)-1] != ',' {
		return tag
	}
	return t
}

// term makes the heading of a term at an indentation: one level under the
// heading it is in and the terms less indented than it.
func (s *Segmenter) term(indent int, text string, span int) heading {
	for len(s.terms) > 0 && s.terms[len(s.terms)-1] >= indent {
		s.terms = s.terms[:len(s.terms)-1]
	}
	level := s.headLevel + 1 + len(s.terms)
	if len(s.terms) < 8 {
		s.terms = append(s.terms, indent)
	}
	return heading{text: text, level: level, term: true, span: span, names: optionNames(text)}
}

// tagLike reports a line that may be a tag: short, and not a sentence's
// end.
func tagLike(t []byte) bool {
	if len(t) == 0 || endsSentence(t) || bytes.Contains(t, []byte("   ")) {
		return false
	}
	if r, _ := utf8.DecodeRune(t); !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-+[<%$@/.", r) ||
		len(t) > 1 && (t[0] == 'o' || t[0] == '*') && t[1] == ' ' {
		return false // a bullet
	}
	if t[0] != '-' && bytes.ContainsAny(t, "'\"") {
		return false // an example
	}
	limit := 60
	if t[0] == '-' || t[0] == '+' {
		limit = 100
	}
	return utf8.RuneCount(t) <= limit
}

// endsSentence reports a line that ends a sentence or opens a list: a tag
// never does.
func endsSentence(t []byte) bool {
	switch t[len(t)-1] {
	case '.', ',', ':', ';':
		return !bytes.HasSuffix(t, []byte("..."))
	}
	return false
}

// htmlHeading finds an h1–h6 element or a <dt> term that opens on the
// current line; its text may go on over the next lines.
func (s *Segmenter) htmlHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 || bytes.IndexByte(t, '<') < 0 {
		return heading{}, false
	}
	s.low = rank.AppendLower(s.low[:0], t)
	low := s.low
	if len(s.skipTag) > 0 {
		if bytes.Contains(low, s.skipTag) {
			s.skipTag = s.skipTag[:0]
		}
		return heading{}, false
	}
	for _, tag := range []string{"<script", "<style"} {
		if i := bytes.Index(low, []byte(tag)); i >= 0 && !bytes.Contains(low[i:], []byte("</"+tag[1:])) {
			s.skipTag = append(s.skipTag[:0], "</"+tag[1:]...)
			return heading{}, false
		}
	}
	at, level, closer := -1, 0, ""
	for i := 0; i+3 < len(low); i++ {
		if low[i] != '<' {
			continue
		}
		if low[i+1] == 'h' && low[i+2] >= '1' && low[i+2] <= '6' && (low[i+3] == '>' || low[i+3] == ' ') {
			at, level, closer = i, int(low[i+2]-'0'), "</h"+string(low[i+2])
			break
		}
		if low[i+1] == 'd' && low[i+2] == 't' && (low[i+3] == '>' || low[i+3] == ' ') {
			at, level, closer = i, 0, "</dt"
			break
		}
	}
	if at < 0 {
		return heading{}, false
	}
	// The element, up to its end tag, over at most the lines held.
	el := append([]byte(nil), t[at:]...)
	span := 1
	for _, l := range next {
		if bytes.Contains(rank.AppendLower(nil, el), []byte(closer)) {
			break
		}
		el = append(append(el, ' '), l.t...)
		span++
	}
	end := bytes.Index(rank.AppendLower(nil, el), []byte(closer))
	if end < 0 {
		return heading{}, false
	}
	el = el[:end]
	if level == 0 && onlyLinks(el) {
		return heading{}, false // an entry of a table of contents
	}
	text := collapse(strings.TrimRight(html.UnescapeString(string(stripTags(nil, el, false))), " \t¶#"))
	if text == "" {
		return heading{}, false
	}
	h := heading{text: text, anchor: anchorOf(el), span: span}
	if level > 0 {
		s.headLevel = level
		h.level = level
		h.names = codeNames(text)
	} else {
		h.level, h.term = s.headLevel+1, true
		h.names = optionNames(text)
	}
	return h, true
}

// onlyLinks reports markup whose text is all inside links: a table of
// contents' entry, not a term.
func onlyLinks(el []byte) bool {
	low := rank.AppendLower(nil, el)
	var rest []byte
	for {
		i := bytes.Index(low, []byte("<a "))
		if i < 0 {
			rest = append(rest, low...)
			break
		}
		rest = append(rest, low[:i]...)
		j := bytes.Index(low[i:], []byte("</a>"))
		if j < 0 {
			break
		}
		if !bytes.Contains(low[i:i+j], []byte("href=")) {
			rest = append(rest, low[i:i+j]...)
		}
		low = low[i+j+4:]
	}
	return len(bytes.TrimSpace(stripTags(nil, rest, false))) == 0 && bytes.Contains(rank.AppendLower(nil, el), []byte("href="))
}

// anchorOf returns the first id or name attribute in an element's markup.
func anchorOf(el []byte) string {
	low := rank.AppendLower(nil, el)
	for _, attr := range []string{` id="`, ` name="`, ` id='`, ` name='`} {
		if i := bytes.Index(low, []byte(attr)); i >= 0 {
			rest := el[i+len(attr):]
			if j := bytes.IndexByte(rest, attr[len(attr)-1]); j > 0 {
				return clip(html.UnescapeString(string(rest[:j])))
			}
		}
	}
	return ""
}

// stripTags appends b without its HTML tags (a tag left open at the end
// is dropped too), each replaced by a space when spaced.
func stripTags(dst, b []byte, spaced bool) []byte {
	in := false
	for _, c := range b {
		switch {
		case c == '<':
			in = true
		case c == '>' && in:
			in = false
			if spaced {
				dst = append(dst, ' ')
			}
		case !in:
			dst = append(dst, c)
		}
	}
	return dst
}

// collapse trims a text and turns each run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip bounds a heading's text.
func clip(s string) string {
	if len(s) <= maxHeading {
		return s
	}
	i := maxHeading
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// optionNames returns the names a term defines: its options without their
// dashes ("-e, --extreme" → e, extreme; "--resolve <host>" → resolve), or,
// with none, its first word when that is a name ("XZ_DEFAULTS").
func optionNames(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '|' || r == '\t' }) {
		if f[0] != '-' && f[0] != '+' {
			continue
		}
		name := strings.TrimLeft(f, "-+")
		if i := strings.IndexAny(name, "=[<( "); i >= 0 {
			name = name[:i]
		}
		if name != "" && len(out) < 8 {
			out = append(out, name)
		}
	}
	if len(out) > 0 {
		return out
	}
	return codeNames(text)
}

// codeNames returns the name a heading is, when it is one word or a code
// name ("XZ_DEFAULTS"), or names a function or a class by its signature
// ("tempfile.mkstemp(suffix=None)" → mkstemp; "new Worker(filename)" →
// Worker).
func codeNames(text string) []string {
	if i := strings.IndexByte(text, '('); i > 0 {
		j := strings.TrimRight(text[:i], " ")
		k := strings.LastIndexFunc(j, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		if name := j[k+1:]; name != "" && len(j) < 120 {
			return []string{name}
		}
	}
	f := strings.Fields(strings.Trim(text, "`*_ "))
	if len(f) != 1 {
		return nil
	}
	w := strings.Trim(f[0], "`*()[]<>:.,;\"'")
	if i := strings.IndexAny(w, "(=["); i > 0 {
		w = w[:i]
	}
	if w == "" {
		return nil
	}
	return []string{w}
}

// numbered reports a numbered heading ("3.2.1.  Title", "5. Termination.",
// "Section 4. Title", "A. Appendix"): its depth (the numbers' count) and
// its title. A heading is short: at most 12 words.
func numbered(t []byte) (int, string) {
	s := string(t)
	depth := 0
	low := strings.ToLower(s)
	for _, w := range []string{"section ", "article ", "appendix ", "chapter ", "part ", "§"} {
		if strings.HasPrefix(low, w) {
			s = strings.TrimLeft(s[len(w):], " ")
			depth = 1
			break
		}
	}
	i, parts := 0, 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			if parts == 0 && i < len(s) && s[i] >= 'A' && s[i] <= 'Z' && i+1 < len(s) && (s[i+1] == '.' || depth > 0 && s[i+1] == ' ') {
				j = i + 1
			} else {
				break
			}
		}
		if j-i > 3 {
			return 0, ""
		}
		parts++
		i = j
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		break
	}
	if parts == 0 || i >= len(s) {
		return 0, ""
	}
	// A single number or letter needs its dot ("5. Termination"), unless
	// a word such as "Section" introduced it.
	if parts == 1 && depth == 0 && s[i-1] != '.' {
		return 0, ""
	}
	if s[i] != ' ' && s[i] != ')' {
		return 0, ""
	}
	title := strings.TrimLeft(s[i:], " )")
	if title == "" || len(strings.Fields(title)) > 12 || strings.HasSuffix(title, ",") || strings.HasSuffix(title, ";") {
		return 0, ""
	}
	r, _ := utf8.DecodeRuneInString(title)
	if !unicode.IsUpper(r) && r != '"' && r != '\'' && r != '“' {
		return 0, ""
	}
	return parts, title
}

// capitalised reports a short heading in capitals ("TERMS AND
// CONDITIONS", "EXIT STATUS").
func capitalised(t []byte) bool {
	if len(t) > 72 {
		return false
	}
	letters := 0
	for _, r := range string(t) {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r), strings.ContainsRune(" ,/&()-:'.", r):
		default:
			return false
		}
	}
	return letters >= 3
}

// adornChars are the characters that may underline a title.
const adornChars = "=-~^\"'`#*+_:.<>"

// adornment reports a line that underlines or overlines a title: one
// punctuation character repeated, three times or more.
func adornment(t []byte) (byte, bool) {
	if len(t) < 3 || strings.IndexByte(adornChars, t[0]) < 0 {
		return 0, false
	}
	return t[0], allOf(t, t[0])
}

// listOrQuote reports a line that opens a list item, a quote or a table
// row: never a setext title.
func listOrQuote(t []byte) bool {
	return bytes.HasPrefix(t, []byte("- ")) || bytes.HasPrefix(t, []byte("* ")) || bytes.HasPrefix(t, []byte("+ ")) ||
		t[0] == '|' || t[0] == '>'
}

// atxLevel returns the level of an ATX heading line, 0 for another line.
func atxLevel(t []byte) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' && t[n] != '\t' {
		return 0
	}
	return n
}

func allOf(t []byte, c byte) bool {
	for _, b := range t {
		if b != c {
			return false
		}
	}
	return true
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
