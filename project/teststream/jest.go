package teststream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
)

// decodeJest reads the JSON report of jest --json or vitest
// --reporter=json: a document of counts and testResults, one per test
// file, each with its assertionResults. The document may stand alone (a
// file written with --outputFile) or be one line among a runner's text
// (jest prints its text report to stderr and the document to stdout).
func decodeJest(ctx context.Context, r io.ReaderAt, size int64) (*Report, error) {
	rep := &Report{Elapsed: -1}
	head := make([]byte, min(size, 512))
	if n, err := r.ReadAt(head, 0); n < len(head) && err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("teststream: %w", err)
	}
	lr := newLineReader(ctx, r, size)
	if t := bytes.TrimLeft(head, " \t\r\n\ufeff"); len(t) > 0 && t[0] == '{' {
		// The document first (written indented, or stdout flushed before
		// stderr), and any text after it.
		end, err := jestDoc(ctx, rep, r, int64(len(head)-len(t)), size)
		if err != nil {
			return nil, err
		}
		lr.skip(end)
	}
	err := lr.each(func(line []byte, sp Span) error {
		if rep.Events == 0 && isJestReport(bytes.TrimLeft(line, " \t")) {
			if _, err := jestDoc(ctx, rep, r, sp.From, sp.To); err == nil {
				return nil
			}
		}
		rep.addText(line, sp)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// jsonWalk walks a JSON document with the byte-level scanner, decoding
// only the values asked for.
type jsonWalk struct {
	s *jsonscan.Scanner
}

// object calls fn for each member of the object whose '{' was just read,
// with the member's key and the first token of its value; fn must read
// the value (value, skip, or a walk of its own). It returns the offset
// past the object's '}'.
func (w jsonWalk) object(fn func(key string, keyTok, val jsonscan.Token) error) (int64, error) {
	return w.members(fn, nil)
}

// members is object, calling each (when not nil) with each member's key
// and raw span, key to value, once the value is read.
func (w jsonWalk) members(fn func(key string, keyTok, val jsonscan.Token) error, each func(key string, sp Span)) (int64, error) {
	for {
		k, err := w.s.Next()
		if err != nil {
			return 0, err
		}
		if k.Kind == jsonscan.EndObject {
			return k.End, nil
		}
		raw, err := w.s.Bytes(k.Start, k.End, 256)
		if err != nil {
			return 0, err
		}
		key, _ := jsonscan.KeyText(raw, k.End-k.Start > 256)
		v, err := w.s.Next()
		if err != nil {
			return 0, err
		}
		if err := fn(key, k, v); err != nil {
			return 0, err
		}
		if each != nil {
			each(key, Span{k.Start, w.s.Offset()})
		}
	}
}

// end reads the rest of a value whose first token is v and returns the
// offset past it.
func (w jsonWalk) end(v jsonscan.Token) (int64, error) {
	if v.Kind == jsonscan.BeginObject || v.Kind == jsonscan.BeginArray {
		return w.s.Skip()
	}
	return v.End, nil
}

// str decodes a string value, at most max bytes of it.
func (w jsonWalk) str(v jsonscan.Token, max int) (string, error) {
	if v.Kind != jsonscan.String {
		_, err := w.end(v)
		return "", err
	}
	raw, err := w.s.Bytes(v.Start, v.End, max)
	if err != nil {
		return "", err
	}
	s, _ := jsonscan.KeyText(raw, v.End-v.Start > int64(max))
	return s, nil
}

// num decodes a number value; -1 for anything else.
func (w jsonWalk) num(v jsonscan.Token) (float64, error) {
	if v.Kind != jsonscan.Number {
		_, err := w.end(v)
		return -1, err
	}
	raw, err := w.s.Bytes(v.Start, v.End, 64)
	if err != nil {
		return -1, err
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return -1, nil
	}
	return f, nil
}

// array calls fn for the first token of each item of the array whose '['
// was just read; fn must read the item.
func (w jsonWalk) array(fn func(v jsonscan.Token) error) (int64, error) {
	for {
		v, err := w.s.Next()
		if err != nil {
			return 0, err
		}
		if v.Kind == jsonscan.EndArray {
			return v.End, nil
		}
		if err := fn(v); err != nil {
			return 0, err
		}
	}
}

// maxMessage is the most of one failure message decoded.
const maxMessage = 64 << 10

// jestCounts are the counts of a report that sum up its run.
var jestCounts = map[string]bool{"numFailedTests": true, "numPassedTests": true, "numPendingTests": true, "numTotalTests": true,
	"numFailedTestSuites": true, "numPassedTestSuites": true, "numPendingTestSuites": true, "numTotalTestSuites": true, "numRuntimeErrorTestSuites": true, "numTodoTests": true, "success": true}

// jestDoc decodes the report document that starts at start, and returns
// the offset past it.
func jestDoc(ctx context.Context, rep *Report, r io.ReaderAt, start, end int64) (int64, error) {
	s := jsonscan.NewAt(r, start, end)
	s.Single()
	defer s.Close()
	w := jsonWalk{s}
	t, err := s.Next()
	if err != nil {
		return 0, err
	}
	if t.Kind != jsonscan.BeginObject {
		return 0, ErrNotReport
	}
	// The counts that sum up the run, in runs of members written one
	// after another: a quote each.
	var counts []Span
	inRun := false
	each := func(key string, sp Span) {
		switch {
		case !jestCounts[key]:
			inRun = false
		case inRun:
			counts[len(counts)-1].To = sp.To
		default:
			counts, inRun = append(counts, sp), true
		}
	}
	docEnd, err := w.members(func(key string, k, v jsonscan.Token) error {
		switch {
		case key == "testResults" && v.Kind == jsonscan.BeginArray:
			file := 0
			_, err := w.array(func(v jsonscan.Token) error {
				defer func() { file++ }()
				if err := ctx.Err(); err != nil {
					return err
				}
				if v.Kind != jsonscan.BeginObject {
					_, err := w.end(v)
					return err
				}
				return jestFile(w, rep, v, "/testResults/"+strconv.Itoa(file))
			})
			return err
		}
		_, err := w.end(v)
		return err
	}, each)
	if err != nil {
		return 0, err
	}
	rep.Summary = append(rep.Summary, counts...)
	rep.Events++
	return docEnd, nil
}

// jestFile decodes one test file's results.
func jestFile(w jsonWalk, rep *Report, open jsonscan.Token, ptr string) error {
	suite := &Suite{Elapsed: -1}
	var cases []*Case
	var msg string
	var msgSpan Span
	var begin, finish float64 = -1, -1
	end, err := w.object(func(key string, k, v jsonscan.Token) error {
		var err error
		switch key {
		case "assertionResults":
			if v.Kind != jsonscan.BeginArray {
				break
			}
			_, err = w.array(func(v jsonscan.Token) error {
				if v.Kind != jsonscan.BeginObject {
					_, err := w.end(v)
					return err
				}
				c, err := jestCase(w, v)
				if err == nil {
					c.Pointer = ptr + "/assertionResults/" + strconv.Itoa(len(cases))
					cases = append(cases, c)
				}
				return err
			})
			return err
		case "name":
			suite.Name, err = w.str(v, 4096)
			return err
		case "status":
			st, err := w.str(v, 64)
			suite.Status = jestStatus(st)
			return err
		case "message", "failureMessage":
			msg, err = w.str(v, maxMessage)
			msgSpan = Span{k.Start, v.End}
			return err
		case "startTime":
			begin, err = w.num(v)
			return err
		case "endTime":
			finish, err = w.num(v)
			return err
		}
		_, err = w.end(v)
		return err
	})
	if err != nil {
		return err
	}
	if begin >= 0 && finish >= begin {
		suite.Elapsed = (finish - begin) / 1000
	}
	for _, c := range cases {
		c.Suite = suite.Name
		if c.Location == "" && c.at != "" && c.Status == Fail {
			c.Location = suite.Name + c.at
		}
		suite.count(c)
		rep.add(c)
	}
	if suite.Status == Fail && suite.Failed > 0 && strings.TrimSpace(msg) != "" {
		suite.Report, suite.ReportSpan = strings.Split(strings.Trim(msg, "\n"), "\n"), msgSpan
		if len(suite.Report) > MaxLines {
			suite.Report = suite.Report[:MaxLines]
		}
	}
	// A file that failed without a failing test did not run: its message
	// says why (a syntax error, a module not found).
	if suite.Status == Fail && suite.Failed == 0 && strings.TrimSpace(msg) != "" {
		c := &Case{Suite: suite.Name, Name: "[test file failed to run]", Status: Fail, Elapsed: -1, Extent: Span{open.Start, end}, Evidence: []Span{msgSpan}, Key: []bool{true}}
		message{c}.text(msg)
		rep.add(c)
	}
	word := "PASS"
	if suite.Status == Fail {
		word = "FAIL"
	}
	suite.Summary = word + " " + suite.Name
	rep.addSuite(suite)
	rep.Events++
	return nil
}

// jestCase decodes one assertion result.
func jestCase(w jsonWalk, open jsonscan.Token) (*Case, error) {
	c := &Case{Elapsed: -1}
	var ancestors []string
	var title, full string
	var msgs []string
	// The evidence: the members as the document writes them, in runs
	// between the bulky ones (failureDetails repeats the message as
	// objects), the message a run of its own.
	run := Span{}
	flush := func(key bool) {
		if run.To > run.From {
			c.Evidence, c.Key = append(c.Evidence, run), append(c.Key, key)
		}
		run = Span{}
	}
	named := false
	each := func(key string, sp Span) {
		switch key {
		case "failureDetails", "meta":
			flush(named)
		case "failureMessages":
			flush(named)
			run = sp
			flush(true)
			named = false
		default:
			if run.To == 0 {
				run = sp
			}
			run.To = sp.To
			named = named || key == "fullName" || key == "title"
		}
	}
	end, err := w.members(func(key string, k, v jsonscan.Token) error {
		var err error
		switch key {
		case "ancestorTitles":
			if v.Kind != jsonscan.BeginArray {
				break
			}
			_, err = w.array(func(v jsonscan.Token) error {
				s, err := w.str(v, 1024)
				ancestors = append(ancestors, s)
				return err
			})
			return err
		case "title":
			title, err = w.str(v, 4096)
			return err
		case "fullName":
			full, err = w.str(v, 4096)
			return err
		case "status":
			st, err := w.str(v, 64)
			c.Status = jestStatus(st)
			return err
		case "duration":
			d, err := w.num(v)
			if d >= 0 {
				c.Elapsed = d / 1000
			}
			return err
		case "failureMessages":
			if v.Kind != jsonscan.BeginArray {
				break
			}
			_, err := w.array(func(v jsonscan.Token) error {
				s, err := w.str(v, maxMessage)
				if s != "" {
					msgs = append(msgs, s)
				}
				return err
			})
			return err
		case "location":
			if v.Kind != jsonscan.BeginObject {
				break
			}
			var line, col float64 = -1, -1
			_, err = w.object(func(key string, _, v jsonscan.Token) error {
				n, err := w.num(v)
				switch key {
				case "line":
					line = n
				case "column":
					col = n
				}
				return err
			})
			if line > 0 {
				c.at = ":" + strconv.Itoa(int(line))
				if col > 0 {
					c.at += ":" + strconv.Itoa(int(col))
				}
			}
			return err
		}
		_, err = w.end(v)
		return err
	}, each)
	if err != nil {
		return nil, err
	}
	flush(named)
	c.Extent = Span{open.Start, end}
	c.Name = strings.Join(append(ancestors, title), " › ")
	if title == "" {
		c.Name = full
	}
	if c.Status != Fail {
		return c, nil
	}
	m := message{c}
	for _, s := range msgs {
		m.text(s)
	}
	return c, nil
}

func jestStatus(s string) Status {
	switch s {
	case "failed":
		return Fail
	case "pending", "skipped", "todo", "disabled", "focused":
		return Skip
	}
	return Pass
}
