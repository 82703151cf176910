package rank

import "testing"

// TestNamedWeighsByNames checks that a unit named by a word most units
// hold weighs, once names are counted (AddNamed), by how few units the word
// names: more than by the word's own rarity, and the same for a unit that
// only mentions the word.
func TestNamedWeighsByNames(t *testing.T) {
	m := NewMatcher(Parse("the unit"))
	count := func(named bool) (*Stats, *Fields, *Fields) {
		st := NewStats(m)
		var byName, mention *Fields
		for i := 0; i < 40; i++ {
			f := NewFields(m)
			f.Add(m.Levels([]byte("show messages for the specified unit")), FieldHead)
			if i == 7 {
				f.ExactName(m, "unit")
				byName = f
			}
			if i == 8 {
				mention = f
			}
			st.Add(m.Levels([]byte("show messages for the specified unit")))
			if named {
				st.AddNamed(f)
			}
		}
		return st, byName, mention
	}
	st0, n0, m0 := count(false)
	st1, n1, m1 := count(true)
	if a, b := n0.Score(st0, 5, 5), n1.Score(st1, 5, 5); b <= a {
		t.Errorf("the unit named by a common word scores %v with names counted, %v without: want more", b, a)
	}
	if a, b := m0.Score(st0, 5, 5), m1.Score(st1, 5, 5); a != b {
		t.Errorf("a unit that only mentions the word scores %v with names counted, %v without", b, a)
	}
}

// The one stop-word list: prose words leave every intent, words that name
// a log or the reading of it leave a log's only.
func TestStopWords(t *testing.T) {
	for _, tc := range []struct {
		w         string
		stop, log bool
	}{
		{"the", true, true}, {"am", true, true}, {"log", false, true}, {"lines", false, true},
		{"gc", false, false}, {"timeout", false, false},
	} {
		if StopWord(tc.w) != tc.stop || LogStopWord(tc.w) != tc.log {
			t.Errorf("%q: StopWord %v, LogStopWord %v; want %v, %v", tc.w, StopWord(tc.w), LogStopWord(tc.w), tc.stop, tc.log)
		}
	}
}
