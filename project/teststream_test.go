package project

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/recall"
)

// reportFixture reads a report made by project/teststream/testdata/make.sh
// from a real test runner.
func reportFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("teststream", "testdata", name))
	if err != nil {
		t.Fatalf("%v (run project/teststream/testdata/make.sh)", err)
	}
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// Class 4 and 5 of issue 10: a machine-readable test report, carried by a
// command's output or read as a document, is decoded: the first view holds
// the failing test, its message and where it failed, and a view that
// omits more than repetition is not small.
func TestTestReportView(t *testing.T) {
	for _, c := range []struct {
		file, command string
		kind          Kind
		want          []string // the failing test, its message, its file:line
	}{
		{"go-fail.txt", "go test -json ./...", KindCommand, []string{"TestTitle/iPhone_sales", `Title("iPhone sales") = "Iphone Sales", want "IPhone Sales"`, "words_test.go:18", "FAIL example.com/shelf/words"}},
		{"go-panic.txt", "go test -json ./...", KindCommand, []string{"TestPushWraps", "panic: runtime error: index out of range [3] with length 3", "ring.go:14"}},
		{"go-timeout.txt", "go test -json -timeout 2s ./...", KindCommand, []string{"TestWaits", "panic: test timed out after 2s", "slow_test.go:9"}},
		{"go-large.txt.gz", "go test -json ./...", KindCommand, []string{"TestChecksum/case2011", `Checksum("2004967") = 114, want 113`, "bulk_test.go:17", "98 more failures like it"}},
		{"cargo-fail.txt", "cargo test -- -Z unstable-options --format json", KindCommand, []string{"tests::median_even", "assertion `left == right` failed", "src/lib.rs:27:9"}},
		{"jest-fail.txt", "npx jest --json", KindCommand, []string{"drops punctuation at the end", `Received: "done-"`, "slug.test.js:11:30"}},
		{"jest-many.txt", "npx jest --json", KindCommand, []string{"split › with a remainder", "Received: 123", "cents.test.js:2:53", "Test suite failed to run", "parses euros"}},
		{"jest-fail.json", "", KindJSON, []string{"drops punctuation at the end", `Received: "done-"`, "slug.test.js:11:30", `"numFailedTests":1`}},
		{"vitest-fail.txt", "npx vitest run --reporter=json", KindCommand, []string{"drops punctuation at the end", "AssertionError: expected 'done-' to be 'done'", "slug.test.js:12:30"}},
		{"vitest-fail.json", "", KindJSON, []string{"drops punctuation at the end", "AssertionError: expected 'done-' to be 'done'", "slug.test.js:12:30"}},
		{"pytest-many.xml", "", KindFile, []string{"test_discount", "E       assert 0.0 == 180", "test_prices.py:11", "test_rates_file", "No such file or directory: 'rates.csv'"}},
		{"pytest-fail.xml", "", KindFile, []string{"test_restock", "E       assert 10 == 5", "test_inventory.py:13"}},
	} {
		for _, budget := range []int{300, 700, 2000} {
			t.Run(fmt.Sprintf("%s/%d", c.file, budget), func(t *testing.T) {
				raw := reportFixture(t, c.file)
				in := testInput(t, raw, budget)
				if c.command != "" {
					one := 1
					in.ExitCode, in.Command = &one, strings.Fields(c.command)
				}
				out, err := Project(context.Background(), c.kind, in)
				if err != nil {
					t.Fatal(err)
				}
				n := in.Counter.Count(out.Text)
				if n > budget {
					t.Fatalf("view has %d tokens, budget %d:\n%s", n, budget, out.Text)
				}
				again, err := Project(context.Background(), c.kind, testInput(t, raw, budget))
				if err != nil {
					t.Fatal(err)
				}
				if c.command == "" && again.Text != out.Text {
					t.Fatal("the same input gave another view")
				}
				for i, w := range c.want {
					if budget < 700 && i > 0 {
						break // a small view names the failing test
					}
					if !strings.Contains(out.Text, w) && !strings.Contains(out.Text, jsonEscaped(w)) {
						t.Errorf("view lacks %q:\n%s", w, out.Text)
					}
				}
				if rawTokens := in.Counter.Count(string(raw)); out.Next != nil && budget >= 2000 && n < min(budget, rawTokens)/5 {
					t.Errorf("view of %d tokens omits material, with a budget of %d:\n%s", n, budget, out.Text)
				}
				checkShowsOutsideNext(t, raw, out)
			})
		}
	}
}

func jsonEscaped(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// checkShowsOutsideNext checks the contract of continuations: the view
// shows, as they are, the lines its continuation does not read.
func checkShowsOutsideNext(t *testing.T, raw []byte, out Output) {
	t.Helper()
	lines := strings.SplitAfter(string(raw), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	read := make([]bool, len(lines)+1)
	if out.Next != nil {
		if out.Next.Lines == nil {
			t.Fatalf("continuation %v reads no lines", out.Next.Argv())
		}
		for _, s := range out.Next.Ranges() {
			for l := s.From; l <= s.To && l <= int64(len(lines)); l++ {
				read[l] = true
			}
		}
	}
	for i, l := range lines {
		if read[i+1] {
			continue
		}
		s := strings.TrimSpace(recall.PlainLine([]byte(strings.TrimSuffix(l, "\n")), false))
		if s != "" && !strings.Contains(out.Text, s) {
			t.Fatalf("line %d is outside the continuation %v but not in the view: %.200q\n%s", i+1, out.Next, s, out.Text)
		}
	}
}

// A report in an MCP result's text block is decoded too: the block is
// projected as the kind its bytes are.
func TestTestReportInMCP(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"go-fail.txt", []string{"TestTitle/iPhone_sales", "words_test.go:18", "a go test -json report, decoded"}},
		{"pytest-many.xml", []string{"test_discount", "test_prices.py:11", "a JUnit XML report, decoded"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			res, err := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": string(reportFixture(t, c.file))}}})
			if err != nil {
				t.Fatal(err)
			}
			out, err := Project(context.Background(), KindMCP, testInput(t, res, 2000))
			if err != nil {
				t.Fatal(err)
			}
			var view struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal([]byte(out.Text), &view); err != nil {
				t.Fatalf("%v:\n%s", err, out.Text)
			}
			var text strings.Builder
			for _, b := range view.Content {
				text.WriteString(b.Text)
			}
			for _, w := range c.want {
				if !strings.Contains(text.String(), w) {
					t.Errorf("view lacks %q:\n%s", w, text.String())
				}
			}
		})
	}
}

// A read of a part of a report shows that part, not the decoded report.
func TestTestReportPartRead(t *testing.T) {
	in := testInput(t, reportFixture(t, "pytest-many.xml"), 500)
	in.Args = json.RawMessage(`{"path":"report.xml","offset":2,"limit":3}`)
	out, err := Project(context.Background(), KindFile, in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "report, decoded") || !strings.Contains(out.Text, "lines 2-4") {
		t.Errorf("a read of lines 2-4 shows:\n%s", out.Text)
	}
}

func BenchmarkTestReportView(b *testing.B) {
	raw := reportFixture(b, "go-large.txt.gz")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	one := 1
	for i := 0; i < b.N; i++ {
		in := testInput(b, raw, 2000)
		in.ExitCode = &one
		if _, err := Project(context.Background(), KindCommand, in); err != nil {
			b.Fatal(err)
		}
	}
}
