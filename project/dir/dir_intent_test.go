package dir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kindtest"
	"github.com/crumb-dev/crumb/project/internal/kit"
	"github.com/crumb-dev/crumb/recall"
)

// dirIntentCases project the fixtures with an intent: the view must show
// the wanted listing lines whole, under the lines of their directories.
var dirIntentCases = []struct {
	name    string
	fixture string
	args    string // the call's arguments; empty for the fixture's own
	want    []string
}{
	{
		name: "find-reverseproxy", fixture: "find-go-src",
		args: `{"path": "/usr/local/go/src", "intent": "where is the reverse proxy implemented"}`,
		want: []string{"/usr/local/go/src/net/http/httputil/reverseproxy.go", "/usr/local/go/src/net/http/httputil/reverseproxy_test.go"},
	},
	{
		name: "tree-router", fixture: "tree-npm-project",
		args: `{"path": ".", "flags": "-a", "description": "Show the project tree, to find how express's router dispatches"}`,
		// tree draws with no-break spaces in a UTF-8 locale.
		want: []string{"│\u00a0\u00a0 ├── express", "│\u00a0\u00a0 │\u00a0\u00a0 │\u00a0\u00a0 ├── router"},
	},
	{
		name: "ascii-tree-router", fixture: "tree-ascii-npm-project",
		args: `{"path": ".", "flags": "-a --charset=ascii", "description": "Show the project tree, to find how express's router dispatches"}`,
		want: []string{"|   |   |   |-- router"},
	},
	{
		name: "ls-malloc", fixture: "ls-la-runtime",
		args: `{"path": "/usr/local/go/src/runtime", "flags": "-la", "question": "which files hold the memory allocator (malloc)?"}`,
		want: []string{"-rw-r--r--  1 root root  90694 Aug 28 16:20 malloc.go"},
	},
	{
		name: "ls-R-pprof", fixture: "ls-lR-http",
		want: []string{"/usr/local/go/src/net/http/pprof:", "-rw-r--r-- 1 root root 14849 Aug 28 16:20 pprof.go"},
	},
	{
		name: "mcp-signals", fixture: "mcp-list-runtime",
		args: `{"path": "/usr/local/go/src/runtime", "intent": "how are signals handled on unix"}`,
		want: []string{"[FILE] signal_unix.go"},
	},
}

var intentEntry = regexp.MustCompile(`^  +(\d+) (.*)$`)

// viewIntent returns the lines of a view's intent section by line number,
// in the order shown, and the heading; nil when there is no section.
func viewIntent(view string) (heading string, nums []int64, texts map[int64]string) {
	texts = map[int64]string{}
	in := false
	for _, l := range strings.Split(view, "\n") {
		if !in {
			if strings.HasPrefix(l, "[") && strings.Contains(l, " matching the intent (") {
				heading, in = l, true
			}
			continue
		}
		m := intentEntry.FindStringSubmatch(l)
		if m == nil {
			break
		}
		n := atoi64(m[1])
		nums = append(nums, n)
		texts[n] = m[2]
	}
	return heading, nums, texts
}

// checkIntentTrue checks a view's intent section against the listing: each
// line is the listing's line of that number, exactly, and shown once; the
// lines come in listing order unless they are ranked best first; each entry of a tree is under the line of its parent, and
// each entry of ls -R under its directory header; the index does not list
// them again.
func checkIntentTrue(t *testing.T, src []byte, view string, format dirFormat) map[int64]string {
	t.Helper()
	lines := kindtest.FileLines(src)
	heading, nums, texts := viewIntent(view)
	if heading == "" {
		return nil
	}
	if len(nums) == 0 {
		t.Fatalf("an intent heading without lines: %s", heading)
	}
	for i, n := range nums {
		if n < 1 || n > int64(len(lines)) {
			t.Fatalf("the intent section names line %d of %d", n, len(lines))
		}
		if got, want := texts[n], strings.TrimRight(lines[n-1], "\r"); got != want {
			t.Errorf("intent line %d is %q; the listing has %q", n, got, want)
		}
		if i > 0 && nums[i-1] == n {
			t.Errorf("intent line %d shown twice", n)
		}
		if i > 0 && nums[i-1] > n && !strings.Contains(heading, ", best first") {
			t.Errorf("intent lines out of order: %d after %d", n, nums[i-1])
		}
		switch format {
		case formatTree:
			d, _ := treeLine([]byte(strings.TrimRight(lines[n-1], " \t")))
			if d <= 1 {
				break
			}
			// The parent: the last entry before at a lesser level, when
			// it is one level up (a malformed tree may skip levels).
			parent := int64(0)
			for k := n - 1; k >= 1; k-- {
				if pd, _ := treeLine([]byte(strings.TrimRight(lines[k-1], " \t"))); pd > 0 && pd < d {
					if pd == d-1 {
						parent = k
					}
					break
				}
			}
			if _, ok := texts[parent]; parent > 0 && !ok {
				t.Errorf("tree line %d is shown without its parent, line %d", n, parent)
			}
		case formatLs:
			if _, ok := parseLsLine([]byte(lines[n-1])); !ok {
				break
			}
			header := int64(0)
			for k := n - 1; k >= 1; k-- {
				if l := lines[k-1]; strings.HasSuffix(l, ":") {
					if _, ok := parseLsLine([]byte(l)); !ok {
						header = k
						break
					}
				}
			}
			if _, ok := texts[header]; header > 0 && !ok {
				t.Errorf("ls line %d is shown without its header, line %d", n, header)
			}
		}
	}
	for n := range viewIndex(view) {
		if _, ok := texts[n]; ok {
			t.Errorf("line %d is both in the intent section and in the index", n)
		}
	}
	return texts
}

