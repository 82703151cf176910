package sniff

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample cuts content the way callers do: the head, and the tail when the
// content is longer than both.
func sample(b []byte) (head, tail []byte) {
	if len(b) <= 2*Len {
		return b, nil
	}
	return b[:Len], b[len(b)-Len:]
}

// TestTextOfFixtures tells the form of every real output the repository
// keeps as a test fixture (project/testdata: outputs of real tools, files,
// listings, logs and JSON documents, each made by a script under
// scripts/fixtures).
func TestTextOfFixtures(t *testing.T) {
	want := map[string]Text{
		"command/cargo-build-error":    {Form: Diagnostics, Tool: "rustc"},
		"command/cargo-test-fail":      {Form: Tests, Tool: "cargo test"},
		"command/gcc-error":            {Form: Diagnostics, Tool: ""},
		"command/go-build-error":       {Form: Diagnostics, Tool: ""},
		"command/go-test-fail-panic":   {Form: Tests, Tool: "go test"},
		"command/go-test-timeout":      {Form: Crash, Tool: ""},
		"command/go-test-v-long":       {Form: Tests, Tool: "go test"},
		"command/go-vet":               {Form: Diagnostics, Tool: ""},
		"command/javac-error":          {Form: Diagnostics, Tool: ""},
		"command/jest-fail":            {Form: Tests, Tool: "jest"},
		"command/make-noisy-build":     {Form: Diagnostics, Tool: ""},
		"command/node-test-fail":       {Form: Tests, Tool: "TAP"},
		"command/npm-test-fail":        {Form: Tests, Tool: "TAP"},
		"command/pytest-fail":          {Form: Tests, Tool: "pytest"},
		"command/python-traceback":     {Form: Crash, Tool: ""},
		"command/tsc-error":            {Form: Diagnostics, Tool: "tsc"},
		"command/vitest-fail":          {Form: Tests, Tool: "vitest"},
		"command/npm-install-progress": {Form: Prose, Tool: ""},
		"file/c-testregex":             {Form: Prose, Tool: ""},
		"file/cpp-stl-vector":          {Form: Prose, Tool: ""},
		"file/go-bufio":                {Form: Prose, Tool: ""},
		"file/go-server":               {Form: Prose, Tool: ""},
		"file/js-mcp-filesystem":       {Form: Prose, Tool: ""},
		"file/md-node-http":            {Form: Markdown, Tool: ""},
		"file/py-argparse":             {Form: Prose, Tool: ""},
		"file/rs-smallvec":             {Form: Prose, Tool: ""},
		"file/sh-bash-completion":      {Form: Prose, Tool: ""},
		"file/ts-zod-schemas":          {Form: Prose, Tool: ""},
		"dir/find-go-src":              {Form: Listing, Tool: ""},
		"dir/find-npm-project":         {Form: Listing, Tool: ""},
		"dir/git-ls-files-main":        {Form: Listing, Tool: ""},
		"dir/ls-la-runtime":            {Form: Listing, Tool: ""},
		"dir/tree-npm-project":         {Form: Listing, Tool: ""},
		"dir/tree-ascii-npm-project":   {Form: Listing, Tool: ""},
		"dir/mcp-list-runtime":         {Form: Listing, Tool: ""},
		"json/cargo-metadata":          {Form: JSON, Tool: ""},
		"json/go-list-m-all":           {Form: JSON, Tool: ""},
		"json/npm-view-express":        {Form: JSON, Tool: ""},
		"text/go-slog-json":            {Form: JSONLines, Tool: ""},
		"text/nginx-error":             {Form: Prose, Stamped: true},
		"text/dpkg-log":                {Form: Prose, Stamped: true},
		"text/redis-verbose":           {Form: Prose, Tool: ""},
		"text/postgres":                {Form: Prose, Stamped: true},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(fixtureOutput(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := TextOf(sample(b)); got != w {
				t.Errorf("TextOf = %+v (%s), want %+v (%s)", got, got, w, w)
			}
		})
	}
}

// TestTextOfSniffed checks the outputs made for the sniffing tests by
// project/testdata/sniffed/make.sh with real tools, saved under names that
// do not say what they hold.
func TestTextOfSniffed(t *testing.T) {
	want := map[string]Text{
		"ci-go-test-v.log":    {Form: Tests, Tool: "go test"},
		"go-test.txt":         {Form: Tests, Tool: "go test"},
		"go-test-json.log":    {Form: Tests, Tool: "go test -json"},
		"pytest.log":          {Form: Tests, Tool: "pytest"},
		"pytest-verbose.txt":  {Form: Tests, Tool: "pytest"},
		"cargo-test.log":      {Form: Tests, Tool: "cargo test"},
		"go-vet.txt":          {Form: Diagnostics, Tool: ""},
		"actions-go-test.log": {Form: Tests, Tool: "go test", Stamped: true},
		"node-test-doc.md":    {Form: Markdown, Tool: ""},
		"unittest.txt":        {Form: Tests, Tool: "unittest"},
		"rspec.log":           {Form: Tests, Tool: "rspec"},
		"ctest.log":           {Form: Tests, Tool: "ctest"},
	}
	dir := filepath.Join("..", "..", "project", "testdata", "sniffed", "files")
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := TextOf(sample(b)); got != w {
				t.Errorf("TextOf = %+v (%s), want %+v (%s)", got, got, w, w)
			}
		})
	}
}

func TestTextOfForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Text
	}{
		{"empty", "", Text{}},
		{"blank", "\n\n  \n", Text{}},
		{"one ok line", "ok  \texample.com/x\t0.003s\n", Text{Form: Tests, Tool: "go test"}},
		{"prose", "The quick brown fox.\nJumps over the lazy dog.\n", Text{}},
		{"json", `{"a": [1, 2, {"b": null}]}`, Text{Form: JSON, Tool: ""}},
		{"broken json", `{"a": [1, 2,, }`, Text{}},
		{"json lines", "{\"level\":\"info\"}\n{\"level\":\"warn\"}\n{\"level\":\"error\"}\n", Text{Form: JSONLines, Tool: ""}},
		{"html", "<!DOCTYPE html>\n<html><body><p>hi</p></body></html>\n", Text{Form: HTML, Tool: ""}},
		{"html fragment", "<div class=\"x\">\n<p>one</p>\n<p>two</p>\n</div>\n", Text{Form: HTML, Tool: ""}},
		{"markdown", "# Title\n\nSome text with a [link](https://example.com).\n\n## Usage\n\n- one\n- two\n", Text{Form: Markdown, Tool: ""}},
		{"paths", "./a/b.go\n./a/c.go\n./d/e.txt\n", Text{Form: Listing, Tool: ""}},
		{"ansi colours", "\x1b[32m--- PASS: TestA (0.00s)\x1b[0m\n\x1b[31m--- FAIL: TestB (0.00s)\x1b[0m\nFAIL\n", Text{Form: Tests, Tool: "go test"}},
		{"timestamped", "2024-05-01T10:00:00.1234567Z === RUN   TestA\n2024-05-01T10:00:00.1234568Z --- PASS: TestA (0.00s)\n2024-05-01T10:00:00.1234569Z PASS\n", Text{Form: Tests, Tool: "go test", Stamped: true}},
		{"fenced test output is quoted, not the text",
			"# Testing\n\nRun the tests:\n\n```\n=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tx\t0.1s\n```\n\n## More\n\nText.\n", Text{Form: Markdown, Tool: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TextOf([]byte(tt.in), nil); got != tt.want {
				t.Errorf("TextOf = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestTextOfBounded checks that TextOf looks at a bounded sample: what lies
// beyond Len bytes of the head does not change the answer.
func TestTextOfBounded(t *testing.T) {
	head := bytes.Repeat([]byte("=== RUN   TestA\n--- PASS: TestA (0.00s)\n"), Len/20)
	a := TextOf(head, nil)
	b := TextOf(append(append([]byte(nil), head...), strings.Repeat("x y z\n", 1<<16)...), nil)
	if a != b || a.Form != Tests {
		t.Errorf("TextOf changed with bytes past its sample: %+v, %+v", a, b)
	}
}

func TestTextString(t *testing.T) {
	for _, tt := range []struct {
		in   Text
		want string
	}{
		{Text{Form: Tests, Tool: "go test"}, "go test output"},
		{Text{Form: Diagnostics, Tool: "rustc"}, "rustc diagnostics"},
		{Text{Form: Diagnostics, Tool: ""}, "diagnostics"},
		{Text{Form: JSON, Tool: ""}, "JSON"},
		{Text{Form: Form(200), Tool: ""}, "unknown"},
	} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSniff checks that TextOf never panics, gives the same answer twice,
// and that a form that says "a tool's report" names the same whatever
// follows the sample.
func FuzzSniff(f *testing.F) {
	for _, s := range []string{
		"", "=== RUN   TestA\n--- FAIL: TestA (0.00s)\n    a_test.go:3: no\nFAIL\nFAIL\tx\t0.1s\n",
		"main.c:3:5: error: expected ';'\n", "error[E0425]: x\n  --> src/main.rs:3:5\n",
		"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: x\n",
		`{"a":1}`, "# T\n\n## U\n", "<html>", "a/b\nc/d\n", "\x1b[31m\x1b", "```\n", "\xff\xfe",
	} {
		f.Add([]byte(s), []byte(nil))
	}
	f.Add([]byte("running 2 tests\n"), []byte("test result: FAILED. 1 passed; 1 failed\n"))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		a := TextOf(head, tail)
		if b := TextOf(head, tail); a != b {
			t.Fatalf("two answers: %+v, %+v", a, b)
		}
		if a.Form > Listing {
			t.Fatalf("unknown form %d", a.Form)
		}
		if a.Tool != "" && !a.Form.IsOutput() {
			t.Fatalf("a tool named for form %s", a.Form)
		}
		if len(head) > Len {
			if c := TextOf(head[:Len], tail); c != a {
				t.Fatalf("bytes past Len changed the answer: %+v, %+v", a, c)
			}
		}
	})
}

// BenchmarkTextOf measures TextOf over the head and tail of a real go test
// -v log, which is what it costs any text whatever its size.
func BenchmarkTextOf(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "project", "testdata", "command", "go-test-v-long", "output"))
	if err != nil {
		b.Fatal(err)
	}
	head, tail := sample(raw)
	b.SetBytes(int64(len(head) + len(tail)))
	for b.Loop() {
		TextOf(head, tail)
	}
}

// fixtureOutput is the path of a project fixture's output, NAME being
// "kind/case": under project/testdata while the kind lives in package
// project, under project/KIND/testdata once the kind is a package of its own.
func fixtureOutput(t *testing.T, name string) string {
	t.Helper()
	kind, _, _ := strings.Cut(name, "/")
	for _, p := range []string{
		filepath.Join("..", "..", "project", kind, "testdata", name, "output"),
		filepath.Join("..", "..", "project", "testdata", name, "output"),
	} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("fixture %s: no output under project/testdata or project/%s/testdata", name, kind)
	return ""
}
