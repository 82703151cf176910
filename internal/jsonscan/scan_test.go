package jsonscan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// scanAll returns the tokens of b, read in windows of win bytes (reading
// ahead when win is negative).
func scanAll(b []byte, win int64) ([]Token, int64, error) {
	s := New(bytes.NewReader(b), int64(len(b)))
	if win < 0 {
		s.winSize = -win
		s.Prefetch()
		defer s.Close()
	} else {
		s.winSize = win
	}
	var out []Token
	for {
		t, err := s.Next()
		if err == io.EOF {
			return out, s.Values(), nil
		}
		if err != nil {
			return out, s.Values(), err
		}
		out = append(out, t)
	}
}

func TestScanTokens(t *testing.T) {
	doc := `{"a": [1, -2.5e+3, "x\"y\\", true, false, null], "b\\": {}}`
	want := []Kind{BeginObject, Key, BeginArray, Number, Number, String, True, False, Null, EndArray, Key, BeginObject, EndObject, EndObject}
	for _, win := range []int64{1, 2, 3, 7, 1 << 20, -1, -5} {
		toks, n, err := scanAll([]byte(doc), win)
		if err != nil {
			t.Fatalf("window %d: %v", win, err)
		}
		if n != 1 {
			t.Fatalf("window %d: %d values, want 1", win, n)
		}
		var kinds []Kind
		for _, tk := range toks {
			kinds = append(kinds, tk.Kind)
		}
		if !reflect.DeepEqual(kinds, want) {
			t.Fatalf("window %d: kinds %v, want %v", win, kinds, want)
		}
		// Each token's span holds exactly that token.
		if got := doc[toks[5].Start:toks[5].End]; got != `"x\"y\\"` {
			t.Fatalf("window %d: string span %q", win, got)
		}
		if got := doc[toks[4].Start:toks[4].End]; got != `-2.5e+3` {
			t.Fatalf("window %d: number span %q", win, got)
		}
	}
}

func TestScanErrors(t *testing.T) {
	cases := []struct {
		doc    string
		offset int64
		msg    string
	}{
		{`{"a": 1,}`, 8, "expected a string key"},
		{`{"a" 1}`, 5, "expected ':'"},
		{`[1 2]`, 3, "expected ',' or ']'"},
		{`[1, 2`, 5, "ends inside an array"},
		{`{"a": "b`, 6, "unterminated string"},
		{`[01]`, 2, "leading zero"},
		{`[1.]`, 3, "digit after '.'"},
		{`[-]`, 2, "digit after '-'"},
		{`[tru]`, 4, `"true"`},
		{`[1]]`, 3, "unexpected ']'"},
		{``, 0, "no JSON value"},
		{`   `, 3, "no JSON value"},
		{`{"a": 1} x`, 9, "unexpected 'x'"},
		{`[1e]`, 3, "exponent"},
		{`{"a":1}}`, 7, "unexpected '}'"},
		{`[1,]`, 3, "unexpected ']'"},
		{`[1x]`, 2, "unexpected 'x'"},
	}
	for _, c := range cases {
		for _, win := range []int64{1, 3, 1 << 20} {
			_, _, err := scanAll([]byte(c.doc), win)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("%q (window %d): error %v, want a SyntaxError", c.doc, win, err)
				continue
			}
			if se.Offset != c.offset || !strings.Contains(se.Msg, c.msg) {
				t.Errorf("%q (window %d): got %v, want offset %d and %q", c.doc, win, err, c.offset, c.msg)
			}
		}
	}
}

func TestScanStream(t *testing.T) {
	for _, doc := range []string{"{\"a\":1}\n{\"a\":2}\n[3]\n", `{"a":1}{"a":2}[3]`, "1 2 3", "\"x\" \"y\" null"} {
		_, n, err := scanAll([]byte(doc), 2)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if n != 3 {
			t.Fatalf("%q: %d values, want 3", doc, n)
		}
	}
}

