package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/tokens"
)

// withSample makes the sampling thresholds small for one test.
func withSample(t *testing.T, full, head, tail, queryMax int64) {
	t.Helper()
	old, oldQ := jsonSample, jsonQueryMax
	jsonSample.full, jsonSample.head, jsonSample.tailFirst, jsonSample.tail = full, head, tail, tail
	jsonQueryMax = queryMax
	t.Cleanup(func() { jsonSample, jsonQueryMax = old, oldQ })
}

// recSource is a Source that records the bytes read from it.
type recSource struct {
	Source
	mu    sync.Mutex
	reads [][2]int64
}

func (r *recSource) ReadAt(p []byte, off int64) (int, error) {
	n, err := r.Source.ReadAt(p, off)
	r.mu.Lock()
	r.reads = append(r.reads, [2]int64{off, off + int64(n)})
	r.mu.Unlock()
	return n, err
}

// covered returns how many distinct bytes were read, and whether any byte
// of [from, to) was.
func (r *recSource) covered(from, to int64) (total int64, touched bool) {
	spans := slices.Clone(r.reads)
	slices.SortFunc(spans, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var end int64 = -1
	for _, s := range spans {
		if s[0] < to && s[1] > from {
			touched = true
		}
		if s[1] <= end {
			continue
		}
		total += s[1] - max(s[0], end)
		end = s[1]
	}
	return total, touched
}

// sampleDocs are large documents of several forms, made by repeating.
func sampleDocs(t *testing.T, size int) map[string][]byte {
	t.Helper()
	std := loadCase(t, "json", "go-list-std")
	docs := map[string][]byte{}
	var b bytes.Buffer
	for b.Len() < size {
		b.Write(std)
	}
	docs["stream-go-list"] = bytes.Clone(b.Bytes())

	item := func(i int) map[string]any {
		return map[string]any{"id": i, "name": fmt.Sprintf("item-%d", i), "status": []string{"ok", "failed", "skipped"}[i%3],
			"tags": []string{"a", "b", fmt.Sprint(i % 7)}, "note": strings.Repeat("x", i%50)}
	}
	b.Reset()
	b.WriteString("[\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		one, _ := json.MarshalIndent(item(i), "  ", "  ")
		b.WriteString("  ")
		b.Write(one)
	}
	b.WriteString("\n]\n")
	docs["array-pretty"] = bytes.Clone(b.Bytes())

	b.Reset()
	b.WriteString("{\n  \"kind\": \"list\",\n  \"items\": [\n")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		one, _ := json.Marshal(item(i))
		b.WriteString("    ")
		b.Write(one)
	}
	b.WriteString("\n  ],\n  \"total\": 12345,\n  \"next_page\": \"cursor-abc\"\n}\n")
	docs["object-items"] = bytes.Clone(b.Bytes())

	b.Reset()
	for i := 0; b.Len() < size; i++ {
		one, _ := json.Marshal(item(i))
		b.Write(one)
		b.WriteByte('\n')
	}
	docs["jsonl"] = bytes.Clone(b.Bytes())

	b.Reset()
	b.WriteString("[")
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		one, _ := json.Marshal(item(i))
		b.Write(one)
	}
	b.WriteString("]")
	docs["array-minified"] = bytes.Clone(b.Bytes())

	// A stream whose first value is larger than the first part.
	b.Reset()
	b.WriteString("{\"big\": [\n")
	for i := 0; b.Len() < size; i++ {
		one, _ := json.Marshal(item(i))
		b.Write(one)
		b.WriteString(",\n")
	}
	b.WriteString("0]}\n{\"small\": 1}\n{\"small\": 2}\n")
	docs["stream-big-first"] = bytes.Clone(b.Bytes())

	// One long string.
	b.Reset()
	b.WriteString(`"`)
	for b.Len() < size {
		b.WriteString("lorem ipsum dolor sit amet ")
	}
	b.WriteString("\"\n")
	docs["string"] = bytes.Clone(b.Bytes())
	return docs
}

