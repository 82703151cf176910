package project

import (
	"bytes"
	"math"
	"strings"
)

// Matching an intent's words against the lines and definitions of a file,
// the way a search engine ranks documents: a word is met in the identifiers
// of a text, split at their camelCase and snake_case joints ("tryPutIdleConn"
// holds try, put, idle and conn), whole, in another form (a plural, a stem)
// or only in part (an abbreviation such as "conn" for "connection", a piece
// of a compound such as "proxy" in "reverseproxy"). Rarer words weigh more
// (an inverse document frequency over the file's lines), and a definition
// counts the words of its name more than those of its doc comment and
// signature, and those more than the words of its body.

// Match levels of a word in a text, weakest first.
const (
	levelNone  = iota
	levelPart  // an abbreviation, a stem with a long ending, a piece of a compound
	levelForm  // another form (plural, stem), or whole parts of a compound
	levelWhole // the word itself, alone or as a part of an identifier
)

// levelWeight is what a match of each level counts for.
var levelWeight = [...]float64{0, 0.4, 0.8, 1}

// maxMatchWords bounds the words a matcher packs into its 2-bit levels.
const maxMatchWords = 16

// matchLevels packs the level of every word met in one text, 2 bits a word.
type matchLevels uint32

func (l matchLevels) at(i int) int { return int(l>>(2*i)) & 3 }

func (l *matchLevels) raise(i, level int) {
	if level > l.at(i) {
		*l = *l&^(3<<(2*i)) | matchLevels(level)<<(2*i)
	}
}

// intentMatcher finds the words of an intent in texts.
type intentMatcher struct {
	words []matchWord
	low   []byte // scratch: the lower-case text
	ident []byte // scratch: one identifier, lower case, without underscores
	parts [][2]int
}

// matchWord is one word of an intent with its stem and the letters a text
// must hold for any match (its first three). An identifier the intent
// names ("CallToolResult", "max_size") has no stem and no abbreviation: it
// is met whole, or as whole parts of a longer identifier.
type matchWord struct {
	word, stem string
	key        []byte
	ident      bool
}

// newIntentMatcher compiles the words of an intent; raw is the intent as
// written, which tells the identifiers among its words.
func newIntentMatcher(ws []intentWord, raw string) *intentMatcher {
	idents := map[string]bool{}
	for _, f := range strings.FieldsFunc(raw, func(r rune) bool { return r >= 0x80 || !isIdentByte(byte(r)) }) {
		if isIdentifier(f) {
			idents[strings.ToLower(f)] = true
		}
	}
	m := &intentMatcher{}
	for _, w := range ws {
		if len(m.words) == maxMatchWords {
			break
		}
		mw := matchWord{word: w.word, stem: wordStem(w.word), key: []byte(w.word[:min(3, len(w.word))]), ident: idents[w.word]}
		if mw.ident {
			mw.stem = w.word
		}
		m.words = append(m.words, mw)
	}
	return m
}

// isIdentifier reports a word written as a compound identifier: with an
// upper-case letter after a lower-case one, or an underscore inside.
func isIdentifier(f string) bool {
	for i := 1; i < len(f); i++ {
		if isUpper(f[i]) && isLower(f[i-1]) || f[i] == '_' && i < len(f)-1 {
			return true
		}
	}
	return false
}

// stemSuffixes are the endings a stem drops, longest first.
var stemSuffixes = []string{"ations", "ation", "ings", "ions", "ing", "ion", "ies", "ers", "ed", "es", "er", "ly", "s", "e"}

