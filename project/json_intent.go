package project

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/rank"
)

// Intent in a JSON document. When the call says what it is after (see
// Call.Intent), the pass matches the intent (rank.Parse) against every key and
// every scalar value with the shared matcher (rank.Matcher): a word is met
// exactly, whole, in another form or in part, inside the identifiers of a
// key or value (so that "httptrace" meets "net/http/httptrace" and
// "circus" meets "node_modules/jest-circus"), and a compound name the
// intent writes ("core-js", "@types/node") only where it is not part of a
// longer one. A match counts for the container that holds it: the members
// of an object and the elements of an array make their container a
// candidate, and a key whose value is a container makes that container one
// (the key names it). The pass keeps the best candidates in a bounded pool;
// the view shows the best of them first, each with its pointer, before the
// outline.
//
// Scores are rank.Stats scores: each word weighs by how rare it is among
// the document's keys and values (a word met in every object says little)
// and by its level (the package the intent names exactly outranks those
// whose names merely hold it), and the words of a container's own key
// count twice.

const (
	// hitMembers is how many matching members of one container a
	// candidate records.
	hitMembers = 8
	// hitPool is how many candidates the pass keeps; it collects up to
	// twice as many before it drops the weakest.
	hitPool = 128
	// hitMatchBytes is how much of a string the matcher reads.
	hitMatchBytes = 4096
	// hitWholeBytes is the largest part shown as its original bytes.
	hitWholeBytes = 1600
	// hitWholeLines is the most lines of a part shown as its original
	// bytes.
	hitWholeLines = 48
	// hitShown is the most matches the view shows.
	hitShown = 12
	// hitMaxDepth is the deepest container that may be a match; deeper
	// pointers are too long to be of use.
	hitMaxDepth = 256
	// hitLabelBytes is the longest string that names an object around a
	// match; hitLabels is how many such objects a match names.
	hitLabelBytes = 82
	hitLabels     = 2
)

// newJSONMatcher returns a matcher for an intent, or nil when it names
// nothing to look for.
func newJSONMatcher(intent string) *rank.Matcher {
	it := rank.Parse(intent)
	if it.Empty() {
		return nil
	}
	return rank.NewMatcher(it)
}

// hitMember is a member (or element) of a candidate that matches.
type hitMember struct {
	keyStart   int64 // its key, or -1 for an element
	keyEnd     int64
	index      int64
	kind       jsonscan.Kind
	start, end int64 // its value
	lv         rank.Levels
}

// hitAcc gathers the matches of one open container.
type hitAcc struct {
	lv      rank.Levels // words and keys met by its key and its members
	own     rank.Levels // those its own key holds
	best    int         // the strongest match of its key and members
	n       int         // matching members
	members [hitMembers]hitMember
	kept    int
}

// jsonHit is a candidate: a container with matches.
type jsonHit struct {
	keyStart   int64 // its key, or -1 when it is an element or the root
	key        string
	start, end int64
	kind       jsonscan.Kind
	count      int64 // its members or elements
	ptr        string
	toks       []string
	gpath      string // its path with array indexes merged
	// in names the elements around it, nearest first, each by its
	// depth (the length of its pointer) and its first short string.
	in      []hitLabel
	lv      rank.Levels
	own     rank.Levels
	best    int
	n       int
	depth   int
	members []hitMember
	// score is its intent score; tie orders equal scores (see tieBreak).
	score float64
	tie   int
}

// hitLabel names an element around a match.
type hitLabel struct {
	depth int
	ptr   string
	label string
}

// intentState is the pass's intent matching state.
type intentState struct {
	m *rank.Matcher
	// st counts the keys and values read that hold each word.
	st   *rank.Stats
	pool []*jsonHit
	// floor is the weakest candidate kept at the last trim of the pool:
	// its score and tie-break.
	floor    float64
	floorTie int
	free     []*hitAcc
}