func TestDirIntent(t *testing.T) {
	for _, c := range dirIntentCases {
		t.Run(c.name, func(t *testing.T) {
			fx := kindtest.LoadFixture(t, "dir", c.fixture)
			args := json.RawMessage(c.args)
			if c.args == "" {
				args = fx.Args
			}
			out, in := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, args, 2000)
			golden := filepath.Join(fx.Dir, "intent-"+c.name+".golden")
			if c.args == "" {
				golden = filepath.Join(fx.Dir, "view.golden")
			}
			kindtest.Golden(t, golden, out.Text)
			kindtest.CheckView(t, in, out, true)
			e, err := kit.NewExcerptor(in, false)
			if err != nil {
				t.Fatal(err)
			}
			format, _ := detectDirFormat(e)
			texts := checkIntentTrue(t, fx.Output, out.Text, format)
			checkIndexTrue(t, fx.Output, out.Text, format)
			if texts == nil {
				t.Fatalf("no intent section:\n%s", out.Text)
			}
			shown := map[string]bool{}
			for _, s := range texts {
				shown[s] = true
			}
			for _, w := range c.want {
				if !shown[w] {
					t.Errorf("the intent section does not show %q", w)
				}
			}
			// The same listing without the intent: no section.
			plain, _ := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, json.RawMessage(`{}`), 2000)
			if h, _, _ := viewIntent(plain.Text); h != "" {
				t.Errorf("an intent section without an intent: %s", h)
			}
			again, _ := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, args, 2000)
			if again.Text != out.Text {
				t.Error("two projections of the same listing differ")
			}
		})
	}
}

// TestDirIntentBudgets checks views with an intent at budgets from the least
// up: within the budget, the section true to the listing.
func TestDirIntentBudgets(t *testing.T) {
	for _, c := range dirIntentCases {
		fx := kindtest.LoadFixture(t, "dir", c.fixture)
		args := json.RawMessage(c.args)
		if c.args == "" {
			args = fx.Args
		}
		for _, budget := range []int{recall.MinBudget, 180, 400, 1000, 4000} {
			t.Run(fmt.Sprintf("%s/%d", c.name, budget), func(t *testing.T) {
				out, in := kindtest.Project(t, project.KindDir, fx.Output, fx.Tool, args, budget)
				kindtest.CheckView(t, in, out, false)
				e, _ := kit.NewExcerptor(in, false)
				f, _ := detectDirFormat(e)
				checkIntentTrue(t, fx.Output, out.Text, f)
				checkIndexTrue(t, fx.Output, out.Text, f)
			})
		}
	}
}