// wordStem drops a word's inflection ("connections" → "connect", "refused"
// → "refus"), keeping at least three letters.
func wordStem(w string) string {
	for _, s := range stemSuffixes {
		if len(w)-len(s) >= 3 && strings.HasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

// levels returns the level at which each word is met in text.
func (m *intentMatcher) levels(text []byte) matchLevels {
	var lv matchLevels
	if len(m.words) == 0 {
		return 0
	}
	m.low = appendLower(m.low[:0], text)
	any := false
	for _, w := range m.words {
		if bytes.Contains(m.low, w.key) {
			any = true
			break
		}
	}
	if !any {
		return 0
	}
	for i := 0; i < len(text); {
		if !isIdentByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isIdentByte(text[j]) {
			j++
		}
		for _, w := range m.words {
			if bytes.Contains(m.low[i:j], w.key) {
				m.matchIdent(text[i:j], m.low[i:j], &lv)
				break
			}
		}
		i = j
	}
	return lv
}

// appendLower appends b in ASCII lower case (other bytes as they are, so
// that offsets stay the same).
func appendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// matchIdent raises the levels of the words met in one identifier: id as
// written, low in lower case.
func (m *intentMatcher) matchIdent(id, low []byte, lv *matchLevels) {
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
			start = isUpper(c) && (isLower(p) || isDigit(p)) ||
				isUpper(c) && isUpper(p) && k+1 < len(id) && isLower(id[k+1]) ||
				isDigit(c) != isDigit(p) && c < 0x80 && p < 0x80
		}
		if start {
			m.parts = append(m.parts, [2]int{len(m.ident), len(m.ident)})
		}
		m.ident = append(m.ident, low[k])
		m.parts[len(m.parts)-1][1] = len(m.ident)
	}
	joined := string(m.ident)
	for i, w := range m.words {
		if lv.at(i) == levelWhole || !strings.Contains(joined, w.word[:len(w.key)]) {
			continue
		}
		lv.raise(i, m.levelIn(w, joined))
	}
}

// levelIn is the level at which w is met in one identifier.
func (m *intentMatcher) levelIn(w matchWord, joined string) int {
	if joined == w.word {
		return levelWhole
	}
	best := levelNone
	for _, p := range m.parts {
		t := joined[p[0]:p[1]]
		switch {
		case t == w.word || strings.HasPrefix(t, w.word) && len(t)-len(w.word) <= 2,
			len(t) >= 4 && strings.HasPrefix(w.word, t) && len(w.word)-len(t) <= 2:
			// The word, or it with or without a short ending.
			return levelWhole
		case t == w.stem || strings.HasPrefix(t, w.stem) && len(t)-len(w.stem) <= 4:
			best = max(best, levelForm)
		case !w.ident && isAbbrev(t, w.word), strings.HasPrefix(t, w.stem):
			best = max(best, levelPart)
		}
	}
	if best < levelForm && len(m.parts) > 1 {
		// Whole parts of a compound: "calltoolresult" at the start of
		// CallToolResultSchema, which is about it; further in, as in
		// CompatibilityCallToolResult, only in part.
		for _, a := range m.parts {
			if !strings.HasPrefix(joined[a[0]:], w.word) {
				continue
			}
			end := a[0] + len(w.word)
			for _, b := range m.parts {
				if b[1] == end && a[0] == 0 {
					return levelForm
				}
				if b[1] == end {
					best = levelPart
				}
			}
		}
	}
	if best < levelPart && len(w.word) >= 5 && strings.Contains(joined, w.word) {
		best = levelPart
	}
	return best
}

// isAbbrev reports whether an identifier's part abbreviates a word: "conn"
// or "conns" for "connection".
func isAbbrev(part, word string) bool {
	if len(part) > 3 && part[len(part)-1] == 's' {
		part = part[:len(part)-1]
	}
	return len(part) >= 3 && strings.HasPrefix(word, part)
}

// termStats counts, over the lines of a file, those that hold each word:
// at any level, and whole or in another form.
type termStats struct {
	lines      int64
	any, whole []int64
}

func newTermStats(n int) *termStats {
	return &termStats{any: make([]int64, n), whole: make([]int64, n)}
}

