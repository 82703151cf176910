package rank

import (
	"bytes"
	"math/bits"
	"slices"
	"strings"
)

// Matching an intent's words against the units of a result, the way a
// search engine ranks documents: a word is met in the identifiers of a
// text, split at their camelCase and snake_case joints ("tryPutIdleConn"
// holds try, put, idle and conn): exactly (the text names it alone, not as
// part of a longer name: "lodash" in "lodash@4.17.21" but not in
// "lodash.merge"), whole, in another form (a plural, a stem) or only in
// part (an abbreviation such as "conn" for "connection", a piece of a
// compound such as "proxy" in "reverseproxy").

// Level is how a word is met in a text, weakest first.
type Level int

// The levels.
const (
	None  Level = iota
	Part        // an abbreviation, a stem with a long ending, a piece of a compound
	Form        // another form (plural, stem), or whole parts of a compound
	Whole       // the word itself, as a part of an identifier
	Exact       // the word alone: a name or key equal to it, not part of a longer one
)

// levelWeight is what a match of each level counts for.
var levelWeight = [...]float64{0, 0.4, 0.8, 1, 1.25}

// Weight is what a match at level l counts for.
func (l Level) Weight() float64 { return levelWeight[l] }

// Levels packs the level of every word met in one text, 3 bits a word,
// and in its top 16 bits the keys met whole.
type Levels uint64

const keyShift = 3 * MaxWords

// At returns the level of word i.
func (l Levels) At(i int) Level { return Level(l>>(3*i)) & 7 }

// Raise raises the level of word i to level, if higher.
func (l *Levels) Raise(i int, level Level) {
	if level > l.At(i) {
		*l = *l&^(7<<(3*i)) | Levels(level)<<(3*i)
	}
}

// Key reports whether key i is met whole.
func (l Levels) Key(i int) bool { return l>>(keyShift+i)&1 == 1 }

// Keys counts the keys met whole.
func (l Levels) Keys() int {
	n := 0
	for k := l >> keyShift; k != 0; k &= k - 1 {
		n++
	}
	return n
}

// Merge returns, word by word, the higher of two levels, and the keys of
// both.
func (l Levels) Merge(o Levels) Levels {
	if l == 0 || o == 0 {
		return l | o
	}
	for x := o & (1<<keyShift - 1); x != 0; {
		i := bits.TrailingZeros64(uint64(x)) / 3
		l.Raise(i, o.At(i))
		x &^= 7 << (3 * i)
	}
	return l | o&^(1<<keyShift-1)
}

// Count returns the number of the first n words met, at any level.
func (l Levels) Count(n int) int {
	c := 0
	for i := 0; i < n; i++ {
		if l.At(i) > None {
			c++
		}
	}
	return c
}

// Best returns the highest level any word is met at.
func (l Levels) Best() Level {
	b := None
	for i := 0; i < MaxWords; i++ {
		b = max(b, l.At(i))
	}
	return b
}

// Matcher finds the words and keys of an intent in texts. It keeps scratch
// space: one Matcher serves one goroutine.
type Matcher struct {
	it    *Intent
	keys  [][]byte // each word's first three letters (two of a short word): a text must hold one
	text  [][]byte // each word, and its stem
	stem  [][]byte
	low   []byte // scratch: the lower-case text
	ident []byte // scratch: one identifier, lower case, without underscores
	parts [][2]int
	seen  []int    // scratch: the starts of the identifiers matched
	joins [][]byte // each two words in a row, run together (see compound.go)
	// pair maps the classes (see byteClass) of two bytes in a row to the
	// words and keys that start with bytes of those classes: bit i for
	// word i, bit MaxWords+k for key k. One pass over a text with it finds
	// the words it may hold; a table this small stays in the nearest cache.
	pair [32 * 32]uint32
	// tri holds the first three letters of each word and key, by their
	// bits in pair.
	tri [MaxWords + maxKeys][3]byte
	// short has a bit for each short word (see Word.Short): its tri
	// holds two letters.
	short uint32
	// all has a bit for every word and key; empty is set for an intent
	// that names nothing.
	all   uint32
	empty bool
	// noFilter turns the pass off, for the tests that check it loses
	// nothing.
	noFilter bool
}

