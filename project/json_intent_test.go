package project

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/tokens"
)

// TestJSONMatcher checks what the shared matcher finds in the keys and
// values of JSON documents: the words met whole (or exactly), and those met
// at any level.
func TestJSONMatcher(t *testing.T) {
	for _, tc := range []struct {
		intent, text string
		whole, any   []string // the words found whole, and at any level
	}{
		{"net/http/httptrace", `"net/http/httptrace"`, []string{"net", "http", "httptrace"}, []string{"net", "http", "httptrace"}},
		{"httptrace", `"ImportPath": "net/http/HTTPTrace"`, []string{"httptrace"}, []string{"httptrace"}},
		{"which jest-circus is locked", `"node_modules/jest-circus"`, []string{"jest", "circus"}, []string{"jest", "circus"}},
		{"which jest-circus is locked", `"lockfileVersion"`, nil, []string{"locked"}},
		{"connections", `"maxConnsPerHost"`, nil, []string{"connections"}},
		{"connections", `"co"`, nil, nil},
		{"reverse proxy", `"reverseproxy.go"`, []string{"reverse", "proxy"}, []string{"reverse", "proxy"}}, // run together
		{"version 6.1.1", `"6.1.1"`, nil, nil}, // "6", "1": words under 3 letters
		{"istanbul", `"babel-plugin-istanbul"`, []string{"istanbul"}, []string{"istanbul"}},
		{"istanbul", `"babel-plugin-istanbu"`, []string{"istanbul"}, []string{"istanbul"}}, // the word less a short ending
		{"istanbul", `"i"`, nil, nil},
		{"the and for", `"the and for"`, nil, nil},
	} {
		t.Run(tc.intent+"/"+tc.text, func(t *testing.T) {
			m := newJSONMatcher(tc.intent)
			if m == nil {
				if tc.whole != nil || tc.any != nil {
					t.Fatal("no matcher")
				}
				return
			}
			lv := m.Levels([]byte(tc.text))
			names := func(least rank.Level) []string {
				var out []string
				for i, w := range m.Intent().Words {
					if lv.At(i) >= least {
						out = append(out, w.Text)
					}
				}
				return out
			}
			if got := names(rank.Whole); !reflect.DeepEqual(got, tc.whole) {
				t.Errorf("whole: got %q, want %q", got, tc.whole)
			}
			if got := names(rank.Part); !reflect.DeepEqual(got, tc.any) {
				t.Errorf("any level: got %q, want %q", got, tc.any)
			}
		})
	}
}

