package teststream

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project/rank"
)

// fixture reads a report that testdata/make.sh made by running a real
// test runner.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("%v (run testdata/make.sh)", err)
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

func sniff(b []byte) Format {
	return Sniff(b[:min(len(b), 16<<10)], b[max(0, len(b)-16<<10):])
}

// The failing test of each fixture, its message, where it failed, and the
// run's counts, as the runner's text form would give them.
var decodeCases = []struct {
	file                    string
	format                  Format
	name, message, location string
	failed, passed, skipped int64
}{
	{"go-fail.txt", GoTest, "TestTitle/iPhone_sales", `Title("iPhone sales") = "Iphone Sales", want "IPhone Sales"`, "words_test.go:18", 4, 19, 1},
	{"go-panic.txt", GoTest, "TestPushWraps", "panic: runtime error: index out of range [3] with length 3", "/ring.go:14", 1, 1, 0},
	{"go-timeout.txt", GoTest, "TestWaits", "panic: test timed out after 2s", "slow_test.go:9", 1, 1, 0},
	{"go-build.txt", GoTest, "[build failed]", `cannot use "five" (untyped string constant) as int value`, "./calc_test.go:9:18", 0, 0, 0},
	{"go-large.txt.gz", GoTest, "TestChecksum/case2011", `Checksum("2004967") = 114, want 113`, "bulk_test.go:17", 100, 2901, 0},
	{"cargo-fail.txt", LibTest, "tests::median_even", "assertion `left == right` failed", "src/lib.rs:27:9", 1, 2, 1},
	{"jest-fail.txt", Jest, "slugify › drops punctuation at the end", "Received: \"done-\"", "__tests__/slug.test.js:11:30", 1, 8, 1},
	{"jest-many.txt", Jest, "parses euros", "Received: 123", "__tests__/cents.test.js:2:53", 2, 2, 0},
	{"jest-many.txt", Jest, "[test file failed to run]", "Jest encountered an unexpected token", "", 2, 2, 0},
	{"jest-fail.json", Jest, "slugify › drops punctuation at the end", "Expected: \"done\"", "__tests__/slug.test.js:11:30", 1, 8, 1},
	{"vitest-fail.txt", Jest, "slugify › drops punctuation at the end", "AssertionError: expected 'done-' to be 'done'", "__tests__/slug.test.js:12:30", 1, 8, 1},
	{"vitest-fail.json", Jest, "slugify › drops punctuation at the end", "AssertionError: expected 'done-' to be 'done'", "__tests__/slug.test.js:12:30", 1, 8, 1},
	{"pytest-fail.xml", JUnit, "test_restock", "E       assert 10 == 5", "test_inventory.py:13", 1, 6, 1},
	{"pytest-many.xml", JUnit, "test_rates_file", "FileNotFoundError: [Errno 2] No such file or directory: 'rates.csv'", "test_prices.py:16", 2, 300, 0},
	{"pytest-xunit1.xml", JUnit, "test_restock", "assert 10 == 5", "test_inventory.py:13", 1, 6, 1},
}

