package project

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// shrinkCmdSample makes the command projector sample output over 64 KiB,
// reading 4 KiB from the start, 8 KiB from the end and windows of 1 KiB,
// for the rest of the test.
func shrinkCmdSample(t *testing.T, windows int, align int64) {
	t.Helper()
	saved := cmdSample
	t.Cleanup(func() { cmdSample = saved })
	cmdSample.full, cmdSample.head, cmdSample.tail, cmdSample.window = 64<<10, 4<<10, 8<<10, 1<<10
	cmdSample.windows, cmdSample.align = windows, align
}

// TestCmdPlan checks the spans a scan reads: the whole output up to the
// threshold; above it the start, the end and the windows, in order, apart,
// aligned when they can be, and no more bytes than the sample's size
// whatever the output's size.
func TestCmdPlan(t *testing.T) {
	for _, c := range []struct {
		windows int
		align   int64
	}{{4, 0}, {4, 4 << 10}, {16, 4 << 10}, {0, 0}, {40, 0}} {
		t.Run(fmt.Sprintf("windows=%d,align=%d", c.windows, c.align), func(t *testing.T) {
			shrinkCmdSample(t, c.windows, c.align)
			for _, size := range []int64{0, 1, cmdSample.full, cmdSample.full + 1, 100 << 10, 1 << 30, 5 << 30} {
				spans, sampled := cmdPlan(size)
				if sampled != (size > cmdSample.full) {
					t.Fatalf("size %d: sampled is %v", size, sampled)
				}
				if !sampled {
					if len(spans) != 1 || spans[0] != (cmdSpan{0, size}) {
						t.Fatalf("size %d: spans %v, want the whole", size, spans)
					}
					continue
				}
				if spans[0] != (cmdSpan{0, cmdSample.head}) {
					t.Errorf("size %d: first span %v, want the first %d bytes", size, spans[0], cmdSample.head)
				}
				last := spans[len(spans)-1]
				if last.to != size || last.to-last.from < cmdSample.tail || last.to-last.from >= cmdSample.tail+max(cmdSample.align, 1) {
					t.Errorf("size %d: last span %v, want the last %d bytes (aligned)", size, last, cmdSample.tail)
				}
				if n := len(spans) - 2; n > c.windows {
					t.Errorf("size %d: %d windows, want at most %d", size, n, c.windows)
				}
				if size >= 1<<20 && len(spans)-2 != c.windows {
					t.Errorf("size %d: %d windows, want %d", size, len(spans)-2, c.windows)
				}
				var read int64
				for i, sp := range spans {
					if sp.from >= sp.to || i > 0 && sp.from < spans[i-1].to {
						t.Fatalf("size %d: spans out of order or empty: %v", size, spans)
					}
					if i > 0 && i < len(spans)-1 {
						if sp.to-sp.from > cmdSample.window {
							t.Errorf("size %d: window %v is over %d bytes", size, sp, cmdSample.window)
						}
						if size >= 1<<30 && c.align > 0 && sp.from%c.align != 0 {
							t.Errorf("size %d: window %v does not start at a multiple of %d", size, sp, c.align)
						}
					}
					read += sp.to - sp.from
				}
				if limit := cmdSample.head + cmdSample.tail + max(cmdSample.align, 1) + int64(c.windows)*cmdSample.window; read > limit {
					t.Errorf("size %d: the sample reads %d bytes, over %d", size, read, limit)
				}
			}
		})
	}
}

