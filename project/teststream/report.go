// Package teststream recognises the machine-readable reports of test
// runners and decodes them into test cases with the same evidence as their
// text forms: the suite (package, file) and the test's name, its status,
// its duration, its failure message and output, the file:line locations in
// them, and the run's summary.
//
// It reads go test -json (test2json events), cargo test's libtest JSON
// (cargo test -- -Z unstable-options --format json), the JSON report of
// jest --json and vitest --reporter=json, and JUnit XML (pytest
// --junitxml and the many tools that write it). A report may be mixed with
// other text, as a command's interleaved output is: cargo's "Compiling"
// lines, jest's text reporter on stderr; those lines are kept as text
// evidence when they report trouble.
//
// Decoding streams: it reads its input once, in order, through an
// io.ReaderAt, and keeps a bounded number of cases and of lines per case,
// so that a report of a hundred thousand tests costs what one of a few
// hundred does. Every piece of evidence keeps the byte span of the raw
// report it was decoded from, so that a view can quote the raw bytes and
// say where they are.
package teststream

import (
	"bytes"
	"errors"
)

// Format is a kind of machine-readable test report.
type Format int

// The formats teststream decodes.
const (
	None    Format = iota
	GoTest         // go test -json: one test2json event a line
	LibTest        // cargo test -- --format json: one libtest event a line
	Jest           // jest --json, vitest --reporter=json: one JSON document
	JUnit          // JUnit XML: pytest --junitxml, and others
)

var formatNames = [...]string{None: "none", GoTest: "go test -json", LibTest: "cargo test --format json", Jest: "jest JSON", JUnit: "JUnit XML"}

// String names the format as a reader knows it.
func (f Format) String() string {
	if f >= 0 && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return "unknown"
}

// ErrNotReport is returned by Decode when the input holds no report of the
// format asked for.
var ErrNotReport = errors.New("teststream: not a test report")

// Status is how a test case ended.
type Status int

// The statuses, in the order views rank them: a failure first.
const (
	Pass Status = iota
	Skip
	Fail
)

func (s Status) String() string {
	switch s {
	case Fail:
		return "FAIL"
	case Skip:
		return "SKIP"
	}
	return "PASS"
}

// Span is a byte range of the raw report, To exclusive.
type Span struct{ From, To int64 }

// Case is one test case.
type Case struct {
	// Suite is what holds the test: a Go package, a test file, a JUnit
	// suite and class, a Rust crate's test binary.
	Suite string
	// Name is the test's name as its runner writes it (TestX/sub,
	// tests::name, "describe › test").
	Name string
	// Status is how it ended.
	Status Status
	// Elapsed is its duration in seconds; negative when not reported.
	Elapsed float64
	// Message holds the lines of its failure message and output, decoded,
	// with the lines of library stack frames left out (see Frames). At most
	// MaxLines are kept.
	Message []string
	// Frames counts the lines of library stack frames left out of Message;
	// Dropped the lines beyond MaxLines.
	Frames, Dropped int
	// Location is the first file:line of the failure in the project's own
	// code (not in a library or the runtime), "" when none is named.
	Location string
	// Evidence are the raw spans a view quotes for this case, in the
	// order of the report: the events or elements holding its message and
	// its end.
	Evidence []Span
	// Key marks, for each of Evidence, the spans that say most: an error,
	// a location in the project's code. A view that must shorten a case
	// quotes them first.
	Key []bool
	// Extent spans the case in the raw report, from its first event or
	// element to its last.
	Extent Span
	// Pointer is the JSON pointer of the case in a JSON report.
	Pointer string
	// Children counts the failed subtests of a test that failed through
	// them; such a test's own evidence is only its end.
	Children int

	// at is where the test is declared (":line:col" in its suite's file),
	// when the report says.
	at string
}

// Suite is one suite of a run: a Go package, a test file, a JUnit
// testsuite, a Rust test binary.
type Suite struct {
	Name   string
	Status Status
	// Passed, Failed and Skipped count its cases.
	Passed, Failed, Skipped int64
	// Elapsed is its duration in seconds; negative when not reported.
	Elapsed float64
	// Summary is the line its runner's text form ends it with ("ok
	// pkg 0.1s", "FAIL pkg 0.2s"), decoded; "" when the report holds none.
	Summary string
	// Evidence are the raw spans of its end (the package's pass or fail
	// event, the suite's counts).
	Evidence []Span
	// Report is what its runner printed of its failures, formatted (a jest
	// test file's message, with the code around each failure), and its
	// raw span; empty when the report holds none.
	Report     []string
	ReportSpan Span
}

// Group is a template of test names and how many passing cases it names.
type Group struct {
	Suite, Template, Example string
	Count                    int64
}

// Text is a line of the input that is not part of the report (a build's
// output, a runner's text reporter), kept when it reports trouble.
type Text struct {
	Line  string
	Span  Span
	Error bool // an error rather than a warning
}

