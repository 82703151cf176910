package project

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// fdFixture is a tool result recorded by scripts/fixtures/filedir.sh.
type fdFixture struct {
	dir    string
	output []byte
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
}

func loadFDFixture(t testing.TB, kind, name string) fdFixture {
	t.Helper()
	dir := filepath.Join("testdata", kind, name)
	out, err := os.ReadFile(filepath.Join(dir, "output"))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with scripts/fixtures/filedir.sh)", dir, err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	fx := fdFixture{dir: dir, output: out}
	if err := json.Unmarshal(meta, &fx); err != nil {
		t.Fatalf("%s/meta.json: %v", dir, err)
	}
	return fx
}

// fdProject runs a projector over b as if it had been stored.
func fdProject(t testing.TB, k Kind, b []byte, tool string, args json.RawMessage, budget int) (Output, *Input) {
	t.Helper()
	in := testInput(t, b, budget)
	in.Tool, in.Args = tool, args
	out, err := Project(context.Background(), k, in)
	if err != nil {
		t.Fatalf("projecting: %v", err)
	}
	return out, in
}

// fdObject makes a memSource a store.Object, for following continuations.
type fdObject struct{ *memSource }

func (fdObject) Close() error { return nil }

// checkViewBasics checks what every view must hold: the budget, a header,
// and a first continuation that reads exactly what follows the first shown
// excerpt, after which the pages advance without gap or overlap to the end.
func checkViewBasics(t *testing.T, in *Input, out Output, followPages bool) {
	t.Helper()
	if n := tokens.O200k().Count(out.Text); n > in.Budget {
		t.Errorf("view takes %d tokens, over the budget of %d", n, in.Budget)
	}
	if !strings.HasPrefix(out.Text, "[crumb ") {
		t.Errorf("view does not start with a crumb header: %.80q", out.Text)
	}
	if out.Complete != (out.Next == nil) {
		t.Errorf("Complete = %v but Next = %v", out.Complete, out.Next)
	}
	if out.Next == nil {
		return
	}
	if err := out.Next.Validate(); err != nil {
		t.Fatalf("invalid continuation %+v: %v", out.Next, err)
	}
	if out.Next.Rev != in.Rev() {
		t.Errorf("continuation carries rev %q, want %q", out.Next.Rev, in.Rev())
	}
	if !strings.Contains(out.Text, recall.CLIHint(*out.Next)) {
		t.Errorf("the view does not give its continuation %q", recall.CLIHint(*out.Next))
	}
	if !followPages {
		return
	}
	// The continuation reads the first omitted stretch; its pages follow
	// each other without gap or overlap to the stretch's end.
	obj := fdObject{in.Source.(*memSource)}
	doc := in.Doc()
	var from, end int64
	switch {
	case out.Next.Lines != nil:
		var err error
		if from, err = doc.LineStart(out.Next.Lines.From); err != nil {
			t.Fatal(err)
		}
		end = in.Source.Size()
		if total, _ := doc.Lines(); out.Next.Lines.To != 0 && out.Next.Lines.To < total {
			end, _ = doc.LineStart(out.Next.Lines.To + 1)
		}
	case out.Next.Bytes != nil:
		from, end = out.Next.Bytes.From, out.Next.Bytes.To
	default:
		t.Fatalf("continuation %v is neither lines nor bytes", out.Next.Argv())
	}
	req := *out.Next
	pos := from
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("continuations do not reach the end")
		}
		p, err := recall.ReadObject(context.Background(), obj, req, recall.Options{Budget: 2000})
		if err != nil {
			t.Fatalf("reading %v: %v", req.Argv(), err)
		}
		if p.From != pos {
			t.Fatalf("page %d starts at byte %d, want %d", i, p.From, pos)
		}
		if p.To <= p.From {
			t.Fatalf("page %d does not advance: [%d, %d)", i, p.From, p.To)
		}
		pos = p.To
		if p.Next == nil || !followPages {
			break
		}
		req = *p.Next
	}
	if followPages && pos != end {
		t.Errorf("following the continuation ends at byte %d, want %d", pos, end)
	}
}

// outlineEntry is one line of an outline: "  3290 func (s *Server) ...", or,
// in a view of lines a tool numbered, the line as the tool printed it:
// "  4307\tfunc goschedImpl(...) {".
var outlineEntry = regexp.MustCompile(`^ *(\d+)[ \t](.*)$`)

// outlineCount reads how many entries an outline heading announces.
var outlineCount = regexp.MustCompile(`^\[outline of the omitted lines[^:]*: (\d+) (of \d+ )?(definitions|headings)`)

