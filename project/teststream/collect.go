package teststream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/project/rank"
)

// Decode reads a report of format f from the first size bytes of r.
func Decode(ctx context.Context, r io.ReaderAt, size int64, f Format) (*Report, error) {
	var rep *Report
	var err error
	switch f {
	case GoTest:
		rep, err = decodeGo(ctx, r, size)
	case LibTest:
		rep, err = decodeLibTest(ctx, r, size)
	case Jest:
		rep, err = decodeJest(ctx, r, size)
	case JUnit:
		rep, err = decodeJUnit(ctx, r, size)
	default:
		return nil, ErrNotReport
	}
	if err != nil {
		return nil, err
	}
	if rep.Events == 0 {
		return nil, ErrNotReport
	}
	rep.Format = f
	return rep, nil
}

// add files a case that ended into the report: a failure, a skip, or a
// pass (counted, and kept when it is among the slowest).
func (r *Report) add(c *Case) {
	switch c.Status {
	case Fail:
		if !c.Synthetic() {
			r.Failed++
		}
		if len(r.Failures) < MaxFailures {
			r.Failures = append(r.Failures, c)
		} else {
			r.FailuresDropped++
		}
	case Skip:
		r.Skipped++
		if len(r.Skips) < MaxSkipped {
			r.Skips = append(r.Skips, c)
		}
	default:
		r.Passed++
		r.pass(c)
		if c.Elapsed <= 0 {
			return
		}
		i := len(r.Slowest)
		for i > 0 && r.Slowest[i-1].Elapsed < c.Elapsed {
			i--
		}
		if i < MaxSlowest {
			c.Message = nil
			r.Slowest = slices.Insert(r.Slowest, i, c)
			if len(r.Slowest) > MaxSlowest {
				r.Slowest = r.Slowest[:MaxSlowest]
			}
		}
	}
}

// pass counts a passing case in the group of its name's template.
func (r *Report) pass(c *Case) {
	t := mask(c.Name)
	for i := len(r.Passes) - 1; i >= 0 && i >= len(r.Passes)-8; i-- {
		// Cases of one template mostly end one after another.
		if g := &r.Passes[i]; g.Template == t && g.Suite == c.Suite {
			g.Count++
			return
		}
	}
	for i := range r.Passes {
		if g := &r.Passes[i]; g.Template == t && g.Suite == c.Suite {
			g.Count++
			return
		}
	}
	if len(r.Passes) < MaxGroups {
		r.Passes = append(r.Passes, Group{Suite: c.Suite, Template: t, Example: c.Name, Count: 1})
	}
}

// Synthetic reports a failure that is not a test's: a build that failed,
// a test file that did not run, a package that crashed outside its tests.
// It is not counted among the run's tests.
func (c *Case) Synthetic() bool { return strings.HasPrefix(c.Name, "[") }

// count counts a case that ended among the suite's.
func (s *Suite) count(c *Case) {
	switch c.Status {
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	default:
		s.Passed++
	}
}

// addSuite files a suite that ended.
func (r *Report) addSuite(s *Suite) {
	if len(r.Suites) < MaxSuites {
		r.Suites = append(r.Suites, s)
		return
	}
	r.SuitesDropped++
}

// addText keeps a line outside the report when it reports trouble.
func (r *Report) addText(line []byte, sp Span) {
	if len(r.Texts) >= MaxTexts {
		return
	}
	s := strings.TrimRight(string(line), "\r")
	if frameLine(s) {
		return // a library's stack frame
	}
	switch sev := rank.LineSeverity(line); {
	case sev == rank.Error:
		r.Texts = append(r.Texts, Text{Line: s, Span: sp, Error: true})
	case sev == rank.Warning || failureMark.MatchString(s) || keyLine(s):
		r.Texts = append(r.Texts, Text{Line: s, Span: sp})
	}
}

// failureMark matches the marks text reporters open a failed test's
// lines with: jest's "●", the crosses of vitest, mocha and others.
var failureMark = lazyre.New(`^\s*(●|✕|✖|×|✗|❯)\s`)

// errorLine reports a line that reports an error, by the error vocabulary.
func errorLine(s string) bool { return rank.LineSeverity([]byte(s)) == rank.Error }

// location finds file:line (and a column) in a line of output: a path
// with an extension, then a line number.
var location = lazyre.New(`(?:[A-Za-z]:)?[\w.@~+\-/\\]*[\w\-]\.[A-Za-z]\w{0,5}:\d+(?::\d+)?`)

