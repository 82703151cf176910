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
		"command/cargo-build-error":    {Diagnostics, "rustc"},
		"command/cargo-test-fail":      {Tests, "cargo test"},
		"command/gcc-error":            {Diagnostics, ""},
		"command/go-build-error":       {Diagnostics, ""},
		"command/go-test-fail-panic":   {Tests, "go test"},
		"command/go-test-timeout":      {Crash, ""},
		"command/go-test-v-long":       {Tests, "go test"},
		"command/go-vet":               {Diagnostics, ""},
		"command/javac-error":          {Diagnostics, ""},
		"command/jest-fail":            {Tests, "jest"},
		"command/make-noisy-build":     {Diagnostics, ""},
		"command/node-test-fail":       {Tests, "TAP"},
		"command/npm-test-fail":        {Tests, "TAP"},
		"command/pytest-fail":          {Tests, "pytest"},
		"command/python-traceback":     {Crash, ""},
		"command/tsc-error":            {Diagnostics, "tsc"},
		"command/vitest-fail":          {Tests, "vitest"},
		"command/npm-install-progress": {Prose, ""},
		"file/c-testregex":             {Prose, ""},
		"file/cpp-stl-vector":          {Prose, ""},
		"file/go-bufio":                {Prose, ""},
		"file/go-server":               {Prose, ""},
		"file/js-mcp-filesystem":       {Prose, ""},
		"file/md-node-http":            {Markdown, ""},
		"file/py-argparse":             {Prose, ""},
		"file/rs-smallvec":             {Prose, ""},
		"file/sh-bash-completion":      {Prose, ""},
		"file/ts-zod-schemas":          {Prose, ""},
		"dir/find-go-src":              {Listing, ""},
		"dir/find-npm-project":         {Listing, ""},
		"dir/git-ls-files-main":        {Listing, ""},
		"dir/ls-la-runtime":            {Listing, ""},
		"dir/tree-npm-project":         {Listing, ""},
		"dir/tree-ascii-npm-project":   {Listing, ""},
		"dir/mcp-list-runtime":         {Listing, ""},
		"json/cargo-metadata":          {JSON, ""},
		"json/go-list-m-all":           {JSON, ""},
		"json/npm-view-express":        {JSON, ""},
		"text/go-slog-json":            {JSONLines, ""},
		"text/nginx-error":             {Prose, ""},
		"text/dpkg-log":                {Prose, ""},
		"text/redis-verbose":           {Prose, ""},
		"text/postgres":                {Prose, ""},
	}
	for name, w := range want {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "project", "testdata", name, "output"))
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
		"ci-go-test-v.log":     {Tests, "go test"},
		"go-test.txt":          {Tests, "go test"},
		"go-test-json.log":     {Tests, "go test -json"},
		"pytest.log":           {Tests, "pytest"},
		"pytest-verbose.txt":   {Tests, "pytest"},
		"cargo-test.log":       {Tests, "cargo test"},
		"go-vet.txt":           {Diagnostics, ""},
		"actions-go-test.log":  {Tests, "go test"},
		"node-test-doc.md":     {Markdown, ""},
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
		{"one ok line", "ok  \texample.com/x\t0.003s\n", Text{Tests, "go test"}},
		{"prose", "The quick brown fox.\nJumps over the lazy dog.\n", Text{}},
		{"json", `{"a": [1, 2, {"b": null}]}`, Text{JSON, ""}},
		{"broken json", `{"a": [1, 2,, }`, Text{}},
		{"json lines", "{\"level\":\"info\"}\n{\"level\":\"warn\"}\n{\"level\":\"error\"}\n", Text{JSONLines, ""}},
		{"html", "<!DOCTYPE html>\n<html><body><p>hi</p></body></html>\n", Text{HTML, ""}},
		{"html fragment", "<div class=\"x\">\n<p>one</p>\n<p>two</p>\n</div>\n", Text{HTML, ""}},
		{"markdown", "# Title\n\nSome text with a [link](https://example.com).\n\n## Usage\n\n- one\n- two\n", Text{Markdown, ""}},
		{"paths", "./a/b.go\n./a/c.go\n./d/e.txt\n", Text{Listing, ""}},
		{"ansi colours", "\x1b[32m--- PASS: TestA (0.00s)\x1b[0m\n\x1b[31m--- FAIL: TestB (0.00s)\x1b[0m\nFAIL\n", Text{Tests, "go test"}},
		{"timestamped", "2024-05-01T10:00:00.1234567Z === RUN   TestA\n2024-05-01T10:00:00.1234568Z --- PASS: TestA (0.00s)\n2024-05-01T10:00:00.1234569Z PASS\n", Text{Tests, "go test"}},
		{"fenced test output is quoted, not the text",
			"# Testing\n\nRun the tests:\n\n```\n=== RUN   TestA\n--- PASS: TestA (0.00s)\nok  \tx\t0.1s\n```\n\n## More\n\nText.\n", Text{Markdown, ""}},
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
		{Text{Tests, "go test"}, "go test output"},
		{Text{Diagnostics, "rustc"}, "rustc diagnostics"},
		{Text{Diagnostics, ""}, "diagnostics"},
		{Text{JSON, ""}, "JSON"},
		{Text{Form(200), ""}, "unknown"},
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
