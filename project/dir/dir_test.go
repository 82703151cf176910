package dir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kindtest"
	"github.com/crumb-dev/crumb/project/internal/kit"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// dirCounts are the counts a directory view's header gives.
type dirCounts struct {
	entries, files, dirs, links int64
}

var dirCountsRe = regexp.MustCompile(`([\d,]+) entr(?:y|ies) \(([\d,]+) files?, ([\d,]+) dirs?(?:, ([\d,]+) links?)?\)`)

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

func headerCounts(t *testing.T, view string) dirCounts {
	t.Helper()
	header := strings.SplitN(view, "\n", 2)[0]
	m := dirCountsRe.FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("no counts in the header: %s", header)
	}
	return dirCounts{atoi64(m[1]), atoi64(m[2]), atoi64(m[3]), atoi64(m[4])}
}

// collapsedCount returns the entries a view says are under a collapsed name.
func collapsedCount(view, name string) (int64, bool) {
	m := regexp.MustCompile(`(?m)^collapsed ` + regexp.QuoteMeta(name) + `/: ([\d,]+) entr`).FindStringSubmatch(view)
	if m == nil {
		return 0, false
	}
	return atoi64(m[1]), true
}

var indexEntry = regexp.MustCompile(`^  +(\d+) (.+?)( \(collapsed: [\d,]+ entr(?:y|ies)\))?$`)

// viewIndex returns the index entries of a directory view.
func viewIndex(view string) map[int64]string {
	out := map[int64]string{}
	in := false
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "entries in the omitted lines, the shallowest first") {
			in = true
			continue
		}
		if !in {
			continue
		}
		m := indexEntry.FindStringSubmatch(l)
		if m == nil {
			break
		}
		out[atoi64(m[1])] = m[2]
	}
	return out
}

// checkIndexTrue checks every indexed path against the listing line it
// names: the line holds the whole path's last name, and for listings of
// paths, ends with the whole path.
func checkIndexTrue(t *testing.T, src []byte, view string, format dirFormat) map[int64]string {
	t.Helper()
	lines := kindtest.FileLines(src)
	idx := viewIndex(view)
	for n, p := range idx {
		if n < 1 || n > int64(len(lines)) {
			t.Errorf("index names line %d of %d", n, len(lines))
			continue
		}
		line := strings.TrimRight(lines[n-1], "/ ")
		p = strings.TrimSuffix(p, "/")
		switch format {
		case formatPaths:
			if !strings.HasSuffix(line, p) {
				t.Errorf("index entry %d %q: line is %q", n, p, line)
			}
		default:
			if !strings.Contains(line, path.Base(p)) {
				t.Errorf("index entry %d %q: line is %q", n, p, line)
			}
		}
	}
	return idx
}

var dirGoldenCases = []struct {
	fixture string
	format  dirFormat
	budget  int
	check   func(t *testing.T, src []byte, out project.Output, view string)
}{
	{fixture: "find-go-src", format: formatPaths, check: checkFindGoSrc},
	{fixture: "find-npm-project", format: formatPaths, check: checkNpmProject},
	{fixture: "tree-npm-project", format: formatTree, check: checkTreeProject},
	{fixture: "tree-ascii-npm-project", format: formatTree, check: checkTreeProject},
	{fixture: "ls-la-runtime", format: formatLs, check: checkRuntimeListing},
	{fixture: "ls-lR-http", format: formatLs},
	{fixture: "mcp-list-runtime", format: formatMCP, check: checkRuntimeListing},
	{fixture: "mcp-sizes-ssa", format: formatMCP, budget: 800, check: checkSizes},
	{fixture: "git-ls-files-main", format: formatPaths, check: checkWhole},
}