// truth is what a full scan finds of a document's top (see rootTruth).
type truth struct {
	stream  bool
	n       int64
	last    [2]int64
	lastKey string
}

func truthOf(t *testing.T, doc []byte) truth {
	var tr truth
	tr.stream, tr.n, tr.last, tr.lastKey = rootTruth(t, doc)
	return tr
}

// rootTruth returns how many top-level values doc holds (or members or
// elements of its root, when it holds one) and the span of the last.
func rootTruth(t *testing.T, doc []byte) (stream bool, n int64, last [2]int64, lastKey string) {
	t.Helper()
	s := jsonscan.New(bytes.NewReader(doc), int64(len(doc)))
	var values int64
	var lastTop [2]int64
	var rootKind jsonscan.Kind
	for {
		depth := s.Depth()
		tk, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case depth == 0:
			rootKind = tk.Kind
			values++
			lastTop = [2]int64{tk.Start, tk.End}
			if tk.Kind == jsonscan.BeginObject || tk.Kind == jsonscan.BeginArray {
				if values > 1 {
					end, err := s.Skip()
					if err != nil {
						t.Fatal(err)
					}
					lastTop[1] = end
				}
			}
		case depth == 1 && tk.Kind == jsonscan.Key:
			raw := doc[tk.Start:tk.End]
			lastKey, _ = jsonscan.KeyText(raw, false)
			n++
		case depth == 1 && tk.Kind != jsonscan.EndObject && tk.Kind != jsonscan.EndArray:
			if rootKind == jsonscan.BeginObject {
				last[0] = tk.Start
			} else {
				n++
				last[0] = tk.Start
			}
			last[1] = tk.End
			if tk.Kind == jsonscan.BeginObject || tk.Kind == jsonscan.BeginArray {
				end, err := s.Skip()
				if err != nil {
					t.Fatal(err)
				}
				last[1] = end
			}
		}
	}
	if values > 1 {
		// A stream: count its values; the last is the last value.
		s := jsonscan.New(bytes.NewReader(doc), int64(len(doc)))
		var n int64
		for {
			tk, err := s.Next()
			if err == io.EOF {
				break
			}
			n++
			if tk.Kind == jsonscan.BeginObject || tk.Kind == jsonscan.BeginArray {
				if _, err := s.Skip(); err != nil {
					t.Fatal(err)
				}
			}
		}
		return true, n, lastTop, ""
	}
	return false, n, last, lastKey
}

var (
	atLeastRe = regexp.MustCompile(`at least ([0-9,]+) (?:JSON values|top-level values|items|keys)`)
	linesRe   = regexp.MustCompile(`--lines ([0-9]+):([0-9]+)`)
	bytesRe   = regexp.MustCompile(`--bytes ([0-9]+):([0-9]+)`)
	unreadRe  = regexp.MustCompile(`between were not read: crumb read \S+ --(lines|bytes) ([0-9]+):([0-9]+)`)
	lastRe    = regexp.MustCompile(`# the last (?:item|value), read from the end; its index was not counted: crumb read \S+ --(lines|bytes) ([0-9]+):([0-9]+)`)
)

// lineSpan returns the bytes of lines a to b (1-based, inclusive).
func lineSpan(doc []byte, a, b int64) (from, to int64) {
	line := int64(1)
	from, to = -1, int64(len(doc))
	if a == 1 {
		from = 0
	}
	for i, c := range doc {
		if c != '\n' {
			continue
		}
		if line == b {
			to = int64(i)
		}
		line++
		if line == a {
			from = int64(i + 1)
		}
	}
	return from, to
}