func projectJSONIntent(t testing.TB, doc []byte, intent string, budget int) Output {
	t.Helper()
	in := testInput(t, doc, budget)
	in.Put = fakeStore{}.put
	in.Args = json.RawMessage(`{"description": ` + quoteJSON(intent) + `}`)
	out, err := Project(context.Background(), KindJSON, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// matchTitle is the line that heads the parts that match the intent.
var matchTitle = regexp.MustCompile(`(?m)^parts that match the intent \(.*\), best first:$`)

// TestJSONIntentRealCases: with an intent, the parts of real documents
// that match it come first, whole or by their matching members, in the
// document's own formatting; the view keeps every property of a JSON view.
func TestJSONIntentRealCases(t *testing.T) {
	for _, tc := range []struct {
		name, doc, intent string
		budget            int
		want              []string // evidence the view must show, as the document writes it
	}{
		{"go-list-std", "go-list-std", "Find the directory and doc of net/http/httptrace", 2000, []string{
			`"ImportPath": "net/http/httptrace"`,
			`"Dir": "/usr/local/go/src/net/http/httptrace"`,
			`"Doc": "Package httptrace provides mechanisms to trace the events within HTTP client requests."`,
		}},
		{"go-list-std-small", "go-list-std", "Find the directory and doc of net/http/httptrace", 500, []string{
			`"ImportPath": "net/http/httptrace"`,
		}},
		{"npm-ls", "npm-ls-server-filesystem", "which version of fast-uri is installed, and why", 2000, []string{
			`"fast-uri": {`,
			`"version": "3.1.9"`,
			// Its pointer names the packages that pull it in.
			`/ajv/dependencies/fast-uri`,
		}},
		{"package-lock", "package-lock-server-filesystem", "which zod is locked", 2000, []string{
			`"node_modules/zod": {`,
			`"integrity": "sha512-g8W2D2kU6a8untc053fX1uVBKzM7yqAxW/3zwk83+6RyF2+SKOuV+c0wBDhUwzV1PaGapmZH+rmcUzPf+3CGwg=="`,
		}},
		{"cargo-compact", "cargo-metadata", "the binary targets and their source", 300, []string{
			// A one-line document: the part as it is written.
			`"targets":[{"kind":["bin"],"crate_types":["bin"],"name":"fixture-crate","src_path":"/tmp/crumb-fixtures/crate/src/main.rs"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := loadCase(t, "json", tc.doc)
			out := projectJSONIntent(t, doc, tc.intent, tc.budget)
			if again := projectJSONIntent(t, doc, tc.intent, tc.budget); again.Text != out.Text {
				t.Fatal("same input and budget gave different views")
			}
			checkJSONView(t, doc, out.Text, tc.budget)
			if !matchTitle.MatchString(out.Text) {
				t.Fatalf("no parts that match the intent:\n%s", out.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.Text, w) {
					t.Errorf("the view does not show %s", w)
				}
			}
			checkGolden(t, filepath.Join("testdata", "json", tc.doc, fmt.Sprintf("intent-%s-%d.golden", tc.name, tc.budget)), out.Text)
		})
	}
}

// TestJSONIntentBestFirst: the first part shown is the one whose own
// values hold the rarest of the intent's words, wherever it is in a stream
// of hundreds of values; and its pointer reads it.
func TestJSONIntentBestFirst(t *testing.T) {
	doc := loadCase(t, "json", "go-list-std")
	for _, pkg := range []string{"net/http/httptrace", "archive/tar", "unicode/utf16", "crypto/sha256"} {
		t.Run(pkg, func(t *testing.T) {
			out := projectJSONIntent(t, doc, "where is package "+pkg, 2000)
			loc := matchTitle.FindStringIndex(out.Text)
			if loc == nil {
				t.Fatalf("no matches:\n%s", out.Text)
			}
			first := strings.SplitN(out.Text[loc[1]+1:], "\n", 2)[0]
			m := regexp.MustCompile(`# (/\d+)`).FindStringSubmatch(first)
			if m == nil {
				t.Fatalf("the first match names no top-level value: %q", first)
			}
			f, err := jsonscan.Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), m[1])
			if err != nil {
				t.Fatal(err)
			}
			var v struct{ ImportPath string }
			if err := json.Unmarshal(doc[f.Start:f.End], &v); err != nil {
				t.Fatal(err)
			}
			if v.ImportPath != pkg {
				t.Errorf("the first match %s is package %q, want %q", m[1], v.ImportPath, pkg)
			}
			if !strings.Contains(out.Text, `"ImportPath": "`+pkg+`"`) {
				t.Errorf("the view does not show the package's import path")
			}
		})
	}
}

// TestJSONIntentWithoutWords: an intent made only of words that say
// nothing changes nothing.
func TestJSONIntentWithoutWords(t *testing.T) {
	doc := loadCase(t, "json", "npm-view-express")
	plain, _ := projectJSONCase(t, doc, 1000)
	with := projectJSONIntent(t, doc, "find what is there and why", 1000)
	if plain.Text != with.Text {
		t.Errorf("an intent without words changed the view:\n%s", with.Text)
	}
	none := projectJSONIntent(t, doc, "zzqxv", 1000)
	if none.Text != plain.Text {
		t.Errorf("an intent that matches nothing changed the view:\n%s", none.Text)
	}
}

// TestJSONIntentBounded: a document with far more matching containers
// than the pool keeps still shows the best, within the budget, and the
// repeated paths do not crowd out the rest.
func TestJSONIntentBounded(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"items": [`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "worker-%d", "status": "ok"}`, i, i)
	}
	b.WriteString(`], "config": {"worker_limit": 64, "owner": "ops"}}`)
	doc := b.Bytes()
	out := projectJSONIntent(t, doc, "the worker limit", 800)
	checkJSONView(t, doc, out.Text, 800)
	if !strings.Contains(out.Text, `"worker_limit": 64`) {
		t.Errorf("the rare match is not shown:\n%s", out.Text)
	}
	if n := strings.Count(out.Text[:strings.Index(out.Text, "the outline:")], `"name": "worker-`); n > 3 {
		t.Errorf("%d elements of the same path crowd the matches", n)
	}
}

