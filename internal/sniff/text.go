package sniff

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/internal/lazyre"
)

// Form is what a text is, told from its bytes alone: whatever a call
// declared and whichever carrier brought it (a command's output, a file
// read, an MCP text block), a go test run read from a CI log is a test
// report.
type Form uint8

// The forms TextOf tells apart. Logs and source code are told by the
// projectors that show them (they know the levels and the languages); a
// text of neither form nor any of these is Prose.
const (
	// Prose is text of no form told here.
	Prose Form = iota
	// Tests is a test runner's report: go test (text, -v and -json),
	// pytest, jest, vitest, cargo test, node --test (TAP), unittest, rspec,
	// ctest.
	Tests
	// Diagnostics are a compiler's or a linter's messages at file:line:
	// gcc and clang, go build and go vet, rustc, tsc, eslint, javac, mypy.
	Diagnostics
	// Crash is a program's crash: a panic or a traceback with its frames.
	Crash
	// JSON is one JSON document.
	JSON
	// JSONLines is one JSON value a line.
	JSONLines
	// HTML is an HTML document or fragment.
	HTML
	// Markdown is a Markdown document.
	Markdown
	// Listing is a list of paths, one a line: find, ls, ls -l, tree, an MCP
	// server's [FILE]/[DIR] lines.
	Listing
)

var formNames = [...]string{
	Prose: "prose", Tests: "test report", Diagnostics: "diagnostics", Crash: "crash", JSON: "JSON",
	JSONLines: "JSON lines", HTML: "HTML", Markdown: "Markdown", Listing: "listing",
}

// String names the form.
func (f Form) String() string {
	if int(f) < len(formNames) {
		return formNames[f]
	}
	return "unknown"
}

// IsOutput reports whether the form is a tool's report on a run (tests,
// diagnostics, a crash): what a command's output is, wherever it was read.
func (f Form) IsOutput() bool { return f == Tests || f == Diagnostics || f == Crash }

// Text is what TextOf tells of a text.
type Text struct {
	// Form is what the text is.
	Form Form
	// Tool names the tool that wrote it when the form says which, such as
	// "go test", "pytest", "cargo test", "rustc" or "tsc"; else "".
	Tool string
	// Stamped reports that most of its lines open with a timestamp, as a
	// CI service writes every line of a job's log.
	Stamped bool
}

// String describes the text for a view: "go test output", "rustc
// diagnostics", "JSON".
func (t Text) String() string {
	switch {
	case t.Tool != "" && t.Form == Tests:
		return t.Tool + " output"
	case t.Tool != "":
		return t.Tool + " " + t.Form.String()
	}
	return t.Form.String()
}

// sampleLines bounds the lines TextOf looks at in each of the head and the
// tail, and lineCap the bytes of one line.
const (
	sampleLines = 256
	lineCap     = 512
)

// TextOf tells what a text is from its head and its tail (nil when the head
// holds the whole text). It looks at no more than Len bytes of each, and at
// most sampleLines lines of each, so it costs the same for a 1 GB log as for
// a page. The same bytes always give the same answer. Content that is binary
// (see IsBinary) should not be passed; it comes out Prose.
func TextOf(head, tail []byte) Text {
	if len(head) > Len {
		head = head[:Len]
	}
	if len(tail) > Len {
		tail = tail[len(tail)-Len:]
	}
	var c counts
	c.part(head, tail != nil, false)
	if tail != nil {
		c.part(tail, false, true)
	}
	t := c.decide(head)
	t.Stamped = c.lines > 0 && c.stamped*2 > c.lines
	return t
}

// runner is a test runner TextOf knows.
type runner uint8

const (
	goTest runner = iota
	goTestJSON
	pytest
	jest
	vitest
	cargoTest
	tap
	unittest
	rspec
	ctest
	numRunners
)

var runnerNames = [numRunners]string{"go test", "go test -json", "pytest", "jest", "vitest", "cargo test", "TAP", "unittest", "rspec", "ctest"}

// diagTool is a diagnostics writer TextOf tells apart; diagAny stands for
// the file:line:col form many share.
type diagTool uint8

const (
	diagAny diagTool = iota
	diagRustc
	diagTsc
	diagColumns
	numDiagTools
)

