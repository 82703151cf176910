package project

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sniffing tests: real outputs of test runners and compilers
// (testdata/sniffed/files, made by testdata/sniffed/make.sh) read through
// carriers that do not say what they hold (a file read of a .log or .txt,
// plain text, an MCP text block of the real filesystem server), whose views
// must hold the evidence of the output's own kind.

// sniffedNeedles are the evidence each output's view must show, chosen by
// the rule of docs/bench.md: the failing test and its message at file:line,
// and the line that says which package or run failed.
var sniffedNeedles = map[string][]string{
	"ci-go-test-v.log": {
		"--- FAIL: TestBoxes/units=50 (",
		"stock_test.go:13: Boxes(50) = 2, want 1",
		"FAIL\texample.com/inventory/stock\t",
	},
	"pytest-verbose.txt": {
		"FAILED tests/test_discount.py::test_large_orders_get_ten_percent[100]",
		"tests/test_discount.py:12: AssertionError",
		"1 failed, 39 passed",
	},
	"cargo-test.log": {
		"test tests::rounds_to_nearest ... FAILED",
		"src/lib.rs:21:9",
		"test result: FAILED. 10 passed; 1 failed",
	},
	"unittest.txt": {
		"FAIL: test_counts (test_pages.PagesTest.test_counts) (items=10)",
		`File "/tmp/crumb-sniffed/pager/test_pages.py", line 16, in test_counts`,
		"FAILED (failures=3)",
	},
	"rspec.log": {
		"rspec ./spec/cart_spec.rb:8 # Cart discounts orders of exactly 100",
		"21 examples, 1 failure",
	},
	"ctest.log": {
		"***Failed",
		"check.c: fahrenheit[7] = 54, want 45",
		"92% tests passed, 1 tests failed out of 13",
	},
	"actions-go-test.log": {
		"stock_test.go:13: Boxes(50) = 2, want 1",
		"FAIL\texample.com/inventory/stock\t",
	},
}

func readSniffed(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "sniffed", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkNeedles checks that each needle is in the raw output, and then in
// the view.
func checkNeedles(t *testing.T, raw []byte, view string, needles []string) {
	t.Helper()
	for _, nd := range needles {
		if !strings.Contains(string(raw), nd) {
			t.Errorf("needle %q is not in the output", nd)
		} else if !strings.Contains(view, nd) {
			t.Errorf("view misses %q:\n%s", nd, view)
		}
	}
}

// TestSniffedFileAndText projects each output as a file read (named .log
// or .txt, as a CI job saves it) and as plain text, and checks that the
// view holds its evidence within the budget.
func TestSniffedFileAndText(t *testing.T) {
	const budget = 700
	for name, needles := range sniffedNeedles {
		raw := readSniffed(t, name)
		for _, kind := range []Kind{KindFile, KindText} {
			t.Run(name+"/"+string(kind), func(t *testing.T) {
				in := testInput(t, raw, budget)
				if kind == KindFile {
					in.Tool, in.Args = "read_file", json.RawMessage(`{"path": "/ci/artifacts/`+name+`"}`)
				}
				out, err := Project(context.Background(), kind, in)
				if err != nil {
					t.Fatal(err)
				}
				if n := in.Counter.Count(out.Text); n > budget {
					t.Errorf("view has %d tokens, budget %d", n, budget)
				}
				checkNeedles(t, raw, out.Text, needles)
				want := "[crumb command"
				if strings.HasPrefix(name, "actions-") {
					// Stamped by a CI service: the log view sees past the stamps.
					want = "[crumb text (log)"
				}
				if !strings.HasPrefix(out.Text, want) {
					first, _, _ := strings.Cut(out.Text, "\n")
					t.Errorf("view starts %q, want %q", first, want)
				}
				checkGolden(t, filepath.Join("testdata", "sniffed", "views", name+"."+string(kind)+".golden"), out.Text+"\n")
			})
		}
	}
}

// TestSniffedKeepsDeclared checks what sniffing must leave alone: a
// document that quotes test output is read as the document it is, source
// code as source, a log as a log, and a read of lines by their numbers
// gets those lines.
func TestSniffedKeepsDeclared(t *testing.T) {
	tests := []struct {
		name, file, kind, args, prefix string
	}{
		{"markdown about tests", "node-test-doc.md", "file", `{"path": "doc/test.md"}`, "[crumb file doc/test.md"},
		{"a CI log read by line numbers", "ci-go-test-v.log", "file", `{"path": "ci.log", "offset": 300, "limit": 20}`, "[crumb file ci.log"},
		{"a test report named as Go source", "go-test-json.log", "file", `{"path": "x.go"}`, "[crumb file x.go"},
		{"a stamped CI log", "actions-go-test.log", "text", ``, "[crumb text (log)"},
		{"go test -json saved as a log", "go-test-json.log", "file", `{"path": "test.log"}`, "[crumb command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := testInput(t, readSniffed(t, tt.file), 500)
			if tt.args != "" {
				in.Tool, in.Args = "read_file", json.RawMessage(tt.args)
			}
			out, err := Project(context.Background(), Kind(tt.kind), in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.Text, tt.prefix) {
				first, _, _ := strings.Cut(out.Text, "\n")
				t.Errorf("view starts %q, want %q", first, tt.prefix)
			}
		})
	}
}

