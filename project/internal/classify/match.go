package classify

import (
	"bytes"

	"github.com/crumb-dev/crumb/project/rank"
)

// Match is what Classify learns of a line: what it is evidence of
// (its family and its class, see the scores below), and the lines around it
// that belong with it. The shared ranker weighs it by the signals its class
// gives (see signals), its template's rarity and the call's intent.
type Match struct {
	Fam    Family
	Score  int16
	After  uint8 // lines after it that belong with it (a message, frames)
	Before uint8 // lines before it that belong with it
	// head: the line opens no block of its own but belongs to the last
	// line above it that is not indented (eslint's stylish report: the
	// file's path, then its problems at line:col).
	Head bool
}

// signals returns what a line's class tells the shared ranker: how
// strongly it reports trouble, and whether it sums up a run.
func (m Match) Signals() (rank.Severity, rank.Structure) {
	switch m.Fam {
	case FamNone:
		return rank.Quiet, rank.Plain
	case FamSummary:
		if m.Score >= ScoreDetail {
			return rank.Error, rank.Summary // FAIL pkg, 3 failed, exit status 1
		}
		return rank.Quiet, rank.Summary // ok pkg, PASS, 10 passed
	case FamNote:
		return rank.Notice, rank.Plain
	case FamWarning:
		return rank.Warning, rank.Plain
	}
	switch {
	case m.Score >= scoreError-2:
		return rank.Error, rank.Plain
	case m.Score >= ScoreDetail:
		return rank.Warning, rank.Plain // lines that locate or explain a failure
	}
	return rank.Notice, rank.Plain
}

// The classes of evidence, from what ended the command to summaries of
// success. A class decides how a line is shown (a crash with its frames
// first, a failure with its block, a warning with a line of context) and
// gives the shared ranker its severity and structure (see signals); the
// order within a class is the ranker's (see command_rank.go), with the
// class breaking ties.
const (
	ScoreCrash   = 100 // panic:, Traceback, fatal error:, SIGSEGV
	scoreCompile = 92  // file:line:col: error
	ScoreFail    = 90  // --- FAIL:, ●, FAILED test
	scoreMessage = 86  // the message of a failure (E lines, t.Errorf lines)
	scoreError   = 80  // npm ERR!, make: ***, Error: ...
	scoreResult  = 78  // a summary that reports failures
	ScoreDetail  = 70  // lines that locate or explain a failure
	ScoreWarn    = 35  // warnings
	scoreFrame   = 25  // a stack frame on its own
	scoreNote    = 20  // a compiler's note or remark: can inline, remark:, missed:
	scorePassed  = 15  // a summary that reports success
)

func cmdM(f Family, score int16, after, before uint8) Match {
	return Match{Fam: f, Score: score, After: after, Before: before}
}

var (
	cmdFailWord     = []byte(" fail") // what the three below start with
	cmdFailedWord   = []byte(" failed")
	cmdFailingWord  = []byte(" failing")
	cmdFailureWord  = []byte(" failure")
	cmdErrorWord    = []byte(" error")
	cmdPassedWord   = []byte(" passed")
	cmdPanickedWord = []byte("panicked at")
	cmdUndefRefWord = []byte("undefined reference")
)