// libraryPath reports a path in a library, a runtime or a test framework,
// not in the project: a stack frame there is not where a test failed.
func libraryPath(s string) bool { return rank.LibraryFrame([]byte(s)) }

// keyLine reports a line that says most of a failure: an error, or a
// location in the project's code.
func keyLine(s string) bool {
	if errorLine(s) {
		return true
	}
	for _, loc := range location.FindAllString(s, -1) {
		if !libraryPath(loc) {
			return true
		}
	}
	return false
}

// frameLine reports a line of a stack trace that points into a library.
func frameLine(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || !libraryPath(t) {
		return false
	}
	return strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "File ") ||
		location.MatchString(t) || strings.HasPrefix(t, "file://")
}

// message gathers a case's message lines, bounded, leaving out the lines
// of library stack frames and noting the first location in the project.
type message struct {
	c *Case
}

// frameHead matches the line that names a stack frame's function before
// the line of its location: Rust's "  3: core::panicking::panic_fmt", Go's
// "testing.tRunner(0xc000, 0x5e)".
var frameHead = lazyre.New(`^\s*\d+: \S|^[\w.*/()\[\]-]+\(.*\)$|^created by `)

// line adds one decoded line to the case.
func (m message) line(s string) {
	c := m.c
	s = strings.TrimRight(s, "\r")
	if frameLine(s) {
		c.Frames++
		// The frame's function goes with its location.
		if n := len(c.Message); n > 0 && c.Dropped == 0 && frameHead.MatchString(c.Message[n-1]) {
			c.Message = c.Message[:n-1]
			c.Frames++
		}
		return
	}
	if c.Location == "" {
		for _, loc := range location.FindAllString(s, -1) {
			if !libraryPath(loc) && !strings.HasPrefix(loc, "0x") {
				c.Location = loc
				break
			}
		}
	}
	if len(c.Message) >= MaxLines {
		c.Dropped++
		return
	}
	c.Message = append(c.Message, s)
}

// text adds a decoded text of several lines.
func (m message) text(s string) {
	s = strings.TrimSuffix(s, "\n")
	for _, l := range strings.Split(s, "\n") {
		m.line(l)
	}
}

// lineReader reads a line-based report: each line with its byte span and
// number. Lines longer than maxLine are returned cut, with long set.
type lineReader struct {
	ctx  context.Context
	br   *bufio.Reader
	off  int64
	buf  []byte
	long bool
	n    int64
}

func newLineReader(ctx context.Context, r io.ReaderAt, size int64) *lineReader {
	return &lineReader{ctx: ctx, br: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10)}
}

// skip moves past the bytes before off (a document read apart), and the
// rest of the line that holds off-1.
func (lr *lineReader) skip(off int64) {
	for lr.off < off {
		if _, _, err := lr.next(); err != nil {
			return
		}
	}
}

// each calls fn with every line of the report in turn, without its
// newline, and its span (newline included), until the end, a read error or
// an error of fn's, which it returns.
func (lr *lineReader) each(fn func(line []byte, sp Span) error) error {
	for {
		line, sp, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line, sp); err != nil {
			return err
		}
	}
}

// next returns the next line without its newline, and its span (newline
// included); io.EOF at the end.
func (lr *lineReader) next() ([]byte, Span, error) {
	if lr.n%1024 == 0 {
		if err := lr.ctx.Err(); err != nil {
			return nil, Span{}, err
		}
	}
	lr.buf, lr.long = lr.buf[:0], false
	start := lr.off
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if len(lr.buf)+len(chunk) <= maxLine {
			lr.buf = append(lr.buf, chunk...)
		} else {
			lr.long = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, Span{}, fmt.Errorf("teststream: reading byte %d: %w", lr.off, err)
		}
		if lr.off == start {
			return nil, Span{}, io.EOF
		}
		lr.n++
		return bytes.TrimSuffix(lr.buf, []byte("\n")), Span{start, lr.off}, nil
	}
}

// mask makes a message's template: numbers and quoted strings replaced,
// so that failures that differ only in their values compare equal.
func mask(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			for i+1 < len(s) && (s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '.') {
				i++
			}
			b.WriteByte('#')
		case c == '"' || c == '\'' || c == '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				b.WriteByte(c)
				continue
			}
			i += j + 1
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// plural writes a count and what it counts: "2 passed".
func plural(n int64, what string) string { return strconv.FormatInt(n, 10) + " " + what }
