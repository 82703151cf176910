package rank

import "testing"

func TestWithout(t *testing.T) {
	it := Parse("show the redis-server log lines")
	got := it.Without(func(w Word) bool { return w.Text == "show" || w.Text == "log" || w.Text == "lines" })
	if len(got.Words) != 2 || got.Words[0].Text != "redis" || got.Words[1].Text != "server" {
		t.Errorf("words %+v", got.Words)
	}
	if len(got.Keys) != 1 || got.Keys[0] != "redis-server" || len(it.Words) != 5 {
		t.Errorf("keys %q, the intent's own words %d", got.Keys, len(it.Words))
	}
}

func TestStatsDF(t *testing.T) {
	m := NewMatcher(Parse("connection pool"))
	st := NewStats(m)
	for _, s := range []string{"connection reset", "conn closed", "pool drained", "nothing"} {
		st.Add(m.Levels([]byte(s)))
	}
	st.AddUnmatched(6)
	if st.Units() != 10 || st.DF(0, Whole) != 1 || st.DF(0, Part) != 2 || st.DF(1, Exact) != 1 {
		t.Errorf("units %d, df %d %d %d", st.Units(), st.DF(0, Whole), st.DF(0, Part), st.DF(1, Exact))
	}
	var lv Levels
	lv.Raise(0, Part)
	lv.Raise(3, Whole)
	if w := lv.Words(Part); w != 1|1<<3 || lv.Words(Whole) != 1<<3 {
		t.Errorf("words %b", w)
	}
	lv.Raise(MaxWords-1, Exact)
	lv |= 1 << (keyShift + 2)
	if got, want := lv.Sum(), int(Part+Whole+Exact+Exact); got != want {
		t.Errorf("sum %d, want %d", got, want)
	}
}