// TestJSONCompactWhole: a document that does not fit the budget as it is
// written but does without its white space is shown whole that way: every
// value, exactly.
func TestJSONCompactWhole(t *testing.T) {
	var items []map[string]any
	for i := 0; i < 60; i++ {
		items = append(items, map[string]any{"name": fmt.Sprintf("file-%02d.go", i), "type": "file"})
	}
	pretty, _ := json.MarshalIndent(items, "", "        ")
	stream := bytes.Repeat([]byte("{\n    \"a\": 1,\n    \"b\": [true, null, \"x y\"]\n}\n"), 60)
	for name, doc := range map[string][]byte{"pretty": pretty, "stream": stream} {
		t.Run(name, func(t *testing.T) {
			in := testInput(t, doc, 1000)
			if n := tokens.O200k().Count(string(doc)); n <= 1000 {
				t.Fatalf("the document takes only %d tokens: it would be shown as it is", n)
			}
			out, err := Project(context.Background(), KindJSON, in)
			if err != nil {
				t.Fatal(err)
			}
			checkJSONView(t, doc, out.Text, 1000)
			head, body, _ := strings.Cut(out.Text, "\n")
			if !strings.Contains(head, "shown whole without the white space") {
				t.Fatalf("not shown whole:\n%s", out.Text)
			}
			if !sameValues(t, doc, []byte(body)) {
				t.Errorf("the compact text does not hold the same values:\n%s", body)
			}
		})
	}
}

// sameValues reports whether two JSON texts hold the same values, in the
// same order.
func sameValues(t testing.TB, a, b []byte) bool {
	t.Helper()
	decode := func(doc []byte) []any {
		var out []any
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		for {
			var v any
			if err := dec.Decode(&v); err != nil {
				return out
			}
			out = append(out, v)
		}
	}
	return reflect.DeepEqual(decode(a), decode(b))
}

func TestCompactValues(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{ "a" : [ 1 , 2 ] }`, `{"a":[1,2]}`},
		{"1 2\n3", "1\n2\n3"},
		{`"a b" "c\" d"`, `"a b"` + "\n" + `"c\" d"`},
		{"{}{}\n[ ]", "{}\n{}\n[]"},
		{`{"k": "a\\"}  true`, `{"k":"a\\"}` + "\n" + `true`},
	} {
		got := string(bytes.Join(compactValues([]byte(tc.in)), []byte("\n")))
		if got != tc.want {
			t.Errorf("compactValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCompactValues: the compact lines of valid JSON hold the same values.
func FuzzCompactValues(f *testing.F) {
	f.Add([]byte(`{"a": [1, "b c", {"d": null}]}`))
	f.Add([]byte("1 2 \"x\\\"y\" [ ]"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if bytes.HasPrefix(doc, []byte("\xEF\xBB\xBF")) {
			return
		}
		s := jsonscan.New(bytes.NewReader(doc), int64(len(doc)))
		for {
			_, err := s.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return // not JSON
			}
		}
		if s.Values() == 0 {
			return
		}
		lines := compactValues(doc)
		if int64(len(lines)) != s.Values() {
			t.Fatalf("%d lines for %d values: %q", len(lines), s.Values(), lines)
		}
		if !sameValues(t, doc, bytes.Join(lines, []byte("\n"))) {
			t.Fatalf("different values: %q", lines)
		}
	})
}

// FuzzJSONProjectIntent projects arbitrary documents for arbitrary
// intents: no panic, within the budget, deterministic, and every pointer
// it names resolves.
func FuzzJSONProjectIntent(f *testing.F) {
	f.Add([]byte(`{"items":[{"id":1,"s":"ok"},{"id":2,"s":"failed"}],"n":2}`), "the failed item", 200)
	f.Add([]byte("{\"a\":{\"bb\":1}}\n{\"a\":{\"bb\":2}}\n"), "bb values", 150)
	f.Add([]byte(`{"x/y": {"~z": ["needle", "hay"]}, "needle": {"deep": {"needle": true}}}`), "needle", 120)
	f.Fuzz(func(t *testing.T, doc []byte, intent string, budget int) {
		budget = 100 + abs(budget)%3000
		if len(doc) > 1<<16 || len(intent) > 200 {
			return
		}
		out := projectJSONIntent(t, doc, intent, budget)
		if again := projectJSONIntent(t, doc, intent, budget); again.Text != out.Text {
			t.Fatal("not deterministic")
		}
		if n := tokens.O200k().Count(out.Text); n > budget {
			t.Fatalf("view takes %d tokens, budget %d:\n%s", n, budget, out.Text)
		}
		if strings.Contains(out.Text, "not valid JSON") {
			return
		}
		for _, m := range viewPointers.FindAllStringSubmatch(out.Text, -1) {
			p := m[1]
			if strings.HasPrefix(p, "'") {
				p = strings.ReplaceAll(strings.Trim(p, "'"), `'\''`, "'")
			}
			if _, err := jsonscan.Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), p); err != nil {
				t.Fatalf("pointer %q does not resolve: %v\n%s", p, err, out.Text)
			}
		}
	})
}