// matchToken matches the text of a key or scalar value and counts it;
// tight says how much of the text the words met whole make up, from 0
// (none) to 8 (all): "crypto/sha256" is a tighter match of "crypto
// sha256" than "crypto/internal/fips140/sha256".
func (p *jsonPass) matchToken(t jsonscan.Token) (lv rank.Levels, tight uint8, err error) {
	is := p.intent
	raw, err := p.s.Bytes(t.Start, t.End, hitMatchBytes)
	if err != nil {
		return 0, 0, err
	}
	lv = is.m.Levels(raw)
	is.st.Add(lv)
	if lv == 0 {
		return 0, 0, nil
	}
	n := 0
	for i, w := range is.m.Intent().Words {
		if lv.At(i) >= rank.Whole {
			n += len(w.Text)
		}
	}
	for i, k := range is.m.Intent().Keys {
		if lv.Key(i) {
			n += len(k)
		}
	}
	text := len(raw)
	if t.Kind == jsonscan.String || t.Kind == jsonscan.Key {
		text -= 2
	}
	return lv, uint8(min(8, n*8/max(text, 1))), nil
}

// acc returns the frame's match state, making it.
func (p *jsonPass) acc(f *frame) *hitAcc {
	if f.hit == nil {
		is := p.intent
		if n := len(is.free); n > 0 {
			f.hit = is.free[n-1]
			is.free = is.free[:n-1]
			*f.hit = hitAcc{}
		} else {
			f.hit = &hitAcc{}
		}
	}
	return f.hit
}

// intentMember notes a scalar member (with its key) or element of the
// innermost container that matches. (A key whose value is a container
// counts for that container: see intentOpen.)
func (p *jsonPass) intentMember(f *frame, t jsonscan.Token, idx int64, lv rank.Levels, strength int) {
	a := p.acc(f)
	a.lv = a.lv.Merge(lv)
	a.best = max(a.best, strength)
	a.n++
	ks, ke := int64(-1), int64(-1)
	if f.obj {
		ks, ke = f.keyStart, f.keyEnd
	}
	m := hitMember{keyStart: ks, keyEnd: ke, index: idx, kind: t.Kind, start: t.Start, end: t.End, lv: lv}
	if a.kept < hitMembers {
		a.members[a.kept] = m
		a.kept++
		return
	}
	// Full: it takes the place of the weakest, if it is stronger; the
	// members stay in document order.
	weakest := 0
	for i := 1; i < a.kept; i++ {
		if a.members[i].strength() < a.members[weakest].strength() {
			weakest = i
		}
	}
	if m.strength() > a.members[weakest].strength() {
		copy(a.members[weakest:], a.members[weakest+1:a.kept])
		a.members[a.kept-1] = m
	}
}

// strength ranks the members of one container: by the levels of the words
// they hold and the keys they hold whole.
func (m hitMember) strength() int { return m.lv.Sum() }

// intentScalar matches a scalar value (and its key) of the innermost
// container.
func (p *jsonPass) intentScalar(f *frame, t jsonscan.Token, idx int64) error {
	var lv rank.Levels
	strength := 0
	if t.Kind == jsonscan.String || t.Kind == jsonscan.Number {
		var tight uint8
		var err error
		if lv, tight, err = p.matchToken(t); err != nil {
			return err
		}
		strength = matchStrength(lv, tight)
	}
	if f.obj {
		lv = lv.Merge(f.keyLv)
		strength = max(strength, matchStrength(f.keyLv, f.keyTight))
	}
	if lv != 0 && f.depth >= 0 {
		p.intentMember(f, t, idx, lv, strength)
	}
	return nil
}

// intentOpen starts the match state of a container whose key matched.
func (p *jsonPass) intentOpen(parent, f *frame) {
	if !parent.obj || parent.keyLv == 0 {
		return
	}
	a := p.acc(f)
	a.own = parent.keyLv
	a.lv = a.lv.Merge(parent.keyLv)
	a.best = matchStrength(parent.keyLv, parent.keyTight)
}

