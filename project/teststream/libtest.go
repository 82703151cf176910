package teststream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
)

// libEvent is an event of libtest's JSON format (cargo test -- -Z
// unstable-options --format json).
type libEvent struct {
	Type, Event, Name string
	ExecTime          *float64 `json:"exec_time"`
	Stdout, Message   string
	Passed, Failed    int64
	Ignored           int64
}

// decodeLibTest reads libtest events, one a line, among cargo's own lines
// ("Compiling …", "Running unittests src/lib.rs (…)"), which name the
// suite that follows.
func decodeLibTest(ctx context.Context, r io.ReaderAt, size int64) (*Report, error) {
	rep := &Report{Elapsed: -1}
	lr := newLineReader(ctx, r, size)
	suite := &Suite{Elapsed: -1}
	total := 0.0
	err := lr.each(func(line []byte, sp Span) error {
		var ev libEvent
		t := bytes.TrimSpace(line)
		if lr.long || len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &ev) != nil || ev.Type == "" || ev.Event == "" {
			if s := strings.TrimSpace(string(line)); strings.HasPrefix(s, "Running ") || strings.HasPrefix(s, "Doc-tests ") {
				suite.Name = strings.TrimPrefix(s, "Running ")
				if i := strings.Index(suite.Name, " ("); i > 0 {
					suite.Name = suite.Name[:i]
				}
			}
			rep.addText(line, sp)
			return nil
		}
		rep.Events++
		switch ev.Type {
		case "test", "bench":
			var st Status
			switch ev.Event {
			case "ok":
				st = Pass
			case "failed", "timeout":
				st = Fail
			case "ignored":
				st = Skip
			default:
				return nil // started
			}
			c := &Case{Suite: suite.Name, Name: ev.Name, Status: st, Elapsed: -1, Extent: sp, Evidence: []Span{sp}, Key: []bool{true}}
			if ev.ExecTime != nil {
				c.Elapsed = *ev.ExecTime
			}
			m := message{c}
			if st != Pass {
				if ev.Event == "timeout" {
					m.line("test timed out")
				}
				m.text(strings.TrimLeft(ev.Stdout, "\n"))
				if ev.Message != "" {
					m.text(ev.Message)
				}
			}
			rep.add(c)
		case "suite":
			if ev.Event == "started" {
				return nil
			}
			s := *suite
			s.Evidence = []Span{sp}
			s.Passed, s.Failed, s.Skipped = ev.Passed, ev.Failed, ev.Ignored
			s.Status = Pass
			if ev.Event == "failed" {
				s.Status = Fail
			}
			if ev.ExecTime != nil {
				s.Elapsed = *ev.ExecTime
				total += *ev.ExecTime
			}
			word := "ok"
			if s.Status == Fail {
				word = "FAILED"
			}
			s.Summary = "test result: " + word + ". " + plural(s.Passed, "passed") + "; " + plural(s.Failed, "failed") + "; " + plural(s.Skipped, "ignored")
			rep.addSuite(&s)
			rep.Summary = append(rep.Summary, sp)
			suite = &Suite{Elapsed: -1}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rep.Suites) > 0 {
		rep.Elapsed = total
	}
	return rep, nil
}