func TestJSONSampled(t *testing.T) {
	const size = 8 << 20
	withSample(t, 2<<20, 1<<20, 256<<10, 1<<30)
	docs := sampleDocs(t, size)
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		doc := docs[name]
		tr := truthOf(t, doc)
		for _, jq := range []bool{false, true} {
			for _, indexed := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/jq=%v/indexed=%v", name, jq, indexed), func(t *testing.T) {
					if jq {
						jsonQueryMax = 1 << 30
					} else {
						jsonQueryMax = 4 << 20
					}
					checkSampled(t, doc, tr, name, jq, indexed, 2000, "")
				})
			}
		}
		jsonQueryMax = 4 << 20
		t.Run(name+"/budget=300", func(t *testing.T) { checkSampled(t, doc, tr, name, false, true, 300, "") })
		t.Run(name+"/intent", func(t *testing.T) {
			out := checkSampled(t, doc, tr, name, false, true, 2000, "the status of item-17 and archive/zip")
			if name == "string" {
				return // a string holds no parts
			}
			if !strings.Contains(out, "parts that match the intent (") || !strings.Contains(out, ") in the part read, best first:") {
				t.Errorf("no matches of the intent in the part read:\n%s", out)
			}
		})
	}
}

// checkSampled projects a large document with small sampling thresholds
// and checks the view: deterministic, within the budget, every pointer and
// jq query it names works, its counts are lower bounds, it names the part
// it did not read with a read that covers it, it read a bounded part of
// the document and none of its middle, and it shows the document's end.
func checkSampled(t *testing.T, doc []byte, tr truth, name string, jq, indexed bool, budget int, intent string) string {
	project := func() (Output, *recSource) {
		in := testInput(t, doc, budget)
		if intent != "" {
			in.Args = json.RawMessage(`{"description": ` + quoteJSON(intent) + `}`)
		}
		src := &recSource{Source: in.Source}
		if !indexed {
			ms := newMemSource(doc)
			ms.info.Newlines, ms.info.ChunkNewlines = nil, nil
			src.Source = ms
		}
		in.Source = src
		in.Put = fakeStore{}.put
		out, err := Project(context.Background(), KindJSON, in)
		if err != nil {
			t.Fatal(err)
		}
		return out, src
	}
	out, src := project()
	if again, _ := project(); again.Text != out.Text {
		t.Fatal("same input and budget gave different views")
	}
	text := out.Text
	t.Logf("view:\n%s", text)
	checkJSONView(t, doc, text, budget)
	if !strings.Contains(text, "so only part of it was read") {
		t.Fatalf("the view does not say that the document was sampled:\n%s", text)
	}
	if out.Complete || out.Next == nil {
		t.Error("a sampled view claims to be complete or has no next read")
	}
	if strings.Contains(text, "--jq") != jq {
		t.Errorf("jq queries offered: %v, want %v", strings.Contains(text, "--jq"), jq)
	}
	if strings.Contains(text, "--lines") != indexed {
		t.Errorf("line reads offered: %v, want %v (the line index is %v)", strings.Contains(text, "--lines"), indexed, indexed)
	}

	// Counts are honest: never more than there are.
	stream, n, last, lastKey := tr.stream, tr.n, tr.last, tr.lastKey
	ms := atLeastRe.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 && name != "string" {
		t.Fatal("the view says no count is a lower bound")
	}
	for _, m := range ms {
		k, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		if strings.Contains(m[0], "values") || strings.HasPrefix(text, "[crumb json: array, "+m[0]) || strings.HasPrefix(text, "[crumb json: object, "+m[0]) {
			if k > n || k < n/20 {
				t.Errorf("%q: there are %d", m[0], n)
			}
		}
	}

	// Every read of lines or bytes is in range.
	nl := int64(bytes.Count(doc, []byte("\n")))
	if doc[len(doc)-1] != '\n' {
		nl++
	}
	for _, m := range linesRe.FindAllStringSubmatch(text, -1) {
		a, _ := strconv.ParseInt(m[1], 10, 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		if a < 1 || b < a || b > nl {
			t.Errorf("read %s is out of the document's %d lines", m[0], nl)
		}
	}
	for _, m := range bytesRe.FindAllStringSubmatch(text, -1) {
		a, _ := strconv.ParseInt(m[1], 10, 64)
		b, _ := strconv.ParseInt(m[2], 10, 64)
		if a < 0 || b <= a || b > int64(len(doc)) {
			t.Errorf("read %s is out of the document's %d bytes", m[0], len(doc))
		}
	}
	span := func(mode, a, b string) (int64, int64) {
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		if mode == "bytes" {
			return x, y
		}
		return lineSpan(doc, x, y)
	}

	// The part not read is named, and the reads cover only a bounded part
	// of the document.
	m := unreadRe.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the view does not name the part it did not read:\n%s", text)
	}
	from, to := span(m[1], m[2], m[3])
	if from > jsonSample.head || to < int64(len(doc))-jsonSample.tail-1 {
		t.Errorf("the part not read, bytes %d-%d, is not what lies between the first %d and the last %d bytes", from, to, jsonSample.head, jsonSample.tail)
	}
	read, touched := src.covered(jsonSample.head+(2<<20), int64(len(doc))-jsonSample.tail-(2<<20))
	if touched {
		t.Errorf("the middle of the document was read (%d bytes read in all)", read)
	}
	if read > int64(len(doc))/2 {
		t.Errorf("%d of %d bytes read", read, len(doc))
	}

	// The end: the last value, or the root's last members.
	if name == "array-minified" || name == "string" {
		if !strings.Contains(text, "not its end: its last") {
			t.Errorf("the view does not say why the end was not read:\n%s", text)
		}
		return text
	}
	if budget < 2000 {
		return text
	}
	if lastKey != "" && !stream {
		if !strings.Contains(text, `… the last `) || !strings.Contains(text, quoteJSON(lastKey)+": ") {
			t.Errorf("the view does not show the last key %q", lastKey)
		}
		return text
	}
	lm := lastRe.FindStringSubmatch(text)
	if lm == nil {
		t.Fatalf("the view does not show the last value:\n%s", text)
	}
	a, b := span(lm[1], lm[2], lm[3])
	got := bytes.TrimSpace(doc[a:b])
	if !json.Valid(got) || !bytes.Equal(got, bytes.TrimSpace(doc[last[0]:last[1]])) {
		t.Errorf("the read of the last value gives %.200q, want %.200q", got, doc[last[0]:last[1]])
	}
	return text
}