// matchStrength ranks one key or value: by the levels of what it holds,
// then by how much of it they make up.
func matchStrength(lv rank.Levels, tight uint8) int {
	return lv.Sum()*9 + int(tight)
}

// score is a candidate's intent score: its words and keys weighed by their
// rarity and level, those of its own key twice; an empty container says
// little and scores half.
func (is *intentState) score(lv, own rank.Levels, members int64) float64 {
	s := is.st.Score(lv) + is.st.Score(own)
	if members == 0 {
		s /= 2
	}
	return s
}

// tieBreak orders candidates of equal scores: the part nearer the root (an
// entry itself rather than a mention of it inside another), then the
// strongest single match, then more matching members.
func tieBreak(best, n, depth int) int {
	return (63-min(depth, 63))<<9 + min(best, 127)<<2 + min(n, 3)
}

// better orders candidates, best first.
func (h *jsonHit) better(o *jsonHit) bool {
	if h.score != o.score {
		return h.score > o.score
	}
	if h.tie != o.tie {
		return h.tie > o.tie
	}
	return h.start < o.start
}

// intentClose ends a container: a candidate when it matched.
func (p *jsonPass) intentClose(g *frame, end int64) error {
	a := g.hit
	if a == nil {
		return nil
	}
	is := p.intent
	g.hit = nil
	defer func() { is.free = append(is.free, a) }()
	if g.depth < 0 || g.depth >= hitMaxDepth {
		return nil
	}
	score, tie := is.score(a.lv, a.own, g.n), tieBreak(a.best, a.n, g.depth)
	if len(is.pool) >= hitPool && (score < is.floor || score == is.floor && tie <= is.floorTie) {
		return nil
	}
	toks, gpath, ok, err := p.pathTokens(p.frames[:len(p.frames)-1])
	if err != nil || !ok {
		return err
	}
	h := &jsonHit{keyStart: -1, start: g.start, end: end, kind: jsonscan.BeginArray, count: g.n, toks: toks, gpath: gpath,
		lv: a.lv, own: a.own, best: a.best, n: a.n, depth: g.depth, members: slices.Clone(a.members[:a.kept]), score: score, tie: tie}
	if g.obj {
		h.kind = jsonscan.BeginObject
	}
	if parent := &p.frames[len(p.frames)-2]; parent.obj {
		h.keyStart = parent.keyStart
		h.key = toks[len(toks)-1]
	}
	// The objects around it that are elements of arrays, by their first
	// short string: which package, which entry.
	for i := len(p.frames) - 2; i >= 1 && len(h.in) < hitLabels; i-- {
		f := &p.frames[i]
		if !f.obj || p.frames[i-1].obj || f.labelEnd == 0 {
			continue
		}
		raw, err := p.s.Bytes(f.labelStart, f.labelEnd, hitLabelBytes)
		if err != nil {
			return err
		}
		h.in = append(h.in, hitLabel{depth: i, label: string(raw)})
	}
	is.pool = append(is.pool, h)
	if len(is.pool) >= 2*hitPool {
		is.trim()
	}
	return nil
}

// trim scores the pool again with what is known of the words now, and
// keeps its best hitPool candidates.
func (is *intentState) trim() {
	for _, h := range is.pool {
		h.score = is.score(h.lv, h.own, h.count)
	}
	rank.SortBest(is.pool, (*jsonHit).better)
	if len(is.pool) > hitPool {
		clear(is.pool[hitPool:])
		is.pool = is.pool[:hitPool]
		is.floor, is.floorTie = is.pool[len(is.pool)-1].score, is.pool[len(is.pool)-1].tie
	}
}