// splitOutline returns the outline entries of a view (line number as shown,
// and text) and the view without them.
func splitOutline(view string) (map[int64]string, string) {
	out := map[int64]string{}
	var rest []string
	left := 0
	for _, l := range strings.Split(view, "\n") {
		if m := outlineCount.FindStringSubmatch(l); m != nil {
			left, _ = strconv.Atoi(m[1])
			rest = append(rest, l)
			continue
		}
		if left > 0 {
			left--
			if m := outlineEntry.FindStringSubmatch(l); m != nil {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				out[n] = strings.TrimSpace(m[2])
				continue
			}
		}
		rest = append(rest, l)
	}
	return out, strings.Join(rest, "\n")
}

// viewOutline returns the outline entries of a view: line number and text.
func viewOutline(view string) map[int64]string {
	out, _ := splitOutline(view)
	return out
}

// shownNumbered returns the numbers of the lines a numbered view shows whole.
func shownNumbered(view string) map[int64]string {
	out := map[int64]string{}
	for _, l := range strings.Split(view, "\n") {
		num, text, ok := strings.Cut(l, "\t")
		if !ok || strings.HasSuffix(text, " …") {
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(num), ",", ""), 10, 64)
		if err == nil {
			out[n] = text
		}
	}
	return out
}

func fileLines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// checkOutlineTrue checks every outline entry against the line it names:
// the line holds the definition's name, and the line is not shown.
func checkOutlineTrue(t *testing.T, src []byte, shownView string, strip bool) map[int64]string {
	t.Helper()
	lines := fileLines(src)
	entries, rest := splitOutline(shownView)
	shown := shownNumbered(rest)
	first := int64(1)
	if strip && len(lines) > 0 {
		first, _, _ = view.LineNumberPrefix([]byte(lines[0]))
	}
	for num, text := range entries {
		// A numbered view's entries carry the tool's numbers.
		n := num - first + 1
		if n < 1 || n > int64(len(lines)) {
			t.Errorf("outline names line %d of %d", n, len(lines))
			continue
		}
		line := lines[n-1]
		if strip {
			line = string(view.StripNumber([]byte(line)))
		}
		name := identAt([]byte(strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(text, "#"), " "), " ")))
		for _, kw := range []string{"func", "type", "def", "class", "async", "pub", "fn", "impl", "export", "function", "const", "struct", "enum", "trait", "interface", "var", "mod"} {
			if name == kw {
				name = ""
			}
		}
		words := strings.Fields(strings.TrimLeft(text, "# "))
		if name == "" && len(words) > 0 {
			// The name follows the keywords: check the last word before "(".
			head, _, _ := strings.Cut(text, "(")
			f := strings.Fields(head)
			if len(f) > 0 {
				name = identAt([]byte(strings.TrimLeft(f[len(f)-1], "*&")))
			}
		}
		if name == "" {
			continue
		}
		if !strings.Contains(line, name) {
			t.Errorf("outline entry %d %q: line %d is %q, which does not hold %q", n, text, n, line, name)
		}
		if _, ok := shown[num]; ok {
			t.Errorf("outline entry %d %q names a line the view shows", num, text)
		}
		if got := strings.TrimSuffix(text, "…"); strip && !strings.HasPrefix(strings.TrimSpace(line), got) {
			t.Errorf("outline entry %d %q is not the line as the tool printed it: %q", num, text, lines[n-1])
		}
	}
	return entries
}

// goFuncLines parses Go source and returns the line of every function and
// method, by name ("Serve", "Server.Serve").
func goFuncLines(t *testing.T, src []byte) map[string]int64 {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			name := fd.Name.Name
			if fd.Recv != nil {
				name = recvName(fd.Recv.List[0].Type) + "." + name
			}
			out[name] = int64(fset.Position(fd.Pos()).Line)
		}
	}
	return out
}

