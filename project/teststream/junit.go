package teststream

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// decodeJUnit reads JUnit XML with encoding/xml's token API: testsuite
// elements with their counts, testcase elements with their failure,
// error, skipped, system-out and system-err children. Only one test
// case's text is held at a time.
func decodeJUnit(ctx context.Context, r io.ReaderAt, size int64) (*Report, error) {
	rep := &Report{Elapsed: -1}
	d := xml.NewDecoder(io.NewSectionReader(r, 0, size))
	d.Strict = false
	var suites []*Suite // open testsuite elements
	var c *Case
	var inText string // the child of a testcase whose text is read
	var textStart int64
	var msg message
	prev := int64(0)
	total := -1.0
	for {
		if rep.Events%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		tok, err := d.Token()
		off := d.InputOffset()
		start := prev
		prev = off
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) && rep.Events > 0 {
				break // a report cut short: what was read stands
			}
			if errors.As(err, &se) {
				return nil, ErrNotReport
			}
			return nil, fmt.Errorf("teststream: reading JUnit XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "testsuites":
				if v, ok := attr(t, "time"); ok {
					total = seconds(v)
				}
				if _, ok := attr(t, "tests"); ok {
					rep.Summary = append(rep.Summary, Span{start, off})
				}
				rep.Events++
			case "testsuite":
				s := &Suite{Name: attrOr(t, "name", ""), Elapsed: -1, Evidence: []Span{{start, off}}}
				if v, ok := attr(t, "time"); ok {
					s.Elapsed = seconds(v)
				}
				suites = append(suites, s)
				rep.Events++
			case "testcase":
				c = &Case{Name: attrOr(t, "name", ""), Suite: attrOr(t, "classname", ""), Elapsed: -1, Extent: Span{start, off}, Evidence: []Span{{start, off}}, Key: []bool{false}}
				if v, ok := attr(t, "time"); ok {
					c.Elapsed = seconds(v)
				}
				if c.Suite == "" && len(suites) > 0 {
					c.Suite = suites[len(suites)-1].Name
				}
				if f, ok := attr(t, "file"); ok {
					if l, ok := attr(t, "line"); ok {
						c.at = f + ":" + l
					}
				}
				msg = message{c}
				rep.Events++
			case "failure", "error", "skipped", "system-out", "system-err":
				if c == nil {
					break
				}
				inText, textStart = t.Name.Local, off
				switch t.Name.Local {
				case "failure", "error":
					c.Status = Fail
					c.Evidence = append(c.Evidence, Span{start, off})
					c.Key = append(c.Key, true)
					if m, ok := attr(t, "message"); ok {
						msg.text(m)
					}
				case "skipped":
					if c.Status != Fail {
						c.Status = Skip
					}
					c.Evidence = append(c.Evidence, Span{start, off})
					c.Key = append(c.Key, false)
					if m, ok := attr(t, "message"); ok {
						msg.text(m)
					}
				}
			}
		case xml.CharData:
			if c == nil || inText == "" {
				break
			}
			if (inText == "system-out" || inText == "system-err") && c.Status == Pass {
				break
			}
			msg.text(strings.Trim(string(t), "\n"))
		case xml.EndElement:
			switch t.Name.Local {
			case "failure", "error", "skipped":
				if c != nil && inText == t.Name.Local && start > textStart {
					c.Evidence = append(c.Evidence, Span{textStart, start})
					c.Key = append(c.Key, true)
				}
				inText = ""
			case "system-out", "system-err":
				inText = ""
			case "testcase":
				if c == nil {
					break
				}
				c.Extent.To = off
				if c.Location == "" && c.Status == Fail {
					c.Location = c.at
				}
				if len(suites) > 0 {
					s := suites[len(suites)-1]
					s.count(c)
					if c.Status == Fail {
						s.Status = Fail
					}
				}
				rep.add(c)
				c = nil
			case "testsuite":
				if len(suites) == 0 {
					break
				}
				s := suites[len(suites)-1]
				suites = suites[:len(suites)-1]
				word := "PASS"
				if s.Status == Fail {
					word = "FAIL"
				}
				s.Summary = fmt.Sprintf("%s %s: %d passed, %d failed, %d skipped", word, s.Name, s.Passed, s.Failed, s.Skipped)
				if s.Elapsed >= 0 {
					s.Summary += " in " + strconv.FormatFloat(s.Elapsed, 'f', -1, 64) + "s"
				}
				rep.addSuite(s)
			}
		}
	}
	rep.Elapsed = total
	return rep, nil
}

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func attrOr(t xml.StartElement, name, def string) string {
	if v, ok := attr(t, name); ok {
		return v
	}
	return def
}

func seconds(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return -1
	}
	return f
}