func TestSkipAgreesWithNext(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "project", "testdata", "json", "go-list-std", "output"))
	if err != nil {
		t.Skip(err)
	}
	// Skipping each top-level value ends where reading its tokens does.
	var ends []int64
	s := New(bytes.NewReader(doc), int64(len(doc)))
	for {
		tk, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tk.Kind == EndObject && s.Depth() == 0 {
			ends = append(ends, tk.End)
		}
	}
	for _, ahead := range []bool{false, true} {
		s = New(bytes.NewReader(doc), int64(len(doc)))
		s.winSize = 4096
		if ahead {
			s.Prefetch()
		}
		var got []int64
		for {
			tk, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			end, err := s.Skip()
			if err != nil || tk.Kind != BeginObject {
				t.Fatalf("%v %v", tk.Kind, err)
			}
			got = append(got, end)
		}
		s.Close()
		if !slices.Equal(got, ends) {
			t.Fatalf("read ahead %v: skipping gave %d values, reading %d", ahead, len(got), len(ends))
		}
	}
}

func TestSkip(t *testing.T) {
	doc := []byte(`{"a": {"b": [1, {"c": "}]"}], "d": 2}, "e": 3}`)
	s := New(bytes.NewReader(doc), int64(len(doc)))
	s.winSize = 4
	s.Next() // {
	s.Next() // "a"
	if tk, _ := s.Next(); tk.Kind != BeginObject {
		t.Fatalf("got %v", tk.Kind)
	}
	end, err := s.Skip()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc[:end]); !strings.HasSuffix(got, `"d": 2}`) {
		t.Fatalf("skip ended at %q", got)
	}
	k, _ := s.Next()
	if k.Kind != Key || string(doc[k.Start:k.End]) != `"e"` {
		t.Fatalf("after skip: %v %q", k.Kind, doc[k.Start:k.End])
	}
}

func TestFind(t *testing.T) {
	doc := []byte(`{"items": [{"id": 1, "name": "a"}, {"id": 2, "tags": ["x", "y"]}], "a/b": {"~k": true}, "": "empty", "é": 5, "esc\u00e9": 6}`)
	cases := []struct{ ptr, want string }{
		{"", string(doc)},
		{"/items/1/tags/1", `"y"`},
		{"/items/0", `{"id": 1, "name": "a"}`},
		{"/a~1b/~0k", `true`},
		{"/", `"empty"`},
		{"/é", `5`},
		{"/escé", `6`},
	}
	for _, c := range cases {
		for _, win := range []int64{1, 5, 1 << 20} {
			r := bytes.NewReader(doc)
			f, err := findWin(r, int64(len(doc)), c.ptr, win)
			if err != nil {
				t.Fatalf("%q: %v", c.ptr, err)
			}
			if got := string(doc[f.Start:f.End]); got != c.want {
				t.Errorf("%q (window %d): got %q, want %q", c.ptr, win, got, c.want)
			}
		}
	}
	bad := []struct{ ptr, msg string }{
		{"/items/2", "index 2 is past the end of the array at /items, which has 2 elements (0-1)"},
		{"/items/x", `indexed by whole numbers, not "x"`},
		{"/items/01", `not "01"`},
		{"/nope", `has no key "nope"; it has 5 keys: "items", "a/b", "", "é", "escé"`},
		{"/items/0/id/z", "the value at /items/0/id is a number, which has no members"},
		{"/a~1b/x", `the object at /a~1b has no key "x"; it has 1 key: "~k"`},
		{"/a~2", `'~' must be followed by 0 or 1`},
	}
	for _, c := range bad {
		_, err := Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), c.ptr)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error %v, want it to say %q", c.ptr, err, c.msg)
		}
	}
}

func findWin(r io.ReaderAt, size int64, ptr string, win int64) (Found, error) {
	old := testWindow
	testWindow = win
	defer func() { testWindow = old }()
	return Find(context.Background(), r, size, ptr)
}

func TestFindStream(t *testing.T) {
	doc := []byte("{\"a\":1}\n{\"a\":[2,3]}\n")
	f, err := Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), "/1/a/1")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(doc[f.Start:f.End]); got != "3" || !f.Stream {
		t.Fatalf("got %q stream=%v", got, f.Stream)
	}
	f, err = Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), "")
	if err != nil || !f.Whole || !f.Stream {
		t.Fatalf("whole stream: %+v %v", f, err)
	}
	_, err = Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), "/5")
	if err == nil || !strings.Contains(err.Error(), "stream of top-level values") || !strings.Contains(err.Error(), "2 elements") {
		t.Fatalf("got %v", err)
	}
	_, err = Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), "/1/b")
	if err == nil || !strings.Contains(err.Error(), "object at /1 has no key") {
		t.Fatalf("got %v", err)
	}
}