// pathTokens returns the pointer tokens of the value the given frames lead
// to (the first token is the index among top-level values), and its path
// with array indexes merged; ok is false when a key is too long to name.
func (p *jsonPass) pathTokens(frames []frame) (toks []string, gpath string, ok bool, err error) {
	toks = make([]string, 0, len(frames))
	var g strings.Builder
	for i, f := range frames {
		if !f.obj {
			toks = append(toks, strconv.FormatInt(f.n-1, 10))
			if i > 0 {
				g.WriteString("[]")
			}
			continue
		}
		if f.keyEnd-f.keyStart > 4096 {
			return nil, "", false, nil
		}
		raw, err := p.s.Bytes(f.keyStart, f.keyEnd, 4096)
		if err != nil {
			return nil, "", false, err
		}
		k, _ := jsonscan.KeyText(raw, false)
		toks = append(toks, k)
		g.WriteString(jqKey(k))
	}
	return toks, g.String(), true, nil
}

// hits returns the candidates to show, best first: the pool scored with
// the whole document's word counts, each path with array indexes merged
// counting less each time it comes again, and none much weaker than the
// best.
func (p *jsonPass) hits() []*jsonHit {
	is := p.intent
	if is == nil || len(is.pool) == 0 {
		return nil
	}
	is.trim()
	pool := slices.Clone(is.pool)
	single := p.values <= 1
	for _, h := range pool {
		if single && len(h.toks) > 0 {
			h.toks = h.toks[1:]
		}
		h.ptr = jsonscan.Pointer(h.toks...)
		in := h.in[:0]
		for _, l := range h.in {
			if single {
				if l.depth == 1 {
					continue // the root: there is one value
				}
				l.depth--
			}
			l.ptr = jsonscan.Pointer(h.toks[:l.depth]...)
			in = append(in, l)
		}
		h.in = in
	}
	var out []*jsonHit
	picked := map[string]int{}
	best := -1.0
	for len(out) < hitShown*2 && len(pool) > 0 {
		bi, bs := -1, -1.0
		for i, h := range pool {
			s := h.score / float64(int(1)<<min(picked[h.gpath], 8))
			if s > bs || bi >= 0 && s == bs && h.tie > pool[bi].tie {
				bi, bs = i, s
			}
		}
		if best < 0 {
			best = bs
		}
		if bs <= 0 || bs*8 < best {
			break
		}
		h := pool[bi]
		pool = slices.Delete(pool, bi, bi+1)
		picked[h.gpath]++
		out = append(out, h)
	}
	return out
}

// intentTitle heads the matches in a view.
func (v *jsonView) intentTitle() string {
	var words []string
	for _, w := range v.p.intent.m.Intent().Words {
		words = append(words, w.Text)
	}
	if v.p.sampled {
		return "parts that match the intent (" + strings.Join(words, ", ") + ") in the part read, best first:"
	}
	return "parts that match the intent (" + strings.Join(words, ", ") + "), best first:"
}

// intentLines renders the best matches within room tokens: each part
// whole, as the document writes it, when it is small; else its matching
// members with the read of the whole part. A part inside one shown whole
// is not shown again, and a part whose value is the same as one shown
// whole is named with it.
func (v *jsonView) intentLines(room int) ([]string, error) {
	if len(v.hits) == 0 {
		return nil, nil
	}
	title := v.intentTitle()
	used := v.count(title) + 1
	v.above = map[int64]bool{}
	out := []string{title}
	r := &hitRender{same: map[[32]byte]string{}}
	shown := 0
	for _, h := range v.hits {
		if shown == hitShown || used >= room {
			break
		}
		// A part inside one shown whole is not shown again; one around
		// it, unless its key names it, would mostly repeat it.
		if r.inside(h) || h.own == 0 && r.around(h) {
			continue
		}
		lines, err := v.hitLines(h, r, room-used)
		if err != nil {
			return nil, err
		}
		if lines == nil {
			continue
		}
		out = append(out, lines...)
		used += v.count(lines...) + 1
		shown++
	}
	if shown == 0 {
		return nil, nil
	}
	return out, nil
}

// hitRender is what the matches shown so far cover.
type hitRender struct {
	whole [][2]int64          // spans shown whole
	same  map[[32]byte]string // the digests of values shown whole, with their pointers
}

