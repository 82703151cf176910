package rank

import (
	"strings"
	"testing"
)

// TestOptions checks that short options are read from an intent as
// written, case and all, and that a unit named by one outranks a unit
// whose text only mentions the intent's words.
func TestOptions(t *testing.T) {
	it := Parse(`what -X does, and "-u"; not --long or -xy`)
	if got := strings.Join(it.Options(), " "); got != "-X -u" {
		t.Errorf("options %q, want %q", got, "-X -u")
	}
	m := NewMatcher(Parse("what -X does with dev mode"))
	st := NewStats(m)
	for range 20 {
		st.Add(m.Levels([]byte("the dev mode")))
	}
	named := NewFields(m)
	named.ExactOption()
	mention := NewFields(m)
	mention.Add(m.Levels([]byte("enables the dev mode")), FieldBody)
	if named.Score(st, 3, 3) <= mention.Score(st, 3, 3) {
		t.Errorf("the option named scores %v, no more than a mention of its words (%v)", named.Score(st, 3, 3), mention.Score(st, 3, 3))
	}
}