// Classify tells whether a line is evidence. t is the line without its
// indentation (indent bytes of spaces and tabs) and is not empty. It looks
// at the first byte and, for most lines, nothing else; the first colon
// decides for diagnostics that start with a path.
func Classify(t []byte, indent int) Match {
	switch c := t[0]; c {
	case '-':
		switch {
		case cmdHasPrefix(t, "--- FAIL"):
			// go test prints a failed test's messages after this line, or
			// before it with -v.
			return cmdM(FamTest, ScoreFail, 8, 2)
		case cmdHasPrefix(t, "---- ") && bytes.Contains(t, []byte(" stdout ----")): // cargo test
			return cmdM(FamTest, ScoreFail, 6, 0)
		case cmdHasPrefix(t, "--> "): // rustc: where the error or warning above is
			return cmdM(FamFrame, ScoreDetail, 3, 1)
		}
		return Match{}
	case '=':
		if !cmdHasPrefix(t, "=====") { // pytest's banners, not "=== RUN"
			return Match{}
		}
		switch {
		case bytes.Contains(t, []byte("short test summary")):
			return cmdM(FamSummary, scoreResult, 10, 0)
		case bytes.Contains(t, []byte(" FAILURES ")), bytes.Contains(t, []byte(" ERRORS ")):
			return cmdM(FamTest, ScoreDetail, 2, 0)
		case cmdHasCount(t, cmdFailedWord) || cmdHasCount(t, cmdErrorWord):
			return cmdM(FamSummary, scoreResult+4, 0, 0)
		case cmdHasCount(t, cmdPassedWord):
			return cmdM(FamSummary, scorePassed, 0, 0)
		}
		return Match{}
	case '_':
		if cmdHasPrefix(t, "___") && bytes.HasSuffix(bytes.TrimRight(t, " \r"), []byte("___")) { // pytest: a failed test's section
			return cmdM(FamTest, ScoreDetail, 2, 0)
		}
		return Match{}
	case 'F':
		switch {
		case string(t) == "FAIL" || cmdHasPrefix(t, "FAIL\t") || cmdHasPrefix(t, "FAIL "): // go test, jest, vitest
			return cmdM(FamSummary, ScoreFail, 1, 0)
		case cmdHasPrefix(t, "FAIL:"), cmdHasPrefix(t, "FAILED"): // unittest, pytest
			return cmdM(FamTest, ScoreFail, 3, 0)
		case cmdHasPrefix(t, "File \""): // a Python frame
			return cmdFrame(t, 1, 0)
		case cmdHasPrefix(t, "Fatal"):
			return cmdM(FamPanic, ScoreCrash-5, 6, 0)
		}
	case 'f':
		switch {
		case cmdHasPrefix(t, "fatal error:"): // the Go runtime
			return cmdM(FamPanic, ScoreCrash, 12, 0)
		case cmdHasPrefix(t, "fatal:"):
			return cmdM(FamError, scoreError, 2, 0)
		case cmdHasPrefix(t, "failures:"): // cargo test
			return cmdM(FamSummary, ScoreDetail, 6, 0)
		}
	case 'E':
		switch {
		case indent == 0 && (cmdHasPrefix(t, "E ") || cmdHasPrefix(t, "E\t")): // pytest
			return cmdM(FamTest, scoreMessage, 1, 2)
		case cmdHasPrefix(t, "Error:"), cmdHasPrefix(t, "Error "), cmdHasPrefix(t, "ERROR"):
			return cmdM(FamError, scoreError, 6, 0)
		case cmdHasPrefix(t, "Expected"):
			return cmdM(FamTest, scoreMessage, 3, 1)
		case cmdHasPrefix(t, "Exception"):
			return cmdM(FamPanic, ScoreCrash-5, 8, 0)
		}
	case 'e':
		switch {
		case cmdHasPrefix(t, "error[E"): // rustc
			return cmdM(FamCompile, scoreCompile, 8, 0)
		case cmdHasPrefix(t, "error:"), cmdHasPrefix(t, "error TS"):
			return cmdM(FamError, scoreError+2, 4, 0)
		case cmdHasPrefix(t, "error "): // yarn
			return cmdM(FamError, scoreError, 1, 0)
		case cmdHasPrefix(t, "exit status "), cmdHasPrefix(t, "exit code "):
			return cmdM(FamSummary, ScoreDetail, 0, 0)
		}
	case 'p':
		if cmdHasPrefix(t, "panic:") || cmdHasPrefix(t, "panic(") {
			// Then "goroutine N [running]:" and the frames; those in the
			// program's own code rank on their own.
			return cmdM(FamPanic, ScoreCrash, 4, 0)
		}
	case 'P':
		switch {
		case cmdHasPrefix(t, "Panic"):
			return cmdM(FamPanic, ScoreCrash-5, 8, 0)
		case string(bytes.TrimRight(t, " \r")) == "PASS": // go test
			return cmdM(FamSummary, scorePassed, 1, 0)
		}
	case 'o':
		if cmdHasPrefix(t, "ok  \t") || cmdHasPrefix(t, "ok \t") { // go test: a package passed
			return cmdM(FamSummary, scorePassed, 0, 0)
		}
	case '?':
		if cmdHasPrefix(t, "?   \t") { // go test: a package without tests
			return cmdM(FamSummary, scorePassed, 0, 0)
		}
	case 'T':
		switch {
		case cmdHasPrefix(t, "Traceback (most recent call last)"):
			return cmdM(FamPanic, ScoreCrash-5, 2, 0)
		case cmdHasPrefix(t, "Tests:"), cmdHasPrefix(t, "Tests "), cmdHasPrefix(t, "Test Suites:"), cmdHasPrefix(t, "Test Files "):
			if cmdHasCount(t, cmdFailedWord) {
				return cmdM(FamSummary, scoreResult, 1, 0)
			}
			return cmdM(FamSummary, scorePassed, 0, 0)
		}
	case 't':
		switch {
		case cmdHasPrefix(t, "thread '") && bytes.Contains(t, cmdPanickedWord): // rust
			return cmdM(FamPanic, ScoreCrash-2, 3, 0)
		case cmdHasPrefix(t, "test result: FAILED"):
			return cmdM(FamSummary, scoreResult+4, 0, 0)
		case cmdHasPrefix(t, "test result:"):
			return cmdM(FamSummary, scorePassed, 0, 0)
		case cmdHasPrefix(t, "test ") && bytes.HasSuffix(bytes.TrimRight(t, " \r"), []byte(" FAILED")): // cargo
			return cmdM(FamTest, ScoreFail-2, 0, 0)
		}
	case 'n':
		switch {
		case cmdHasPrefix(t, "npm ERR!"), cmdHasPrefix(t, "npm error"):
			return cmdM(FamError, scoreError-2, 0, 0)
		case cmdHasPrefix(t, "npm warn"), cmdHasPrefix(t, "npm WARN"):
			return cmdM(FamWarning, ScoreWarn, 0, 0)
		case cmdHasPrefix(t, "not ok "): // TAP
			return cmdM(FamTest, ScoreFail, 10, 0)
		}
	case 'm':
		if cmdHasPrefix(t, "make: ***") || cmdHasPrefix(t, "make[") && bytes.Contains(t[:min(len(t), 16)], []byte("]: ***")) {
			return cmdM(FamError, scoreError, 0, 1)
		}
	case 'g':
		if cmdHasPrefix(t, "goroutine ") && bytes.Contains(t, []byte(" [")) {
			return cmdM(FamFrame, scoreFrame, 2, 0)
		}
	case 'a':
		if cmdHasPrefix(t, "at ") && indent > 0 { // JavaScript and Java frames
			return cmdFrame(t, 0, 0)
		}
	case 'c':
		if cmdHasPrefix(t, "collect2: error") {
			return cmdM(FamError, scoreError, 0, 2)
		}
	case 'C':
		if cmdHasPrefix(t, "Caused by:") {
			return cmdM(FamPanic, ScoreDetail+5, 4, 0)
		}
	case 'S':
		if cmdHasPrefix(t, "Segmentation fault") || cmdHasPrefix(t, "SIGSEGV") || cmdHasPrefix(t, "SIGABRT") {
			return cmdM(FamPanic, ScoreCrash, 8, 0)
		}
	case 'U':
		if cmdHasPrefix(t, "Uncaught ") || cmdHasPrefix(t, "UnhandledPromiseRejection") {
			return cmdM(FamPanic, ScoreCrash-5, 6, 0)
		}
	case 'R':
		if cmdHasPrefix(t, "Received") {
			return cmdM(FamTest, scoreMessage, 2, 0)
		}
	case 'W', 'w':
		if cmdHasPrefix(t, "warning:") || cmdHasPrefix(t, "warning[") || cmdHasPrefix(t, "WARNING") || cmdHasPrefix(t, "Warning:") {
			return cmdM(FamWarning, ScoreWarn, 2, 0)
		}
	case '[':
		switch {
		case cmdHasPrefix(t, "[ERROR]"), cmdHasPrefix(t, "[error]"):
			return cmdM(FamError, scoreError, 0, 0)
		case cmdHasPrefix(t, "[FAIL"):
			return cmdM(FamTest, ScoreFail, 2, 0)
		}
		// A log's level in brackets, after a module's name: Apache's
		// "[cgi:error]", "[proxy:crit]", "[ssl:warn]".
		if j := bytes.IndexByte(t[:min(len(t), 40)], ']'); j > 2 {
			w := t[1:j]
			if k := bytes.LastIndexByte(w, ':'); k >= 0 {
				switch LevelWord(w[k+1:]) {
				case SevError:
					return cmdM(FamError, scoreError, 0, 0)
				case SevWarn:
					return cmdM(FamWarning, ScoreWarn, 0, 0)
				}
			}
		}
	case '>':
		if indent == 0 && (cmdHasPrefix(t, "> ") || cmdHasPrefix(t, ">\t")) { // pytest: the failing source line
			return cmdM(FamTest, ScoreDetail, 0, 0)
		}
	case '#':
		if cmdHasPrefix(t, "# fail ") && !cmdHasPrefix(t, "# fail 0") { // TAP
			return cmdM(FamSummary, scoreResult, 0, 0)
		}
	case 0xE2:
		switch {
		case cmdHasPrefix(t, "●"): // jest: a failed test and its message
			return cmdM(FamTest, ScoreFail, 14, 0)
		case cmdHasPrefix(t, "✕"), cmdHasPrefix(t, "✗"): // jest, others
			return cmdM(FamTest, ScoreFail-4, 0, 0)
		case cmdHasPrefix(t, "✖"): // node --test
			if cmdHasPrefix(t, "✖ failing tests") {
				return cmdM(FamSummary, ScoreDetail, 2, 0)
			}
			return cmdM(FamTest, ScoreFail-2, 8, 0)
		case cmdHasPrefix(t, "ℹ fail "): // node --test
			if cmdHasPrefix(t, "ℹ fail 0") {
				return cmdM(FamSummary, scorePassed, 0, 0)
			}
			return cmdM(FamSummary, scoreResult, 0, 0)
		case cmdHasPrefix(t, "→ "): // vitest: a failure's message
			return cmdM(FamTest, scoreMessage, 1, 0)
		case cmdHasPrefix(t, "❯") && cmdHasCount(t, cmdFailedWord):
			return cmdM(FamTest, ScoreDetail, 0, 0)
		}
	case 0xC3:
		if cmdHasPrefix(t, "×") { // vitest
			return cmdM(FamTest, ScoreFail-2, 2, 0)
		}
	default:
		// "3 failed, 10 passed", "1 failing"
		if IsDigit(c) && (bytes.Contains(t, cmdFailWord) && (cmdHasCount(t, cmdFailedWord) || cmdHasCount(t, cmdFailingWord) ||
			cmdHasCount(t, cmdFailureWord)) || cmdHasCount(t, cmdErrorWord)) {
			return cmdM(FamSummary, scoreResult, 0, 0)
		}
		if IsDigit(c) && indent > 0 {
			if m, ok := cmdClassifyStylish(t); ok {
				return m
			}
		}
	}
	return cmdClassifyColon(t, indent)
}

