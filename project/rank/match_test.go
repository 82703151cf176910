package rank

import (
	"strings"
	"testing"
)

func TestWordStem(t *testing.T) {
	for w, want := range map[string]string{
		"connections": "connect",
		"connection":  "connect",
		"refused":     "refus",
		"closed":      "clos",
		"collections": "collect",
		"pool":        "pool",
		"idle":        "idl",
		"put":         "put",
		"cloudkms":    "cloudkm",
		"uses":        "use",
	} {
		if got := Stem(w); got != want {
			t.Errorf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestIntentMatcherLevels checks the level at which one word of an intent
// is met in a text.
func TestMatcherLevels(t *testing.T) {
	for _, c := range []struct {
		intent, text string
		want         Level // the level of the intent's first word
	}{
		// Identifiers split at their camelCase and snake_case joints.
		{"idle connections", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", Whole},
		{"put back", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", Whole},
		{"idle", "max_idle_conns_per_host = 2", Whole},
		{"server", "HTTPServerConfig", Whole},
		// Another form of the word.
		{"connections", "a connection", Whole},
		{"connection", "two connections", Whole},
		{"closed", "func (c *conn) close() {", Whole},
		{"refused", "if refuse {", Whole},
		{"closed", "closing it", Form},
		{"collections", "collector", Form},
		// An abbreviation, or a piece of a compound.
		{"connection", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", Part},
		{"connections", "s.closeIdleConns()", Part},
		{"proxy", "reverseproxy.go", Part},
		// Too short to be met inside another word, or not there at all.
		{"put", "input, output := a, b", None},
		{"pool", "spool", None},
		{"shutdown", "the server stops", None},
		{"shutdown", "the server shuts", Part},
		// An identifier the intent names is met whole, or as the first
		// parts of a longer one; elsewhere only in part; never by an
		// abbreviation.
		{"CallToolResult shape", "export type CallToolResult = Infer<typeof X>;", Exact},
		{"CallToolResult shape", "export declare const CallToolResultSchema: z.ZodObject<{", Form},
		{"CallToolResult shape", "export declare const CompatibilityCallToolResultSchema: z.ZodUnion<[", Part},
		{"CallToolResult shape", "export type CallToolRequest = Infer<typeof CallToolRequestSchema>;", None},
	} {
		m := NewMatcher(Parse(c.intent))
		if m.N() == 0 {
			t.Fatalf("%q: no words", c.intent)
		}
		if got := m.Levels([]byte(c.text)).At(0); got != c.want {
			t.Errorf("%q (word %q) in %q: level %d, want %d", c.intent, m.it.Words[0].Text, c.text, got, c.want)
		}
	}
}

func TestLevelsPacking(t *testing.T) {
	var l Levels
	l.Raise(0, Part)
	l.Raise(3, Whole)
	l.Raise(3, Part) // never lowers
	l.Raise(MaxWords-1, Form)
	if l.At(0) != Part || l.At(3) != Whole || l.At(MaxWords-1) != Form || l.At(1) != None {
		t.Errorf("levels %x", l)
	}
	var o Levels
	o.Raise(0, Whole)
	o.Raise(1, Form)
	m := l.Merge(o)
	if m.At(0) != Whole || m.At(1) != Form || m.At(3) != Whole {
		t.Errorf("merge: %x", m)
	}
	if got := m.Count(MaxWords); got != 4 {
		t.Errorf("count = %d, want 4", got)
	}
}

// TestTermStats checks that a rarer word weighs more, and a word met whole
// more than one met only in part.
func TestStats(t *testing.T) {
	m := NewMatcher(Parse("idle pool"))
	st := NewStats(m)
	for i := 0; i < 100; i++ {
		text := "nothing here"
		switch {
		case i%4 == 0:
			text = "the idle list"
		case i == 7:
			text = "back to the pool"
		}
		st.Add(m.Levels([]byte(text)))
	}
	if st.units != 100 || st.whole[0] != 25 || st.whole[1] != 1 {
		t.Fatalf("stats %+v", st)
	}
	if st.IDF(1, Whole) <= st.IDF(0, Whole) {
		t.Errorf("the rarer word weighs no more: %v <= %v", st.IDF(1, Whole), st.IDF(0, Whole))
	}
	whole, part := Levels(0), Levels(0)
	whole.Raise(0, Whole)
	part.Raise(0, Part)
	if st.Score(whole) <= st.Score(part) {
		t.Error("a word met whole scores no more than one met in part")
	}
}

// TestDefTermsFields checks that a word counts more in a name than in a
// comment, and more there than in a body; and that a long body's matches
// count less than a short one's.
func TestFields(t *testing.T) {
	m := NewMatcher(Parse("idle"))
	st := NewStats(m)
	for i := 0; i < 50; i++ {
		st.Add(m.Levels([]byte(strings.Repeat("x", i%3) + " idle")))
		st.Add(0)
	}
	lv := m.Levels([]byte("idle"))
	score := func(field int, lines float64) float64 {
		t := NewFields(m)
		t.Add(lv, field)
		return t.Score(st, lines, 10)
	}
	if !(score(FieldName, 10) > score(FieldHead, 10) && score(FieldHead, 10) > score(FieldBody, 10)) {
		t.Errorf("name %v, head %v, body %v: want decreasing", score(FieldName, 10), score(FieldHead, 10), score(FieldBody, 10))
	}
	if score(FieldBody, 100) >= score(FieldBody, 5) {
		t.Error("a long body's match counts as much as a short one's")
	}
	exact := NewFields(m)
	exact.Add(lv, FieldName)
	holds := NewFields(m)
	holds.Add(m.Levels([]byte("idleTimer")), FieldName)
	if exact.Score(st, 1, 1) <= holds.Score(st, 1, 1) {
		t.Error("a name that is the word counts no more than one that holds it")
	}
	named := NewFields(m)
	named.Add(m.Levels([]byte("idleTimer")), FieldName)
	named.ExactName(m, "Idle")
	if named.Score(st, 1, 1) <= holds.Score(st, 1, 1) {
		t.Error("ExactName adds nothing")
	}
}

// FuzzIntentMatcher checks that matching any intent against any text
// neither panics nor reports a word the text cannot hold.
func FuzzMatcher(f *testing.F) {
	f.Add("idle connections put back", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {")
	f.Add("CallToolResult shape", "export declare const CallToolResultSchema: z.ZodObject<{")
	f.Add("ÄÖÜ straße", "Straße_ÄÖÜ x")
	f.Fuzz(func(t *testing.T, intent, text string) {
		m := NewMatcher(Parse(intent))
		lv := m.Levels([]byte(text))
		low := strings.ToLower(text)
		for i, w := range m.it.Words {
			if lv.At(i) != None && !strings.Contains(low, w.Text[:min(3, len(w.Text))]) {
				t.Errorf("word %q met in %q, which lacks %q", w.Text, text, w.Text[:min(3, len(w.Text))])
			}
		}
	})
}

// TestExactBeatsPartial checks that a name or key equal to an intent word is
// met exactly, and one that merely contains it is not: a lock file's entry
// for the package the intent names outranks those of packages whose names
// hold that name.
func TestExactBeatsPartial(t *testing.T) {
	for _, c := range []struct {
		intent, text string
		want         Level
	}{
		{"why is lodash pinned", `    "node_modules/lodash": {`, Exact},
		{"why is lodash pinned", `    "node_modules/lodash.merge": {`, Whole},
		{"why is lodash pinned", `lodash@^4.17.21:`, Exact},
		{"why is lodash pinned", `lodash.debounce@^4.0.8:`, Whole},
		{"serde version", `name = "serde"`, Exact},
		{"serde version", `name = "serde_json"`, Whole},
		{"the core package", `"core-js": "3.1.0"`, Whole},
		{"where is Conn defined", "type Conn struct {", Exact},
		{"where is Conn defined", "type ConnPool struct {", Whole},
	} {
		m := NewMatcher(Parse(c.intent))
		var got Level
		for i, w := range m.it.Words {
			if strings.Contains(strings.ToLower(c.text), w.Text) {
				got = m.Levels([]byte(c.text)).At(i)
			}
		}
		if got != c.want {
			t.Errorf("%q in %q: level %d, want %d", c.intent, c.text, got, c.want)
		}
	}
	// Keys: compound names of the intent are met whole or not at all.
	m := NewMatcher(Parse("is core-js used, or @types/node?"))
	if len(m.it.Keys) != 2 {
		t.Fatalf("keys %q", m.it.Keys)
	}
	for text, want := range map[string]int{
		`"core-js": "3.1.0",`:           1,
		`"core-js-pure": "3.1.0",`:      0,
		`"node_modules/@types/node": {`: 1,
		`"@types/node-fetch": "2.0"`:    0,
	} {
		if got := m.Levels([]byte(text)).Keys(); got != want {
			t.Errorf("keys met in %q: %d, want %d", text, got, want)
		}
	}
	// A key met whole outranks every word met in part.
	st := NewStats(m)
	for range 50 {
		st.Add(m.Levels([]byte("core js types node")))
	}
	if st.Score(m.Levels([]byte(`"core-js": "3"`))) <= st.Score(m.Levels([]byte(`"core-js-pure": "3"`))) {
		t.Error("the exact key scores no more than a longer name holding it")
	}
}

// TestIntentPaths checks that paths named in an intent are told from dotted
// keys, and select the paths that end with them.
func TestIntentPaths(t *testing.T) {
	it := Parse("the retry loop in net/http/transport.go, not lodash.merge; see main.go")
	if want := []string{"net/http/transport.go", "main.go"}; strings.Join(it.Paths, " ") != strings.Join(want, " ") {
		t.Errorf("paths %q, want %q", it.Paths, want)
	}
	for p, want := range map[string]bool{
		"src/net/http/transport.go":  true,
		"net/http/transport.go":      true,
		"net/http/transport_test.go": false,
		"cmd/main.go":                true,
		"cmd/domain.go":              false,
	} {
		if got := it.NamesPath(p); got != want {
			t.Errorf("NamesPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestScoreSignals checks the shared scorer's order: an error met once among
// thousands of notes outranks a note of that template and an error whose
// template repeats; a summary line outranks plain text; the intent weighs
// most.
func TestScoreSignals(t *testing.T) {
	oneOff := Score(Signals{Severity: Error, Count: 1, Total: 14000})
	repeated := Score(Signals{Severity: Error, Count: 13955, Total: 14000})
	note := Score(Signals{Severity: Notice, Count: 13955, Total: 14000})
	if !(oneOff > repeated && repeated > note) {
		t.Errorf("one-off error %v, repeated error %v, note %v: want decreasing", oneOff, repeated, note)
	}
	if Score(Signals{Structure: Summary}) <= Score(Signals{}) {
		t.Error("a summary scores no more than plain text")
	}
	if Score(Signals{Intent: 2}) <= Score(Signals{Severity: Error}) {
		t.Error("a unit the intent names scores no more than an unrelated error")
	}
	if Rarity(1, 1) != 1 || Rarity(5, 5) != 0 || Rarity(0, 0) != 1 {
		t.Error("rarity bounds")
	}
}

// TestKeyRarity checks that a key met whole weighs by its rarity, as words
// do: a key every unit holds tells units apart no more than a common word.
func TestKeyRarity(t *testing.T) {
	m := NewMatcher(Parse("the options of child_process.spawn"))
	st := NewStats(m)
	common := m.Levels([]byte("see child_process.spawn here"))
	for range 40 {
		st.Add(common)
	}
	rare := NewMatcher(Parse("the options of child_process.spawn"))
	st2 := NewStats(rare)
	st2.Add(common)
	for range 39 {
		st2.Add(0)
	}
	if !common.Key(0) {
		t.Fatal("the key is not met")
	}
	if st.keyScore(common) >= st2.keyScore(common) || st.KeyIDF(0) >= st2.KeyIDF(0) {
		t.Errorf("a key in every unit weighs %v, no less than one in a single unit (%v)", st.keyScore(common), st2.keyScore(common))
	}
}
