package project

import (
	"reflect"
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
		if got := wordStem(w); got != want {
			t.Errorf("wordStem(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestIntentMatcherLevels checks the level at which one word of an intent
// is met in a text.
func TestIntentMatcherLevels(t *testing.T) {
	for _, c := range []struct {
		intent, text string
		want         int // the level of the intent's first word
	}{
		// Identifiers split at their camelCase and snake_case joints.
		{"idle connections", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", levelWhole},
		{"put back", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", levelWhole},
		{"idle", "max_idle_conns_per_host = 2", levelWhole},
		{"server", "HTTPServerConfig", levelWhole},
		// Another form of the word.
		{"connections", "a connection", levelWhole},
		{"connection", "two connections", levelWhole},
		{"closed", "func (c *conn) close() {", levelWhole},
		{"refused", "if refuse {", levelWhole},
		{"closed", "closing it", levelForm},
		{"collections", "collector", levelForm},
		// An abbreviation, or a piece of a compound.
		{"connection", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {", levelPart},
		{"connections", "s.closeIdleConns()", levelPart},
		{"proxy", "reverseproxy.go", levelPart},
		// Too short to be met inside another word, or not there at all.
		{"put", "input, output := a, b", levelNone},
		{"pool", "spool", levelNone},
		{"shutdown", "the server stops", levelNone},
		{"shutdown", "the server shuts", levelPart},
		// An identifier the intent names is met whole, or as the first
		// parts of a longer one; elsewhere only in part; never by an
		// abbreviation.
		{"CallToolResult shape", "export type CallToolResult = Infer<typeof X>;", levelWhole},
		{"CallToolResult shape", "export declare const CallToolResultSchema: z.ZodObject<{", levelForm},
		{"CallToolResult shape", "export declare const CompatibilityCallToolResultSchema: z.ZodUnion<[", levelPart},
		{"CallToolResult shape", "export type CallToolRequest = Infer<typeof CallToolRequestSchema>;", levelNone},
	} {
		m := newIntentMatcher(intentWords(c.intent), c.intent)
		if len(m.words) == 0 {
			t.Fatalf("%q: no words", c.intent)
		}
		if got := m.levels([]byte(c.text)).at(0); got != c.want {
			t.Errorf("%q (word %q) in %q: level %d, want %d", c.intent, m.words[0].word, c.text, got, c.want)
		}
	}
}

func TestMatchLevelsPacking(t *testing.T) {
	var l matchLevels
	l.raise(0, levelPart)
	l.raise(3, levelWhole)
	l.raise(3, levelPart) // never lowers
	l.raise(maxMatchWords-1, levelForm)
	if l.at(0) != levelPart || l.at(3) != levelWhole || l.at(maxMatchWords-1) != levelForm || l.at(1) != levelNone {
		t.Errorf("levels %x", l)
	}
	var o matchLevels
	o.raise(0, levelWhole)
	o.raise(1, levelForm)
	m := l.merge(o)
	if m.at(0) != levelWhole || m.at(1) != levelForm || m.at(3) != levelWhole {
		t.Errorf("merge: %x", m)
	}
	if got := m.count(maxMatchWords); got != 4 {
		t.Errorf("count = %d, want 4", got)
	}
}

// TestTermStats checks that a rarer word weighs more, and a word met whole
// more than one met only in part.
func TestTermStats(t *testing.T) {
	m := newIntentMatcher(intentWords("idle pool"), "idle pool")
	st := newTermStats(len(m.words))
	for i := 0; i < 100; i++ {
		text := "nothing here"
		switch {
		case i%4 == 0:
			text = "the idle list"
		case i == 7:
			text = "back to the pool"
		}
		st.add(m.levels([]byte(text)))
	}
	if st.lines != 100 || st.whole[0] != 25 || st.whole[1] != 1 {
		t.Fatalf("stats %+v", st)
	}
	if st.idf(1, levelWhole) <= st.idf(0, levelWhole) {
		t.Errorf("the rarer word weighs no more: %v <= %v", st.idf(1, levelWhole), st.idf(0, levelWhole))
	}
	whole, part := matchLevels(0), matchLevels(0)
	whole.raise(0, levelWhole)
	part.raise(0, levelPart)
	if st.lineScore(whole) <= st.lineScore(part) {
		t.Error("a word met whole scores no more than one met in part")
	}
}

// TestDefTermsFields checks that a word counts more in a name than in a
// comment, and more there than in a body; and that a long body's matches
// count less than a short one's.
func TestDefTermsFields(t *testing.T) {
	m := newIntentMatcher(intentWords("idle"), "idle")
	st := newTermStats(1)
	for i := 0; i < 50; i++ {
		st.add(m.levels([]byte(strings.Repeat("x", i%3) + " idle")))
		st.add(0)
	}
	lv := m.levels([]byte("idle"))
	score := func(field int, lines float64) float64 {
		t := newDefTerms(1)
		t.add(lv, field)
		return t.score(st, lines, 10)
	}
	if !(score(fieldName, 10) > score(fieldHead, 10) && score(fieldHead, 10) > score(fieldBody, 10)) {
		t.Errorf("name %v, head %v, body %v: want decreasing", score(fieldName, 10), score(fieldHead, 10), score(fieldBody, 10))
	}
	if score(fieldBody, 100) >= score(fieldBody, 5) {
		t.Error("a long body's match counts as much as a short one's")
	}
	exact := newDefTerms(1)
	exact.add(lv, fieldName)
	plain := exact.score(st, 1, 1)
	exact.exactName(m, "Idle")
	if exact.score(st, 1, 1) <= plain {
		t.Error("a name that is the word counts no more than one that holds it")
	}
}

func TestNormRegions(t *testing.T) {
	got := normRegions([]focusRegion{
		{from: 50, to: 60, minor: true},
		{from: 10, to: 20},
		{from: 15, to: 30, minor: true, whole: 40},
		{from: 31, to: 31, minor: true},
		{from: 61, to: 61},
		{from: 9, to: 8},
	})
	want := []focusRegion{
		{from: 10, to: 30, whole: 40},
		{from: 31, to: 31, minor: true},
		{from: 50, to: 60, minor: true},
		{from: 61, to: 61},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normRegions = %+v\nwant %+v", got, want)
	}
}

// FuzzIntentMatcher checks that matching any intent against any text
// neither panics nor reports a word the text cannot hold.
func FuzzIntentMatcher(f *testing.F) {
	f.Add("idle connections put back", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {")
	f.Add("CallToolResult shape", "export declare const CallToolResultSchema: z.ZodObject<{")
	f.Add("ÄÖÜ straße", "Straße_ÄÖÜ x")
	f.Fuzz(func(t *testing.T, intent, text string) {
		m := newIntentMatcher(intentWords(intent), intent)
		lv := m.levels([]byte(text))
		low := strings.ToLower(text)
		for i, w := range m.words {
			if lv.at(i) != levelNone && !strings.Contains(low, w.word[:len(w.key)]) {
				t.Errorf("word %q met in %q, which lacks %q", w.word, text, w.key)
			}
		}
	})
}
