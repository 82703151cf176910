package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func TestArgPaths(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []string
	}{
		{`{"paths": ["/a", "/b"]}`, []string{"/a", "/b"}},
		{`{"path": "/a"}`, nil},
		{`{"paths": ["/a"]}`, nil},
		{`{"b": ["x", "y"], "a": ["1", "2"]}`, []string{"1", "2"}},
		{`{"paths": ["/a", ""]}`, nil},
		{`{"paths": ["/a", 1]}`, nil},
		{`[1, 2]`, nil},
		{``, nil},
	} {
		got := ParseCall(json.RawMessage(tc.args)).Paths()
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("ParseCall(%s).Paths() = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestSplitSections(t *testing.T) {
	for _, tc := range []struct {
		name  string
		text  string
		paths []string
		want  []section // nil: not split
	}{
		{"filesystem server", "/a.go:\npackage a\n\n---\n/b.go:\npackage b\n", []string{"/a.go", "/b.go"}, []section{
			{"/a.go", "/a.go:\n", "package a\n", "\n---\n"},
			{"/b.go", "/b.go:\n", "package b\n", ""},
		}},
		{"no colon, no separator", "/a\nx\n/b\ny", []string{"/a", "/b"}, []section{
			{"/a", "/a\n", "x\n", ""},
			{"/b", "/b\n", "y", ""},
		}},
		{"preamble", "2 files\n/a:\nx\n/b:\ny\n", []string{"/a", "/b"}, []section{
			{"/a", "2 files\n/a:\n", "x\n", ""},
			{"/b", "/b:\n", "y\n", ""},
		}},
		{"a path inside a line is no head", "see /a: here\n/b:\ny\n", []string{"/a", "/b"}, nil},
		{"one file found", "/a:\nx\n", []string{"/a", "/b"}, nil},
		{"in the order listed", "/b:\ny\n/a:\nx\n", []string{"/a", "/b"}, nil},
		{"a missing file in between", "/a:\nx\n===\n/c:\nz\n", []string{"/a", "/b", "/c"}, []section{
			{"/a", "/a:\n", "x\n", "===\n"},
			{"/c", "/c:\n", "z\n", ""},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitSections(tc.text, tc.paths)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			if got != nil {
				var b strings.Builder
				for _, s := range got {
					b.WriteString(s.head + s.body + s.tail)
				}
				if b.String() != tc.text {
					t.Errorf("the sections do not make up the text: %q", b.String())
				}
			}
		})
	}
}

// TestMCPReadMultipleFiles: several files in one text block share the
// budget: each is stored apart and projected on its own, under its path,
// and the whole result stays within the budget.
func TestMCPReadMultipleFiles(t *testing.T) {
	var c realCase
	for _, x := range loadCases(t, "testdata/mcp") {
		if x.name == "filesystem-read-multiple-files" {
			c = x
		}
	}
	var paths struct{ Paths []string }
	if err := json.Unmarshal(c.meta.Args, &paths); err != nil || len(paths.Paths) != 3 {
		t.Fatalf("the case's arguments: %s", c.meta.Args)
	}
	var in ctr
	json.Unmarshal(c.output, &in)
	secs := splitSections(str(in.Content[0], "text"), paths.Paths)
	if len(secs) != 3 {
		t.Fatalf("%d files found in the block", len(secs))
	}
	for _, budget := range []int{500, 1000, 2000, 4000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			out, fs := projectMCPCall(t, c.output, c.meta.Tool, c.meta.Args, schemaOf(c), budget)
			b := checkMCP(t, c.output, out, budget)
			checkWholeBudget(t, out, budget)
			text := str(b.Content[0], "text")
			last := -1
			for _, s := range secs {
				ref := store.RefOf(store.Sum([]byte(s.body)))
				if !bytes.Equal(fs[ref], []byte(s.body)) {
					t.Errorf("%s was not stored apart", s.path)
				}
				// Its path, then its projection, which reads its own copy.
				i := strings.Index(text, s.path+":\n[crumb file "+s.path)
				if i < 0 {
					t.Errorf("%s is not projected under its path:\n%s", s.path, text)
					continue
				}
				if i < last {
					t.Errorf("%s is out of order", s.path)
				}
				last = i
				if !strings.Contains(text, "crumb read "+string(ref)+" --lines") {
					t.Errorf("%s: no read of its stored copy", s.path)
				}
			}
			if budget >= 2000 {
				// Each file has room for its head or its outline: the
				// second file's outline names its methods.
				if !strings.Contains(text, "func (h Header) Clone() Header") {
					t.Errorf("the second file's outline is not shown:\n%s", text)
				}
			}
		})
	}
}