// Report is a decoded run.
type Report struct {
	Format Format
	// Suites are the run's suites, in the order they ended; at most
	// MaxSuites (SuitesDropped counts the rest).
	Suites        []*Suite
	SuitesDropped int64
	// Failures are the failed cases, in the order they ended: at most
	// MaxFailures (FailuresDropped counts the rest).
	Failures        []*Case
	FailuresDropped int64
	// Skips are skipped cases, at most MaxSkipped; Slowest the slowest
	// passing cases, at most MaxSlowest, slowest first.
	Skips   []*Case
	Slowest []*Case
	// Passes counts the passing cases by the template of their names
	// (numbers and parameters masked: "TestArea/r=#", "test_x[#]"), in the
	// order first met; at most MaxGroups.
	Passes []Group
	// Passed, Failed and Skipped count every case of the run.
	Passed, Failed, Skipped int64
	// Elapsed is the run's duration in seconds; negative when not
	// reported.
	Elapsed float64
	// Summary holds the raw spans of the run's own summary (the counts of
	// a jest report, a libtest suite's end, a JUnit testsuites element).
	Summary []Span
	// Texts are lines outside the report that report trouble: at most
	// MaxTexts.
	Texts []Text
	// Events counts the report's events or elements.
	Events int64
}

// The bounds of what a report keeps.
const (
	MaxSuites   = 2000
	MaxFailures = 500
	MaxSkipped  = 50
	MaxSlowest  = 5
	MaxLines    = 40
	MaxTexts    = 50
	MaxGroups   = 200
	// maxLine is the longest line of a line-based report that is decoded;
	// a longer one is counted as text.
	maxLine = 4 << 20
)

// OK reports a run without failures.
func (r *Report) OK() bool { return r.Failed == 0 && r.FailuresDropped == 0 && len(r.Failures) == 0 }

// Sniff names the format of a report from the first bytes (head) and the
// last bytes (tail) of the input, or None. A report mixed with other text
// is recognised when one of its lines opens within head or tail.
func Sniff(head, tail []byte) Format {
	for _, b := range [][]byte{head, tail} {
		if f := sniffLines(b); f != None {
			return f
		}
	}
	if isJUnit(head) {
		return JUnit
	}
	// A report written indented: its first key is a count.
	if h := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(h) > 0 && h[0] == '{' &&
		bytes.HasPrefix(bytes.TrimLeft(h[1:], " \t\r\n"), []byte(`"num`)) && bytes.Contains(h, []byte(`TestSuites"`)) {
		return Jest
	}
	return None
}

// sniffLines looks at each whole line of b for the opening of a report.
func sniffLines(b []byte) Format {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		line = bytes.TrimLeft(line, " \t\ufeff")
		if len(line) < 2 || line[0] != '{' {
			continue
		}
		switch {
		case isGoEvent(line):
			return GoTest
		case isLibTestEvent(line):
			return LibTest
		case isJestReport(line):
			return Jest
		}
	}
	return None
}

func isGoEvent(line []byte) bool {
	return bytes.Contains(line, []byte(`"Action":"`)) &&
		(bytes.Contains(line, []byte(`"Package":"`)) || bytes.Contains(line, []byte(`"ImportPath":"`)))
}

func isLibTestEvent(line []byte) bool {
	return (bytes.HasPrefix(line, []byte(`{ "type": "`)) || bytes.HasPrefix(line, []byte(`{"type":"`))) &&
		(bytes.Contains(line, []byte(`"type": "suite"`)) || bytes.Contains(line, []byte(`"type": "test"`)) ||
			bytes.Contains(line, []byte(`"type":"suite"`)) || bytes.Contains(line, []byte(`"type":"test"`))) &&
		bytes.Contains(line, []byte(`"event"`))
}

func isJestReport(line []byte) bool {
	// jest writes its counts first; vitest too, in another order. Either
	// opens with a "num…TestSuites" or "num…Tests" count.
	return bytes.HasPrefix(line, []byte(`{"num`)) && bytes.Contains(line, []byte(`TestSuites"`))
}

func isJUnit(head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if bytes.HasPrefix(h, []byte("<?xml")) {
		if i := bytes.Index(h, []byte("?>")); i >= 0 {
			h = bytes.TrimLeft(h[i+2:], " \t\r\n")
		}
	}
	for bytes.HasPrefix(h, []byte("<!--")) {
		i := bytes.Index(h, []byte("-->"))
		if i < 0 {
			return false
		}
		h = bytes.TrimLeft(h[i+3:], " \t\r\n")
	}
	return bytes.HasPrefix(h, []byte("<testsuites")) || bytes.HasPrefix(h, []byte("<testsuite ")) || bytes.HasPrefix(h, []byte("<testsuite>"))
}