// maxKeys bounds the keys matched: their bits follow the words' in Levels.
const maxKeys = 16

// byteClass folds a byte to one of 32 classes: each ASCII letter in either
// case has its own; digits share one, '_' has one, other bytes share a
// few. The pass that uses them checks the letters it finds.
var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] = uint8(c - 'a')
		case c >= 'A' && c <= 'Z':
			t[c] = uint8(c - 'A')
		case c >= '0' && c <= '9':
			t[c] = 26
		case c == '_':
			t[c] = 27
		default:
			t[c] = uint8(28 + c%4)
		}
	}
	return t
}()

// lowerByte maps each byte to its ASCII lower case.
var lowerByte = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// NewMatcher compiles a matcher for an intent.
func NewMatcher(it *Intent) *Matcher {
	m := &Matcher{it: it}
	for i, w := range it.Words {
		k := []byte(w.Text[:min(3, len(w.Text))])
		m.keys = append(m.keys, k)
		m.text = append(m.text, []byte(w.Text))
		m.stem = append(m.stem, []byte(w.Stem))
		m.pair[int(byteClass[k[0]])<<5|int(byteClass[k[1]])] |= 1 << i
		if w.Short() {
			m.short |= 1 << i
			m.tri[i] = [3]byte{k[0], k[1]}
			continue
		}
		m.tri[i] = [3]byte{k[0], k[1], k[2]}
	}
	m.initJoins()
	m.empty = it.Empty()
	m.all = uint32(1)<<len(it.Words) - 1 | (uint32(1)<<min(len(it.Keys), maxKeys)-1)<<MaxWords
	for i, k := range it.Keys {
		if i < maxKeys {
			m.pair[int(byteClass[k[0]])<<5|int(byteClass[k[1]])] |= 1 << (MaxWords + i)
			m.tri[MaxWords+i] = [3]byte{k[0], k[1], k[2]}
		}
	}
	return m
}

// Intent returns the intent the matcher finds.
func (m *Matcher) Intent() *Intent { return m.it }

// N returns the number of words matched.
func (m *Matcher) N() int { return len(m.it.Words) }

// candidates returns the words whose first three letters text holds and
// the keys whose first three it holds, without case (bit i for word i,
// MaxWords+k for key k), in one pass over text.
func (m *Matcher) candidates(text []byte) uint32 {
	all := m.all
	if m.noFilter {
		return all
	}
	var found uint32
	if len(text) < 3 && (len(text) < 2 || m.short == 0) {
		return 0
	}
	pair, tri := &m.pair, &m.tri
	prev := uint(byteClass[text[0]])
	for i := 1; i < len(text)-1; i++ {
		cur := uint(byteClass[text[i]])
		set := pair[(prev<<5|cur)&(32*32-1)] &^ found
		prev = cur
		for set != 0 {
			b := bits.TrailingZeros32(set) & (MaxWords + maxKeys - 1)
			set &= set - 1
			k := &tri[b]
			if lowerByte[text[i-1]] == k[0] && lowerByte[text[i]] == k[1] && (m.short&(1<<b) != 0 || lowerByte[text[i+1]] == k[2]) {
				found |= 1 << b
				if found == all {
					return found
				}
			}
		}
	}
	// A short word may end the text, where the pass above stops short.
	if set := m.short &^ found; set != 0 {
		a, z := lowerByte[text[len(text)-2]], lowerByte[text[len(text)-1]]
		for ; set != 0; set &= set - 1 {
			b := bits.TrailingZeros32(set)
			if m.tri[b][0] == a && m.tri[b][1] == z {
				found |= 1 << b
			}
		}
	}
	return found
}