func TestGoldenDir(t *testing.T) {
	for _, c := range dirGoldenCases {
		t.Run(c.fixture, func(t *testing.T) {
			fx := kindtest.LoadFixture(t, "dir", c.fixture)
			budget := c.budget
			if budget == 0 {
				budget = 2000
			}
			out, in := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, fx.Args, budget)
			kindtest.Golden(t, filepath.Join(fx.Dir, "view.golden"), out.Text)
			kindtest.CheckView(t, in, out, true)
			e, err := kit.NewExcerptor(in, false)
			if err != nil {
				t.Fatal(err)
			}
			if f, err := detectDirFormat(e); err != nil || f != c.format {
				t.Errorf("format %v (%v), want %v", f, err, c.format)
			}
			if !out.Complete {
				checkIndexTrue(t, fx.Output, out.Text, c.format)
			}
			if c.check != nil {
				c.check(t, fx.Output, out, out.Text)
			}
			again, _ := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, fx.Args, budget)
			if again.Text != out.Text {
				t.Error("two projections of the same listing differ")
			}
		})
	}
}

func checkFindGoSrc(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	lines := kindtest.FileLines(src)
	c := headerCounts(t, view)
	// Every line but the starting point is an entry.
	if c.entries != int64(len(lines))-1 {
		t.Errorf("%d entries, want %d", c.entries, len(lines)-1)
	}
	// Directories: the paths some other path is inside of.
	dirs := map[string]bool{}
	for _, l := range lines[1:] {
		dirs[path.Dir(l)] = true
	}
	delete(dirs, lines[0])
	delete(dirs, path.Dir(lines[0]))
	if c.dirs != int64(len(dirs)) {
		t.Errorf("%d dirs, want %d", c.dirs, len(dirs))
	}
	if !strings.HasPrefix(view, "[crumb dir /usr/local/go/src: paths,") {
		t.Errorf("the header does not name the root: %.80s", view)
	}
	// vendor is collapsed, counted right.
	var want int64
	for _, l := range lines {
		if strings.Contains(l+"/", "/vendor/") && !strings.HasSuffix(l, "/vendor") {
			want++
		}
	}
	// testdata or build would be counted too, but these are under vendor
	// only where vendor comes first.
	got, ok := collapsedCount(view, "vendor")
	if !ok {
		t.Fatal("vendor is not collapsed")
	}
	if got > want || got < want*9/10 {
		t.Errorf("collapsed vendor/: %d entries, want about %d", got, want)
	}
	idx := viewIndex(view)
	if len(idx) < 20 {
		t.Errorf("the index lists %d paths", len(idx))
	}
	// The shallowest first: every top-level directory is listed before any
	// path three levels deep.
	deep := false
	for _, p := range idx {
		if strings.Count(strings.TrimSuffix(p, "/"), "/") >= 2 {
			deep = true
		}
	}
	if deep {
		for _, l := range lines[1:] {
			rel := strings.TrimPrefix(l, lines[0]+"/")
			if !strings.Contains(rel, "/") && !inIndex(idx, rel) && !shownRaw(view, l) {
				t.Errorf("top-level %q is neither listed nor shown while deeper paths are", rel)
			}
		}
	}
	if !regexp.MustCompile(`(?m)^by extension \(outside collapsed dirs\): \.go `).MatchString(view) {
		t.Error("no counts by extension")
	}
	if !strings.Contains(view, "largest subtrees (entries under them): cmd/ ") {
		t.Error("cmd/ is not the largest subtree")
	}
}

func inIndex(idx map[int64]string, p string) bool {
	for _, q := range idx {
		if strings.TrimSuffix(q, "/") == p {
			return true
		}
	}
	return false
}