// cmdClassifyColon looks at the line's first colon: "path:12:5: error: ...",
// "path(12,5): error TS...", "ValueError: ...", "ld: error: ...".
func cmdClassifyColon(t []byte, indent int) Match {
	c := bytes.IndexByte(t, ':')
	if c <= 0 || c+1 >= len(t) {
		return Match{}
	}
	head, rest := t[:c], t[c+1:]
	sp := bytes.IndexByte(head, ' ') // the head's first space, or -1
	switch {
	case IsDigit(rest[0]) && cmdLooksPath(head, sp):
		return cmdClassifyLocation(head, rest, indent)
	case head[len(head)-1] == ')' && bytes.IndexByte(head, '(') > 0 && IsDigit(head[bytes.IndexByte(head, '(')+1]):
		// tsc, msbuild: path(line,col): error ...
		if cmdStartsWord(rest, "error") {
			return cmdM(FamCompile, scoreCompile, 2, 0)
		}
		if cmdStartsWord(rest, "warning") {
			return cmdM(FamWarning, ScoreWarn, 0, 0)
		}
	case cmdIsErrorName(head, sp):
		// ValueError: ..., java.lang.IllegalStateException: ...,
		// AssertionError [ERR_ASSERTION]: ...
		return cmdM(FamError, scoreError+4, 6, 3)
	case rest[0] == '(' && bytes.Contains(rest, cmdUndefRefWord):
		return cmdM(FamCompile, scoreCompile, 0, 1) // the linker: main.c:(.text+0x9): undefined reference
	}
	if indent == 0 && c < 40 && sp < 0 {
		switch {
		case cmdStartsWord(rest, "error"), cmdStartsWord(rest, "fatal error"):
			return cmdM(FamError, scoreError, 2, 0) // ld: error:, gcc: error:, go: error
		case cmdStartsWord(rest, "warning"):
			return cmdM(FamWarning, ScoreWarn, 0, 0)
		}
	}
	return Match{}
}

