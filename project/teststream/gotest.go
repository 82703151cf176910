package teststream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strconv"
	"strings"
)

// goEvent is a test2json event (go doc test2json), with the fields of
// the build events of go test -json (go 1.24 and later).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Elapsed     *float64
	Output      *string
	ImportPath  string
	FailedBuild string
}

// parse decodes an event. Most are test2json's own, whose fields are
// plain: those are read straight from the bytes; any other goes through
// encoding/json.
func (ev *goEvent) parse(line []byte) bool {
	if bytes.IndexByte(line, '\\') < 0 && bytes.HasSuffix(line, []byte("}")) && bytes.Count(line, []byte(`"`))%2 == 0 {
		if ev.fast(line) {
			return true
		}
		*ev = goEvent{}
	}
	return json.Unmarshal(line, ev) == nil
}

// fast reads the fields of an event without escapes, and reports false
// when it meets one it does not know.
func (ev *goEvent) fast(line []byte) bool {
	b := line[1 : len(line)-1]
	for len(b) > 0 {
		if b[0] != '"' {
			return false
		}
		k := bytes.IndexByte(b[1:], '"')
		if k < 0 || len(b) < k+3 || b[k+2] != ':' {
			return false
		}
		key, rest := string(b[1:k+1]), b[k+3:]
		var val []byte
		if len(rest) > 0 && rest[0] == '"' {
			e := bytes.IndexByte(rest[1:], '"')
			if e < 0 {
				return false
			}
			val, b = rest[1:e+1], rest[e+2:]
		} else {
			e := bytes.IndexByte(rest, ',')
			if e < 0 {
				e = len(rest)
			}
			val, b = rest[:e], rest[e:]
		}
		switch key {
		case "Action":
			ev.Action = string(val)
		case "Package":
			ev.Package = string(val)
		case "Test":
			ev.Test = string(val)
		case "ImportPath":
			ev.ImportPath = string(val)
		case "FailedBuild":
			ev.FailedBuild = string(val)
		case "Output":
			s := string(val)
			ev.Output = &s
		case "Elapsed":
			f, err := strconv.ParseFloat(string(val), 64)
			if err != nil {
				return false
			}
			ev.Elapsed = &f
		case "Time", "Source":
		default:
			return false
		}
		if len(b) > 0 {
			if b[0] != ',' {
				return false
			}
			b = b[1:]
		}
	}
	return true
}

// goTest is a test that started and has not ended.
type goTest struct {
	c       *Case
	msg     message
	pending []goOut // its output, kept until it ends
	tail    int     // the last output events are kept: the end of a long log is where a failure is
}

// goOut is an output event of a test: its span and its text.
type goOut struct {
	sp  Span
	out string
}