// inside reports whether h is part of a part shown whole.
func (r *hitRender) inside(h *jsonHit) bool {
	for _, s := range r.whole {
		if h.start >= s[0] && h.end <= s[1] {
			return true
		}
	}
	return false
}

// around reports whether h holds a part shown whole.
func (r *hitRender) around(h *jsonHit) bool {
	for _, s := range r.whole {
		if h.start <= s[0] && h.end >= s[1] {
			return true
		}
	}
	return false
}

// hitLines renders one match within room tokens; nil when it does not
// fit.
func (v *jsonView) hitLines(h *jsonHit, r *hitRender, room int) ([]string, error) {
	fits := func(lines []string) bool {
		return len(lines) > 0 && v.count(lines...)+1 <= room
	}
	// Small, and named by its key or made mostly of what matches: as it
	// is written.
	from := h.start
	if h.keyStart >= 0 {
		from = h.keyStart
	}
	if h.end-from <= hitWholeBytes && (h.own != 0 || int64(h.n)*3 >= h.count || h.end-from <= 300) && !r.around(h) {
		buf := make([]byte, h.end-from)
		if n, err := v.in.Source.ReadAt(buf, from); n < len(buf) {
			return nil, fmt.Errorf("project: reading a JSON part at byte %d: %w", from, err)
		}
		sum := sha256.Sum256(buf[h.start-from:])
		if ptr, ok := r.same[sum]; ok {
			label := ""
			if h.keyStart >= 0 {
				label = quoteJSON(h.key) + ": "
			}
			dots := "{…}"
			if h.kind == jsonscan.BeginArray {
				dots = "[…]"
			}
			lines := []string{label + dots + "  # " + hitWhere(h) + ": the same as " + ptrText(ptr)}
			if fits(lines) {
				r.whole = append(r.whole, [2]int64{h.start, h.end})
				v.above[h.start] = true
				return lines, nil
			}
			return nil, nil
		}
		if lines := original(buf, int(h.start-from)); lines != nil {
			lines[0] += "  # " + hitWhere(h) + hitIn(h)
			if fits(lines) {
				r.whole = append(r.whole, [2]int64{h.start, h.end})
				r.same[sum] = h.ptr
				v.above[h.start] = true
				return lines, nil
			}
		}
	}
	lines, err := v.hitOutline(h)
	if err != nil {
		return nil, err
	}
	if fits(lines) {
		return lines, nil
	}
	// Short of room: on one line, its matching members (or its start).
	line, err := v.hitInline(h)
	if err != nil {
		return nil, err
	}
	if lines = []string{line}; fits(lines) {
		return lines, nil
	}
	return nil, nil
}

// hitInline renders a match on one line, briefly: its first matching
// members, or its start when it has none.
func (v *jsonView) hitInline(h *jsonHit) (string, error) {
	o := previewOpts{maxBytes: 300, depth: 1, members: 3, elems: 3, strCut: 40}
	if len(h.members) == 0 {
		return v.hitPreview(h, o)
	}
	label := ""
	if h.keyStart >= 0 {
		label = quoteJSON(h.key) + ": "
	}
	open, close, word := "{", "}", "key"
	if h.kind == jsonscan.BeginArray {
		open, close, word = "[", "]", "item"
	}
	// The three strongest, in document order.
	ms := slices.Clone(h.members)
	slices.SortStableFunc(ms, func(a, b hitMember) int { return b.strength() - a.strength() })
	ms = ms[:min(len(ms), 3)]
	slices.SortFunc(ms, func(a, b hitMember) int { return cmp.Compare(a.start, b.start) })
	var parts []string
	for _, m := range ms {
		toks := append(slices.Clip(h.toks), strconv.FormatInt(m.index, 10))
		label := ""
		if m.keyStart >= 0 {
			k, err := v.memberKey(m)
			if err != nil {
				return "", err
			}
			toks[len(toks)-1], label = k, quoteJSON(k)+": "
		}
		var text string
		var err error
		if m.kind == jsonscan.String {
			text, _, err = v.stringValue(m.start, m.end, toks, o.strCut)
		} else {
			text, _, _, err = v.preview(m.start, m.end, toks, o)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, label+text)
	}
	return label + open + "… " + strings.Join(parts, ", ") + " …" + close + "  # " + hitWhere(h) + " (" + textfmt.Plural(h.count, word) + ", " + textfmt.Int(int64(h.n)) + " matching, " + textfmt.Size(h.end-h.start) + ")" + hitIn(h), nil
}