// TestJSONSampledUnderThreshold checks that a document at the threshold is
// read whole: its view is the same as with no sampling at all.
func TestJSONSampledUnderThreshold(t *testing.T) {
	doc := loadCase(t, "json", "go-list-std")
	want, _ := projectJSONCase(t, doc, 2000)
	withSample(t, int64(len(doc)), 64<<10, 16<<10, recallMax())
	got, _ := projectJSONCase(t, doc, 2000)
	if got.Text != want.Text {
		t.Fatalf("a document at the threshold is viewed differently:\n%s\nwant\n%s", got.Text, want.Text)
	}
	jsonSample.full = int64(len(doc)) - 1
	got, _ = projectJSONCase(t, doc, 2000)
	if !strings.Contains(got.Text, "so only part of it was read") {
		t.Fatalf("a document over the threshold is not sampled:\n%s", got.Text)
	}
}

func recallMax() int64 { return jsonQueryMax }

// FuzzJSONSampled projects arbitrary documents with tiny sampling
// thresholds, so that each is read in part: no panic, within the budget,
// deterministic, and every pointer the view names resolves.
func FuzzJSONSampled(f *testing.F) {
	f.Add([]byte(`{"items":[{"id":1,"s":"ok"},{"id":2,"s":"failed"},{"id":3,"s":"ok"}],"n":3,"next":"abc"}`), 200)
	f.Add([]byte("[\n{\"a\":1},\n{\"a\":2},\n{\"a\":3},\n{\"a\":4}\n]\n"), 300)
	f.Add([]byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n{\"a\":4}\n{\"a\":5}\n"), 150)
	f.Add([]byte(`"a long string that runs past the first part of the document"`), 100)
	f.Fuzz(func(t *testing.T, doc []byte, budget int) {
		budget = 100 + abs(budget)%3000
		if len(doc) > 1<<14 {
			return
		}
		old, oldQ := jsonSample, jsonQueryMax
		defer func() { jsonSample, jsonQueryMax = old, oldQ }()
		jsonSample.full, jsonSample.head, jsonSample.tailFirst, jsonSample.tail = 24, 16, 12, 12
		jsonQueryMax = int64(len(doc) / 2)
		project := func() string {
			in := testInput(t, doc, budget)
			in.Put = fakeStore{}.put
			out, err := Project(context.Background(), KindJSON, in)
			if err != nil {
				t.Fatal(err)
			}
			return out.Text
		}
		text := project()
		if project() != text {
			t.Fatal("not deterministic")
		}
		if n := tokens.O200k().Count(text); n > budget {
			t.Fatalf("view takes %d tokens, budget %d:\n%s", n, budget, text)
		}
		if strings.Contains(text, "not valid JSON") {
			return
		}
		if len(doc) > 24 && !json.Valid(doc) {
			// The part not read may hold what breaks the document: its
			// pointers need not resolve.
			return
		}
		if strings.Contains(text, "--jq") && len(doc) > 24 {
			t.Fatalf("a jq query is offered on a document over the limit:\n%s", text)
		}
		for _, m := range viewPointers.FindAllStringSubmatch(text, -1) {
			p := m[1]
			if strings.HasPrefix(p, "'") {
				p = strings.ReplaceAll(strings.Trim(p, "'"), `'\''`, "'")
			}
			if _, err := jsonscan.Find(context.Background(), bytes.NewReader(doc), int64(len(doc)), p); err != nil {
				t.Fatalf("pointer %q does not resolve: %v\n%s", p, err, text)
			}
		}
	})
}