var fileGoldenCases = []struct {
	name    string // golden file: testdata/file/<fixture>/<name>.golden
	fixture string
	args    string // replaces the fixture's arguments when set
	budget  int
	check   func(t *testing.T, src []byte, out Output, view string)
}{
	{name: "view", fixture: "go-server", check: checkGoServer},
	{name: "view", fixture: "go-bufio", check: checkGoOutline},
	{name: "view", fixture: "py-argparse", check: checkPythonOutline},
	{name: "view", fixture: "py-subprocess-numbered", check: checkNumberedPython},
	{name: "view", fixture: "ts-testscheduler", check: checkHasOutline("TypeScript")},
	{name: "view", fixture: "js-mcp-filesystem", check: checkHasOutline("JavaScript")},
	{name: "view", fixture: "rs-smallvec", check: checkHasOutline("Rust")},
	{name: "view", fixture: "md-node-http", check: checkMarkdown},
	{name: "view", fixture: "c-testregex", check: checkHasOutline("C")},
	{name: "view", fixture: "cpp-stl-vector", check: checkHasOutline("C++")},
	{name: "view", fixture: "sh-bash-completion", check: checkHasOutline("shell")},
	{name: "view", fixture: "go-server-range-numbered", check: checkRangeNumbered},
	{name: "budget-500", fixture: "go-server", budget: 500, check: checkGoTypes},
	{name: "symbol-shutdown", fixture: "go-server",
		args:  `{"path": "/usr/local/go/src/net/http/server.go", "symbol": "Shutdown"}`,
		check: checkFocusGoFunc("Server.Shutdown", true)},
	{name: "symbol-method-form", fixture: "go-server",
		args:  `{"path": "/usr/local/go/src/net/http/server.go", "name": "(*conn).serve"}`,
		check: checkFocusGoFunc("conn.serve", false)},
	{name: "range-offset", fixture: "go-server",
		args:  `{"file_path": "/usr/local/go/src/net/http/server.go", "offset": 2300, "limit": 40}`,
		check: checkFocusLines(2300, 2339)},
	{name: "range-view-range", fixture: "py-argparse",
		args:  `{"path": "/usr/lib/python3.11/argparse.py", "view_range": [1800, 1830]}`,
		check: checkFocusLines(1800, 1830)},
	{name: "pattern", fixture: "go-server",
		args:  `{"path": "/usr/local/go/src/net/http/server.go", "pattern": "MaxHeaderBytes"}`,
		check: checkFocusPattern("MaxHeaderBytes")},
	{name: "intent", fixture: "go-server",
		args:  `{"path": "/usr/local/go/src/net/http/server.go", "intent": "how idle connections are closed on shutdown"}`,
		check: checkFocusIntent},
	{name: "symbol-python", fixture: "py-argparse",
		args:  `{"path": "/usr/lib/python3.11/argparse.py", "symbol": "parse_known_args"}`,
		check: checkFocusText("def parse_known_args(self, args=None, namespace=None):")},
	{name: "symbol-missing", fixture: "rs-smallvec",
		args:  `{"path": "lib.rs", "symbol": "no_such_function"}`,
		check: checkNote("no definition by that name")},
	{name: "heading-intent", fixture: "md-node-http",
		args:  `{"path": "http.md", "intent": "maxHeaderSize option"}`,
		check: checkNote("focus: ")},
	{name: "view", fixture: "yaml-gojq-tests", check: checkNote("shown: lines 1-")},
	{name: "intent-block", fixture: "yaml-gojq-tests",
		args:  `{"path": "gojq/cli/test.yaml", "intent": "the exit code when --indent is given without an argument"}`,
		check: checkFocusBlock},
	{name: "intent-long-block", fixture: "yaml-gojq-tests",
		args:  `{"path": "gojq/cli/test.yaml", "intent": "the tab option"}`,
		check: checkFocusBlock},
	{name: "intent-nested", fixture: "yaml-gojq-tests",
		args:  `{"path": "gojq/cli/test.yaml", "intent": "the error message: expected argument for flag indent"}`,
		check: checkFocusBlock},
	{name: "view", fixture: "ts-zod-schemas", check: checkHasOutline("TypeScript")},
	{name: "symbol-twice", fixture: "ts-zod-schemas",
		args:  `{"path": "schemas.d.ts", "symbol": "ZodDiscriminatedUnion"}`,
		check: checkShownAll("export declare const ZodDiscriminatedUnion: core.$constructor<ZodDiscriminatedUnion>;", "export interface ZodDiscriminatedUnion<")},
	{name: "intent-several", fixture: "ts-zod-schemas",
		args:  `{"path": "schemas.d.ts", "intent": "how a discriminated union is declared"}`,
		check: checkShownAll("export declare const ZodDiscriminatedUnion:", "export interface ZodDiscriminatedUnion<", "export declare function discriminatedUnion<")},
	{name: "pattern-def", fixture: "py-argparse",
		args:  `{"path": "/usr/lib/python3.11/argparse.py", "pattern": "def _get_values"}`,
		check: checkPatternDefWhole("def _get_values(")},
}