// memberKey reads the key of a matching member.
func (v *jsonView) memberKey(m hitMember) (string, error) {
	raw := make([]byte, min(m.keyEnd-m.keyStart, 4096))
	if n, err := v.in.Source.ReadAt(raw, m.keyStart); n < len(raw) {
		return "", fmt.Errorf("project: reading a JSON key at byte %d: %w", m.keyStart, err)
	}
	k, _ := jsonscan.KeyText(raw, m.keyEnd-m.keyStart > 4096)
	return k, nil
}

// hitPreview renders a match on one line: its key, its start within o,
// its pointer and size.
func (v *jsonView) hitPreview(h *jsonHit, o previewOpts) (string, error) {
	label := ""
	if h.keyStart >= 0 {
		label = quoteJSON(h.key) + ": "
	}
	word := "key"
	if h.kind == jsonscan.BeginArray {
		word = "item"
	}
	text, _, _, err := v.preview(h.start, h.end, h.toks, o)
	if err != nil {
		return "", err
	}
	return label + text + "  # " + hitWhere(h) + " (" + textfmt.Plural(h.count, word) + ", " + textfmt.Size(h.end-h.start) + ")" + hitIn(h), nil
}

// hitWhere names where a match is: its pointer.
func hitWhere(h *jsonHit) string {
	if h.ptr == "" {
		return "the whole document"
	}
	return ptrText(h.ptr)
}

// hitIn names the elements around a match: `, in /3 "name"`.
func hitIn(h *jsonHit) string {
	if len(h.in) == 0 {
		return ""
	}
	parts := make([]string, len(h.in))
	for i, l := range h.in {
		parts[i] = ptrText(l.ptr) + " " + l.label
	}
	return ", in " + strings.Join(parts, ", in ")
}

// hitLineBytes is the longest line a part shown whole keeps as it is;
// a longer one is shown one member a line.
const hitLineBytes = 600

// original returns a part (buf, its value starting at buf[off]) as the
// document writes it: on one line when it is written on one short line,
// else one member (or element) a line, each as it is written when that is
// one short line and else on one line without the white space between its
// tokens. Nil when the part has more than hitWholeLines members.
func original(buf []byte, off int) []string {
	if len(buf) <= hitLineBytes && bytes.IndexByte(buf, '\n') < 0 {
		return []string{string(buf)}
	}
	val := buf[off:]
	s := jsonscan.New(bytes.NewReader(val), int64(len(val)))
	s.Single()
	if _, err := s.Next(); err != nil {
		return nil
	}
	out := []string{string(bytes.TrimSpace(buf[:off+1]))}
	var spans [][2]int64
	for {
		t, err := s.Next()
		if err != nil {
			return nil
		}
		if t.Kind == jsonscan.EndObject || t.Kind == jsonscan.EndArray {
			break
		}
		from := t.Start
		if t.Kind == jsonscan.Key {
			if t, err = s.Next(); err != nil {
				return nil
			}
		}
		end := t.End
		if t.Kind == jsonscan.BeginObject || t.Kind == jsonscan.BeginArray {
			if end, err = s.Skip(); err != nil {
				return nil
			}
		}
		spans = append(spans, [2]int64{from, end})
		if len(spans) > hitWholeLines {
			return nil
		}
	}
	for i, sp := range spans {
		m := val[sp[0]:sp[1]]
		line := string(m)
		if len(m) > hitLineBytes || bytes.IndexByte(m, '\n') >= 0 {
			line = compactJSON(m)
		}
		if i < len(spans)-1 {
			line += ","
		}
		out = append(out, "  "+line)
	}
	return append(out, string(val[len(val)-1]))
}

