package project

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/itchyny/gojq"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// fakeStore keeps what a projector extracts, by ref, as a store would.
type fakeStore map[store.Ref][]byte

func (f fakeStore) put(_ context.Context, data []byte, _ store.Meta) (store.Ref, error) {
	ref := store.RefOf(store.Sum(data))
	f[ref] = bytes.Clone(data)
	return ref, nil
}

// realCase is a case made by scripts/fixtures/json.sh from a real tool.
type realCase struct {
	name   string
	output []byte
	meta   struct {
		Kind         string          `json:"kind"`
		Tool         string          `json:"tool"`
		Args         json.RawMessage `json:"args"`
		OutputSchema json.RawMessage `json:"output_schema"`
		Needles      []struct {
			Text string `json:"text"`
		} `json:"needles"`
	}
}

func loadCases(t testing.TB, dir string) []realCase {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []realCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := realCase{name: e.Name()}
		if c.output, err = os.ReadFile(filepath.Join(dir, e.Name(), "output")); err != nil {
			t.Fatal(err)
		}
		m, err := os.ReadFile(filepath.Join(dir, e.Name(), "meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(m, &c.meta); err != nil {
			t.Fatalf("%s: meta.json: %v", e.Name(), err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatalf("no cases in %s (run scripts/fixtures/json.sh)", dir)
	}
	return out
}

func projectJSONCase(t testing.TB, b []byte, budget int) (Output, fakeStore) {
	t.Helper()
	in := testInput(t, b, budget)
	fs := fakeStore{}
	in.Put = fs.put
	out, err := Project(context.Background(), KindJSON, in)
	if err != nil {
		t.Fatal(err)
	}
	return out, fs
}

var (
	// pointers a view names: "# /a/b", "(1.2 KB at /a/b)", "--pointer /a/b";
	// a colon after one ("# /a/b: the same as /c") is not part of it.
	viewPointers = regexp.MustCompile(`(?m)(?:^|# |at |--pointer |: )(/[^\s,)('"]*[^\s,)('":]|/|'(?:[^']|'\\'')*')`)
	viewQueries  = regexp.MustCompile(`--jq '((?:[^']|'\\'')*)'`)
	shapePaths   = regexp.MustCompile(`(?m)^(?:shape of (\S+) \(|  (\.\S+?): )`)
)

// resolved remembers which pointers were found in which document, so that
// the many views of one large document (its budgets, its jq and index
// variants) that name the same pointer scan for it once: under -race a
// scan of an 8 MB document for each pointer of each view was most of the
// package's test time.
var resolved sync.Map // resolvedKey -> error

type resolvedKey struct {
	doc     *byte
	n       int
	pointer string
}

// resolvePointer reports whether pointer p resolves in doc, as
// jsonscan.Find says, from the cache when this very document was asked
// about p before.
func resolvePointer(doc []byte, p string) error {
	if len(doc) == 0 {
		_, err := jsonscan.Find(context.Background(), bytes.NewReader(doc), 0, p)
		return err
	}
	k := resolvedKey{&doc[0], len(doc), p}
	if err, ok := resolved.Load(k); ok {
		e, _ := err.(error)
		return e
	}
	_, err := jsonscan.Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), p)
	resolved.Store(k, err)
	return err
}