func TestDecode(t *testing.T) {
	for _, c := range decodeCases {
		t.Run(c.file+"/"+c.name, func(t *testing.T) {
			b := fixture(t, c.file)
			if f := sniff(b); f != c.format {
				t.Fatalf("sniffed %v, want %v", f, c.format)
			}
			rep, err := Decode(context.Background(), bytes.NewReader(b), int64(len(b)), c.format)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Failed != c.failed || rep.Passed != c.passed || rep.Skipped != c.skipped {
				t.Errorf("counts: %d failed, %d passed, %d skipped; want %d, %d, %d", rep.Failed, rep.Passed, rep.Skipped, c.failed, c.passed, c.skipped)
			}
			var got *Case
			for _, f := range rep.Failures {
				if f.Name == c.name {
					got = f
					break
				}
			}
			if got == nil {
				t.Fatalf("no failure named %q among %d", c.name, len(rep.Failures))
			}
			if msg := strings.Join(got.Message, "\n"); !strings.Contains(msg, c.message) {
				t.Errorf("message lacks %q:\n%s", c.message, msg)
			}
			if !strings.HasSuffix(got.Location, c.location) {
				t.Errorf("location %q, want one ending in %q", got.Location, c.location)
			}
			if len(got.Evidence) == 0 || len(got.Key) != len(got.Evidence) {
				t.Fatalf("evidence %v, keys %v", got.Evidence, got.Key)
			}
			// The evidence is raw: the message is in the bytes it spans
			// (as a JSON or XML string escapes it).
			var raw []byte
			for _, sp := range got.Evidence {
				raw = append(raw, b[sp.From:sp.To]...)
			}
			word := ""
			for _, w := range strings.FieldsFunc(c.message, func(r rune) bool { return r < 'A' || r > 'z' }) {
				if len(w) > len(word) {
					word = w
				}
			}
			if !bytes.Contains(raw, []byte(word)) {
				t.Errorf("the raw evidence lacks %q: %.300s", word, raw)
			}
		})
	}
}

// A run of thousands of tests keeps what it is bounded to: the failures,
// the slowest passes, and no message of a passing test.
func TestDecodeBounded(t *testing.T) {
	b := fixture(t, "go-large.txt.gz")
	// The same run four times over, as if four packages of it ran.
	var big []byte
	for i := 0; i < 4; i++ {
		big = append(big, bytes.ReplaceAll(b, []byte("example.com/bulk"), []byte("example.com/bulk"+string(rune('a'+i))))...)
	}
	rep, err := Decode(context.Background(), bytes.NewReader(big), int64(len(big)), GoTest)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 400 || len(rep.Suites) != 4 {
		t.Fatalf("%d failed in %d suites", rep.Failed, len(rep.Suites))
	}
	if len(rep.Slowest) > MaxSlowest || len(rep.Failures) > MaxFailures {
		t.Errorf("kept %d slowest, %d failures", len(rep.Slowest), len(rep.Failures))
	}
	for _, c := range rep.Slowest {
		if len(c.Message) > 0 {
			t.Errorf("a passing test kept its output: %q", c.Message)
		}
	}
}

func TestSniffOther(t *testing.T) {
	for _, s := range []string{
		"", "hello\n", `{"a":1}`, "--- FAIL: TestX (0.00s)\n", `{"Time":"x","msg":"y"}` + "\n", "<html><body></body></html>",
		`[{"type":"test"}]`,
	} {
		if f := Sniff([]byte(s), []byte(s)); f != None {
			t.Errorf("Sniff(%q) = %v", s, f)
		}
	}
	if _, err := Decode(context.Background(), strings.NewReader("plain text\n"), 11, GoTest); !errors.Is(err, ErrNotReport) {
		t.Errorf("decoding plain text: %v", err)
	}
}

