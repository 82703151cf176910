package teststream

import (
	"context"
	"encoding/json"
	"io"
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

// goTest is a test that started and has not ended.
type goTest struct {
	c       *Case
	msg     message
	pending []Span // evidence of its output, kept until it ends
	keys    []bool // which of pending are key lines (see keyLine)
	tail    int    // the last output events are kept: the end of a long log is where a failure is
	// lastHead marks that the last output named a stack frame's function.
	lastHead bool
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
	for {
		line, sp, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		var ev goEvent
		if lr.long || len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil || ev.Action == "" {
			rep.addText(line, sp)
			continue
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
				b.end(sp)
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
				if t.c.Status == Pass {
					t.c.Message, t.pending = nil, nil
				}
				t.end(sp)
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
				if s.Status == Fail && len(p.c.Message) > 0 && s.Failed == 0 && ev.FailedBuild == "" {
					p.c.Status = Fail
					p.end(sp)
					rep.add(p.c)
				}
			}
		}
	}
	// Tests that never ended: the run was cut short (a timeout, a crash).
	for _, t := range running {
		if len(t.c.Message) > 0 {
			t.c.Status = Fail
			t.c.Evidence = append(t.c.Evidence, t.pending...)
			t.c.Key = append(t.c.Key, t.keys...)
			rep.add(t.c)
		}
	}
	return rep, nil
}

// output takes an output event of a test: its text, and the event as
// evidence, unless it is a frame of a library's stack (with the line
// naming the frame's function, which goes with it).
func (t *goTest) output(sp Span, out string) {
	if goFrame(out) {
		t.c.Frames++
		if n := len(t.pending); n > 0 && t.tail == 0 && t.lastHead {
			t.pending, t.keys = t.pending[:n-1], t.keys[:n-1]
			if m := len(t.c.Message); m > 0 && t.c.Dropped == 0 {
				t.c.Message = t.c.Message[:m-1]
			}
			t.c.Frames++
		}
		t.lastHead = false
		return
	}
	t.msg.text(out)
	t.keep(sp, out)
	t.lastHead = frameHead.MatchString(strings.TrimRight(out, "\n"))
}

// keep notes an output event as evidence of its test: the first MaxLines
// events, then the last few. Of the lines test2json frames a test with,
// only its "--- FAIL" line is kept, which names the failure as the text
// form does.
func (t *goTest) keep(sp Span, out string) {
	if goFraming(out) && !strings.HasPrefix(strings.TrimSpace(out), "--- FAIL") || strings.TrimSpace(out) == "" {
		return
	}
	key := keyLine(out)
	if len(t.pending) < MaxLines {
		t.pending = append(t.pending, sp)
		t.keys = append(t.keys, key)
		return
	}
	n := len(t.pending)
	// A ring over the last 8 events.
	t.pending[n-8+t.tail%8] = sp
	t.keys[n-8+t.tail%8] = key
	t.tail++
}

// end closes a test's evidence with the event that ended it.
func (t *goTest) end(sp Span) {
	ev, keys := t.pending, t.keys
	if t.tail > 0 {
		// Put the ring of the last events back in order.
		n := len(ev)
		ring := append([]Span(nil), ev[n-8:]...)
		kr := append([]bool(nil), keys[n-8:]...)
		for i := range ring {
			ev[n-8+i], keys[n-8+i] = ring[(t.tail+i)%8], kr[(t.tail+i)%8]
		}
	}
	t.c.Evidence = append(append(t.c.Evidence, ev...), sp)
	t.c.Key = append(append(t.c.Key, keys...), true)
	t.pending, t.keys = nil, nil
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