// decodeGo reads test2json events, one a line. Output events are gathered
// per test and per package; a test's case is made when it ends, a
// package's suite when it ends, and a build's failure when it fails.
func decodeGo(ctx context.Context, r io.ReaderAt, size int64) (*Report, error) {
	rep := &Report{Elapsed: -1}
	lr := newLineReader(ctx, r, size)
	running := map[string]*goTest{}
	pkgs := map[string]*Suite{}
	pkgOut := map[string]*goTest{} // package-level output: panics, timeouts, its summary line
	builds := map[string]*goTest{}
	failedKids := map[string]int{}
	key := func(pkg, test string) string { return pkg + "\x00" + test }
	suite := func(pkg string) *Suite {
		s := pkgs[pkg]
		if s == nil {
			s = &Suite{Name: pkg, Elapsed: -1}
			pkgs[pkg] = s
		}
		return s
	}
	err := lr.each(func(line []byte, sp Span) error {
		var ev goEvent
		if lr.long || len(line) == 0 || line[0] != '{' || !ev.parse(line) || ev.Action == "" {
			rep.addText(line, sp)
			return nil
		}
		rep.Events++
		switch {
		case ev.Action == "build-output" || ev.Action == "build-fail":
			b := builds[ev.ImportPath]
			if b == nil {
				b = &goTest{c: &Case{Suite: ev.ImportPath, Name: "[build failed]", Elapsed: -1, Status: Fail, Extent: sp}}
				b.msg = message{b.c}
				builds[ev.ImportPath] = b
			}
			b.c.Extent.To = sp.To
			if ev.Output != nil {
				b.output(sp, *ev.Output)
			}
			if ev.Action == "build-fail" {
				b.end(&sp)
				rep.add(b.c)
				delete(builds, ev.ImportPath)
			}
		case ev.Test != "":
			k := key(ev.Package, ev.Test)
			t := running[k]
			if t == nil {
				t = &goTest{c: &Case{Suite: ev.Package, Name: ev.Test, Elapsed: -1, Extent: sp}}
				t.msg = message{t.c}
				running[k] = t
			}
			t.c.Extent.To = sp.To
			switch ev.Action {
			case "output":
				if ev.Output != nil {
					t.output(sp, *ev.Output)
				}
			case "pass", "fail", "skip":
				delete(running, k)
				if ev.Elapsed != nil {
					t.c.Elapsed = *ev.Elapsed
				}
				t.c.Status = map[string]Status{"pass": Pass, "fail": Fail, "skip": Skip}[ev.Action]
				t.end(&sp)
				if t.c.Status == Fail {
					t.c.Children = failedKids[k]
					delete(failedKids, k)
					if i := strings.LastIndexByte(ev.Test, '/'); i > 0 {
						failedKids[key(ev.Package, ev.Test[:i])]++
					}
				}
				s := suite(ev.Package)
				s.count(t.c)
				rep.add(t.c)
			}
		default:
			p := pkgOut[ev.Package]
			if p == nil {
				p = &goTest{c: &Case{Suite: ev.Package, Name: "[package]", Elapsed: -1, Extent: sp}}
				p.msg = message{p.c}
				pkgOut[ev.Package] = p
			}
			p.c.Extent.To = sp.To
			switch ev.Action {
			case "output":
				if ev.Output == nil {
					break
				}
				out := strings.TrimRight(*ev.Output, "\n")
				if isGoSummary(out) {
					suite(ev.Package).Summary = out
					break
				}
				if out == "PASS" || out == "FAIL" {
					break
				}
				p.output(sp, *ev.Output)
			case "pass", "fail", "skip":
				s := suite(ev.Package)
				delete(pkgs, ev.Package)
				delete(pkgOut, ev.Package)
				s.Status = map[string]Status{"pass": Pass, "fail": Fail, "skip": Skip}[ev.Action]
				if ev.Elapsed != nil {
					s.Elapsed = *ev.Elapsed
				}
				s.Evidence = append(s.Evidence, sp)
				rep.addSuite(s)
				// What the package printed outside its tests is a failure
				// of its own when the package failed and no test did (a
				// panic in init, a timeout, a test binary that crashed).
				if s.Status == Fail && len(p.pending) > 0 && s.Failed == 0 && ev.FailedBuild == "" {
					p.c.Status = Fail
					p.end(&sp)
					rep.add(p.c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Tests that never ended: the run was cut short (a timeout, a crash).
	// In the order they started, so that the view is the same each time.
	left := make([]*goTest, 0, len(running))
	for _, t := range running {
		left = append(left, t)
	}
	slices.SortFunc(left, func(a, b *goTest) int { return int(a.c.Extent.From - b.c.Extent.From) })
	for _, t := range left {
		if len(t.pending) > 0 {
			t.c.Status = Fail
			t.end(nil)
			rep.add(t.c)
		}
	}
	return rep, nil
}

// output keeps an output event of a test, to be read when the test ends
// (most pass, and what they printed is not read at all): the first
// MaxLines events and the last 8. Of the lines test2json frames a test
// with, only its "--- FAIL" line is kept, which names the failure as the
// text form does.
func (t *goTest) output(sp Span, out string) {
	if goFraming(out) && !strings.HasPrefix(strings.TrimSpace(out), "--- FAIL") || strings.TrimSpace(out) == "" {
		return
	}
	o := goOut{sp, out}
	if len(t.pending) < MaxLines+8 {
		t.pending = append(t.pending, o)
		return
	}
	n := len(t.pending)
	t.pending[n-8+t.tail%8] = o
	t.tail++
	t.c.Dropped++
}

// end closes a test with the event that ended it (nil when it never
// did): a test that did not pass gets its message and evidence, without
// the frames of library stacks (and the lines naming their functions).
func (t *goTest) end(sp *Span) {
	ev := t.pending
	if t.tail > 0 {
		// Put the ring of the last events back in order.
		n := len(ev)
		ring := append([]goOut(nil), ev[n-8:]...)
		for i := range ring {
			ev[n-8+i] = ring[(t.tail+i)%8]
		}
	}
	c := t.c
	if c.Status != Pass {
		head := false
		for _, o := range ev {
			if goFrame(o.out) {
				c.Frames++
				if n := len(c.Evidence); head && n > 0 {
					c.Evidence, c.Key = c.Evidence[:n-1], c.Key[:n-1]
					if m := len(c.Message); m > 0 {
						c.Message = c.Message[:m-1]
					}
					c.Frames++
				}
				head = false
				continue
			}
			t.msg.text(o.out)
			c.Evidence, c.Key = append(c.Evidence, o.sp), append(c.Key, keyLine(o.out))
			head = frameHead.MatchString(strings.TrimRight(o.out, "\n"))
		}
	}
	if sp != nil {
		c.Evidence, c.Key = append(c.Evidence, *sp), append(c.Key, true)
	}
	t.pending = nil
}

// goFraming reports the lines test2json wraps every test in, which say
// nothing a case's status does not: === RUN, === PAUSE, === CONT, --- PASS.
func goFraming(out string) bool {
	return strings.HasPrefix(out, "=== RUN") || strings.HasPrefix(out, "=== PAUSE") || strings.HasPrefix(out, "=== CONT") ||
		strings.HasPrefix(out, "=== NAME") || strings.HasPrefix(strings.TrimSpace(out), "--- PASS") ||
		strings.HasPrefix(strings.TrimSpace(out), "--- FAIL") || strings.HasPrefix(strings.TrimSpace(out), "--- SKIP")
}

// goFrame reports an output line of a goroutine trace that points into
// the Go runtime or the testing package.
func goFrame(out string) bool { return frameLine(strings.TrimRight(out, "\n")) }

// isGoSummary reports a package's closing line: "ok  \tpkg\t0.1s",
// "FAIL\tpkg\t0.2s", "?   \tpkg\t[no test files]".
func isGoSummary(out string) bool {
	f := strings.Split(out, "\t")
	if len(f) < 2 {
		return false
	}
	switch strings.TrimSpace(f[0]) {
	case "ok", "FAIL", "?":
		return true
	}
	return false
}

// goElapsed formats a duration as go test does: 0.00s.
func goElapsed(sec float64) string {
	if sec < 0 {
		return ""
	}
	return strconv.FormatFloat(sec, 'f', 2, 64) + "s"
}