// sampledOutput is a command's output of n lines of 64 bytes each: build
// lines, then lines set by at (line index to text, padded to 64 bytes).
func sampledOutput(n int, at map[int]string) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		s, ok := at[i]
		if !ok {
			s = fmt.Sprintf("ok   example.com/pkg/mod%05d  compiled in 0.%03ds", i, i%1000)
		}
		if len(s) > 63 {
			panic("line too long: " + s)
		}
		b.WriteString(s)
		b.WriteString(strings.Repeat(" ", 63-len(s)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestCommandSampled projects an output over the (lowered) threshold:
// failures at the end and in a window are shown, one in a stretch the
// sample does not read is neither shown nor counted, the view says it is
// a sample and offers the search that covers the rest, fits its budget, is
// deterministic, and its continuations are valid.
func TestCommandSampled(t *testing.T) {
	for _, align := range []int64{0, 4 << 10} {
		t.Run(fmt.Sprintf("align=%d", align), func(t *testing.T) {
			shrinkCmdSample(t, 4, align)
			const n = 6000 // 384,000 bytes
			size := int64(n * 64)
			spans, sampled := cmdPlan(size)
			if !sampled || len(spans) != 6 {
				t.Fatalf("plan %v, want the start, 4 windows and the end", spans)
			}
			inWindow := int((spans[2].from+spans[2].to)/2/64) + 1
			hidden := int((spans[2].to+spans[3].from)/2/64) + 1
			if int64(hidden*64) < spans[2].to+1024 || int64(hidden*64+256) > spans[3].from {
				t.Fatalf("line %d is too near a window: %v", hidden, spans)
			}
			out := sampledOutput(n, map[int]string{
				0:            "$ go test ./...",
				inWindow:     "--- FAIL: TestInWindow (0.00s)",
				inWindow + 1: "    window_test.go:7: got 3, want 4",
				hidden:       "panic: hidden in the middle",
				hidden + 1:   "--- FAIL: TestHiddenMiddle (0.00s)",
				n - 4:        "--- FAIL: TestAtTheEnd (0.01s)",
				n - 3:        "    end_test.go:12: got 1, want 2",
				n - 2:        "FAIL",
				n - 1:        "FAIL\texample.com/pkg\t1.234s",
			})
			exit := 1
			input := func(budget int) *Input {
				in := testInput(t, out, budget)
				in.ExitCode = &exit
				in.Command = []string{"go", "test", "./..."}
				return in
			}

			// The scan: evidence and runs at their true lines, nothing
			// from the stretch it does not read.
			in := input(2000)
			scan, sm, err := cmdScanInput(context.Background(), in, in.Doc())
			if err != nil {
				t.Fatal(err)
			}
			if sm == nil {
				t.Fatal("the scan read the whole output")
			}
			if sm.windows != 4 || sm.lines >= n || sm.bytes > 4<<10+8<<10+align+4*(1<<10+64) || sm.tailFirst < n-8<<10/64-align/64 {
				t.Errorf("sample %+v", *sm)
			}
			if scan.counts[classify.FamPanic] != 0 {
				t.Errorf("the sample counts %d panic lines; the only one is outside it", scan.counts[classify.FamPanic])
			}
			for _, ev := range scan.ev {
				if ev.off != (ev.line-1)*64 {
					t.Errorf("evidence at line %d has offset %d, want %d", ev.line, ev.off, (ev.line-1)*64)
				}
				if ev.line == int64(hidden+1) || ev.line == int64(hidden+2) {
					t.Errorf("evidence at line %d is outside the sample", ev.line)
				}
			}
			for _, r := range scan.runs {
				if r.from != (r.first-1)*64 || r.to != r.last*64 {
					t.Errorf("run %+v is not at its lines", r)
				}
			}

			v, err := Project(context.Background(), KindCommand, input(2000))
			if err != nil {
				t.Fatal(err)
			}
			checkCommandView(t, input(2000), v)
			again, err := Project(context.Background(), KindCommand, input(2000))
			if err != nil {
				t.Fatal(err)
			}
			if again.Text != v.Text {
				t.Fatal("same input gave different views")
			}
			for _, want := range []string{
				"[crumb command: exit status 1 (failed), scanned a ",
				"--- FAIL: TestAtTheEnd (0.01s)", "end_test.go:12: got 1, want 2", "FAIL\texample.com/pkg\t1.234s",
				"--- FAIL: TestInWindow (0.00s)", "window_test.go:7: got 3, want 4",
				fmt.Sprintf("[sampled: errors, failures and summaries were looked for in a sample of %d of the 6,000 lines (", sm.lines),
				"and 4 windows of 1.0 KB between; the rest was not searched. Search all of it: " +
					recall.CLIHint(recall.Request{Ref: in.Ref, Rev: in.Rev(), Grep: &recall.GrepSpec{Pattern: cmdFailureGrep}}) + "]",
			} {
				if !strings.Contains(v.Text, want) {
					t.Errorf("view misses %q:\n%s", want, v.Text)
				}
			}
			for _, no := range []string{"hidden in the middle", "TestHiddenMiddle", "panic line"} {
				if strings.Contains(v.Text, no) {
					t.Errorf("view shows or counts %q, which the sample does not hold:\n%s", no, v.Text)
				}
			}
			// The search the view offers finds what the sample missed.
			re := regexp.MustCompile(cmdFailureGrep)
			for _, line := range []string{"panic: hidden in the middle", "--- FAIL: TestHiddenMiddle (0.00s)", "error: x", "main.go:3:5: undefined: y"} {
				if !re.MatchString(line) {
					t.Errorf("the search for failures misses %q", line)
				}
			}

			// At any budget: within it, the status first, the sample named
			// in the header.
			for _, budget := range []int{100, 300, 600, 1000, 4000} {
				v, err := Project(context.Background(), KindCommand, input(budget))
				if err != nil {
					t.Fatal(err)
				}
				checkCommandView(t, input(budget), v)
				if first, _, _ := strings.Cut(v.Text, "\n"); !strings.Contains(first, ", scanned a ") {
					t.Errorf("budget %d: the header does not say the view rests on a sample:\n%s", budget, first)
				}
			}
		})
	}
}

// TestCommandSampledLongLines samples an output whose windows fall inside
// lines longer than a window: those windows are skipped or cut, and the
// lines after them keep their true numbers.
func TestCommandSampledLongLines(t *testing.T) {
	shrinkCmdSample(t, 4, 0)
	var b bytes.Buffer
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i+1, strings.Repeat("x", 5000+i))
	}
	b.WriteString("error: the last line\n")
	in := testInput(t, b.Bytes(), 1000)
	scan, sm, err := cmdScanInput(context.Background(), in, in.Doc())
	if err != nil {
		t.Fatal(err)
	}
	if sm == nil {
		t.Fatal("not sampled")
	}
	if scan.counts[classify.FamError] != 1 || len(scan.ev) != 1 || scan.ev[0].line != 41 {
		t.Errorf("evidence %v, counts %v; want the error on line 41", scan.ev, scan.counts)
	}
	v, err := Project(context.Background(), KindCommand, in)
	if err != nil {
		t.Fatal(err)
	}
	checkCommandView(t, in, v)
	if !strings.Contains(v.Text, "error: the last line") || !strings.Contains(v.Text, "[sampled: ") {
		t.Errorf("view:\n%s", v.Text)
	}
}

