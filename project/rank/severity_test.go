package rank

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// realLine returns the first line of a fixture that holds part: every line
// the vocabulary is tested on was written by a real tool (see the make.sh
// next to each fixture).
func realLine(t *testing.T, file, part string) []byte {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("opening a fixture: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), part) {
			return append([]byte(nil), sc.Bytes()...)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	t.Fatalf("%s holds no line with %q", file, part)
	return nil
}

func TestSeverityOfRealLines(t *testing.T) {
	const (
		cmd    = "../testdata/command/"
		rarity = "../testdata/rarity/"
		stream = "../teststream/testdata/"
		sev    = "testdata/severity/"
		logs   = "../testdata/log-traceback/output"
	)
	tests := []struct {
		file, line string
		want       Severity
		has        Words // classes that must be among the line's
		not        Words // classes that must not
	}{
		// Errors, failures and crashes, named.
		{cmd + "go-test-fail-panic/output", "--- FAIL: TestDivide", Error, ErrorWord, 0},
		{cmd + "go-test-fail-panic/output", "FAIL\texample.com/calc/arith", Error, ErrorWord, 0},
		{cmd + "go-test-fail-panic/output", "panic: runtime error", Error, ErrorWord, 0},
		{cmd + "python-traceback/output", "Traceback (most recent call last)", Error, ErrorWord, 0},
		{cmd + "cargo-test-fail/output", "panicked at src/lib.rs", Error, ErrorWord, 0},
		{cmd + "cargo-build-error/output", "error[E0277]", Error, ErrorWord, 0},
		{rarity + "eslint-warnings-one-error/output", "problems (1 error, 524 warnings)", Error, ErrorWord | WarningWord, 0},
		// An error type's name is an error's word.
		{cmd + "jest-fail/output", "TypeError: Cannot read properties of undefined", Error, ErrorWord | ProblemWord, 0},
		{sev + "python-import.txt", "ModuleNotFoundError", Error, ErrorWord, 0},
		{logs, "json.decoder.JSONDecodeError: Expecting value", Error, ErrorWord, 0},
		// Problems stated without the word error.
		{cmd + "go-build-error/output", "it.Cost undefined (type Item has no field or method Cost)", Error, ProblemWord, ErrorWord},
		{cmd + "go-build-error/output", "invalid operation", Error, ProblemWord, 0},
		{sev + "go-run-exit.txt", "could not load settings", Error, ProblemWord, 0},
		{sev + "python-timeout.txt", "TimeoutError: timed out", Error, ErrorWord | ProblemWord, 0},
		{sev + "sqlite-no-table.txt", "no such table", Error, ErrorWord | ProblemWord, 0},
		{cmd + "make-noisy-build/output", "undefined reference to", Error, ProblemWord, 0},
		// Words in escaped text (a JSON string), parted by "\t" and "\n".
		{stream + "go-fail.txt", `"Output":"FAIL\texample.com/shelf/words`, Error, ErrorWord, 0},
		{stream + "go-build.txt", `cannot use \"five\"`, Error, ProblemWord, 0},
		// A non-zero exit status; zero is none.
		{sev + "go-run-exit.txt", "exit status 1", Error, ErrorWord, 0},
		// A count of zero takes a term back.
		{sev + "cargo-test-pass.txt", "test result: ok. 2 passed; 0 failed", Quiet, 0, ErrorWord},
		{rarity + "eslint-warnings-one-error/output", "0 errors and 112 warnings potentially fixable", Warning, WarningWord, ErrorWord},
		// Warnings, and a problem's words in a warning's message.
		{cmd + "gcc-error/output", "warning: too many arguments for format", Warning, WarningWord | ProblemWord, 0},
		{sev + "javac-lint.txt", "warning: [deprecation] Date(int,int,int)", Warning, WarningWord, 0},
		{sev + "node-deprecation.txt", "Buffer() is deprecated", Warning, WarningWord, 0},
		{sev + "javac-lint.txt", "4 warnings", Warning, WarningWord, 0},
		// What a test's assertion says: no trouble alone, a signal to
		// whoever reads a test's messages.
		{cmd + "jest-fail/output", "Expected: 12", Quiet, AssertWord, ErrorWord | ProblemWord},
		{sev + "cargo-test-pass.txt", "running 2 tests", Quiet, 0, AssertWord},
		// At a location, they are a failed assertion's.
		{cmd + "go-test-fail-panic/output", "arith_test.go:12: Divide(7, 2) = 3, want 3.5", Error, AssertWord | ProblemWord, ErrorWord},
		// Names are not words: a path, a package, a flag.
		{cmd + "go-test-fail-panic/output", "/usr/local/go/src/runtime/panic.go", Quiet, 0, ErrorWord},
		{cmd + "npm-install-progress/output", "registry.npmjs.org/es-errors", Quiet, 0, ErrorWord},
		{cmd + "python-traceback/output", "python-traceback/migrate.py\", line 18", Quiet, 0, ErrorWord},
		// A note of the Go compiler's optimisation report, whatever code
		// it quotes.
		{rarity + "go-gcflags-m-cmp/output", "does not escape", Notice, NoteWord, 0},
		{rarity + "go-gcflags-m2-value/output", "cannot inline Equal: function too complex", Notice, NoteWord, ProblemWord},
		{rarity + "go-gcflags-m2-value/output", "from panic(\"invalid edit-type\")", Notice, NoteWord, ErrorWord | ProblemWord},
		{rarity + "go-gcflags-m2-value/output", "&reflect.ValueError{...} escapes to heap", Notice, NoteWord, ErrorWord},
		// Their words that open a line without a location are words like
		// any: a Python traceback quotes its source.
		{sev + "python-import.txt", "    from settings_loader import load", Quiet, 0, NoteWord},
		// Success says nothing of trouble.
		{cmd + "go-test-fail-panic/output", "ok  \texample.com/calc/dates", Quiet, 0, ErrorWord | ProblemWord | WarningWord},
		{stream + "jest-fail.txt", "Tests:", Error, ErrorWord, 0},
	}
	for _, tt := range tests {
		line := realLine(t, tt.file, tt.line)
		w := WordsOf(line)
		if got := w.Severity(); got != tt.want {
			t.Errorf("%s: %q: severity %d, want %d (words %05b)", tt.file, line, got, tt.want, w)
		}
		if got := LineSeverity(line); got != w.Severity() {
			t.Errorf("%q: LineSeverity %d, WordsOf(...).Severity() %d", line, got, w.Severity())
		}
		if ms := messageStart(line); ms >= 0 {
			// The message cut off its location reads as the whole line.
			if got := MessageWords(line[ms:]); got != w {
				t.Errorf("%q: MessageWords of %q = %05b, WordsOf the line %05b", line, line[ms:], got, w)
			}
		}
		if w&tt.has != tt.has || w&tt.not != 0 {
			t.Errorf("%s: %q: words %05b, want %05b among them and none of %05b", tt.file, line, w, tt.has, tt.not)
		}
	}
}

func TestFirstTerm(t *testing.T) {
	tests := []struct {
		file, line string
		classes    Words
		term       string // "" when there is none
	}{
		{"testdata/severity/go-run-exit.txt", "could not load settings", ErrorWord | ProblemWord, "could not"},
		{"testdata/severity/go-run-exit.txt", "could not load settings", ErrorWord, ""},
		{"testdata/severity/sqlite-no-table.txt", "no such table", ProblemWord, "no such"},
		{"testdata/severity/go-run-exit.txt", "exit status 1", ErrorWord, "exit status 1"},
		{"../testdata/rarity/go-gcflags-m2-value/output", "from panic(\"invalid edit-type\")", ErrorWord | ProblemWord, ""},
	}
	for _, tt := range tests {
		line := realLine(t, tt.file, tt.line)
		_, s, e, ok := FirstTerm(line, tt.classes)
		got := ""
		if ok {
			got = string(line[s:e])
			// The pattern of the term finds the line it was met in.
			if p := TermPattern(line[s:e]); !regexp.MustCompile(p).Match(line) {
				t.Errorf("%q: pattern %q does not find it", line, p)
			}
		}
		if got != tt.term {
			t.Errorf("FirstTerm(%q, %05b) = %q, want %q", line, tt.classes, got, tt.term)
		}
	}
}

// TestTermPattern checks that a term's pattern finds the lines the
// vocabulary meets it in, and not the names that hold its words.
func TestTermPattern(t *testing.T) {
	tests := []struct {
		file, line, term string
		want             bool
	}{
		{"../testdata/command/go-test-fail-panic/output", "--- FAIL: TestDivide", "fail", true},
		{"../testdata/command/cargo-test-fail/output", "error: test failed, to rerun", "error", true},
		{"testdata/severity/sqlite-no-table.txt", "no such table", "no such", true},
		{"../testdata/command/npm-install-progress/output", "registry.npmjs.org/es-errors", "errors", false},
		{"../testdata/command/python-traceback/output", "python-traceback/migrate.py", "traceback", false},
	}
	for _, tt := range tests {
		line := realLine(t, tt.file, tt.line)
		p := TermPattern([]byte(tt.term))
		if got := regexp.MustCompile(p).Match(line); got != tt.want {
			t.Errorf("%q finds %q: %v, want %v", p, line, got, tt.want)
		}
		if got := WordsOf(line) != 0; got != tt.want {
			t.Errorf("%q: WordsOf meets a term: %v, want %v", line, got, tt.want)
		}
	}
}

func TestErrorName(t *testing.T) {
	for name, want := range map[string]bool{
		"ValueError": true, "os.PathError": true, "java.lang.IllegalStateException": true, "AssertionError": true,
		"JSONDecodeError": true, "Error": false, "isError": false, "ERROR": false, "errors.New": false, "t.Errorf": false,
	} {
		if got := ErrorName([]byte(name)); got != want {
			t.Errorf("ErrorName(%q) = %v, want %v", name, got, want)
		}
	}
}

func BenchmarkWordsOf(b *testing.B) {
	line := []byte("cmp/internal/value/name.go:12:6: cannot use x (variable of type int) as string value in argument to f")
	for b.Loop() {
		WordsOf(line)
	}
}

// FuzzFirstTerm checks, for any text, that the term FirstTerm finds lies
// within it, is of a class asked for, and that its pattern compiles and
// finds the text.
func FuzzFirstTerm(f *testing.F) {
	for _, s := range []string{"error: x", "0 failed; 2 passed", "x.go:3:5:   from panic(\"invalid\") at x.go:4:2",
		"ValueError: no such file", "exit status 1", `"Output":"FAIL\texample.com/x\n"`, "can't connect: timed out", "!="} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		all := ErrorWord | ProblemWord | AssertWord | WarningWord
		class, s, e, ok := FirstTerm(text, all)
		if !ok {
			return
		}
		if s < 0 || e > len(text) || s >= e || class&all == 0 {
			t.Fatalf("FirstTerm(%q) = %05b, %d:%d", text, class, s, e)
		}
		re, err := regexp.Compile(TermPattern(text[s:e]))
		if err != nil {
			t.Fatalf("pattern of %q: %v", text[s:e], err)
		}
		if !re.Match(text) {
			t.Fatalf("%q: the pattern %s of its term %q does not find it", text, re, text[s:e])
		}
	})
}

// TestLibraryFrame checks real stack frames: those in a runtime, a
// standard library or a dependency, and those in the program's own code.
func TestLibraryFrame(t *testing.T) {
	tests := []struct {
		file, frame string
		lib         bool
	}{
		{"../testdata/command/go-test-fail-panic/output", "/usr/local/go/src/runtime/panic.go:", true},
		{"../testdata/command/go-test-fail-panic/output", "/go-test-fail-panic/parse/parse.go:24", false},
		{"testdata/severity/python-timeout.txt", "/lib/python3.11/socket.py\", line 851", true},
		{"testdata/severity/python-import.txt", "py/main.py\", line 1", false},
		{"testdata/severity/node-missing.txt", "at Module._load (node:internal/modules/cjs/loader", true},
		{"../testdata/command/jest-fail/output", "at Object.toBe (", false},
		{"../testdata/command/cargo-test-fail/output", "at /rustc/", true},
	}
	for _, tt := range tests {
		line := realLine(t, tt.file, tt.frame)
		if got := LibraryFrame(line); got != tt.lib {
			t.Errorf("%q: LibraryFrame %v, want %v", line, got, tt.lib)
		}
	}
}