func TestGoldenFile(t *testing.T) {
	for _, c := range fileGoldenCases {
		t.Run(c.fixture+"/"+c.name, func(t *testing.T) {
			fx := loadFDFixture(t, "file", c.fixture)
			args := fx.Args
			if c.args != "" {
				args = json.RawMessage(c.args)
			}
			budget := c.budget
			if budget == 0 {
				budget = 2000
			}
			out, in := fdProject(t, KindFile, fx.output, fx.Tool, args, budget)
			checkGolden(t, filepath.Join(fx.dir, c.name+".golden"), out.Text)
			checkViewBasics(t, in, out, c.name == "view")
			if out.Complete {
				t.Errorf("a %d-byte file shown whole in %d tokens", len(fx.output), budget)
			}
			if c.check != nil {
				c.check(t, fx.output, out, out.Text)
			}
			// Deterministic.
			again, _ := fdProject(t, KindFile, fx.output, fx.Tool, args, budget)
			if again.Text != out.Text {
				t.Error("two projections of the same input differ")
			}
		})
	}
}

func checkGoOutline(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	entries := checkOutlineTrue(t, src, view, false)
	if len(entries) == 0 {
		t.Fatal("no outline")
	}
	// Every func entry is at the line go/parser gives for it.
	funcs := goFuncLines(t, src)
	byLine := map[int64]string{}
	for name, n := range funcs {
		byLine[n] = name
	}
	nf := 0
	for n, text := range entries {
		if strings.HasPrefix(text, "func ") {
			nf++
			if _, ok := byLine[n]; !ok {
				t.Errorf("outline entry %q at line %d: go/parser has no func there", text, n)
			}
		}
	}
	if nf == 0 {
		t.Error("the outline names no function")
	}
}

func checkGoServer(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	checkGoOutline(t, src, out, view)
	entries := viewOutline(view)
	funcs := goFuncLines(t, src)
	// The most important definitions of the middle are listed.
	for _, name := range []string{"Server.Serve", "Server.Shutdown", "ListenAndServe"} {
		n := funcs[name]
		if entries[n] == "" {
			t.Errorf("the outline does not list %s (line %d)", name, n)
		}
	}
	if !strings.Contains(view, "package http") {
		t.Error("the head is not shown")
	}
	if !strings.Contains(view, "rev "+out.Next.Rev) {
		t.Error("the header does not carry the revision")
	}
}

func checkPythonOutline(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	entries := checkOutlineTrue(t, src, view, false)
	found := false
	for _, text := range entries {
		if strings.HasPrefix(text, "class ArgumentParser(") {
			found = true
		}
	}
	if !found {
		t.Errorf("the outline does not list class ArgumentParser: %v", entries)
	}
}

func checkNumberedPython(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	entries := checkOutlineTrue(t, src, view, true)
	if len(entries) == 0 {
		t.Fatal("no outline of a numbered Python file")
	}
	if !strings.Contains(strings.SplitN(view, "\n", 2)[0], "Python") {
		t.Error("the language was not sniffed from numbered lines")
	}
	// The tool's own numbers are kept; crumb adds none.
	if strings.Contains(view, "\n1\t     1\t") || strings.Contains(view, "     1\t     1\t") {
		t.Error("lines numbered twice")
	}
}

func checkHasOutline(lang string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		if !strings.Contains(strings.SplitN(view, "\n", 2)[0], lang) {
			t.Errorf("header does not name %s", lang)
		}
		if len(checkOutlineTrue(t, src, view, false)) < 5 {
			t.Errorf("the outline lists fewer than 5 definitions")
		}
	}
}

func checkMarkdown(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	entries := viewOutline(view)
	lines := fileLines(src)
	if len(entries) < 5 {
		t.Fatalf("the outline lists %d headings", len(entries))
	}
	for n, text := range entries {
		if !strings.HasPrefix(text, "#") {
			t.Errorf("entry %d %q is not a heading", n, text)
		}
		if lines[n-1] != text && !strings.HasPrefix(lines[n-1], strings.TrimLeft(text, "# ")) {
			t.Errorf("entry %d %q: the line is %q", n, text, lines[n-1])
		}
	}
}

func checkRangeNumbered(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	if !strings.Contains(view, "numbered by the tool from 1,200") {
		t.Error("the header does not say the lines are numbered from 1,200")
	}
	// The tool's numbers were asked for from 1200 to 1800: that is the whole
	// stored result, so the view shows its head and tail.
	if !strings.Contains(view, "  1200\t") {
		t.Error("the first line is not shown")
	}
	checkOutlineTrue(t, src, view, true)
}