// The units of a view: each distinct failure first, ranked by rank.Score;
// failures that repeat one another are one unit with a count; the run's
// summary follows them.
func TestUnits(t *testing.T) {
	b := fixture(t, "go-large.txt.gz")
	rep, err := Decode(context.Background(), bytes.NewReader(b), int64(len(b)), GoTest)
	if err != nil {
		t.Fatal(err)
	}
	us := Units(rep, rank.Parse(""))
	if us[0].Role != RoleFailure || !strings.Contains(us[0].Title, "TestChecksum/case") || us[0].LikeCount != 98 {
		t.Fatalf("first unit: %+v", us[0])
	}
	if us[1].Role != RoleFailure || !strings.Contains(us[1].Title, "99 subtests failed") {
		t.Errorf("second unit is not the parent test: %q", us[1].Title)
	}
	summary := -1
	for i, u := range us {
		if u.Role == RoleSummary && strings.HasPrefix(u.Title, "go test -json:") {
			summary = i
		}
	}
	if summary != 2 {
		t.Errorf("the run's summary is unit %d, want 2", summary)
	}

	// An intent that names a test ranks it above a failure it does not
	// name.
	b = fixture(t, "go-fail.txt")
	rep, err = Decode(context.Background(), bytes.NewReader(b), int64(len(b)), GoTest)
	if err != nil {
		t.Fatal(err)
	}
	us = Units(rep, rank.Parse("why is TestUnicode skipped"))
	skip, fail := -1, -1
	for i, u := range us {
		if strings.HasPrefix(u.Title, "SKIP TestUnicode") {
			skip = i
		}
		if u.Role == RoleFailure && fail < 0 {
			fail = i
		}
	}
	if skip < 0 || skip > fail {
		t.Errorf("with the intent, the skipped test is unit %d, the first failure %d", skip, fail)
	}
	// Without it, it follows every failure.
	us = Units(rep, rank.Parse(""))
	for i, u := range us {
		if strings.HasPrefix(u.Title, "SKIP") && i < 3 {
			t.Errorf("without an intent, the skipped test is unit %d", i)
		}
	}
}

func BenchmarkDecodeGoLarge(b *testing.B) {
	data := fixture(b, "go-large.txt.gz")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Decode(context.Background(), bytes.NewReader(data), int64(len(data)), GoTest); err != nil {
			b.Fatal(err)
		}
	}
}

// The fast reading of test2json events agrees with encoding/json on every
// event of the fixtures it reads.
func TestGoEventFast(t *testing.T) {
	n := 0
	for _, name := range []string{"go-fail.txt", "go-panic.txt", "go-build.txt", "go-timeout.txt", "go-pass.txt"} {
		for _, line := range bytes.Split(fixture(t, name), []byte("\n")) {
			if len(line) == 0 || bytes.IndexByte(line, '\\') >= 0 {
				continue
			}
			var fast, slow goEvent
			if !fast.fast(line) {
				t.Errorf("%s: not read fast: %s", name, line)
				continue
			}
			if err := json.Unmarshal(line, &slow); err != nil {
				t.Fatal(err)
			}
			if a, b := fmt.Sprint(fast.Action, fast.Package, fast.Test, fast.ImportPath, fast.FailedBuild, deref(fast.Elapsed), fast.Output == nil),
				fmt.Sprint(slow.Action, slow.Package, slow.Test, slow.ImportPath, slow.FailedBuild, deref(slow.Elapsed), slow.Output == nil); a != b {
				t.Errorf("%s: fast %s, encoding/json %s", name, a, b)
			}
			n++
		}
	}
	if n < 100 {
		t.Errorf("only %d events compared", n)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// TestTextsByVocabulary checks that the lines outside a report are kept,
// as errors or not, by the shared error vocabulary: an error type's name
// ("SyntaxError: …") is an error's word though the line says "error" in
// no word of its own.
func TestTextsByVocabulary(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		line   string
		err    bool
	}{
		{"jest-many.txt", Jest, "SyntaxError: /tmp/ts-work/jestmany/__tests__/broken.test.js: Unexpected token", true},
		{"jest-many.txt", Jest, "Tests:       2 failed, 2 passed, 4 total", true},
		{"jest-many.txt", Jest, "● split › with a remainder", false},
		{"cargo-fail.txt", LibTest, "error: test failed, to rerun pass `--lib`", true},
	}
	for _, tt := range tests {
		b := fixture(t, tt.file)
		rep, err := Decode(context.Background(), bytes.NewReader(b), int64(len(b)), tt.format)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		found := false
		for _, x := range rep.Texts {
			if strings.Contains(x.Line, tt.line) {
				found = true
				if x.Error != tt.err {
					t.Errorf("%s: %q kept with Error %v, want %v", tt.file, x.Line, x.Error, tt.err)
				}
			}
		}
		if !found {
			t.Errorf("%s: no line with %q among the texts kept: %+v", tt.file, tt.line, rep.Texts)
		}
	}
}