// checkJSONView checks the properties every JSON view must have: within
// the budget, and every pointer and jq query it names works on the
// document.
func checkJSONView(t *testing.T, doc []byte, text string, budget int) {
	t.Helper()
	if n := tokens.O200k().Count(text); n > budget {
		t.Errorf("view takes %d tokens, budget %d", n, budget)
	}
	for _, m := range viewPointers.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if strings.HasPrefix(p, "'") {
			p = strings.ReplaceAll(strings.Trim(p, "'"), `'\''`, "'")
		}
		if err := resolvePointer(doc, p); err != nil {
			t.Errorf("the view names pointer %q, which does not resolve: %v", p, err)
		}
	}
	if len(doc) > 4<<20 {
		return
	}
	var input any
	if err := json.Unmarshal(doc, &input); err != nil {
		// A stream: jq sees an array of its values.
		dec := json.NewDecoder(bytes.NewReader(doc))
		var vals []any
		for {
			var v any
			if dec.Decode(&v) != nil {
				break
			}
			vals = append(vals, v)
		}
		input = vals
	}
	for _, m := range viewQueries.FindAllStringSubmatch(text, -1) {
		q := strings.ReplaceAll(m[1], `'\''`, "'")
		runJQ(t, q, input)
	}
	// Shape lines are jq paths: each must select something.
	block := ""
	for _, m := range shapePaths.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			block = m[1]
			continue
		}
		if block == "" {
			continue
		}
		runJQ(t, "["+block+m[2]+"?] | length", input)
	}
}

func runJQ(t *testing.T, q string, input any) {
	t.Helper()
	pq, err := gojq.Parse(q)
	if err != nil {
		t.Errorf("the view names jq query %q, which does not parse: %v", q, err)
		return
	}
	iter := pq.Run(input)
	n := 0
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			t.Errorf("jq query %q fails: %v", q, err)
			return
		}
		n++
	}
	if n == 0 {
		t.Errorf("jq query %q gives no result", q)
	}
}

func TestJSONRealCases(t *testing.T) {
	for _, c := range loadCases(t, filepath.Join("testdata", "json")) {
		t.Run(c.name, func(t *testing.T) {
			for _, budget := range []int{300, 2000} {
				out, _ := projectJSONCase(t, c.output, budget)
				again, _ := projectJSONCase(t, c.output, budget)
				if out.Text != again.Text {
					t.Fatal("same input and budget gave different views")
				}
				checkJSONView(t, c.output, out.Text, budget)
				checkGolden(t, filepath.Join("testdata", "json", c.name, fmt.Sprintf("view-%d.golden", budget)), out.Text)
				if !out.Complete && out.Next == nil {
					t.Error("a view that omits parts has no next read")
				}
			}
		})
	}
}

func TestJSONSmallShownWhole(t *testing.T) {
	doc := loadCase(t, "json", "cargo-metadata")
	out, _ := projectJSONCase(t, doc, 2000)
	if !out.Complete || out.Next != nil {
		t.Fatalf("a small document is not shown whole: %+v", out)
	}
	if !strings.Contains(out.Text, "shown whole") || !strings.HasSuffix(out.Text, string(bytes.TrimSuffix(doc, []byte("\n")))) {
		t.Fatalf("the view does not hold the document as it is:\n%s", out.Text)
	}
}

func loadCase(t testing.TB, kind, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", kind, name, "output"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJSONInvalidSaysWhere(t *testing.T) {
	doc := loadCase(t, "json", "go-list-truncated")
	out, _ := projectJSONCase(t, doc, 2000)
	// The document is cut inside a string, so the error is at the string's
	// opening quote: the last quote of the document.
	want := fmt.Sprintf("unterminated string, at byte %s", textfmtInt(int64(bytes.LastIndexByte(doc, '"'))))
	if !strings.Contains(out.Text, "not valid JSON") || !strings.Contains(out.Text, want) {
		t.Fatalf("the view does not say where the JSON breaks (%s):\n%s", want, out.Text)
	}
	// The text view still shows the end, where it breaks.
	last := doc[bytes.LastIndexByte(doc[:len(doc)-1], '\n')+1:]
	if !strings.Contains(out.Text, strings.TrimSpace(string(last))) {
		t.Errorf("the view does not show the last line %q", last)
	}
	bad := []byte(`{"a": [1, 2,, 3]}`)
	out, _ = projectJSONCase(t, bytes.Repeat(bad, 1), 2000)
	if !strings.Contains(out.Text, "at byte 12") {
		t.Errorf("wrong error place:\n%s", out.Text)
	}
}