// diagNames name the tools; the column form of eslint's default output is
// yamllint's and others' too, and names none.
var diagNames = [numDiagTools]string{"", "rustc", "tsc", ""}

// counts are what the lines of a sample showed.
type counts struct {
	lines int // lines that are not blank

	// strong counts lines only a runner writes; weak ones it writes among
	// others.
	strong, weak [numRunners]int
	diag         [numDiagTools]int
	diagWeak     int
	crash        int // lines that open a crash
	frames       int // stack frames

	json      int // lines that are a JSON object or array
	html      int // lines that hold an HTML tag
	headings  int // Markdown headings
	fences    int // Markdown code fences
	mdMarks   int // list items, tables, block quotes
	listing   int // lines that are a path, an ls -l entry or a tree line
	prevBlank bool
	heading   bool // the last line was a heading if the next is blank
	links     int  // Markdown links
	stamped   int  // lines that open with a timestamp
	crashEnd  int  // lines counted when the last crash line was met
}

// part counts the lines of one part of the sample; cutEnd and cutStart say
// that its last or first line may be cut short.
func (c *counts) part(b []byte, cutEnd, cutStart bool) {
	ls := bytes.Split(b, []byte{'\n'})
	if cutStart && len(ls) > 1 {
		ls = ls[1:]
	}
	if cutEnd && len(ls) > 1 {
		ls = ls[:len(ls)-1]
	}
	if len(ls) > sampleLines {
		if cutStart {
			ls = ls[len(ls)-sampleLines:]
		} else {
			ls = ls[:sampleLines]
		}
	}
	fenced := false
	c.prevBlank, c.heading = true, false
	for _, l := range ls {
		l, stamped := cleanLine(l)
		t := bytes.TrimLeft(l, " \t")
		if len(t) == 0 {
			if c.heading {
				// A heading stands between blank lines; a comment
				// ("# ..." in shell or Python) sits on what it comments.
				c.headings++
			}
			c.prevBlank, c.heading = true, false
			continue
		}
		c.heading = false
		c.lines++
		if stamped {
			c.stamped++
		}
		if bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~")) {
			// What a Markdown document quotes in a code block is not what
			// the document is.
			c.fences++
			fenced = !fenced
			c.prevBlank = false
			continue
		}
		if fenced {
			c.prevBlank = false
			continue
		}
		c.line(t, len(l)-len(t))
		c.prevBlank = false
	}
	if c.heading {
		// The last line of the part: nothing follows it here.
		c.headings++
		c.heading = false
	}
}

// cleanLine drops what hides a line's form: a carriage return, ANSI escape
// sequences, a leading timestamp (CI services stamp every line of a job's
// log), and cuts it to lineCap bytes.
func cleanLine(l []byte) (_ []byte, stamped bool) {
	if len(l) > lineCap {
		l = l[:lineCap]
	}
	l = bytes.TrimRight(l, "\r")
	if bytes.IndexByte(l, 0x1b) >= 0 {
		l = ansiEscape.ReplaceAll(l, nil)
	}
	if s, e, ok := drain.Timestamp(l); ok && s == 0 && e < len(l) && (l[e] == ' ' || l[e] == '\t') {
		return l[e+1:], true
	}
	return l, false
}

var ansiEscape = lazyre.New(`\x1b\[[0-9;?]*[A-Za-z]`)

