package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

const jsonDoc = `{"items": [{"id": 1, "status": "ok", "name": "alpha"}, {"id": 2, "status": "failed", "name": "beta", "log": "line one\nline two\n"}],
 "a/b": {"~k": [true, null]}, "big": 12345678901234567890, "count": 2}`

// body returns a page's content: the lines between its header lines and
// its footer.
func body(p Page) string {
	lines := strings.Split(p.Text, "\n")
	i := 1
	if strings.HasPrefix(lines[0], "[crumb: ") {
		i = 2 // a selection's first page says what it shows
	}
	return strings.Join(lines[i:len(lines)-1], "\n")
}

func TestReadPointer(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, []byte(jsonDoc))
	cases := []struct {
		ptr  string
		want string
	}{
		{"/items/1/status", "failed"},
		{"/items/1/log", "line one\nline two"},
		{"/items/0", "{\n  \"id\": 1,\n  \"status\": \"ok\",\n  \"name\": \"alpha\"\n}"},
		{"/a~1b/~0k", "[\n  true,\n  null\n]"},
		{"/big", "12345678901234567890"},
		{"/count", "2"},
	}
	for _, c := range cases {
		p, err := Read(context.Background(), st, Request{Ref: ref, Pointer: ptr(c.ptr)}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.ptr, err)
		}
		if got := body(p); got != c.want {
			t.Errorf("%s: got %q, want %q\n%s", c.ptr, got, c.want, p.Text)
		}
		if !strings.HasPrefix(p.Text, "[crumb: the value at "+c.ptr) {
			t.Errorf("%s: the page does not say what it shows:\n%s", c.ptr, p.Text)
		}
	}
}

func TestReadPointerErrors(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, []byte(jsonDoc))
	text := put(t, st, []byte("not json at all\n"))
	cases := []struct {
		req  Request
		is   error
		want string
	}{
		{Request{Ref: ref, Pointer: ptr("/items/5")}, ErrOutOfRange, "index 5 is past the end of the array at /items, which has 2 elements (0-1)"},
		{Request{Ref: ref, Pointer: ptr("/nope")}, ErrOutOfRange, `has no key "nope"; it has 4 keys: "items", "a/b", "big", "count"`},
		{Request{Ref: ref, Pointer: ptr("/items/0/id/x")}, ErrOutOfRange, "the value at /items/0/id is a number"},
		{Request{Ref: ref, Pointer: ptr("/a~2")}, ErrBadRequest, "'~' must be followed by 0 or 1"},
		{Request{Ref: text, Pointer: ptr("/a")}, ErrNotJSON, "is not valid JSON (invalid JSON at byte 1"},
		{Request{Ref: ref, Query: ".items[] | "}, ErrBadRequest, "jq"},
		{Request{Ref: ref, Query: ".items | error(\"boom\")"}, ErrBadRequest, "boom"},
		{Request{Ref: ref, Query: ".count | keys"}, ErrBadRequest, "keys"},
		{Request{Ref: text, Query: "."}, ErrNotJSON, "not valid JSON"},
	}
	for _, c := range cases {
		_, err := Read(context.Background(), st, c.req, Options{})
		if !errors.Is(err, c.is) || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %v with %q", c.req.Argv(), err, c.is, c.want)
		}
	}
}

func TestReadQuery(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, []byte(jsonDoc))
	cases := []struct{ q, want string }{
		{`.items[] | select(.status == "failed") | .name`, "beta"},
		{`.items[].name`, "alpha\nbeta"},
		{`.items | map(.id)`, "[\n  1,\n  2\n]"},
		{`.big`, "12345678901234567890"},
		{`[.items[] | select(.id > 1)] | length`, "1"},
	}
	for _, c := range cases {
		p, err := Read(context.Background(), st, Request{Ref: ref, Query: c.q}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
		if got := body(p); got != c.want {
			t.Errorf("%s: got %q, want %q", c.q, got, c.want)
		}
	}
	p, err := Read(context.Background(), st, Request{Ref: ref, Query: `.items[] | select(.id > 5)`}, Options{})
	if err != nil || !strings.Contains(p.Text, "no results") || p.Next != nil {
		t.Errorf("empty query: %v %q", err, p.Text)
	}
}