// TestDirIntentRarity checks that a word naming a few entries is not
// crowded out by one naming thousands, wherever the few are.
func TestDirIntentRarity(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("/repo\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "/repo/pkg/handlers/handler%04d.go\n", i)
		switch i {
		case 1500:
			b.WriteString("/repo/internal/lrucache/lrucache.go\n")
		case 2990:
			b.WriteString("/repo/zz/cachestats.go\n")
		}
	}
	out, in := kindtest.Project(t, project.KindDir, b.Bytes(), "bash", json.RawMessage(`{"command": "find /repo", "description": "Find the handler that uses the cache"}`), 1000)
	kindtest.CheckView(t, in, out, false)
	_, _, texts := viewIntent(out.Text)
	shown := map[string]bool{}
	for _, s := range texts {
		shown[s] = true
	}
	for _, want := range []string{"/repo/internal/lrucache/lrucache.go", "/repo/zz/cachestats.go"} {
		if !shown[want] && !shownRaw(out.Text, want) {
			t.Errorf("%s is not shown:\n%s", want, out.Text)
		}
	}
	checkIntentTrue(t, b.Bytes(), out.Text, formatPaths)
}

// TestDirIntentWords checks which words of an intent rank a listing: not
// those that describe listings, nor those the command itself holds.
func TestDirIntentWords(t *testing.T) {
	for _, c := range []struct {
		args string
		want []string // the words searched for; nil for no matcher
	}{
		{`{"description": "List all files in the project tree"}`, nil},
		{`{"description": "List files in the current directory"}`, nil},
		{`{"description": "Explore the repository structure, including hidden files and permissions"}`, nil},
		{`{"command": "ls -lR /usr/local/go/src/net", "description": "List net and its subdirectories with sizes, to find cookiejar's files"}`, []string{"cookiejar"}},
		{`{"command": "tree -a .", "description": "Show the project tree, to find where jest formats assertion errors"}`, []string{"jest", "formats", "assertion", "errors"}},
		{`{"intent": "Check that libssl and libcrypto 3 are installed"}`, []string{"libssl", "libcrypto", "installed"}},
		{`{"path": "src", "intent": "the source of the tokenizer"}`, []string{"source", "tokenizer"}},
		{`{"command": "find . -type f -name '*.go'", "description": "Find the type checker"}`, []string{"type", "checker"}},
		{`{}`, nil},
	} {
		m := newDirMatcher(&project.Input{Args: json.RawMessage(c.args)})
		var got []string
		if m != nil {
			for _, w := range m.m.Intent().Words {
				got = append(got, w.Text)
			}
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: words %q, want %q", c.args, got, c.want)
		}
	}
}

// FuzzDirIntent checks that any listing with any intent gets a view within
// the budget whose intent section is true to the listing.
func FuzzDirIntent(f *testing.F) {
	for _, c := range dirIntentCases {
		fx := kindtest.LoadFixture(f, "dir", c.fixture)
		args := c.args
		if args == "" {
			args = string(fx.Args)
		}
		f.Add(fx.Output[:min(len(fx.Output), 8000)], project.IntentOf(json.RawMessage(args)), uint16(300))
	}
	f.Add([]byte(".\n├── a\n│   └── bee\n└── c\n    └── bee\n\n2 directories, 2 files\n"), "the bee", uint16(5))
	f.Add([]byte("x:\ntotal 0\n-rw-r--r-- 1 a b 1 Jan  1 12:00 fox\n\nx/y:\n-rw-r--r-- 1 a b 1 Jan  1 12:00 fox\n"), "foxes", uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, intent string, budget uint16) {
		b := recall.MinBudget + int(budget)%2500
		args, _ := json.Marshal(map[string]string{"intent": intent})
		out, in := kindtest.Project(t, project.KindDir, data, "bash", args, b)
		kindtest.FuzzCheckView(t, in, out, false)
		if cleanLines(data) {
			e, _ := kit.NewExcerptor(in, false)
			f, _ := detectDirFormat(e)
			checkIntentTrue(t, data, out.Text, f)
		}
	})
}

// cleanLines reports whether every line of b is shown as it is.
func cleanLines(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		if textfmt.CleanLine(l) != string(l) || bytes.IndexByte(l, '\r') >= 0 {
			return false
		}
	}
	return true
}

// BenchmarkDirProjectIntent projects a 100 MB listing with an intent.
func BenchmarkDirProjectIntent(b *testing.B) {
	fx := kindtest.LoadFixture(b, "dir", "find-go-src")
	var buf bytes.Buffer
	for i := 0; buf.Len() < 100<<20; i++ {
		for _, l := range bytes.SplitAfter(fx.Output, []byte("\n")) {
			if len(l) > 0 {
				fmt.Fprintf(&buf, "/copy%03d%s", i, l)
			}
		}
	}
	kindtest.Bench(b, project.KindDir, buf.Bytes(), json.RawMessage(`{"intent": "where is the reverse proxy implemented"}`))
}