// compactJSON writes JSON text on one line: the white space between its
// tokens left out, a space after each colon and comma.
func compactJSON(b []byte) string {
	var out strings.Builder
	out.Grow(len(b))
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\' && i+1 < len(b):
			out.WriteByte(c)
			i++
			c = b[i]
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		out.WriteByte(c)
		if !in && (c == ':' || c == ',') {
			out.WriteByte(' ')
		}
	}
	return out.String()
}

// hitOutline renders a match too large to show whole: its key and
// pointer, its matching members, and the read of the whole part.
func (v *jsonView) hitOutline(h *jsonHit) ([]string, error) {
	label := ""
	if h.keyStart >= 0 {
		label = quoteJSON(h.key) + ": "
	}
	open, close, word := "{", "}", "key"
	if h.kind == jsonscan.BeginArray {
		open, close, word = "[", "]", "item"
	}
	if len(h.members) == 0 {
		// Named by its key only: its start, on one line.
		line, err := v.hitPreview(h, previewOpts{maxBytes: 1200, depth: 2, members: 8, elems: 8, strCut: 80})
		return []string{line}, err
	}
	out := []string{label + open + "  # " + hitWhere(h) + " (" + textfmt.Plural(h.count, word) + ", " + textfmt.Size(h.end-h.start) + ")" + hitIn(h)}
	for _, m := range h.members {
		line, err := v.hitMemberLine(h, m)
		if err != nil {
			return nil, err
		}
		out = append(out, "  "+line)
	}
	if rest := h.count - int64(len(h.members)); rest > 0 {
		what := "object"
		if h.kind == jsonscan.BeginArray {
			what = "array"
		}
		line := "  … " + textfmt.Plural(rest, "more "+word)
		if h.n > len(h.members) {
			line += ", " + textfmt.Int(int64(h.n-len(h.members))) + " of them matching"
		}
		if h.ptr == "" {
			line += " (in the outline below)"
		} else {
			line += " (the whole " + what + ": " + v.in.ReadHint(v.req(h.ptr)) + ")"
		}
		out = append(out, line)
	}
	return append(out, close), nil
}

// hitMemberLine renders a matching member: as it is written when it is
// on one line and short, else as the outline renders a member.
func (v *jsonView) hitMemberLine(h *jsonHit, m hitMember) (string, error) {
	from := m.start
	if m.keyStart >= 0 {
		from = m.keyStart
	}
	var toks []string
	if m.keyStart >= 0 {
		k, err := v.memberKey(m)
		if err != nil {
			return "", err
		}
		toks = append(slices.Clip(h.toks), k)
	} else {
		toks = append(slices.Clip(h.toks), strconv.FormatInt(m.index, 10))
	}
	if m.end-from <= 400 {
		buf := make([]byte, m.end-from)
		if n, err := v.in.Source.ReadAt(buf, from); n < len(buf) {
			return "", fmt.Errorf("project: reading a JSON member at byte %d: %w", from, err)
		}
		if !strings.ContainsAny(string(buf), "\n\r") {
			line := string(buf)
			if m.keyStart < 0 {
				line += "  # " + ptrText(jsonscan.Pointer(toks...))
			}
			return line, nil
		}
	}
	var text string
	if m.kind == jsonscan.String {
		s, _, err := v.stringValue(m.start, m.end, toks, 200)
		if err != nil {
			return "", err
		}
		text = s
	} else {
		s, _, _, err := v.preview(m.start, m.end, toks, previewOpts{maxBytes: 400, depth: 1, members: 4, elems: 4, strCut: 200})
		if err != nil {
			return "", err
		}
		text = s
	}
	if m.keyStart >= 0 {
		return quoteJSON(toks[len(toks)-1]) + ": " + text, nil
	}
	return text + "  # " + ptrText(jsonscan.Pointer(toks...)), nil
}