// The forms of lines, as patterns over a line without its indentation.
var (
	goOK         = lazyre.New(`^ok {2}\t\S+\t(\d+\.\d+s|\(cached\))`)
	goFailPkg    = lazyre.New(`^FAIL\t\S+\t(\d+\.\d+s|\[)`)
	goNoTests    = lazyre.New(`^\? {3}\t\S+\t\[no test files\]`)
	goMessage    = lazyre.New(`^\S+_test\.go:\d+: `)
	goGoroutine  = lazyre.New(`^goroutine \d+ \[`)
	pyResultLine = lazyre.New(`^\S+\.py::\S+ (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b`)
	pyProgress   = lazyre.New(`^(?:(\S+\.py )?[.FEsxX]+\s*\[\s*\d+%\]|\S+\.py [.FEsxX]+)$`)
	pyBanner     = lazyre.New(`^(=+ (FAILURES|ERRORS|warnings summary|short test summary info) =+|_{3,} \S+ _{3,})$`)
	pySummary    = lazyre.New(`^=+ .*\b(passed|failed|errors?|skipped|deselected|no tests ran)\b.* in \d+(\.\d+)?s.*=+$`)
	pyFailed     = lazyre.New(`^(FAILED|ERROR|PASSED|SKIPPED|XFAIL|XPASS) \S+::\S+`)
	pyCollected  = lazyre.New(`^(collecting \.\.\. )?collected \d+ items?`)
	jestSuite    = lazyre.New(`^(PASS|FAIL) +\S+\.(test|spec)\.[cm]?[jt]sx?\b`)
	jestTotals   = lazyre.New(`^(Tests|Test Suites|Snapshots):\s+.*\d+ total`)
	jestCase     = lazyre.New(`^[✓✕√×] .*\(\d+ ms\)$`)
	vitestFile   = lazyre.New(`^[✓❯×↓] \S+\.(test|spec)\.[cm]?[jt]sx? (\(\d+ tests?|> )`)
	vitestTotals = lazyre.New(`^(Test Files|Tests)\s+\d+ (passed|failed|skipped)`)
	vitestFail   = lazyre.New(`^FAIL +\S+\.(test|spec)\.[cm]?[jt]sx? > `)
	vitestCase   = lazyre.New(`^[✓×↓] .* \d+ms$`)
	vitestRun    = lazyre.New(`^RUN\s+v\d+\.\d+`)
	vitestFailed = lazyre.New(`^⎯+ Failed Tests? \d+ ⎯+`)
	cargoRunning = lazyre.New(`^running \d+ tests?$`)
	cargoCase    = lazyre.New(`^test \S+ (- \S+ )?\.\.\. (ok|FAILED|ignored)`)
	cargoResult  = lazyre.New(`^test result: (ok|FAILED)\. \d+ passed`)
	cargoStdout  = lazyre.New(`^---- \S+ stdout ----$`)
	cargoUnit    = lazyre.New(`^Running (unittests |tests/)?\S+ \(target/`)
	tapLine      = lazyre.New(`^(not )?ok \d+( - |$)`)
	tapCount     = lazyre.New(`^# (tests|suites|pass|fail|cancelled|skipped|todo) \d+$`)
	unitRan      = lazyre.New(`^Ran \d+ tests? in \d`)
	unitFail     = lazyre.New(`^(FAIL|ERROR): \w+ \(\S+\)`)
	unitFailed   = lazyre.New(`^FAILED \((failures|errors)=\d+`)
	unitCase     = lazyre.New(`^\w+ \([\w.]+\)( \(.*\))? \.\.\. ?(ok|FAIL|ERROR|skipped|expected failure)?$`)
	rspecTotals  = lazyre.New(`^\d+ examples?, \d+ failures?`)
	rspecRerun   = lazyre.New(`^rspec \./\S+:\d+ # `)
	rspecTime    = lazyre.New(`^Finished in \d+(\.\d+)? (seconds?|minutes?)`)
	ctestCase    = lazyre.New(`^\d+/\d+ Test +#\d+: \S+ \.+ *(\*\*\*)?\S+ +\d+(\.\d+)? sec$`)
	ctestTotals  = lazyre.New(`^\d+% tests passed, \d+ tests? failed out of \d+$`)

	diagColon  = lazyre.New(`^[\w./\\~+@-]*\w\.[A-Za-z]\w*:\d+(:\d+)?: `)
	diagLevel  = lazyre.New(`^[\w./\\~+@-]*\w\.[A-Za-z]\w*:\d+(:\d+)?: (fatal )?(error|warning|note)\b`)
	rustLevel  = lazyre.New(`^(error|warning)(\[E\d+\])?: `)
	rustWhere  = lazyre.New(`^--> \S+:\d+:\d+$`)
	tscParen   = lazyre.New(`^\S+\.[cm]?[jt]sx?\(\d+,\d+\): (error|warning) TS\d+`)
	tscDash    = lazyre.New(`^\S+\.[cm]?[jt]sx?:\d+:\d+ - (error|warning) TS\d+`)
	eslintLine = lazyre.New(`^\d+:\d+\s+(error|warning)\s+\S`)
	gccIn      = lazyre.New(`^\S+\.\w+: (In|At) (function|member function|top level|global scope)`)
	caretLine  = lazyre.New(`^\|?\s*\^[~^]*\s*$`)

	pyFrame   = lazyre.New(`^File ".+", line \d+`)
	atFrame   = lazyre.New(`^at (?:\S+ \(.*:\d+(:\d+)?\)|\S+\(\S+\.java:\d+\))$`)
	goFrameAt = lazyre.New(`^/\S+\.go:\d+( \+0x[0-9a-f]+)?$`)

	treeLine = lazyre.New("^((│|\\||\\x{a0}| )[ \\x{a0}]{3})*(├──|└──|\\|--|`--) ")
	lsLong   = lazyre.New(`^[-dlcbps][rwxsStT-]{9}[.+@]?\s+\d+\s`)
	pathLine = lazyre.New(`^\.{0,2}/?[\w@+~.-]+(/[\w@+~. -]*)*/?$`)
	htmlTag  = lazyre.New(`</?(html|head|body|div|span|p|a|ul|ol|li|h[1-6]|table|tr|td|th|pre|code|section|article|nav|header|footer|main|script|style|meta|link|title|br|img|form|input)\b[^>]*>`)
	mdMark   = lazyre.New(`^(?:[-*+] \S|\d+\. \S|> |\|.*\|$)`)
	mdLink   = lazyre.New(`\]\([^)\s]+\)`)
	gutter   = lazyre.New(`^(\d+ +)?\|( |$)`)
)