// TestMCPSectionsKeptWhenSmall: a block of several files that fits the
// budget passes through as it is.
func TestMCPSectionsKeptWhenSmall(t *testing.T) {
	text := "/a.go:\npackage a\n\n---\n/b.go:\npackage b\n"
	raw := []byte(`{"content":[{"type":"text","text":` + quoteJSON(text) + `}]}`)
	out, _ := projectMCPCall(t, raw, "read_multiple_files", json.RawMessage(`{"paths":["/a.go","/b.go"]}`), nil, 500)
	if out.Text != string(raw) || !out.Complete {
		t.Errorf("a small block changed:\n%s", out.Text)
	}
}

// TestMCPWholeResultWithinBudget: the JSON of the result and the escapes
// of its text count: text full of tabs and quotes, which JSON escapes,
// still fits.
func TestMCPWholeResultWithinBudget(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "\t\t\"key-%d\":\t\"value \\\"%d\\\"\",\n", i, i)
	}
	raw := []byte(`{"content":[{"type":"text","text":` + quoteJSON(b.String()) + `},{"type":"text","text":` + quoteJSON(strings.Repeat("\t<a href=\"x\">y</a>\n", 3000)) + `}]}`)
	for _, budget := range []int{300, 1000, 2000} {
		out, _ := projectMCPCase(t, raw, nil, budget)
		checkMCP(t, raw, out, budget)
		checkWholeBudget(t, out, budget)
	}
}

// TestMCPImageNoteShort: the note that names a downscaled image's original
// is one short line.
func TestMCPImageNoteShort(t *testing.T) {
	raw := screenshotAlone(t)
	out, _ := projectMCPCase(t, raw, json.RawMessage("null"), 2000)
	var r ctr
	json.Unmarshal([]byte(out.Text), &r)
	note := ""
	for _, b := range r.Content {
		if s := str(b, "text"); strings.Contains(s, "downscaled") {
			note = s
		}
	}
	// The note on structuredContent, which repeats the image, may follow
	// in the same block.
	note, _, _ = strings.Cut(note, "] ")
	note = strings.TrimSuffix(note, "]") + "]"
	if !regexp.MustCompile(`^\[crumb: image 0 downscaled from 3013x1561 to [0-9]{3,4}x[0-9]{3,4}; the original: crumb read [0-9a-f]{16} --all > FILE\]$`).MatchString(note) {
		t.Errorf("the note is %q", note)
	}
	if n := tokens.O200k().Count(note); n > 40 {
		t.Errorf("the note takes %d tokens", n)
	}
}

func TestBoundValueBase64(t *testing.T) {
	data := encodeBase64(bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 250}, 200))
	// Base64 data is never cut to a prefix, which would not be valid
	// base64: the member that holds it is left out, and an array ends
	// before the element that holds it.
	v, changed, ok := boundValue(map[string]any{"data": data, "text": strings.Repeat("word ", 100)}, 3, 200)
	m := v.(map[string]any)
	if _, has := m["data"]; !ok || !changed || has {
		t.Errorf("base64 data kept as %q", m["data"])
	}
	if s := m["text"].(string); len([]rune(s)) != 201 {
		t.Errorf("text cut to %d characters", len([]rune(s)))
	}
	v, _, _ = boundValue([]any{"a", data, "b"}, 3, 200)
	if got := mustJSON(v); string(got) != `["a"]` {
		t.Errorf("array with base64 bounded to %s", got)
	}
	if _, _, ok := boundValue(data, 3, 200); ok {
		t.Error("base64 data alone can be bounded")
	}
	if v, changed, ok := boundValue(data[:100], 3, 200); !ok || changed || v != data[:100] {
		t.Error("short base64 data is not kept whole")
	}
}

// TestMCPJSONBlockIntent: a JSON text block is projected as JSON with the
// call's intent: what matches it comes first, with its pointer in the
// stored block.
func TestMCPJSONBlockIntent(t *testing.T) {
	raw := loadCase(t, "mcp", "filesystem-directory-tree")
	args := json.RawMessage(`{"path": "/tmp/crumb-fixtures/fs/http", "description": "find the reverse proxy"}`)
	out, _ := projectMCPCall(t, raw, "directory_tree", args, json.RawMessage("null"), 800)
	b := checkMCP(t, raw, out, 800)
	checkWholeBudget(t, out, 800)
	text := str(b.Content[0], "text")
	if !matchTitle.MatchString(text) || !strings.Contains(text, `reverseproxy.go`) {
		t.Errorf("the part that matches the intent is not shown:\n%s", text)
	}
}