func (s *termStats) add(lv matchLevels) {
	s.lines++
	for i := range s.any {
		switch l := lv.at(i); {
		case l >= levelForm:
			s.whole[i]++
			s.any[i]++
		case l > levelNone:
			s.any[i]++
		}
	}
}

// idf is the weight of word i met at a level: the rarer the lines that hold
// it so, the more it weighs (BM25's inverse document frequency).
func (s *termStats) idf(i, level int) float64 {
	df := s.any[i]
	if level >= levelForm {
		df = s.whole[i]
	}
	n := float64(max(s.lines, df))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// lineScore scores one line's levels.
func (s *termStats) lineScore(lv matchLevels) float64 {
	score := 0.0
	for i := range s.any {
		if l := lv.at(i); l > levelNone {
			score += levelWeight[l] * s.idf(i, l)
		}
	}
	return score
}

// merge returns, word by word, the higher of two levels.
func (l matchLevels) merge(o matchLevels) matchLevels {
	for i := 0; i < maxMatchWords; i++ {
		l.raise(i, o.at(i))
	}
	return l
}

// count returns the number of words met.
func (lv matchLevels) count(n int) int {
	c := 0
	for i := 0; i < n; i++ {
		if lv.at(i) > levelNone {
			c++
		}
	}
	return c
}

// The fields of a definition, by the weight of what they hold: its name,
// its doc comment and signature, its body.
const (
	fieldName = iota
	fieldHead
	fieldBody
	nFields
)

// fieldWeight is what a field's matches count for: a word in a name says
// more than one in a comment, and that more than one in a body.
var fieldWeight = [nFields]float64{3, 1.5, 1}

// bm25K1 saturates repeated matches in a field; bm25B scales those of a body
// by its length against the average (BM25).
const (
	bm25K1 = 1.2
	bm25B  = 0.5
)

// defTerms gathers what each field of a definition holds of each word: the
// level-weighted counts of the lines that hold it whole or in another form
// (strong), and of those that hold it at any level.
type defTerms struct {
	strong, any [nFields][]float64
	// exact marks the words the definition's name is: a symbol the
	// intent names counts once more, as a name.
	exact []bool
}

func newDefTerms(n int) *defTerms {
	t := &defTerms{exact: make([]bool, n)}
	for f := range nFields {
		t.strong[f], t.any[f] = make([]float64, n), make([]float64, n)
	}
	return t
}

// add counts one text of the definition in a field.
func (t *defTerms) add(lv matchLevels, field int) {
	for i := range t.any[field] {
		l := lv.at(i)
		if l == levelNone {
			continue
		}
		t.any[field][i] += levelWeight[l]
		if l >= levelForm {
			t.strong[field][i] += levelWeight[l]
		}
	}
}

// score is the definition's score, each field's matches saturated apart so
// that a long body or comment does not drown what the name says: lines is
// the definition's length, avg the average length of the file's
// definitions.
func (t *defTerms) score(s *termStats, lines, avg float64) float64 {
	total := 0.0
	for f := range nFields {
		norm := 1.0
		if f == fieldBody {
			norm = 1 - bm25B + bm25B*lines/max(avg, 1)
		}
		sat := func(tf float64) float64 { return tf * (bm25K1 + 1) / (tf + bm25K1*norm) }
		for i := range t.any[f] {
			if t.any[f][i] == 0 {
				continue
			}
			a := s.idf(i, levelPart) * sat(t.any[f][i])
			if t.strong[f][i] > 0 {
				a = max(a, s.idf(i, levelWhole)*sat(t.strong[f][i]))
			}
			total += fieldWeight[f] * a
		}
	}
	for i, x := range t.exact {
		if x {
			total += fieldWeight[fieldName] * s.idf(i, levelWhole)
		}
	}
	return total
}

// exactName marks the words a definition's name is, letter for letter.
func (t *defTerms) exactName(m *intentMatcher, name string) {
	for i, w := range m.words {
		t.exact[i] = t.exact[i] || strings.EqualFold(name, w.word)
	}
}
