package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// tailTruth returns the items at level that start at or after from, as a
// full scan of doc sees them (for a member, where its key starts).
func tailTruth(t testing.TB, doc []byte, from int64, level int) []TailItem {
	t.Helper()
	s := New(bytes.NewReader(doc), int64(len(doc)))
	var out []TailItem
	var key Token
	for {
		depth := s.Depth()
		tk, err := s.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("the test document is not JSON: %v", err)
		}
		if depth != level || tk.Kind == EndObject || tk.Kind == EndArray {
			continue
		}
		if tk.Kind == Key {
			key = tk
			continue
		}
		it := TailItem{Key: key, Kind: tk.Kind, Start: tk.Start, End: tk.End}
		key = Token{}
		if tk.Kind == BeginObject || tk.Kind == BeginArray {
			if it.End, err = s.Skip(); err != nil {
				t.Fatal(err)
			}
		}
		at := it.Start
		if it.Key.Kind == Key {
			at = it.Key.Start
		}
		if at >= from {
			out = append(out, it)
		}
	}
}

// checkTail compares ScanTail from every step-th line start of doc with a
// full scan, and returns how many it checked.
func checkTail(t *testing.T, name string, doc []byte, level, keep int, step int) int {
	t.Helper()
	checked, lines := 0, 0
	for nl := 0; nl < len(doc); nl++ {
		if doc[nl] != '\n' {
			continue
		}
		if lines++; (lines-1)%step != 0 {
			continue
		}
		base := int64(nl)
		tail, err := ScanTail(doc[base:], base, level, keep)
		if err != nil {
			var te *TailError
			if !errors.As(err, &te) {
				t.Fatalf("%s from byte %d: error %v is not a *TailError", name, base, err)
			}
			if level == 1 && strings.Contains(err.Error(), "ends before this line") {
				continue
			}
			t.Fatalf("%s from byte %d: %v", name, base, err)
		}
		checked++
		want := tailTruth(t, doc, tail.From, level)
		if tail.Count != int64(len(want)) {
			t.Fatalf("%s from byte %d: %d items, a full scan finds %d", name, base, tail.Count, len(want))
		}
		if len(want) > keep {
			want = want[len(want)-keep:]
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(tail.Items, want) {
			t.Fatalf("%s from byte %d: items\n%+v\nwant\n%+v", name, base, tail.Items, want)
		}
	}
	return checked
}

func TestScanTail(t *testing.T) {
	indent := func(v any) []byte {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	arr := []any{1, "two", map[string]any{"a": []any{1, 2, map[string]any{"b": "c\"]}"}}}, nil, true, []any{}, 3.5e-7}
	obj := map[string]any{"items": arr, "total": 7, "next": "x\\", "nested": map[string]any{"deep": []any{[]any{}}}}
	cases := []struct {
		name  string
		doc   []byte
		level int
	}{
		{"array", indent(arr), 1},
		{"object", indent(obj), 1},
		{"stream-pretty", append(append(indent(obj), indent(arr)...), indent(obj)...), 0},
		{"jsonl", []byte("{\"a\":1}\n[2,3]\n\"s\"\n4\n{\"b\":{\"c\":[]}}\n"), 0},
		{"jsonl-no-final-newline", []byte("{\"a\":1}\n[2,3]\r\n{\"b\":null}"), 0},
		{"array-compact-lines", []byte("[\n{\"a\":1},{\"a\":2},\n{\"a\":3}\n]"), 1},
	}
	for _, c := range cases {
		for _, keep := range []int{1, 3, 100} {
			if checkTail(t, c.name, c.doc, c.level, keep, 1) == 0 {
				t.Fatalf("%s: no line start checked", c.name)
			}
		}
	}
	// Real documents: a stream of pretty-printed objects and an object.
	for _, f := range []struct {
		name  string
		level int
	}{{"go-list-std", 0}, {"go-list-m-all", 0}, {"npm-view-express", 1}, {"package-lock-server-filesystem", 1}} {
		doc, err := os.ReadFile(filepath.Join("..", "..", "project", "testdata", "json", f.name, "output"))
		if err != nil {
			t.Fatal(err)
		}
		if len(doc) > 64<<10 {
			doc = doc[len(doc)-64<<10:]
			if f.level != 0 {
				t.Fatalf("%s: only a stream may be cut", f.name)
			}
			doc = doc[bytes.Index(doc, []byte("\n}\n"))+3:]
		}
		if n := checkTail(t, f.name, doc, f.level, 4, 7); n < 10 {
			t.Fatalf("%s: %d line starts checked", f.name, n)
		}
	}
}

func TestScanTailErrors(t *testing.T) {
	cases := []struct {
		doc   string
		level int
		msg   string
	}{
		{`[1, 2, 3]`, 1, "no line break"},
		{"[\n1, 2, 3]\n4, 5", 0, "unexpected ','"},
		{"[\n1,\n2]\n3\n", 1, "more follows"},
		{"{}\n{\"a\": 1}\n", 1, "ends before this line"},
		{"[\n\"a\nb\"]", 1, "line break"},
		{"[\n[1, 2\n", 1, "left open"},
		{"[\n1, 2}", 1, "expected a key"},
		{"[\n[1, 2}]", 1, "closes an array"},
		{"[\n1 2]", 1, "where ',' or the end"},
		{"{\n\"a\": 1, 2}", 1, "expected a key"},
		{"[\n1, @]", 1, "unexpected '@'"},
		{"[\n1, tru]", 1, "unexpected 't'"},
	}
	for _, c := range cases {
		_, err := ScanTail([]byte(c.doc), 10, c.level, 2)
		var te *TailError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q level %d: got %v, want a *TailError saying %q", c.doc, c.level, err, c.msg)
		}
	}
}

// FuzzScanTail checks ScanTail against a full scan: on a valid document
// indented with line breaks, it succeeds from every line start and finds
// the items a full scan finds.
func FuzzScanTail(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"d\"e"}`, `[1e5, -0.5, true, "x\n"]`, `[[],{},[{}]]`, `{"":{"":""}}`} {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, keep uint8) {
		if !json.Valid(b) || len(b) > 4096 {
			return
		}
		var doc bytes.Buffer
		if err := json.Indent(&doc, b, "", " "); err != nil {
			return
		}
		if bytes.IndexByte(doc.Bytes(), '\n') < 0 {
			return
		}
		level := 1
		if c := bytes.TrimSpace(b)[0]; c != '{' && c != '[' {
			level = 0
		}
		checkTail(t, "fuzz", doc.Bytes(), level, int(keep%8)+1, 1)
		// Twice, one after the other: a stream.
		two := append(append(bytes.Clone(doc.Bytes()), '\n'), doc.Bytes()...)
		checkTail(t, "fuzz stream", two, 0, int(keep%8)+1, 1)
	})
}

// TestScanCut checks a scan cut at every offset: it returns the tokens a
// full scan returns that end before the cut (or at it, but for a number,
// which may go on), then ErrCut, with the containers open at the cut.
func TestScanCut(t *testing.T) {
	doc := []byte(`{"a": [1, -2.5e+3, "x\"y\\", true, false, null], "b\\": {"c": [[]]}, "d": 12345}` + "\n" + `[7, "z"] 42`)
	full, _, err := scanAll(doc, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for cut := int64(0); cut <= int64(len(doc)); cut++ {
		for _, win := range []int64{3, 1 << 20, -4} {
			s := New(bytes.NewReader(doc), cut)
			s.Cut()
			if win < 0 {
				// Reading ahead.
				s.winSize = -win
				s.Prefetch()
			} else {
				s.winSize = win
			}
			var got []Token
			depth := 0
			for {
				tk, err := s.Next()
				if err != nil {
					if err != ErrCut {
						t.Fatalf("cut %d, window %d: %v, want ErrCut", cut, win, err)
					}
					break
				}
				got = append(got, tk)
			}
			var want []Token
			for _, tk := range full {
				if tk.End < cut || tk.End == cut && tk.Kind != Number {
					want = append(want, tk)
					switch tk.Kind {
					case BeginObject, BeginArray:
						depth++
					case EndObject, EndArray:
						depth--
					}
				}
			}
			s.Close()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("cut %d, window %d: tokens\n%v\nwant\n%v", cut, win, got, want)
			}
			if s.Depth() != depth {
				t.Fatalf("cut %d, window %d: depth %d, want %d", cut, win, s.Depth(), depth)
			}
		}
	}
}