// cmdClassifyLocation ranks "path:line[:col]: rest" lines: compiler and vet
// diagnostics, test messages, stack frames.
func cmdClassifyLocation(path, rest []byte, indent int) Match {
	// Skip the line number and an optional :col.
	i := 0
	for i < len(rest) && IsDigit(rest[i]) {
		i++
	}
	col := false
	if i+1 < len(rest) && rest[i] == ':' && IsDigit(rest[i+1]) {
		col = true
		i++
		for i < len(rest) && IsDigit(rest[i]) {
			i++
		}
	}
	msg := rest[i:]
	switch {
	case len(msg) > 0 && msg[0] == ':':
		msg = msg[1:]
	case cmdHasPrefix(msg, " - "): // tsc --pretty: path:1:2 - error TS...
		msg = msg[3:]
	case cmdHasPrefix(msg, " +0x"), len(msg) == 0, msg[0] == ')':
		return cmdFrame(path, 0, 1) // a Go frame (after its function), or a Java one
	default:
		return Match{}
	}
	// The level words differ by their first letter: only the one it
	// starts with is compared.
	lead := msg
	for len(lead) > 0 && lead[0] == ' ' {
		lead = lead[1:]
	}
	var first byte
	if len(lead) > 0 {
		first = lead[0] | 0x20 // lower case, for a letter
	}
	switch {
	case first == 'e' && cmdStartsWord(lead, "error"), first == 'f' && cmdStartsWord(lead, "fatal error"):
		return cmdM(FamCompile, scoreCompile, 3, 1)
	case first == 'w' && cmdStartsWord(lead, "warning"):
		return cmdM(FamWarning, ScoreWarn, 2, 0)
	case first == 'n' && cmdStartsWord(lead, "note"), first == 'i' && cmdStartsWord(lead, "info"), first == 'h' && cmdStartsWord(lead, "help"):
		return cmdM(FamFrame, scoreFrame, 1, 0)
	case first == 'r' && cmdStartsWord(lead, "remark"), first == 'o' && cmdStartsWord(lead, "optimized"), first == 'm' && cmdStartsWord(lead, "missed"):
		// clang -Rpass, gcc -fopt-info
		return cmdM(FamNote, scoreNote, 0, 0)
	case indent > 0 && !col:
		// go test: "    x_test.go:12: got 1, want 2" (t.Errorf) reads like
		// "    x_test.go:9: connected" (t.Logf); only the first is evidence.
		if rank.MessageWords(msg)&cmdTrouble != 0 {
			return cmdM(FamTest, scoreMessage, 2, 0)
		}
		return Match{}
	case indent == 0 && col:
		switch w := rank.MessageWords(msg); {
		case w&Notes != 0:
			// go build -gcflags=-m: "x.go:3:6: can inline f"
			return cmdM(FamNote, scoreNote, 0, 0)
		case w&cmdTrouble != 0:
			// go build and go vet: "./x.go:3:5: undefined: y"
			return cmdM(FamCompile, scoreCompile-2, 0, 1)
		}
		// A diagnostic that names no level and no error: go vet's
		// findings, a linter's, a note of a report the classifier does
		// not know. It locates a problem; what sets one apart from its
		// like is its rarity.
		return cmdM(FamCompile, ScoreDetail+4, 0, 1)
	case indent == 0:
		// pytest: "test_x.py:12: AssertionError"; javac: "X.java:3: error"
		return cmdM(FamTest, scoreMessage, 0, 0)
	}
	return Match{}
}