// Levels returns the level at which each word is met in text, and the keys
// met whole.
func (m *Matcher) Levels(text []byte) Levels {
	if m.empty {
		return 0
	}
	cand := m.candidates(text)
	if cand == 0 {
		return 0
	}
	var lv Levels
	m.low = m.low[:0]
	for _, c := range text {
		m.low = append(m.low, lowerByte[c])
	}
	for i, k := range m.it.Keys {
		if i < maxKeys && cand&(1<<(MaxWords+i)) != 0 && bounded(m.low, k) {
			lv |= 1 << (keyShift + i)
		}
	}
	words := cand & (1<<MaxWords - 1)
	if words == 0 {
		return lv
	}
	if m.noFilter {
		// Every identifier, for the tests that check the search below
		// loses nothing.
		eachIdent(text, func(i, j int) { m.ident1(text, i, j, words, &lv) })
		return lv
	}
	// The identifiers that hold a word's first three letters, each once.
	m.seen = m.seen[:0]
	for set := words; set != 0; set &= set - 1 {
		w := bits.TrailingZeros32(set)
		for off := 0; off < len(m.low); {
			k := bytes.Index(m.low[off:], m.keys[w])
			if k < 0 {
				break
			}
			i, j := off+k, off+k+len(m.keys[w])
			for i > 0 && IsIdentByte(text[i-1]) {
				i--
			}
			for j < len(text) && IsIdentByte(text[j]) {
				j++
			}
			off = j
			if slices.Contains(m.seen, i) {
				continue
			}
			m.seen = append(m.seen, i)
			m.ident1(text, i, j, words, &lv)
		}
	}
	return lv
}

// ident1 raises the levels of the words (a bit set) met in the identifier
// text[i:j].
func (m *Matcher) ident1(text []byte, i, j int, words uint32, lv *Levels) {
	low := m.low[i:j]
	held := uint32(0)
	for set := words; set != 0; set &= set - 1 {
		w := bits.TrailingZeros32(set)
		if bytes.Contains(low, m.keys[w]) {
			held |= 1 << w
		}
	}
	if held == 0 {
		return
	}
	m.matchIdent(text[i:j], low, held, lv)
	m.compounds(held, lv)
	if alone(m.low, i, j) {
		for set := held; set != 0; set &= set - 1 {
			w := bits.TrailingZeros32(set)
			if bytes.Equal(low, m.text[w]) {
				lv.Raise(w, Exact)
			}
		}
	}
}

// eachIdent calls fn with the bounds of each identifier of text, in order.
func eachIdent(text []byte, fn func(i, j int)) {
	for i := 0; i < len(text); {
		if !IsIdentByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && IsIdentByte(text[j]) {
			j++
		}
		fn(i, j)
		i = j
	}
}

// alone reports whether the identifier low[i:j] stands alone: not joined
// to another name by a dash or a dot ("lodash" in "lodash.merge" or
// "core-js" does not).
func alone(low []byte, i, j int) bool {
	joined := func(k int) bool { return k >= 0 && k < len(low) && IsIdentByte(low[k]) }
	if i > 0 && (low[i-1] == '-' || low[i-1] == '.') && joined(i-2) {
		return false
	}
	if j < len(low) && (low[j] == '-' || low[j] == '.') && joined(j+1) {
		return false
	}
	return true
}

// bounded reports whether low holds key where it is not part of a longer
// name.
func bounded(low []byte, key string) bool {
	for off := 0; ; {
		k := bytes.Index(low[off:], []byte(key))
		if k < 0 {
			return false
		}
		i, j := off+k, off+k+len(key)
		if (i == 0 || !IsIdentByte(low[i-1]) && low[i-1] != '-') && (j == len(low) || !IsIdentByte(low[j]) && low[j] != '-') && alone(low, i, j) {
			return true
		}
		off = i + 1
	}
}