// FuzzScan checks the scanner against encoding/json: a document json.Valid
// accepts scans as one value, with tokens that cover it; and window sizes
// never change the outcome.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"d\"e"}`, `[1e5, -0.5, true]`, "1 2", `"\\\\"`, `{"a":}`, `[`, "\xEF\xBB\xBF{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		toks, n, err := scanAll(b, 1<<20)
		toks3, n3, err3 := scanAll(b, 3)
		if (err == nil) != (err3 == nil) || n != n3 || len(toks) != len(toks3) {
			t.Fatalf("window size changed the outcome: %v (%d values) vs %v (%d values)", err, n, err3, n3)
		}
		toksA, nA, errA := scanAll(b, -4)
		if (err == nil) != (errA == nil) || n != nA || len(toks) != len(toksA) {
			t.Fatalf("reading ahead changed the outcome: %v (%d values) vs %v (%d values)", err, n, errA, nA)
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > int64(len(b)) {
				t.Fatalf("bad error %v", err)
			}
		}
		if json.Valid(b) {
			if err != nil || n != 1 {
				t.Fatalf("json.Valid accepts %q but the scanner says %v (%d values)", b, err, n)
			}
			for _, tk := range toks {
				if tk.Kind == String || tk.Kind == Key || tk.Kind == Number {
					if !json.Valid(b[tk.Start:tk.End]) {
						t.Fatalf("token %q is not a JSON value", b[tk.Start:tk.End])
					}
				}
			}
		}
	})
}

// benchDoc is about 100 MB of real JSON: go list -json std, repeated.
func benchDoc(b *testing.B) []byte {
	src, err := os.ReadFile(filepath.Join("..", "..", "project", "testdata", "json", "go-list-std", "output"))
	if err != nil {
		b.Skip(err)
	}
	doc := make([]byte, 0, 100<<20+len(src))
	for len(doc) < 100<<20 {
		doc = append(doc, src...)
	}
	return doc
}

// BenchmarkScanNext reads every token; BenchmarkScanSkip skips every
// top-level value whole, as the JSON projector does past its samples.
// Both report cpu-MB/s, which a busy machine distorts less than MB/s.
func BenchmarkScanNext(b *testing.B) { benchScan(b, false) }
func BenchmarkScanSkip(b *testing.B) { benchScan(b, true) }

func benchScan(b *testing.B, skip bool) {
	doc := benchDoc(b)
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		s := New(bytes.NewReader(doc), int64(len(doc)))
		for {
			t, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if skip && (t.Kind == BeginObject || t.Kind == BeginArray) {
				if _, err := s.Skip(); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(len(doc))*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
	}
}

// indentString is Indent over a string.
func indentString(doc string, stream bool) (string, error) {
	var b strings.Builder
	err := Indent(context.Background(), &b, strings.NewReader(doc), 0, int64(len(doc)), stream)
	return b.String(), err
}

func TestIndent(t *testing.T) {
	for _, doc := range []string{`{"a":[1,{"b":{}},[]],"c":"x\"y","d":{"e":null}}`, `[]`, `"s"`, `{}`, ` [ 1 , 2 ] `} {
		got, err := indentString(doc, false)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Indent(&want, []byte(strings.TrimSpace(doc)), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got != want.String()+"\n" {
			t.Errorf("%s: got\n%s\nwant\n%s", doc, got, want.String())
		}
	}
	got, err := indentString("{\"a\":1}\n[2]\n3", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"a\": 1\n  },\n  [\n    2\n  ],\n  3\n]\n"; got != want {
		t.Errorf("stream: got %q, want %q", got, want)
	}
}

// FuzzIndent checks Indent against encoding/json's Indent on valid JSON.
func FuzzIndent(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":{}},[]],"c":"x\"y"}`, `[[],{}]`, `1e5`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		got, err := indentString(doc, false)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		var want bytes.Buffer
		json.Indent(&want, []byte(strings.TrimSpace(doc)), "", "  ")
		// Invalid UTF-8 inside strings is replaced, to keep the text valid.
		w := strings.ToValidUTF8(want.String(), "\uFFFD")
		if got != w+"\n" {
			t.Fatalf("%q: got %q, want %q", doc, got, w)
		}
	})
}