// cmdClassifyStylish ranks the problems of a linter's "stylish" report
// (eslint, stylelint): "  12:5  error  'x' is not defined  no-undef" under
// the line that names the file.
func cmdClassifyStylish(t []byte) (Match, bool) {
	i := 0
	for i < len(t) && IsDigit(t[i]) {
		i++
	}
	if i == 0 || i+1 >= len(t) || t[i] != ':' || !IsDigit(t[i+1]) {
		return Match{}, false
	}
	for i++; i < len(t) && IsDigit(t[i]); i++ {
	}
	if i == len(t) || t[i] != ' ' {
		return Match{}, false
	}
	var m Match
	switch rest := t[i:]; {
	case cmdStartsWord(rest, "error"):
		m = cmdM(FamCompile, scoreCompile, 0, 0)
	case cmdStartsWord(rest, "warning"):
		m = cmdM(FamWarning, ScoreWarn, 0, 0)
	default:
		return Match{}, false
	}
	m.Head = true
	return m, true
}

// cmdFrame ranks a stack frame: one in the program's own code says where a
// crash happened and ranks well above one in a runtime, a standard library or
// a dependency.
func cmdFrame(t []byte, after, before uint8) Match {
	if rank.LibraryFrame(t) {
		return cmdM(FamFrame, scoreFrame, 0, 0)
	}
	return cmdM(FamFrame, ScoreDetail, after, before)
}

