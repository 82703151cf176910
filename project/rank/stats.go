package rank

import (
	"math"
	"math/bits"
	"strings"
)

// Stats counts, over the units of a result, those that hold each word: at
// any level, and whole or in another form. Rarer words weigh more.
type Stats struct {
	units      int64
	any, whole []int64
	keys       [16]int64 // the units that hold each key whole
	named      []int64   // the units each word names, once counted (see AddNamed)
}

// NewStats returns counts for the words of a matcher.
func NewStats(m *Matcher) *Stats {
	n := m.N()
	return &Stats{any: make([]int64, n), whole: make([]int64, n)}
}

// Add counts one unit's levels.
func (s *Stats) Add(lv Levels) {
	s.units++
	if lv == 0 {
		return
	}
	for k := uint64(lv >> keyShift); k != 0; k &= k - 1 {
		s.keys[bits.TrailingZeros64(k)]++
	}
	for x := lv & (1<<keyShift - 1); x != 0; {
		i := bits.TrailingZeros64(uint64(x)) / 3
		x &^= 7 << (3 * i)
		if i >= len(s.any) {
			break
		}
		s.any[i]++
		if lv.At(i) >= Form {
			s.whole[i]++
		}
	}
}

// Units returns the number of units counted.
func (s *Stats) Units() int64 { return s.units }

// IDF is the weight of word i met at a level: the rarer the units that hold
// it so, the more it weighs (BM25's inverse document frequency).
func (s *Stats) IDF(i int, level Level) float64 {
	df := s.any[i]
	if level >= Form {
		df = s.whole[i]
	}
	n := float64(max(s.units, df))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// KeyIDF is the weight of key i met whole: the rarer the units that hold
// it, the more it weighs, as for words.
func (s *Stats) KeyIDF(i int) float64 {
	df := s.keys[i]
	n := float64(max(s.units, df))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}

// keyScore sums the weights of the keys lv meets whole.
func (s *Stats) keyScore(lv Levels) float64 {
	score := 0.0
	for k := uint64(lv >> keyShift); k != 0; k &= k - 1 {
		score += Exact.Weight() * s.KeyIDF(bits.TrailingZeros64(k))
	}
	return score
}

// Score scores one unit's levels: each word met weighs its level times its
// rarity, and each key met whole as an exact word of the same rarity.
func (s *Stats) Score(lv Levels) float64 {
	score := 0.0
	for i := range s.any {
		if l := lv.At(i); l > None {
			score += l.Weight() * s.IDF(i, l)
		}
	}
	return score + s.keyScore(lv)
}

// The fields of a unit, by the weight of what they hold: its name (a
// definition's name, a section's heading, a key), its head (a doc comment,
// a signature, a summary line) and its body.
const (
	FieldName = iota
	FieldHead
	FieldBody
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

// Fields gathers what each field of one unit holds of each word: the
// level-weighted counts of the texts that hold it whole or in another form
// (strong), and of those that hold it at any level.
type Fields struct {
	strong, any [nFields][]float64
	// exact marks the words the unit's name is: a name the intent names
	// counts once more.
	exact []bool
	// named marks the words the unit's name is, letter for letter
	// (ExactName): weighed by how few units are so named (AddNamed).
	named   []bool
	keys    Levels // the keys its name meets whole
	options int    // the short options its name is (ExactOption)
}

// NewFields returns empty fields for the words of a matcher.
func NewFields(m *Matcher) *Fields {
	n := m.N()
	t := &Fields{exact: make([]bool, n), named: make([]bool, n)}
	for f := range nFields {
		t.strong[f], t.any[f] = make([]float64, n), make([]float64, n)
	}
	return t
}

// Add counts one text of the unit in a field.
func (t *Fields) Add(lv Levels, field int) {
	for i := range t.any[field] {
		l := lv.At(i)
		if l == None {
			continue
		}
		t.any[field][i] += l.Weight()
		if l >= Form {
			t.strong[field][i] += l.Weight()
		}
		if field == FieldName && l == Exact {
			t.exact[i] = true
		}
	}
	if field == FieldName {
		t.keys |= lv &^ (1<<keyShift - 1)
	}
}

// ExactName marks the words a unit's name is, letter for letter.
func (t *Fields) ExactName(m *Matcher, name string) {
	for i, w := range m.it.Words {
		if strings.EqualFold(name, w.Text) {
			t.exact[i], t.named[i] = true, true
		}
	}
}

// Score is the unit's score, each field's matches saturated apart so that
// a long body or comment does not drown what the name says: length is the
// unit's length, avg the average length of the result's units.
func (t *Fields) Score(s *Stats, length, avg float64) float64 {
	total := 0.0
	for f := range nFields {
		norm := 1.0
		if f == FieldBody {
			norm = 1 - bm25B + bm25B*length/max(avg, 1)
		}
		sat := func(tf float64) float64 { return tf * (bm25K1 + 1) / (tf + bm25K1*norm) }
		for i := range t.any[f] {
			if t.any[f][i] == 0 {
				continue
			}
			a := s.IDF(i, Part) * sat(t.any[f][i])
			if t.strong[f][i] > 0 {
				a = max(a, s.IDF(i, Whole)*sat(t.strong[f][i]))
			}
			total += fieldWeight[f] * a
		}
	}
	for i, x := range t.exact {
		switch {
		case t.named[i]:
			total += fieldWeight[FieldName] * s.namedIDF(i)
		case x:
			total += fieldWeight[FieldName] * s.IDF(i, Whole)
		}
	}
	total += fieldWeight[FieldName] * s.keyScore(t.keys)
	total += float64(t.options) * fieldWeight[FieldName] * Exact.Weight() * math.Log(1+(float64(s.units)+0.5)/1.5)
	return total
}