// matchIdent raises the levels of the words held (a bit set of the words
// whose first letters it holds) met in one identifier: id as written, low
// in lower case.
func (m *Matcher) matchIdent(id, low []byte, held uint32, lv *Levels) {
	// The identifier's parts, as offsets into m.ident (id lower-cased
	// without its underscores).
	m.ident, m.parts = m.ident[:0], m.parts[:0]
	for k := 0; k < len(id); k++ {
		c := id[k]
		if c == '_' {
			continue
		}
		start := len(m.parts) == 0 || id[k-1] == '_'
		if k > 0 && !start {
			p := id[k-1]
			start = IsUpper(c) && (IsLower(p) || IsDigit(p)) ||
				IsUpper(c) && IsUpper(p) && k+1 < len(id) && IsLower(id[k+1]) ||
				IsDigit(c) != IsDigit(p) && c < 0x80 && p < 0x80
		}
		if start {
			m.parts = append(m.parts, [2]int{len(m.ident), len(m.ident)})
		}
		m.ident = append(m.ident, low[k])
		m.parts[len(m.parts)-1][1] = len(m.ident)
	}
	for set := held; set != 0; set &= set - 1 {
		i := bits.TrailingZeros32(set)
		if lv.At(i) >= Whole || !bytes.Contains(m.ident, m.keys[i]) {
			continue
		}
		lv.Raise(i, m.levelIn(i, m.ident))
	}
}

// levelIn is the level at which word i is met in one identifier, joined:
// its parts lower case, without underscores.
func (m *Matcher) levelIn(i int, joined []byte) Level {
	text, stem, ident := m.text[i], m.stem[i], m.it.Words[i].Ident
	if m.short&(1<<i) != 0 {
		return shortLevel(text, joined, m.parts)
	}
	if bytes.Equal(joined, text) {
		return Whole
	}
	best := None
	for _, p := range m.parts {
		t := joined[p[0]:p[1]]
		switch {
		case bytes.Equal(t, text) || bytes.HasPrefix(t, text) && len(t)-len(text) <= 2,
			len(t) >= 4 && bytes.HasPrefix(text, t) && len(text)-len(t) <= 2:
			// The word, or it with or without a short ending.
			return Whole
		case bytes.Equal(t, stem) || bytes.HasPrefix(t, stem) && len(t)-len(stem) <= 4:
			best = max(best, Form)
		case !ident && isAbbrev(t, text), bytes.HasPrefix(t, stem):
			best = max(best, Part)
		}
	}
	if best < Form && len(m.parts) > 1 {
		// Whole parts of a compound: "calltoolresult" at the start of
		// CallToolResultSchema, which is about it; further in, as in
		// CompatibilityCallToolResult, only in part.
		for _, a := range m.parts {
			if !bytes.HasPrefix(joined[a[0]:], text) {
				continue
			}
			end := a[0] + len(text)
			for _, b := range m.parts {
				if b[1] == end && a[0] == 0 {
					return Form
				}
				if b[1] == end {
					best = Part
				}
			}
		}
	}
	if best < Part && len(text) >= 5 && bytes.Contains(joined, text) {
		best = Part
	}
	return best
}

// isAbbrev reports whether an identifier's part abbreviates a word: "conn"
// or "conns" for "connection".
func isAbbrev(part, word []byte) bool {
	if len(part) > 3 && part[len(part)-1] == 's' {
		part = part[:len(part)-1]
	}
	return len(part) >= 3 && bytes.HasPrefix(word, part)
}

// NamesPath reports whether a path (as a result shows it: a file header of
// a bundle, an entry of a listing, a file:line location) is one the intent
// names: it ends with one of the intent's paths, or holds it between
// slashes.
func (it *Intent) NamesPath(p string) bool {
	if it == nil || len(it.Paths) == 0 {
		return false
	}
	low := strings.ToLower(strings.TrimSuffix(p, "/"))
	for _, q := range it.Paths {
		q = strings.TrimSuffix(q, "/")
		if q == "" {
			continue
		}
		if low == q || strings.HasSuffix(low, "/"+q) || strings.HasPrefix(low, q+"/") || strings.Contains(low, "/"+q+"/") {
			return true
		}
	}
	return false
}