// checkGoTypes checks that a small view's outline lists the exported types
// of the omitted lines first.
func checkGoTypes(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	entries := checkOutlineTrue(t, src, view, false)
	if len(entries) == 0 {
		t.Fatal("no outline")
	}
	for n, text := range entries {
		if !strings.HasPrefix(text, "type ") || !exportedName(strings.TrimPrefix(text, "type ")) {
			t.Errorf("entry %d %q: a small outline should hold the exported types first", n, text)
		}
	}
}

// checkFocusGoFunc checks that a view centred on a Go function shows its
// first line as it is and the lines after it without a break: all of them
// to its closing brace when whole.
func checkFocusGoFunc(name string, whole bool) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		n := goFuncLines(t, src)[name]
		if n == 0 {
			t.Fatalf("no func %s", name)
		}
		shown := shownNumbered(view)
		lines := fileLines(src)
		if got, ok := shown[n]; !ok || got != lines[n-1] {
			t.Errorf("line %d (func %s) is not shown as it is: %q", n, name, got)
		}
		// The short head is there for orientation.
		if _, ok := shown[1]; !ok {
			t.Error("the head is not shown")
		}
		end := n
		for end < int64(len(lines)) && lines[end-1] != "}" {
			end++
		}
		last := n
		for last < end {
			if _, ok := shown[last+1]; !ok {
				break
			}
			last++
		}
		if whole && last != end {
			t.Errorf("func %s (lines %d-%d) is shown only to line %d", name, n, end, last)
		}
		if !whole && last-n < 30 {
			t.Errorf("only lines %d-%d of func %s (lines %d-%d) are shown", n, last, name, n, end)
		}
		if !whole && !strings.Contains(view, fmt.Sprintf("omitted: lines %s-", textfmt.Int(last+1))) && !strings.Contains(view, fmt.Sprintf(", lines %s-", textfmt.Int(last+1))) {
			t.Errorf("the rest of func %s, from line %d, is not named as omitted", name, last+1)
		}
	}
}

func checkFocusLines(from, to int64) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		shown := shownNumbered(view)
		lines := fileLines(src)
		for i := from; i <= to; i++ {
			if got, ok := shown[i]; !ok || got != lines[i-1] {
				t.Errorf("asked line %d is not shown as it is: %q", i, got)
			}
		}
		if _, ok := shown[1]; !ok {
			t.Error("the head is not shown")
		}
		// Centred: nothing far past the range is shown.
		for n := range shown {
			if n > to+10 {
				t.Errorf("line %d, far past the asked range, is shown", n)
			}
		}
	}
}

func checkFocusPattern(p string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		lines := fileLines(src)
		first := -1
		for i, l := range lines {
			if strings.Contains(l, p) {
				first = i + 1
				break
			}
		}
		shown := shownNumbered(view)
		if _, ok := shown[int64(first)]; !ok {
			t.Errorf("the first line matching %q (%d) is not shown", p, first)
		}
		if !strings.Contains(view, "crumb grep ") {
			t.Error("no hint to list every match")
		}
	}
}

func checkFocusIntent(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	note := ""
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, "[focus: ") {
			note = l
		}
	}
	if note == "" {
		t.Fatal("no focus note")
	}
	// The definition it names is shown.
	m := regexp.MustCompile(`lines ([\d,]+)-`).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("focus note names no lines: %s", note)
	}
	n, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	if _, ok := shownNumbered(view)[n]; !ok {
		t.Errorf("the focused definition's line %d is not shown", n)
	}
	low := strings.ToLower(fileLines(src)[n-1])
	if !strings.Contains(low, "idle") && !strings.Contains(low, "shut") {
		t.Errorf("the focused line %q has none of the intent's words", fileLines(src)[n-1])
	}
}

func checkFocusText(text string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		lines := fileLines(src)
		shown := shownNumbered(view)
		for i, l := range lines {
			if strings.TrimSpace(l) == text {
				if _, ok := shown[int64(i+1)]; !ok {
					t.Errorf("line %d %q is not shown", i+1, text)
				}
				return
			}
		}
		t.Fatalf("no line %q in the fixture", text)
	}
}

// checkShownAll checks that, for each prefix, the first line that starts
// with it (after its indentation) is shown as it is.
func checkShownAll(prefixes ...string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		lines := fileLines(src)
		shown := shownNumbered(view)
	next:
		for _, p := range prefixes {
			for i, l := range lines {
				if strings.HasPrefix(strings.TrimSpace(l), p) {
					if got, ok := shown[int64(i+1)]; !ok || got != l {
						t.Errorf("line %d %.60q is not shown", i+1, l)
					}
					continue next
				}
			}
			t.Fatalf("no line starts with %q in the fixture", p)
		}
	}
}