// TestSniffedText checks that plain text is shown by what it is: the
// repository's real fixtures of each kind (scripts/fixtures), handed over as
// text with no tool named, get their own kind's view, whose header starts
// with prefix and holds fact; the outputs of tools keep the evidence their
// fixtures name.
func TestSniffedText(t *testing.T) {
	tests := []struct {
		fixture, prefix, fact string
	}{
		{"command/cargo-build-error", "[crumb command", ""},
		{"command/python-traceback", "[crumb command", ""},
		{"command/jest-fail", "[crumb command", ""},
		{"command/tsc-error", "[crumb command", ""},
		{"file/go-server", "[crumb file", "Go"},
		{"file/rs-smallvec", "[crumb file", "Rust"},
		{"json/npm-view-express", "[crumb json", ""},
		{"text/nginx-error", "[crumb text (log)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			dir := filepath.Join("testdata", tt.fixture)
			raw, err := os.ReadFile(filepath.Join(dir, "output"))
			if err != nil {
				t.Fatal(err)
			}
			in := testInput(t, raw, 2000)
			out, err := Project(context.Background(), KindText, in)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(out.Text, "\n")
			if !strings.HasPrefix(first, tt.prefix) || !strings.Contains(first, tt.fact) {
				t.Errorf("view starts %q, want %q with %q", first, tt.prefix, tt.fact)
			}
			if strings.HasPrefix(tt.fixture, "command/") {
				var meta struct{ Needles []struct{ Text string } }
				m, err := os.ReadFile(filepath.Join(dir, "meta.json"))
				if err != nil || json.Unmarshal(m, &meta) != nil || len(meta.Needles) == 0 {
					t.Fatalf("no needles in %s: %v", dir, err)
				}
				for _, nd := range meta.Needles {
					checkNeedles(t, raw, out.Text, []string{nd.Text})
				}
			}
		})
	}
}

// mcpTexts returns the text blocks of a projected CallToolResult.
func mcpTexts(t *testing.T, view string) string {
	t.Helper()
	var r ctr
	if err := json.Unmarshal([]byte(view), &r); err != nil {
		t.Fatalf("view is not a CallToolResult: %v\n%s", err, view)
	}
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(str(c, "text"))
		b.WriteByte('\n')
	}
	return b.String()
}

// sniffedMCP reads a CallToolResult the real filesystem server sent (see
// testdata/sniffed/make.sh) and the arguments of its call.
func sniffedMCP(t *testing.T, name string) (raw []byte, tool string, args json.RawMessage) {
	t.Helper()
	dir := filepath.Join("testdata", "sniffed", "mcp", name)
	raw, err := os.ReadFile(filepath.Join(dir, "output"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(m, &meta); err != nil {
		t.Fatal(err)
	}
	return raw, meta.Tool, meta.Args
}

// TestSniffedMCP projects the filesystem server's reads of the outputs: a
// text block that holds a test run is shown with the run's evidence, and
// so is each file of a read_multiple_files block.
func TestSniffedMCP(t *testing.T) {
	tests := []struct {
		name    string
		budget  int
		needles []string
	}{
		{"read-ci-go-test-v", 800, sniffedNeedles["ci-go-test-v.log"]},
		{"read-multiple-logs", 1200, append([]string{"FAILED tests/test_discount.py::test_large_orders_get_ten_percent[100]"}, sniffedNeedles["cargo-test.log"]...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, tool, args := sniffedMCP(t, tt.name)
			out, _ := projectMCPCall(t, raw, tool, args, nil, tt.budget)
			var whole ctr
			if err := json.Unmarshal(raw, &whole); err != nil {
				t.Fatal(err)
			}
			text := mcpTexts(t, out.Text)
			checkNeedles(t, []byte(mcpTexts(t, string(raw))), text, tt.needles)
			checkGolden(t, filepath.Join("testdata", "sniffed", "views", tt.name+".mcp.golden"), out.Text+"\n")
		})
	}
}

// TestSniffedMCPIntent checks that the call's intent reaches the
// projection of its text block, whichever argument carries it: asked
// whether one package of three passed, the view shows its line, which it
// does not without the intent. The block is the filesystem server's read of
// a CI log, and the same block as GitHub's MCP server's get_job_logs would
// return it (a tool whose name says nothing of files: plain text).
func TestSniffedMCPIntent(t *testing.T) {
	const want = "ok  \texample.com/inventory/pricing\t"
	raw, _, args := sniffedMCP(t, "read-ci-go-test-v")
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"read_text_file", "get_job_logs"} {
		plain, _ := projectMCPCall(t, raw, tool, args, nil, 800)
		if strings.Contains(mcpTexts(t, plain.Text), want) {
			t.Fatalf("%s: the view without an intent shows %q already: the test cannot tell", tool, want)
		}
		for _, key := range []string{"intent", "description", "question"} {
			t.Run(tool+"/"+key, func(t *testing.T) {
				m2 := map[string]any{key: "did the pricing package pass?"}
				for k, v := range m {
					m2[k] = v
				}
				a, _ := json.Marshal(m2)
				out, _ := projectMCPCall(t, raw, tool, a, nil, 800)
				text := mcpTexts(t, out.Text)
				if !strings.Contains(text, want) {
					t.Errorf("view misses %q, which the call's %s asks about:\n%s", want, key, text)
				}
				checkNeedles(t, raw, text, sniffedNeedles["ci-go-test-v.log"][:1])
			})
		}
	}
}

// TestSniffedUnregistered: a text that is another kind's content, whose
// kind no package registered (this package's tests link no project/dir),
// is shown as text: the hand-over does not fall back to the text view and
// sniff the same text again without end.
func TestSniffedUnregistered(t *testing.T) {
	if Registered(KindDir) {
		t.Skip("the dir view is registered in this test binary")
	}
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "./src/pkg%d/file%d.go\n", i%17, i)
	}
	out, err := Project(context.Background(), KindText, testInput(t, []byte(b.String()), 300))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Text, "[crumb text") {
		t.Errorf("view starts %.60q, want a text view", out.Text)
	}
}