// TestReadSelectionContinues: a selection larger than a page is stored and
// read on by plain line reads of the new result, to its end, with no gap.
func TestReadSelectionContinues(t *testing.T) {
	st := testStore(t)
	var items []string
	for i := 0; i < 500; i++ {
		items = append(items, `{"n": `+strconv.Itoa(i)+`, "s": "item `+strconv.Itoa(i)+`"}`)
	}
	doc := []byte(`{"list": [` + strings.Join(items, ",") + `]}`)
	ref := put(t, st, doc)
	for _, req := range []Request{{Ref: ref, Pointer: ptr("/list")}, {Ref: ref, Query: ".list"}} {
		p, err := Read(context.Background(), st, req, Options{Budget: 300})
		if err != nil {
			t.Fatal(err)
		}
		if n := tokens.O200k().Count(p.Text); n > 300 {
			t.Errorf("page takes %d tokens, budget 300", n)
		}
		var all strings.Builder
		all.WriteString(body(p) + "\n")
		pages := 1
		for p.Next != nil {
			if p.Next.Pointer != nil || p.Next.Query != "" || p.Next.Lines == nil {
				t.Fatalf("the continuation is not a line read: %v", p.Next.Argv())
			}
			if p.Next.Ref == ref {
				t.Fatal("the continuation reads the original, not the selection")
			}
			if p, err = Read(context.Background(), st, *p.Next, Options{Budget: 300}); err != nil {
				t.Fatal(err)
			}
			all.WriteString(body(p) + "\n")
			pages++
		}
		var got, want any
		if err := json.Unmarshal([]byte(all.String()), &got); err != nil {
			t.Fatalf("the pages do not join into the selection: %v", err)
		}
		var whole struct{ List any }
		json.Unmarshal(doc, &whole)
		want = whole.List
		if !jsonEqual(got, want) || pages < 3 {
			t.Errorf("%v: %d pages did not give the selection", req.Argv(), pages)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestReadPointerStream: several top-level values are addressed as an
// array, by pointers and by jq.
func TestReadPointerStream(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, []byte("{\"a\": 1}\n{\"a\": 2, \"b\": [3]}\n"))
	p, err := Read(context.Background(), st, Request{Ref: ref, Pointer: ptr("/1/b/0")}, Options{})
	if err != nil || body(p) != "3" {
		t.Fatalf("got %q, %v", p.Text, err)
	}
	p, err = Read(context.Background(), st, Request{Ref: ref, Pointer: ptr("")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v []any
	if err := json.Unmarshal([]byte(body(p)), &v); err != nil || len(v) != 2 {
		t.Fatalf("the whole stream is not one array: %q %v", body(p), err)
	}
	p, err = Read(context.Background(), st, Request{Ref: ref, Query: "map(.a) | add"}, Options{})
	if err != nil || body(p) != "3" {
		t.Fatalf("jq over a stream: %q %v", p.Text, err)
	}
}

// TestReadPointerRealCase reads a part of a real document the JSON
// projector's tests use.
func TestReadPointerRealCase(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "project", "testdata", "json", "go-list-std", "output"))
	if err != nil {
		t.Skip(err)
	}
	st := testStore(t)
	ref := put(t, st, doc)
	p, err := Read(context.Background(), st, Request{Ref: ref, Query: `.[] | select(.ImportPath == "net/http") | .Dir`}, Options{})
	if err != nil || !strings.HasSuffix(body(p), "/src/net/http") {
		t.Fatalf("got %q, %v", p.Text, err)
	}
	p, err = Read(context.Background(), st, Request{Ref: ref, Pointer: ptr("/10/ImportPath")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	var v map[string]any
	for i := 0; i <= 10; i++ {
		dec.Decode(&v)
	}
	if body(p) != v["ImportPath"] {
		t.Errorf("got %q, want %q", body(p), v["ImportPath"])
	}
}

// FuzzPointer checks pointer reads against a reference: decode the
// document with encoding/json, walk the pointer, and compare with what
// the read shows.
func FuzzPointer(f *testing.F) {
	f.Add([]byte(jsonDoc), "/items/1/name")
	f.Add([]byte(`{"":{"~":{"/":[0,1,{"x":"y"}]}}}`), "/~0/~1/2/x")
	f.Add([]byte(`[[],[[]],{"a":[null]}]`), "/2/a/0")
	f.Add([]byte(`{"a":"\u00e9\n"}`), "/a")
	st, err := store.OpenDir(f.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	f.Fuzz(func(t *testing.T, doc []byte, p string) {
		if !json.Valid(doc) || len(doc) > 4096 || (p != "" && p[0] != '/') {
			return
		}
		var v any
		json.Unmarshal(doc, &v)
		want, found := walk(v, p)
		info, err := st.Put(context.Background(), bytes.NewReader(doc), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		page, err := Read(context.Background(), st, Request{Ref: info.Ref, Pointer: &p}, Options{Budget: 100000})
		if !found {
			if err == nil {
				t.Fatalf("pointer %q names nothing in %s, but the read gave %q", p, doc, page.Text)
			}
			return
		}
		if err != nil {
			t.Fatalf("pointer %q in %s: %v", p, doc, err)
		}
		got := body(page)
		if s, ok := want.(string); ok && strings.Contains(page.Text, "shown as JSON") {
			var gs string
			if err := json.Unmarshal([]byte(got), &gs); err != nil || gs != strings.ToValidUTF8(s, "\uFFFD") {
				t.Fatalf("pointer %q in %s: got %s, want %q", p, doc, got, s)
			}
			return
		}
		if s, ok := want.(string); ok {
			if strings.ContainsAny(s, "\r") || !strings.HasPrefix(page.Text, "[crumb: the value at") {
				return // the page shows text cleaned for a model
			}
			if got != strings.TrimSuffix(s, "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("pointer %q in %s: got %q, want %q", p, doc, got, s)
			}
			return
		}
		var gv any
		if err := json.Unmarshal([]byte(got), &gv); err != nil {
			t.Fatalf("pointer %q in %s: the page is not the JSON value: %q", p, doc, got)
		}
		if !jsonEqual(gv, want) {
			t.Fatalf("pointer %q in %s: got %s, want %v", p, doc, got, want)
		}
	})
}

// walk resolves a JSON pointer over a decoded value.
func walk(v any, p string) (any, bool) {
	toks, err := jsonscan.ParsePointer(p)
	if err != nil {
		return nil, false
	}
	for _, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) || t != strconv.Itoa(i) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// TestReadQueryTooLarge: a jq query over a result larger than
// MaxQueryBytes is refused with an error that names the limit and what to
// do instead, and a pointer still selects from it, and a query from that
// selection.
func TestReadQueryTooLarge(t *testing.T) {
	st := testStore(t)
	var b bytes.Buffer
	b.WriteString(`{"items": [`)
	for i := 0; b.Len() <= MaxQueryBytes; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id": ` + strconv.Itoa(i) + `, "name": "item number ` + strconv.Itoa(i) + `"}`)
	}
	b.WriteString(`], "tail": {"last": [1, 2, 3]}}`)
	ref := put(t, st, b.Bytes())
	_, err := Read(context.Background(), st, Request{Ref: ref, Query: ".tail"}, Options{})
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrBadRequest) {
		t.Fatalf("jq over %d bytes: got %v, want ErrTooLarge", b.Len(), err)
	}
	for _, want := range []string{"8.4 MB a jq query may read", "JSON pointer", "search"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	p, err := Read(context.Background(), st, Request{Ref: ref, Pointer: ptr("/tail")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sel := store.Ref(strings.Fields(p.Text[strings.Index(p.Text, "stored as ")+len("stored as "):])[0][:store.RefLen])
	q, err := Read(context.Background(), st, Request{Ref: sel, Query: ".last | add"}, Options{})
	if err != nil || body(q) != "6" {
		t.Errorf("jq over the selection: %v %q", err, q.Text)
	}
}