// indentOf measures a line's indentation as the projector does: a tab
// counts 4.
func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return -1 // blank
}

// checkFocusBlock checks a view centred on a line of an indented file: the
// line and the block it opens are shown whole, and so is every line that
// encloses it (the nearest line above indented less, level by level).
func checkFocusBlock(t *testing.T, src []byte, out Output, view string) {
	t.Helper()
	m := regexp.MustCompile(`\[focus: line ([\d,]+),`).FindStringSubmatch(view)
	if m == nil {
		t.Fatalf("no focus on a line:\n%.300s", view)
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	lines := fileLines(src)
	shown := shownNumbered(view)
	want := []int{n}
	ind := indentOf(lines[n-1])
	for i := n; i < len(lines); i++ {
		in := indentOf(lines[i])
		if in >= 0 && in <= ind {
			break
		}
		if in >= 0 {
			want = append(want, i+1)
		}
	}
	for i, limit := n-1, ind; i >= 1 && limit > 0; i-- {
		if in := indentOf(lines[i-1]); in >= 0 && in < limit && !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "#") {
			want = append(want, i)
			limit = in
		}
	}
	for _, w := range want {
		if got, ok := shown[int64(w)]; !ok || got != lines[w-1] {
			t.Errorf("line %d %q, of the focus line %d's block or its parents, is not shown", w, lines[w-1], n)
		}
	}
}

// checkPatternDefWhole checks that a pattern that matches a definition's
// first line shows the definition whole (a Python one: to the last line
// indented more deeply).
func checkPatternDefWhole(prefix string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		lines := fileLines(src)
		shown := shownNumbered(view)
		for i, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), prefix) {
				continue
			}
			ind, last := indentOf(l), i
			for j := i + 1; j < len(lines); j++ {
				in := indentOf(lines[j])
				if in >= 0 && in <= ind {
					break
				}
				if in >= 0 {
					last = j
				}
			}
			for j := i; j <= last; j++ {
				if got, ok := shown[int64(j+1)]; !ok || got != lines[j] {
					t.Errorf("line %d of the definition at line %d (to line %d) is not shown", j+1, i+1, last+1)
				}
			}
			return
		}
		t.Fatalf("no line starts with %q", prefix)
	}
}

func checkNote(s string) func(t *testing.T, src []byte, out Output, view string) {
	return func(t *testing.T, src []byte, out Output, view string) {
		t.Helper()
		if !strings.Contains(view, s) {
			t.Errorf("the view does not say %q", s)
		}
	}
}

// TestFileBudgets checks every fixture at budgets from the least up: always
// within the budget, a valid continuation, and outline entries that name
// their lines truly.
func TestFileBudgets(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "file"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		fx := loadFDFixture(t, "file", ent.Name())
		for _, budget := range []int{100, 180, 400, 1000, 4000} {
			t.Run(fmt.Sprintf("%s/%d", ent.Name(), budget), func(t *testing.T) {
				out, in := fdProject(t, KindFile, fx.output, fx.Tool, fx.Args, budget)
				checkViewBasics(t, in, out, false)
				e, err := newExcerptor(in, true)
				if err != nil {
					t.Fatal(err)
				}
				nb, _ := view.DetectNumbering(e)
				checkOutlineTrue(t, fx.output, out.Text, nb.On)
			})
		}
	}
}

// TestFileWhole checks that a file within the budget is shown whole, with
// line numbers, and says so.
func TestFileWhole(t *testing.T) {
	src := []byte("package a\n\nfunc A() {}\n")
	out, _ := fdProject(t, KindFile, src, "read_file", json.RawMessage(`{"path": "a.go"}`), 500)
	if !out.Complete || out.Next != nil {
		t.Fatalf("not complete: %+v", out)
	}
	want := "[crumb file a.go: Go, rev "
	if !strings.HasPrefix(out.Text, want) || !strings.Contains(out.Text, "shown whole]") || !strings.Contains(out.Text, "3\tfunc A() {}") {
		t.Errorf("view:\n%s", out.Text)
	}
}