func shownRaw(view, line string) bool {
	for _, l := range strings.Split(view, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// npmTruth counts the entries of the npm project from its find listing.
func npmTruth(t *testing.T) (entries int64, under map[string]int64) {
	t.Helper()
	fx := kindtest.LoadFixture(t, "dir", "find-npm-project")
	lines := kindtest.FileLines(fx.Output)
	under = map[string]int64{}
	for _, l := range lines[1:] {
		entries++
		rel := strings.TrimPrefix(l, "./")
		first, _, more := strings.Cut(rel, "/")
		if more && (collapsedNames[first] || collapsedAtRoot[first]) {
			under[first]++
		}
	}
	return entries, under
}

func checkNpmProject(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	entries, under := npmTruth(t)
	if c := headerCounts(t, view); c.entries != entries {
		t.Errorf("%d entries, want %d", c.entries, entries)
	}
	for _, name := range []string{"node_modules", ".git", "dist"} {
		got, ok := collapsedCount(view, name)
		if !ok || got != under[name] {
			t.Errorf("collapsed %s/: %d entries (%v), want %d", name, got, ok, under[name])
		}
	}
	// What collapsed directories hold is indexed only after everything
	// else in the omitted lines.
	idx := viewIndex(view)
	inner := false
	for _, p := range idx {
		first, _, more := strings.Cut(strings.TrimSuffix(p, "/"), "/")
		inner = inner || more && (collapsedNames[first] || collapsedAtRoot[first])
	}
	if !inner {
		return
	}
	fx := kindtest.LoadFixture(t, "dir", "find-npm-project")
	for _, l := range kindtest.FileLines(fx.Output)[1:] {
		rel := strings.TrimPrefix(l, "./")
		first, _, more := strings.Cut(rel, "/")
		if more && (collapsedNames[first] || collapsedAtRoot[first]) {
			continue
		}
		if !inIndex(idx, rel) && !shownRaw(view, l) && !regexp.MustCompile(`(?m)(── |-- )`+regexp.QuoteMeta(path.Base(rel))+`$`).MatchString(view) {
			t.Errorf("%q is not indexed, while what collapsed directories hold is", rel)
		}
	}
}

func checkTreeProject(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	checkNpmProject(t, src, out, view)
	// tree's own report agrees with the counts.
	lines := kindtest.FileLines(src)
	m := regexp.MustCompile(`^(\d+) directories, (\d+) files$`).FindStringSubmatch(lines[len(lines)-1])
	if m == nil {
		t.Fatalf("no report line: %q", lines[len(lines)-1])
	}
	// tree counts the directory it lists among the directories.
	c := headerCounts(t, view)
	if c.dirs != atoi64(m[1])-1 || c.files != atoi64(m[2]) || c.entries != c.dirs+c.files {
		t.Errorf("counted %+v; tree says %s directories, %s files", c, m[1], m[2])
	}
	if !strings.Contains(view, "lines omitted") && !strings.Contains(view, m[0]) {
		t.Error("the report line is not shown")
	}
}

// checkRuntimeListing checks ls -la and the MCP server's list_directory of
// the same directory agree.
func checkRuntimeListing(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	mcp := kindtest.LoadFixture(t, "dir", "mcp-list-runtime")
	var files, dirs int64
	for _, l := range kindtest.FileLines(mcp.Output) {
		switch {
		case strings.HasPrefix(l, "[FILE] "):
			files++
		case strings.HasPrefix(l, "[DIR] "):
			dirs++
		}
	}
	c := headerCounts(t, view)
	if c.files+c.links != files || c.dirs != dirs {
		t.Errorf("counted %+v; the directory holds %d files and %d dirs", c, files, dirs)
	}
	if !strings.Contains(view, "by extension: .go ") {
		t.Error("no counts by extension")
	}
}

func checkSizes(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	if !strings.Contains(view, "largest files: ") {
		t.Error("no largest files")
	}
	m := regexp.MustCompile(`Total: (\d+) files, (\d+) directories`).FindStringSubmatch(string(src))
	c := headerCounts(t, view)
	if m == nil || c.files != atoi64(m[1]) || c.dirs != atoi64(m[2]) {
		t.Errorf("counted %+v; the server says %v", c, m)
	}
}

func checkWhole(t *testing.T, src []byte, out project.Output, view string) {
	t.Helper()
	if !out.Complete || !strings.HasSuffix(view, strings.TrimSuffix(string(src), "\n")) {
		t.Errorf("a small listing is not shown whole")
	}
}

func TestTreeLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		depth int
		name  string
	}{
		{"├── a", 1, "a"},
		{"│   └── b c", 2, "b c"},
		{"│       ├── d", 3, "d"},
		{"    `-- e", 2, "e"},
		{"|   |-- f", 2, "f"},
		{"│\u00a0\u00a0 └── g", 2, "g"},
		{".", 0, ""},
		{"3 directories, 4 files", 0, ""},
		{"    plain", 0, ""},
		{"", 0, ""},
	} {
		d, name := treeLine([]byte(c.line))
		if d != c.depth || string(name) != c.name {
			t.Errorf("treeLine(%q) = %d, %q; want %d, %q", c.line, d, name, c.depth, c.name)
		}
	}
}