// line counts one line, t without its indentation of indent bytes.
func (c *counts) line(t []byte, indent int) {
	s := string(t)
	// Each pattern is tried only when the line has a byte or a prefix it
	// needs: most lines match none, and the patterns cost more than the
	// tests that rule them out.
	has := func(prefix string, re *lazyre.Regexp) bool { return strings.HasPrefix(s, prefix) && re.MatchString(s) }
	hasAny := func(prefixes string, re *lazyre.Regexp) bool {
		r, _ := utf8.DecodeRuneInString(s)
		return strings.ContainsRune(prefixes, r) && re.MatchString(s)
	}
	colon := strings.IndexByte(s, ':')
	atLine := colon > 0 && colon+1 < len(s) && s[colon+1] >= '0' && s[colon+1] <= '9'
	switch {
	// go test
	case strings.HasPrefix(s, "=== RUN ") || strings.HasPrefix(s, "=== PAUSE ") || strings.HasPrefix(s, "=== CONT ") || strings.HasPrefix(s, "=== NAME"):
		c.strong[goTest]++
	case isGoResult(s), has("ok ", goOK), has("FAIL\t", goFailPkg), has("?", goNoTests):
		c.strong[goTest]++
	case s == "PASS" || s == "FAIL":
		c.weak[goTest]++
	case indent > 0 && atLine && strings.Contains(s, "_test.go:") && goMessage.MatchString(s):
		c.weak[goTest]++
	case strings.HasPrefix(s, `{"Time":"`) || strings.HasPrefix(s, `{"Action":"`):
		if strings.Contains(s, `"Action":"`) && (strings.Contains(s, `"Package":"`) || strings.Contains(s, `"Test":"`)) {
			c.strong[goTestJSON]++
		} else {
			c.json++
		}

	// pytest
	case strings.HasPrefix(s, "====") && strings.Contains(s, " test session starts "):
		c.strong[pytest]++
	case strings.Contains(s, ".py::") && pyResultLine.MatchString(s), (strings.HasSuffix(s, "%]") || strings.Contains(s, ".py ")) && pyProgress.MatchString(s),
		has("=", pySummary), strings.Contains(s, "::") && pyFailed.MatchString(s), has("coll", pyCollected):
		c.strong[pytest]++
	case strings.HasPrefix(s, "platform ") && strings.Contains(s, " -- Python "), strings.HasPrefix(s, "rootdir: "):
		c.weak[pytest]++
	case indent == 0 && (strings.HasPrefix(s, "E   ") || strings.HasPrefix(s, "E\t")), hasAny("=_", pyBanner):
		c.weak[pytest]++

	// vitest, and jest, whose lines look alike
	case hasAny("✓❯×↓", vitestFile), has("FAIL ", vitestFail), has("Test", vitestTotals), has("RUN", vitestRun), has("⎯", vitestFailed):
		c.strong[vitest]++
	case hasAny("✓×↓", vitestCase), strings.HasPrefix(s, "→ "):
		c.weak[vitest]++
	case hasAny("PF", jestSuite), hasAny("TS", jestTotals):
		c.strong[jest]++
	case hasAny("✓✕√×", jestCase) || strings.HasPrefix(s, "● "):
		c.weak[jest]++

	// cargo test
	case has("running ", cargoRunning), has("test ", cargoCase), has("test result: ", cargoResult), has("---- ", cargoStdout), has("Running ", cargoUnit):
		c.strong[cargoTest]++
	case strings.HasPrefix(s, "Doc-tests ") || s == "failures:" || s == "successes:":
		c.weak[cargoTest]++

	// TAP (node --test) and unittest
	case strings.HasPrefix(s, "TAP version "), has("# ", tapCount), hasAny("on", tapLine):
		c.strong[tap]++
	case strings.HasPrefix(s, "# Subtest: "), strings.HasPrefix(s, "duration_ms: "):
		c.weak[tap]++
	case has("Ran ", unitRan), hasAny("FE", unitFail), has("FAILED (", unitFailed), strings.Contains(s, ") ...") && unitCase.MatchString(s):
		c.strong[unittest]++

	// rspec and ctest
	case hasAny("0123456789", rspecTotals), has("rspec ./", rspecRerun), has("Finished in ", rspecTime), strings.HasPrefix(s, "Failure/Error: "):
		c.strong[rspec]++
	case s == "Failures:" || s == "Failed examples:":
		c.weak[rspec]++
	case strings.Contains(s, " Test ") && hasAny("0123456789", ctestCase), strings.HasPrefix(s, "Test project /"), hasAny("0123456789", ctestTotals):
		c.strong[ctest]++
	case strings.HasPrefix(s, "Start ") || s == "The following tests FAILED:" || strings.HasPrefix(s, "Total Test time (real)"):
		c.weak[ctest]++

	// listings drawn by tree, before the gutters of diagnostics
	case strings.ContainsAny(s, "├└|`") && isTreeLine(s):
		c.listing++

	// diagnostics
	case indent == 0 && atLine && diagLevel.MatchString(s):
		c.diag[diagAny] += 2
	case indent == 0 && atLine && diagColon.MatchString(s):
		c.diag[diagAny]++
	case indent == 0 && hasAny("ew", rustLevel):
		c.diagWeak++
	case has("--> ", rustWhere):
		c.diag[diagRustc] += 2
	case strings.Contains(s, "): ") && tscParen.MatchString(s), strings.Contains(s, " - ") && tscDash.MatchString(s):
		c.diag[diagTsc] += 2
	case indent > 0 && hasAny("0123456789", eslintLine):
		c.diag[diagColumns] += 2
	case strings.Contains(s, ": ") && gccIn.MatchString(s), strings.Contains(s, "^") && caretLine.MatchString(s), hasAny("0123456789|", gutter):
		c.diagWeak++
	case indent == 0 && strings.HasPrefix(s, "# ") && !strings.Contains(s[2:], " ") && strings.Contains(s, "/"):
		// go build's package line: "# example.com/shop/cart".
		c.diagWeak++

	// crashes
	case indent == 0 && (strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ") || strings.HasPrefix(s, "Traceback (most recent call last):") ||
		strings.HasPrefix(s, "Exception in thread ")):
		c.crash++
		c.crashEnd = c.lines
	case strings.Contains(s, "' panicked at "):
		c.crash++
		c.crashEnd = c.lines
		c.weak[cargoTest]++
	case has("goroutine ", goGoroutine), has(`File "`, pyFrame), has("at ", atFrame), has("/", goFrameAt):
		c.frames++

	// documents and listings
	case indent == 0 && c.prevBlank && isHeading(s):
		c.heading = true
	case strings.Contains(s, "<") && htmlTag.MatchString(s):
		c.html++
	case (s[0] == '{' && strings.HasSuffix(s, "}")) || (s[0] == '[' && strings.HasSuffix(s, "]")):
		c.json++
	case hasAny("-dlcbps", lsLong), strings.HasPrefix(s, "[FILE] "), strings.HasPrefix(s, "[DIR] "):
		c.listing++
	case strings.ContainsAny(s, "/.") && !strings.HasSuffix(s, ".") && pathLine.MatchString(s):
		c.listing++
	}
	if hasAny("-*+>|0123456789", mdMark) {
		c.mdMarks++
	}
	if bytes.Contains(t, []byte("](")) && mdLink.Match(t) {
		c.links++
	}
}