func textfmtInt(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestJSONAssetsStored(t *testing.T) {
	doc := loadCase(t, "json", "embedded-png")
	out, fs := projectJSONCase(t, doc, 2000)
	var v struct {
		Thumbnail string
		Original  struct{ Data string }
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(v.Original.Data)
	if err != nil {
		t.Fatal(err)
	}
	ref := store.RefOf(store.Sum(png))
	if !bytes.Equal(fs[ref], png) {
		t.Fatalf("the PNG was not stored under %s; stored: %v", ref, slices.Collect(mapKeys(fs)))
	}
	if !strings.Contains(out.Text, "[base64 image/png, 150x100") || !strings.Contains(out.Text, "ref "+string(ref)) {
		t.Errorf("the view does not name the image and its ref:\n%s", out.Text)
	}
	if strings.Contains(out.Text, v.Original.Data[:100]) {
		t.Error("the view shows base64 data")
	}
}

func mapKeys(m fakeStore) func(func(store.Ref) bool) {
	return func(yield func(store.Ref) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestJSONBudgetsAndShapes(t *testing.T) {
	docs := map[string][]byte{
		"scalar":       []byte(`"` + strings.Repeat("a long string ", 3000) + `"`),
		"number":       []byte(strings.Repeat("1", 40000)),
		"deep":         []byte(strings.Repeat("[", 5000) + strings.Repeat("]", 5000)),
		"wide-object":  wideObject(3000),
		"array-ints":   []byte("[" + strings.TrimSuffix(strings.Repeat("12345,", 20000), ",") + "]"),
		"jsonl":        bytes.Repeat([]byte(`{"level":"info","msg":"request served","status":200,"path":"/api/v1/items"}`+"\n"), 5000),
		"escaped-keys": []byte(`{"a/b": {"~x": [` + strings.Repeat(`{"k\"ey": "v\u00e9", "n": null},`, 2000) + `{}]}, "": 1}`),
		"empty":        []byte(`[]`),
	}
	for name, doc := range docs {
		for _, budget := range []int{100, 400, 2000} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				if !json.Valid(doc) && name != "jsonl" {
					t.Fatalf("test document is not JSON")
				}
				out, _ := projectJSONCase(t, doc, budget)
				checkJSONView(t, doc, out.Text, budget)
				if strings.Contains(out.Text, "not valid JSON") {
					t.Fatalf("valid JSON reported invalid:\n%s", out.Text)
				}
			})
		}
	}
}

func wideObject(n int) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"key-%d": {"id": %d, "ok": %v}`, i, i, i%3 == 0)
	}
	b.WriteString("}")
	return b.Bytes()
}

// FuzzJSONProject projects arbitrary bytes as JSON: no panic, within the
// budget, deterministic, and every pointer it names resolves.
func FuzzJSONProject(f *testing.F) {
	f.Add([]byte(`{"items":[{"id":1,"s":"ok"},{"id":2,"s":"failed"}],"n":2}`), 200)
	f.Add([]byte(`[1,2,3`), 100)
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n"), 150)
	f.Add([]byte(`{"img":"data:image/png;base64,`+strings.Repeat("iVBORw0KGgo", 40)+`"}`), 300)
	f.Fuzz(func(t *testing.T, doc []byte, budget int) {
		budget = 100 + abs(budget)%3000
		if len(doc) > 1<<16 {
			return
		}
		in := testInput(t, doc, budget)
		in.Put = fakeStore{}.put
		out, err := Project(context.Background(), KindJSON, in)
		if err != nil {
			t.Fatal(err)
		}
		in2 := testInput(t, doc, budget)
		in2.Put = fakeStore{}.put
		out2, _ := Project(context.Background(), KindJSON, in2)
		if out.Text != out2.Text {
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

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// BenchmarkJSONProject projects about 100 MB of real JSON (go list -json
// std, repeated), scanned whole as if it were under the sampling threshold,
// and reports MB/s, by the wall clock and by the CPU time the process used
// (cpu-MB/s), which a machine busy with other work distorts less.
// BenchmarkJSONCopy writes the same bytes to a file, read through the same
// ReaderAt: the baseline the projection is held to.
// BenchmarkJSONProjectSampled projects the same document as it is, read in
// part.
func BenchmarkJSONProject(b *testing.B) {
	scanWhole(b)
	doc := benchDoc(b)
	in := testInput(b, doc, 2000)
	in.Put = fakeStore{}.put
	in.Hint, in.Line = recall.CLIHint, recall.PlainLine
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := projectJSON(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, len(doc))
}

// BenchmarkJSONProjectIntent projects the same document for a call that
// says what it is after: every key and value is matched against the
// intent's words.
func BenchmarkJSONProjectIntent(b *testing.B) {
	scanWhole(b)
	doc := benchDoc(b)
	in := testInput(b, doc, 2000)
	in.Put = fakeStore{}.put
	in.Hint, in.Line = recall.CLIHint, recall.PlainLine
	in.Args = json.RawMessage(`{"description": "Find the directory and doc of net/http/httptrace"}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := projectJSON(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, len(doc))
}

func BenchmarkJSONProjectSampled(b *testing.B) {
	doc := benchDoc(b)
	in := testInput(b, doc, 2000)
	in.Put = fakeStore{}.put
	in.Hint, in.Line = recall.CLIHint, recall.PlainLine
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := projectJSON(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// scanWhole makes the projector scan documents whole, whatever their size,
// for one benchmark.
func scanWhole(b *testing.B) {
	old := jsonSample
	jsonSample.full = 1 << 40
	b.Cleanup(func() { jsonSample = old })
}

func BenchmarkJSONCopy(b *testing.B) {
	doc := benchDoc(b)
	src := newMemSource(doc)
	buf := make([]byte, store.ChunkSize)
	path := filepath.Join(b.TempDir(), "copy")
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		for off := int64(0); off < int64(len(doc)); off += int64(len(buf)) {
			n, _ := src.ReadAt(buf, off)
			if _, err := f.Write(buf[:n]); err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
	reportCPU(b, cpu, len(doc))
}

// BenchmarkJSONProjectStore projects the same 100 MB read from a disk
// store, which verifies every chunk it reads; BenchmarkJSONCopyStore
// copies it out of the store to a file (crumb read --all > FILE), the
// baseline.
func BenchmarkJSONProjectStore(b *testing.B) {
	scanWhole(b)
	obj := benchObject(b)
	info := obj.Info()
	in := &Input{Source: obj, Ref: info.Ref, Digest: info.Digest, Budget: 2000, Counter: tokens.O200k(),
		Hint: recall.CLIHint, Line: recall.PlainLine, Put: fakeStore{}.put}
	b.SetBytes(obj.Size())
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := projectJSON(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, int(obj.Size()))
}

func BenchmarkJSONCopyStore(b *testing.B) {
	obj := benchObject(b)
	path := filepath.Join(b.TempDir(), "copy")
	b.SetBytes(obj.Size())
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := store.Copy(context.Background(), obj, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	reportCPU(b, cpu, int(obj.Size()))
}

// benchObject stores the benchmark document in a disk store and opens it.
func benchObject(b *testing.B) store.Object {
	d, err := store.OpenDir(b.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	info, err := d.Put(context.Background(), bytes.NewReader(benchDoc(b)), store.Meta{})
	if err != nil {
		b.Fatal(err)
	}
	obj, err := d.Open(context.Background(), info.Ref)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { obj.Close() })
	return obj
}

// reportCPU reports the throughput by the CPU time used since start.
func reportCPU(b *testing.B, start time.Duration, size int) {
	if d := cpuTime() - start; d > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/d.Seconds(), "cpu-MB/s")
	}
}

var benchCache []byte

func benchDoc(b *testing.B) []byte {
	if benchCache == nil {
		one := loadCase(b, "json", "go-list-std")
		for len(benchCache) < 100<<20 {
			benchCache = append(benchCache, one...)
		}
	}
	return benchCache
}