// FuzzCommandSampled samples random output with tiny spans: the scan never
// fails, every evidence line and run it reports sits at its true line, and
// the view keeps to its budget, states the exit status first and offers
// valid continuations.
func FuzzCommandSampled(f *testing.F) {
	f.Add([]byte(strings.Repeat("ok x\n", 200)+"panic: boom\n"), uint16(400), uint8(3))
	f.Add(sampledOutput(40, map[int]string{20: "--- FAIL: TestX", 39: "FAIL\tx"}), uint16(1000), uint8(5))
	f.Add([]byte(strings.Repeat("x", 3000)+"\nerror: y"), uint16(300), uint8(2))
	f.Add([]byte(strings.Repeat("\n", 700)), uint16(150), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, budget uint16, windows uint8) {
		saved := cmdSample
		defer func() { cmdSample = saved }()
		cmdSample.full, cmdSample.head, cmdSample.tail, cmdSample.window = 256, 64, 128, 32
		cmdSample.windows, cmdSample.align = int(windows%8), int64(windows/8%4)*16

		in := testInput(t, b, int(budget)%4000)
		in.Counter = tokens.Estimator()
		scan, _, err := cmdScanInput(context.Background(), in, in.Doc())
		if err != nil {
			t.Fatal(err)
		}
		doc := in.Doc()
		for _, ev := range scan.ev {
			if ev.off > 0 && b[ev.off-1] != '\n' {
				t.Fatalf("evidence at byte %d does not start a line", ev.off)
			}
			if no, err := doc.LineAt(ev.off); err != nil || no != ev.line {
				t.Fatalf("evidence at byte %d says line %d, it is line %d (%v)", ev.off, ev.line, no, err)
			}
		}
		for _, r := range scan.runs {
			if no, err := doc.LineAt(r.from); err != nil || no != r.first || r.from > 0 && b[r.from-1] != '\n' {
				t.Fatalf("run %+v does not start at its first line (%d, %v)", r, no, err)
			}
		}
		code := 2
		in.ExitCode = &code
		out, err := Project(context.Background(), KindCommand, in)
		if err != nil {
			t.Fatal(err)
		}
		checkCommandView(t, in, out)
	})
}