// cmdIsErrorName reports whether the first word of head, the text before
// a line's first colon, names an error or an exception type ("ValueError",
// "java.lang.IllegalStateException", "AssertionError [ERR_ASSERTION]"). sp
// is where head's first space is, or -1.
func cmdIsErrorName(head []byte, sp int) bool {
	if i := sp; i >= 0 {
		if i+1 >= len(head) || head[i+1] != '[' { // "AssertionError [ERR_ASSERTION]"
			return false
		}
		head = head[:i]
	}
	return rank.ErrorName(head)
}

// What the error vocabulary (rank.MessageWords) tells of the message of a
// located line: a note of a compiler's optimisation report, or trouble (an
// error, a problem, or what a failed assertion says it wanted and got).
var (
	Notes      = rank.NoteWord
	cmdTrouble = rank.ErrorWord | rank.ProblemWord | rank.AssertWord
)

// cmdLooksPath reports whether b could be a file path: no spaces, and a dot
// or a slash in it ("x.go", "./pkg/y.c", "src/main.rs"). sp is where b's
// first space is, or -1.
func cmdLooksPath(b []byte, sp int) bool {
	if len(b) > 300 || sp >= 0 {
		return false
	}
	return bytes.IndexByte(b, '.') >= 0 || bytes.IndexByte(b, '/') >= 0
}

// cmdStartsWord reports whether b, after spaces, starts with word in any
// case.
func cmdStartsWord(b []byte, word string) bool {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	if len(b) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[i] {
			return false
		}
	}
	return len(b) == len(word) || !IsLetter(b[len(word)])
}

func IsLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func cmdHasPrefix(b []byte, s string) bool { return len(b) >= len(s) && string(b[:len(s)]) == s }

// cmdHasCount reports whether word follows a non-zero number in b: "3
// failed", "1 error" (but not "0 failed").
func cmdHasCount(b, word []byte) bool {
	for {
		i := bytes.Index(b, word)
		if i < 0 {
			return false
		}
		nonZero := false
		for j := i - 1; j >= 0 && IsDigit(b[j]); j-- {
			nonZero = nonZero || b[j] != '0'
		}
		if nonZero {
			return true
		}
		b = b[i+len(word):]
	}
}