func TestParseLsLine(t *testing.T) {
	for _, c := range []struct {
		line string
		kind byte
		size int64
		name string
	}{
		{"-rw-r--r--  1 root root  21828 Aug 28 16:20 HACKING.md", '-', 21828, "HACKING.md"},
		{"drwxr-xr-x 14 root root  36864 Aug 28  2023 my dir", 'd', 36864, "my dir"},
		{"lrwxrwxrwx  1 me   me       11 Jan  1 12:00 link -> target", 'l', 11, "link"},
		{"-rw-r--r--. 1 me me 5 2024-01-02 03:04 iso.txt", '-', 5, "iso.txt"},
		{"-rw-r--r-- 1 me me 5 2024-01-02 03:04:05.000000000 +0000 full.txt", '-', 5, "full.txt"},
		{"-rw-r--r-- 1 me 5 Jan  1 12:00 no-group", '-', 5, "no-group"},
		{"crw-rw-rw- 1 root root 1, 3 Jan  1 12:00 null", 'c', -1, "null"},
	} {
		e, ok := parseLsLine([]byte(c.line))
		if !ok || e.kind != c.kind || e.size != c.size || string(e.name) != c.name {
			t.Errorf("parseLsLine(%q) = %c %d %q %v; want %c %d %q", c.line, e.kind, e.size, e.name, ok, c.kind, c.size, c.name)
		}
	}
	for _, bad := range []string{"total 12", "hello world", "drwxr-xr-x", "-rw-r--r-- 1 a b c d e f"} {
		if _, ok := parseLsLine([]byte(bad)); ok {
			t.Errorf("parseLsLine(%q) parsed", bad)
		}
	}
}

func TestPathsRoot(t *testing.T) {
	for _, c := range []struct{ listing, root string }{
		{"/a/b\n/a/b/c\n/a/b/d/e\n", "/a/b"},
		{"./x\n./y/z\n", "."},
		{"a/b.go\na/c.go\n", "a"},
		{"a.go\nb/c.go\n", ""},
		{"/x\n/y\n", "/"},
		{"only/one/file.go\n", "only/one"},
		{"src/\nsrc/a.go\n", "src"},
	} {
		in := kindtest.Input(t, []byte(c.listing), 2000)
		got, err := pathsRoot(context.Background(), in)
		if err != nil || got != c.root {
			t.Errorf("pathsRoot(%q) = %q, %v; want %q", c.listing, got, err, c.root)
		}
	}
}

// TestDirBudgets checks every listing at budgets from the least up.
func TestDirBudgets(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range entries {
		fx := kindtest.LoadFixture(t, "dir", ent.Name())
		for _, budget := range []int{recall.MinBudget, 180, 400, 1000, 4000} {
			t.Run(fmt.Sprintf("%s/%d", ent.Name(), budget), func(t *testing.T) {
				out, in := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, fx.Args, budget)
				kindtest.CheckView(t, in, out, false)
				e, _ := kit.NewExcerptor(in, false)
				f, _ := detectDirFormat(e)
				checkIndexTrue(t, fx.Output, out.Text, f)
			})
		}
	}
}