func TestParseCall(t *testing.T) {
	for _, c := range []struct {
		args string
		want Call
	}{
		{`{"path": "a/b.go"}`, Call{Path: "a/b.go"}},
		{`{"file_path": "x.py", "offset": 10, "limit": 5}`, Call{Path: "x.py", HasRange: true, From: 10, To: 14}},
		{`{"filePath": "x.py", "offset": 10}`, Call{Path: "x.py", HasRange: true, From: 10}},
		{`{"path": "x", "view_range": [3, -1]}`, Call{Path: "x", HasRange: true, From: 3}},
		{`{"path": "x", "view_range": [3, 9]}`, Call{Path: "x", HasRange: true, From: 3, To: 9}},
		{`{"lines": "41:240"}`, Call{HasRange: true, From: 41, To: 240}},
		{`{"lines": "41-240"}`, Call{HasRange: true, From: 41, To: 240}},
		{`{"line": 7}`, Call{HasRange: true, From: 7, To: 7}},
		{`{"start_line": "5", "end_line": 9}`, Call{HasRange: true, From: 5, To: 9}},
		{`{"head": 20}`, Call{HasRange: true, From: 1, To: 20}},
		{`{"tail": 20}`, Call{HasRange: true, Tail: 20}},
		{`{"uri": "file:///a/b.rs", "symbol": "Foo::bar"}`, Call{Path: "/a/b.rs", Symbol: "Foo::bar"}},
		{`{"name": "main.go"}`, Call{}},
		{`{"name": "Serve"}`, Call{Symbol: "Serve"}},
		{`{"pattern": "err(or)?", "-i": true, "ignore_case": true}`, Call{Pattern: "err(or)?", IgnoreCase: true}},
		{`{"intent": "find the retry loop"}`, Call{Intent: "find the retry loop"}},
		{`{"view_range": [9, 3]}`, Call{}},
		{`{"lines": "x"}`, Call{}},
		{`[1, 2]`, Call{}},
		{`not json`, Call{}},
	} {
		got := ParseCall(json.RawMessage(c.args))
		got.args = nil // the arguments themselves, read by Arg and Paths
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseCall(%s) = %+v, want %+v", c.args, got, c.want)
		}
	}
}

