package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exactCases read real lock files and bundles of many files (made by
// testdata/exact/make.sh) with an intent that names one package, or one
// function and the file it lives in. The view must show the entry or the
// function the intent names (want) and prefer it to those that merely share
// its name's start (partial): these come after it, if at all.
var exactCases = []struct {
	name, fixture string
	kind          Kind
	args          string
	budget        int
	want          string
	partial       []string
}{
	{
		name: "npm-lodash", fixture: "lock-npm", kind: KindJSON, budget: 800,
		args:    `{"path": "package-lock.json", "intent": "which version of lodash is locked"}`,
		want:    `"node_modules/lodash": {`,
		partial: []string{`"node_modules/lodash.merge"`, `"node_modules/lodash.debounce"`},
	},
	{
		name: "npm-core-js", fixture: "lock-npm", kind: KindJSON, budget: 800,
		args:    `{"path": "package-lock.json", "intent": "the core-js package"}`,
		want:    `"node_modules/core-js": {`,
		partial: []string{`"node_modules/core-js-pure"`},
	},
	{
		name: "npm-types-node", fixture: "lock-npm", kind: KindJSON, budget: 800,
		args:    `{"path": "package-lock.json", "intent": "the resolved @types/node"}`,
		want:    `"node_modules/@types/node": {`,
		partial: []string{`"node_modules/@types/node-fetch"`},
	},
	{
		name: "yarn-lodash", fixture: "lock-yarn", kind: KindFile, budget: 800,
		args: `{"path": "yarn.lock", "intent": "which version of lodash is locked"}`,
		want: "lodash@4.17.21:", partial: []string{"lodash.merge@4.6.2:", "lodash.debounce@4.0.8:"},
	},
	{
		name: "pnpm-core-js", fixture: "lock-pnpm", kind: KindFile, budget: 800,
		args: `{"path": "pnpm-lock.yaml", "intent": "which core-js is resolved"}`,
		// A mapping YAML document is outlined by its keys: the focus is
		// the package's own entry (what is resolved), never core-js-pure's,
		// which may show after it as a runner-up in the file's order.
		want: "  core-js@3.38.1:\n", partial: []string{"core-js-pure:"},
	},
	{
		name: "gosum-redis", fixture: "lock-gosum", kind: KindFile, budget: 1000,
		args: `{"path": "go.sum", "intent": "the go-redis checksum"}`,
		want: "github.com/redis/go-redis/v9 v9.23.0 h1:",
	},
}

func TestExactBeatsPartial(t *testing.T) {
	for _, c := range exactCases {
		t.Run(c.name, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", "exact", c.fixture, "output"))
			if err != nil {
				t.Fatalf("%v (regenerate with testdata/exact/make.sh)", err)
			}
			in := testInput(t, out, c.budget)
			in.Put = fakeStore{}.put
			in.Args = json.RawMessage(c.args)
			view, err := Project(context.Background(), c.kind, in)
			if err != nil {
				t.Fatal(err)
			}
			at := strings.Index(view.Text, c.want)
			if at < 0 {
				t.Fatalf("the view does not show %s:\n%s", c.want, view.Text)
			}
			// What the view puts first: the first part that matches
			// (JSON), the line the focus names (a file).
			if first := firstMatch(view.Text); !strings.Contains(first, strings.TrimSpace(c.want)) {
				t.Errorf("the first match shown is %q, not %s:\n%s", first, c.want, view.Text)
			}
			for _, p := range c.partial {
				if i := strings.Index(view.Text, p); i >= 0 && i < at {
					t.Errorf("the view shows %s before %s:\n%s", p, c.want, view.Text)
				}
			}
		})
	}
}

// firstMatch returns what a view shows first for an intent: the first part
// that matches in a JSON view, the focus line of a file view.
func firstMatch(view string) string {
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "parts that match the intent") && i+1 < len(lines) {
			return lines[i+1]
		}
		if m := focusLine.FindStringSubmatch(l); m != nil {
			at := strings.ReplaceAll(m[1]+m[2], ",", "")
			for _, x := range lines {
				if n := strings.IndexByte(x, '\t'); n > 0 && strings.ReplaceAll(strings.TrimSpace(x[:n]), ",", "") == at {
					return x[n+1:]
				}
			}
		}
	}
	return ""
}

// focusLine is a file view's note on the line or definition it centres on.
var focusLine = regexp.MustCompile(`^\[focus: (?:line ([0-9,]+)|.*?\(lines? ([0-9,]+))`)

// bundleCases read bundles of many files with an intent that names a
// function and the file or directory it lives in: the view centres on that
// function in that file, not on one of the same name, or of a name that
// shares its start, in another.
var bundleCases = []struct {
	name, fixture, args string
	want                string // the line the focus is on
	in                  string // the path of the part it must be in
}{
	{
		name: "gitingest-file", fixture: "bundle-gitingest",
		args: `{"path": "digest.txt", "intent": "the Equal function in require/require.go"}`,
		want: "func Equal(t TestingT, expected interface{}, actual interface{}, msgAndArgs ...interface{}) {", in: "require/require.go",
	},
	{
		// require/require.go has a func Error too, without the bool.
		name: "gitingest-dir", fixture: "bundle-gitingest",
		args: `{"path": "digest.txt", "intent": "the Error function in assert/"}`,
		want: "func Error(t TestingT, err error, msgAndArgs ...interface{}) bool {", in: "assert/assertions.go",
	},
	{
		name: "read-multiple-files", fixture: "bundle-multiple",
		args: `{"path": "read_multiple_files.txt", "intent": "the Error function in require/require.go"}`,
		want: "func Error(t TestingT, err error, msgAndArgs ...interface{}) {", in: "/work/testify/require/require.go",
	},
	{
		name: "git-diff", fixture: "bundle-diff",
		args: `{"path": "testify.diff", "intent": "what changed in Equal in require/require.go"}`,
		want: "@@ -180,7 +180,7 @@ func Equal(t TestingT, expected interface{}, actual interface{}, msgAndArgs ...i", in: "require/require.go",
	},
	{
		name: "git-diff-subset", fixture: "bundle-diff",
		args: `{"path": "testify.diff", "intent": "Subset in assert/assertions.go"}`,
		want: "@@ -1031,10 +1032,10 @@ func Subset(t TestingT, list, subset interface{}, msgAndArgs ...interface{}) (ok", in: "assert/assertions.go",
	},
	{
		name: "grep-rn", fixture: "bundle-grep",
		args: `{"path": "grep.txt", "intent": "LessOrEqual in assert/assertion_compare.go"}`,
		want: "./assert/assertion_compare.go:430:func LessOrEqual(t TestingT, e1 interface{}, e2 interface{}, msgAndArgs ...interface{}) bool {", in: "./assert/assertion_compare.go",
	},
}

func TestBundleNamedPath(t *testing.T) {
	for _, c := range bundleCases {
		t.Run(c.name, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", "exact", c.fixture, "output"))
			if err != nil {
				t.Fatalf("%v (regenerate with testdata/exact/make.sh)", err)
			}
			in := testInput(t, out, 2000)
			in.Put = fakeStore{}.put
			in.Args = json.RawMessage(c.args)
			view, err := Project(context.Background(), KindFile, in)
			if err != nil {
				t.Fatal(err)
			}
			if first := firstMatch(view.Text); first != c.want {
				t.Errorf("the focus is on %q, not %q:\n%s", first, c.want, view.Text)
			}
			if !strings.Contains(view.Text, "; in the part headed by "+c.in+"]") {
				t.Errorf("the note does not name the part %s:\n%s", c.in, view.Text)
			}
		})
	}
}