// TestDirStoreFailed checks a listing that could not be stored: no reads
// are offered.
func TestDirStoreFailed(t *testing.T) {
	fx := kindtest.LoadFixture(t, "dir", "find-go-src")
	in := kindtest.Input(t, fx.Output, 2000)
	in.Ref, in.StoreError = "", "read-only file system"
	out, err := project.Project(context.Background(), project.KindDir, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Next != nil || strings.Contains(out.Text, "crumb read") || strings.Contains(out.Text, "crumb grep") {
		t.Errorf("reads offered for a result that was not stored:\n%s", out.Text)
	}
	if n := tokens.O200k().Count(out.Text); n > 2000 {
		t.Errorf("%d tokens", n)
	}
}

// TestDirLongPaths checks that paths longer than the budget are never cut
// in the index: they are left out whole.
func TestDirLongPaths(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, "root/%s/file%d.txt\n", strings.Repeat("deep/", 20+i%40), i)
	}
	out, in := kindtest.Project(t, project.KindDir, b.Bytes(), "find", json.RawMessage(`{}`), 300)
	kindtest.CheckView(t, in, out, false)
	checkIndexTrue(t, b.Bytes(), out.Text, formatPaths)
}

// FuzzDirProject checks that any listing gets a view within the budget
// whose continuation is valid and reads something.
func FuzzDirProject(f *testing.F) {
	for _, name := range []string{"find-go-src", "tree-npm-project", "tree-ascii-npm-project", "ls-la-runtime", "mcp-sizes-ssa", "git-ls-files-main"} {
		fx := kindtest.LoadFixture(f, "dir", name)
		f.Add(fx.Output[:min(len(fx.Output), 8000)], uint16(300))
	}
	f.Add([]byte("/\n/a\n/a/b\n//\n/a/b/c/\n"), uint16(0))
	f.Add([]byte(".\n├── a\n│   └── b\n└── c\n    └── d\n\n2 directories, 2 files\n"), uint16(5))
	f.Add([]byte("x:\ntotal 0\ndrwxr-xr-x 2 a b 4096 Jan  1 12:00 .\n-rw-r--r-- 1 a b 1 Jan  1 12:00 f\n\nx/y:\n-rw-r--r-- 1 a b 1 Jan  1 12:00 g\n"), uint16(7))
	f.Add([]byte("[DIR] node_modules\n[FILE] a.js       1.00 KB\nTotal: 1 files, 1 directories\n"), uint16(9))
	f.Fuzz(func(t *testing.T, data []byte, budget uint16) {
		b := recall.MinBudget + int(budget)%2500
		in := kindtest.Input(t, data, b)
		out, err := project.Project(context.Background(), project.KindDir, in)
		if err != nil {
			t.Fatalf("Project: %v", err)
		}
		kindtest.FuzzCheckView(t, in, out, false)
	})
}

// BenchmarkDirProject projects a 100 MB listing: find's listing of the Go
// source tree under many roots.
func BenchmarkDirProject(b *testing.B) {
	fx := kindtest.LoadFixture(b, "dir", "find-go-src")
	var buf bytes.Buffer
	for i := 0; buf.Len() < 100<<20; i++ {
		for _, l := range bytes.SplitAfter(fx.Output, []byte("\n")) {
			if len(l) > 0 {
				fmt.Fprintf(&buf, "/copy%03d%s", i, l)
			}
		}
	}
	kindtest.Bench(b, project.KindDir, buf.Bytes(), fx.Args)
}

// TestDirNeverCutsPaths checks that no line of a listing is shown in part,
// even when a path is longer than the room for the listing's first lines.
func TestDirNeverCutsPaths(t *testing.T) {
	long := "/" + strings.Repeat("a-very-long-directory-name/", 80) + "file.txt"
	var b bytes.Buffer
	b.WriteString(long + "\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "/x/f%d.go\n", i)
	}
	b.WriteString(long + "\n")
	for _, budget := range []int{recall.MinBudget, 300, 2000} {
		out, in := kindtest.Project(t, project.KindDir, b.Bytes(), "find", nil, budget)
		kindtest.CheckView(t, in, out, false)
		for _, l := range strings.Split(out.Text, "\n") {
			if strings.Contains(l, "a-very-long") && (strings.HasSuffix(l, "…") || strings.HasPrefix(l, "… ")) {
				t.Errorf("budget %d: a path is shown in part: %s", budget, l)
			}
		}
		if out.Next != nil && out.Next.Bytes != nil {
			t.Errorf("budget %d: the continuation reads bytes, as if a line was cut", budget)
		}
	}
}