// TestJSONTailWidens checks the two steps of reading a sampled document's
// end: the last jsonSample.tailFirst bytes when items start in them, and
// the last jsonSample.tail bytes only when the last item is larger.
func TestJSONTailWidens(t *testing.T) {
	old := jsonSample
	t.Cleanup(func() { jsonSample = old })
	jsonSample.tailFirst, jsonSample.tail = 64<<10, 1<<20

	std := loadCase(t, "json", "go-list-std")
	var pkgs []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(std))
	for dec.More() {
		var m json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, m)
	}
	// The last value, all the packages in one indented array, is larger
	// than the first step and smaller than the second.
	big, err := json.MarshalIndent(map[string]any{"Packages": pkgs[:len(pkgs)/2]}, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(big)); n <= jsonSample.tailFirst || n >= jsonSample.tail/2 {
		t.Fatalf("the large value is %d bytes, not between the two steps", n)
	}
	for _, c := range []struct {
		name   string
		doc    []byte
		widens bool
	}{
		{"small last values", append(bytes.Repeat(std, 2), '\n'), false},
		{"a large last value", append(append(bytes.Clone(std), big...), '\n'), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			size := int64(len(c.doc))
			src := &recSource{Source: newMemSource(c.doc)}
			tail, _, err := readJSONTail(src, 0, size, jsonscan.None)
			if err != nil {
				t.Fatal(err)
			}
			if tail.why != "" || len(tail.items) == 0 {
				t.Fatalf("no items read from the end: %q", tail.why)
			}
			last := tail.items[len(tail.items)-1]
			if got := bytes.TrimSpace(c.doc[last.start:]); int64(len(got)) != last.end-last.start {
				t.Errorf("the last item spans %d-%d, not the document's last value", last.start, last.end)
			}
			_, widened := src.covered(0, size-jsonSample.tailFirst)
			if widened != c.widens {
				t.Errorf("read before the last %d bytes: %v, want %v", jsonSample.tailFirst, widened, c.widens)
			}
			if c.widens && last.start >= size-jsonSample.tailFirst {
				t.Errorf("the large last value starts at %d, inside the first step", last.start)
			}
		})
	}
}