// isGoResult reports whether s is go test's line for a test's result:
// "--- FAIL: TestX (0.00s)".
func isGoResult(s string) bool {
	if !strings.HasPrefix(s, "--- PASS: ") && !strings.HasPrefix(s, "--- FAIL: ") && !strings.HasPrefix(s, "--- SKIP: ") {
		return false
	}
	i := strings.LastIndex(s, " (")
	return i > len("--- PASS: ") && strings.HasSuffix(s, "s)") && strings.Trim(s[i+2:len(s)-2], "0123456789.") == ""
}

// isTreeLine reports whether s is a line of tree's drawing: "├── name",
// "│   └── name", "|-- name", "`-- name".
func isTreeLine(s string) bool { return treeLine.MatchString(s) }

// isHeading reports whether s is a Markdown ATX heading.
func isHeading(s string) bool {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && n < len(s) && s[n] == ' ' && strings.TrimSpace(s[n:]) != ""
}

// decide names the form the counts show.
func (c *counts) decide(head []byte) Text {
	n := c.lines
	if n == 0 {
		return Text{}
	}
	// A test report: the best runner's lines. Runners share some lines
	// (jest's and vitest's ✓), so the one with the most lines only it
	// writes wins.
	best := runner(0)
	for r := runner(1); r < numRunners; r++ {
		if c.strong[r] > c.strong[best] || c.strong[r] == c.strong[best] && c.weak[r] > c.weak[best] {
			best = r
		}
	}
	strong, lines := c.strong[best], c.strong[best]+c.weak[best]
	tests := strong >= 6 && lines*25 >= n || strong >= 3 && lines*10 >= n || strong >= 1 && lines*3 >= n
	diagTool, diag := diagAny, 0
	for d := diagTool; d < numDiagTools; d++ {
		diag += c.diag[d]
		if c.diag[d] > c.diag[diagTool] {
			diagTool = d
		}
	}
	// diag counts 2 for a line that names its level or its tool.
	diags := (diag >= 2 || diag == 1 && n <= 3) && (diag+c.diagWeak)*4 >= n
	// A crash is what a text is when its lines are many, or when it ends
	// the text (a script's output and then its traceback) of a text that is
	// not a log (whose view shows its errors).
	crash := c.crash >= 1 && c.frames >= 1 &&
		((c.crash+c.frames)*20 >= n || n-c.crashEnd <= 64 && c.stamped*2 < n)
	switch {
	case tests:
		return Text{Form: Tests, Tool: runnerNames[best]}
	case diags && (!crash || diag >= c.frames):
		return Text{Form: Diagnostics, Tool: diagNames[diagTool]}
	case crash:
		return Text{Form: Crash}
	}
	if LooksJSON(head) {
		if c.json >= 2 && c.json*10 >= n*9 {
			return Text{Form: JSONLines}
		}
		return Text{Form: JSON}
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '<' && (c.html*3 >= n || hasPrefixFold(t, "<!doctype html") || hasPrefixFold(t, "<html")) {
		return Text{Form: HTML}
	}
	// Headings alone may be comments between blank lines: a few in a long
	// text need other marks.
	if c.headings >= 2 && (c.headings*50 >= n || c.mdMarks >= 3) || c.headings >= 1 && (c.fences >= 2 || c.links >= 2) || c.fences >= 2 && c.links >= 2 {
		return Text{Form: Markdown}
	}
	if n >= 2 && c.listing*10 >= n*8 {
		return Text{Form: Listing}
	}
	return Text{}
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && strings.EqualFold(string(b[:len(prefix)]), prefix)
}

// LooksJSON reports whether content that begins with head opens a JSON
// object or array and its first tokens parse (a head cut short is fine; a
// syntax error is not).
func LooksJSON(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	for i := 0; i < 64; i++ {
		if _, err := dec.Token(); err != nil {
			return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
	return true
}
