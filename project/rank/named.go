package rank

import "math"

// Names: a unit whose name is an intent word ("-u, --unit=UNIT" for
// "unit", "`describe([name][, fn])`" for "describe") is the place of what
// the word names, however many other units mention the word. What that
// weighs is how few units are so named, usually one, not how many hold the
// word: in a page about systemd units every section says "unit", and the
// one option named --unit is still the one the word names.

// AddNamed counts a unit whose name is words of the intent, letter for
// letter (the words t marks by ExactName), for the weight of being so
// named (see Fields.Score). A scan that calls it for its units weighs
// names by their own rarity; one that never does, by the words' rarity.
func (s *Stats) AddNamed(t *Fields) {
	if s.named == nil {
		s.named = make([]int64, len(s.any))
	}
	for i, x := range t.named {
		if x && i < len(s.named) {
			s.named[i]++
		}
	}
}

// namedIDF is the weight of a unit that word i names: by the units so
// named, when they were counted (AddNamed), else by those that hold the
// word whole or in another form.
func (s *Stats) namedIDF(i int) float64 {
	if s.named == nil {
		return s.IDF(i, Whole)
	}
	df := s.named[i]
	n := float64(max(s.units, df))
	return math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
}