func TestNormalizeSymbol(t *testing.T) {
	for in, want := range map[string]string{
		"(*Server).Serve": "Server.Serve",
		"Server.Serve":    "Server.Serve",
		"Vec::push":       "Vec.push",
		"String#split":    "String.split",
		" parse ":         "parse",
	} {
		if got := normalizeSymbol(in); got != want {
			t.Errorf("normalizeSymbol(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFileTinyBudget checks the least budget still gets a valid view.
func TestFileTinyBudget(t *testing.T) {
	src := bytes.Repeat([]byte("func x() {}\n"), 5000)
	args := json.RawMessage(`{"path": "` + strings.Repeat("very/long/", 30) + `x.go"}`)
	out, in := fdProject(t, KindFile, src, "read", args, recall.MinBudget)
	checkViewBasics(t, in, out, false)
}

// TestFileStoreFailed checks a view of a result that could not be stored:
// no continuation, and no hint that could not be followed.
func TestFileStoreFailed(t *testing.T) {
	fx := loadFDFixture(t, "file", "go-bufio")
	in := testInput(t, fx.output, 2000)
	in.Ref, in.StoreError = "", "disk full"
	in.Args = fx.Args
	out, err := Project(context.Background(), KindFile, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Next != nil || out.Complete {
		t.Errorf("Next = %v, Complete = %v", out.Next, out.Complete)
	}
	if strings.Contains(out.Text, "crumb read") || strings.Contains(out.Text, "crumb grep") {
		t.Errorf("the view gives reads of a result that was not stored:\n%s", out.Text)
	}
	if n := tokens.O200k().Count(out.Text); n > 2000 {
		t.Errorf("%d tokens", n)
	}
}

var _ store.Object = fdObject{}

// FuzzFileProject checks that any content with any arguments gets a view
// within the budget whose continuation is valid, readable and starts at a
// line the view does not show.
func FuzzFileProject(f *testing.F) {
	for _, name := range []string{"go-bufio", "py-argparse", "md-node-http", "rs-smallvec", "py-subprocess-numbered"} {
		fx := loadFDFixture(f, "file", name)
		f.Add(fx.output[:min(len(fx.output), 6000)], string(fx.Args), uint16(200))
	}
	f.Add([]byte("package a\nfunc A() {\n}\n"), `{"symbol": "A"}`, uint16(0))
	f.Add(bytes.Repeat([]byte("x"), 70000), `{"offset": 1, "limit": 1}`, uint16(50))
	f.Add([]byte("def f():\n    pass\n\tclass C:\n  def g(self): pass\n"), `{"pattern": "("}`, uint16(10))
	f.Add([]byte("# A\ntext\n===\n## B\n```\n# not\n```\n"), `{"intent": "the B part", "path": "x.md"}`, uint16(300))
	f.Add([]byte("     5\tfoo\n     6\tbar\n     7\t\n"), `{"view_range": [6, 7]}`, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, args string, budget uint16) {
		b := recall.MinBudget + int(budget)%2500
		in := testInput(t, data, b)
		if json.Valid([]byte(args)) {
			in.Args = json.RawMessage(args)
		}
		out, err := Project(context.Background(), KindFile, in)
		if err != nil {
			t.Fatalf("Project: %v", err)
		}
		fuzzCheckView(t, in, out, true)
	})
}

// fuzzCheckView checks a view made from any input: the budget, a valid
// continuation that reads something, and, for numbered views, one that does
// not start at a line the view shows.
func fuzzCheckView(t *testing.T, in *Input, out Output, numbered bool) {
	t.Helper()
	if n := tokens.O200k().Count(out.Text); n > in.Budget {
		t.Fatalf("view takes %d tokens, over the budget of %d:\n%s", n, in.Budget, out.Text)
	}
	if out.Next == nil {
		if !out.Complete {
			t.Fatal("nothing to read next, but the view is not complete")
		}
		return
	}
	if err := out.Next.Validate(); err != nil {
		t.Fatalf("invalid continuation: %v", err)
	}
	p, err := recall.ReadObject(context.Background(), fdObject{in.Source.(*memSource)}, *out.Next, recall.Options{Budget: 500})
	if errors.Is(err, recall.ErrBinary) {
		return // binary content is projected by kind binary, never as a file
	}
	if err != nil {
		t.Fatalf("reading %v: %v", out.Next.Argv(), err)
	}
	if p.To <= p.From {
		t.Fatalf("the continuation reads nothing: [%d, %d)", p.From, p.To)
	}
	if numbered && out.Next.Lines != nil {
		e, err := newExcerptor(in, true)
		if err != nil {
			t.Fatal(err)
		}
		if nb, _ := view.DetectNumbering(e); nb.On {
			return
		}
		if _, ok := shownNumbered(out.Text)[out.Next.Lines.From]; ok {
			t.Fatalf("the continuation starts at line %d, which the view shows", out.Next.Lines.From)
		}
	}
}

func TestDetectFileDirTools(t *testing.T) {
	for tool, want := range map[string]Kind{
		"Read": KindFile, "view_file": KindFile, "read_many_files": KindFile,
		"LS": KindDir, "Glob": KindDir, "list_directory_with_sizes": KindDir, "find_files": KindDir, "file_search": KindDir,
	} {
		if got := Detect([]byte("some text\n"), Hints{Tool: tool}); got != want {
			t.Errorf("Detect(tool %q) = %s, want %s", tool, got, want)
		}
	}
}

// BenchmarkFileProject projects a 100 MB source file (net/http's server.go,
// repeated), scanned with patterns in bounded memory.
func BenchmarkFileProject(b *testing.B) {
	fx := loadFDFixture(b, "file", "go-server")
	data := bytes.Repeat(fx.output, (100<<20)/len(fx.output)+1)
	benchProject(b, KindFile, data, fx.Args)
}

// BenchmarkFileProjectIntent projects the same 100 MB source for a read
// with an intent: one pass to weigh the words, one over the definitions,
// and the few best read again.
func BenchmarkFileProjectIntent(b *testing.B) {
	fx := loadFDFixture(b, "file", "go-server")
	data := bytes.Repeat(fx.output, (100<<20)/len(fx.output)+1)
	benchProject(b, KindFile, data, json.RawMessage(`{"path": "server.go", "intent": "how idle connections are closed on shutdown"}`))
}

// BenchmarkFileProjectParsed projects an 8 MB Go file, the largest that is
// parsed with go/parser.
func BenchmarkFileProjectParsed(b *testing.B) {
	fx := loadFDFixture(b, "file", "go-server")
	// The declarations again and again, after one package clause and
	// imports: a file go/parser parses whole.
	_, decls, _ := bytes.Cut(fx.output, []byte("\n)\n"))
	data := append([]byte(nil), fx.output...)
	for len(data)+len(decls) < maxGoParse {
		data = append(data, decls...)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "", data, parser.SkipObjectResolution); err != nil {
		b.Fatal(err)
	}
	benchProject(b, KindFile, data, fx.Args)
}

func benchProject(b *testing.B, k Kind, data []byte, args json.RawMessage) {
	in := testInput(b, data, 2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := *in
		in.Args = args
		if _, err := Project(context.Background(), k, &in); err != nil {
			b.Fatal(err)
		}
	}
}
