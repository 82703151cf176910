package project

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// logFixture is a real tool's output under testdata/text, made by
// scripts/fixtures/logs.sh.
type logFixture struct {
	name   string
	output []byte
	meta   struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	}
}

func logFixtures(t testing.TB) []logFixture {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "text", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []logFixture
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "output"))
		if err != nil {
			continue
		}
		f := logFixture{name: filepath.Base(d), output: b}
		m, err := os.ReadFile(filepath.Join(d, "meta.json"))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if err := json.Unmarshal(m, &f.meta); err != nil || f.meta.Tool == "" {
			t.Fatalf("%s/meta.json: want {\"tool\": ..., \"args\": {...}}: %v", d, err)
		}
		out = append(out, f)
	}
	if len(out) < 8 {
		t.Fatalf("found %d fixtures under testdata/text; run scripts/fixtures/logs.sh", len(out))
	}
	return out
}

// notLogs are the fixtures that are plain text, whatever their lines hold.
var notLogs = map[string]bool{"go-build-x": true, "apt-term-log": true, "apt-history": true, "apt-get-install": true}

func projectBytes(t testing.TB, b []byte, budget int) Output {
	t.Helper()
	out, err := Project(context.Background(), KindText, testInput(t, b, budget))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLogGolden projects every fixture with the default budget, compares
// the view with its golden file and checks the log view's promises.
func TestLogGolden(t *testing.T) {
	for _, f := range logFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			out := projectBytes(t, f.output, 2000)
			checkGolden(t, filepath.Join("testdata", "text", f.name, "view.golden"), out.Text)
			wantTitle := "[crumb text (log): "
			if notLogs[f.name] {
				wantTitle = "[crumb text: "
			}
			if !strings.HasPrefix(out.Text, wantTitle) {
				t.Fatalf("view opens with %.40q, want %q", out.Text, wantTitle)
			}
			checkLogView(t, f.output, out, 2000)
			if !notLogs[f.name] {
				checkProblemsNamed(t, f.output, out.Text)
			}
		})
	}
}

// TestLogBudgets projects every fixture with budgets from tiny to large:
// the view fits, is the same twice, and its reads cover what it omits.
func TestLogBudgets(t *testing.T) {
	budgets := []int{100, 250, 600, 5000}
	if testing.Short() {
		budgets = []int{250}
	}
	for _, f := range logFixtures(t) {
		for _, budget := range budgets {
			t.Run(fmt.Sprintf("%s/%d", f.name, budget), func(t *testing.T) {
				out := projectBytes(t, f.output, budget)
				if again := projectBytes(t, f.output, budget); again.Text != out.Text {
					t.Fatal("projecting twice gave different views")
				}
				checkLogView(t, f.output, out, budget)
			})
		}
	}
}

var (
	viewLineRE   = regexp.MustCompile(`^ *([0-9][0-9,]*)\t(.*)$`)
	viewMarkerRE = regexp.MustCompile(`^\[… (?:lines ([0-9,]+)-([0-9,]+)|line ([0-9,]+)|bytes ([0-9,]+)-([0-9,]+)) omitted`)
)

func atoiComma(t testing.TB, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return n
}

// checkLogView checks what every view must hold: it fits the budget; the
// lines it shows and the stretches it names as omitted follow each other
// from the first line to the last with no gap and no overlap (a line cut in
// two may show twice); each shown error line keeps its timestamp; the next
// read is the first omission, valid, and shows a line not shown.
func checkLogView(t *testing.T, input []byte, out Output, budget int) {
	t.Helper()
	if n := tokens.O200k().Count(out.Text); n > budget {
		t.Fatalf("view has %d tokens, budget %d", n, budget)
	}
	lines := bytes.Split(bytes.TrimSuffix(input, []byte{'\n'}), []byte{'\n'})
	total := int64(len(lines))
	if len(input) == 0 {
		total = 0
	}
	numbered := strings.HasPrefix(out.Text, "[crumb text (log): ")
	starts := []int64{0}
	for i, c := range input {
		if c == '\n' && i+1 < len(input) {
			starts = append(starts, int64(i+1))
		}
	}
	lineOf := func(off int64) int64 {
		return int64(sort.Search(len(starts), func(i int) bool { return starts[i] > off }))
	}
	next := int64(1) // the first line not yet accounted for
	var firstGap int64 = -1
	shown := map[int64]bool{}
	for _, l := range strings.Split(out.Text, "\n")[1:] {
		if m := viewMarkerRE.FindStringSubmatch(l); m != nil {
			var a, b int64
			switch {
			case m[1] != "":
				a, b = atoiComma(t, m[1]), atoiComma(t, m[2])
			case m[3] != "":
				a = atoiComma(t, m[3])
				b = a
			default:
				// Bytes: part of a line at either end, whose other part
				// is shown next to it.
				from, to := atoiComma(t, m[4]), atoiComma(t, m[5])
				a, b = lineOf(from), lineOf(to-1)
				if a == next-1 {
					a = next
				}
			}
			if numbered && (a != next && !(a == next+1 && m[4] != "") || b < a-1) {
				t.Fatalf("omission of lines %d-%d, want it to start at line %d:\n%s", a, b, next, out.Text)
			}
			if firstGap < 0 {
				firstGap = a
			}
			next = b + 1
			continue
		}
		if !numbered {
			continue
		}
		m := viewLineRE.FindStringSubmatch(l)
		if m == nil {
			continue // the prelude
		}
		n := atoiComma(t, m[1])
		if n != next && n != next-1 {
			t.Fatalf("line %d shown where line %d was due:\n%s", n, next, out.Text)
		}
		shown[n] = true
		next = n + 1
		// A shown error or warning line keeps its timestamp.
		orig := lines[n-1]
		ll := classify.ClassifyLogLine(orig, false)
		// (A line with a carriage return inside shows what follows it, as a
		// terminal would.)
		if ll.Hit.Level >= classify.SevWarn && ll.TsEnd > 0 && !strings.HasPrefix(m[2], "… ") && !strings.HasSuffix(m[2], " …") &&
			!bytes.Contains(bytes.TrimSuffix(orig, []byte{'\r'}), []byte{'\r'}) {
			ts := string(orig[ll.TsStart:ll.TsEnd])
			if !strings.Contains(m[2], ts) {
				t.Errorf("line %d is shown without its timestamp %q: %q", n, ts, m[2])
			}
		}
	}
	if numbered && next != total+1 && next != total {
		t.Fatalf("view accounts for lines up to %d of %d:\n%s", next-1, total, out.Text)
	}
	if out.Next == nil {
		if firstGap >= 0 {
			t.Fatal("view omits lines but has no next read")
		}
		return
	}
	if err := out.Next.Validate(); err != nil {
		t.Fatalf("next read is invalid: %v", err)
	}
	if !strings.Contains(out.Text, recall.CLIHint(*out.Next)) {
		t.Fatalf("view does not show its next read %q", recall.CLIHint(*out.Next))
	}
	if numbered && out.Next.Lines != nil {
		if out.Next.Lines.From != firstGap || shown[out.Next.Lines.From] {
			t.Fatalf("next read %s should start at the first omitted line %d", out.Next.Lines, firstGap)
		}
	}
}

// checkProblemsNamed checks that every error line that is the first of its
// template is shown, or its template is listed with its count.
func checkProblemsNamed(t *testing.T, input []byte, view string) {
	t.Helper()
	f, _, err := detectLog(testInput(t, input, 2000).Doc())
	if err != nil {
		t.Fatal(err)
	}
	m := drain.New(drain.Options{})
	groups := newLogGroups()
	firsts := map[int]int64{}
	var order []int
	sc := bufio.NewScanner(bytes.NewReader(input))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := int64(1); sc.Scan(); n++ {
		line := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		line = line[:min(len(line), logLineCap)]
		hit := classify.ClassifyLogLine(line, f.keywords).Hit
		lv := hit.Level
		id := m.AddIn(groups.of(hit), line, n)
		if lv != classify.SevError || id == drain.Other {
			continue
		}
		if _, ok := firsts[id]; !ok {
			firsts[id] = n
			order = append(order, id)
		}
	}
	for _, id := range order {
		n := firsts[id]
		c := m.Cluster(id)
		visible := regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(commaInt(n)) + "\t").MatchString(view)
		listed := strings.Contains(view, " "+showTemplate(withStatus(c.Template, groups.codeOf(c.Group)))+" (")
		if !visible && !listed {
			t.Errorf("error line %d (template %q, ×%d) is neither shown nor listed", n, c.Template, c.Count)
		}
	}
	if len(order) == 0 && strings.Contains(view, "Errors and warnings") && !strings.Contains(view, " warning line") {
		t.Error("the view lists errors the log does not have")
	}
}

func commaInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestDetectLog checks which texts read as logs.
func TestDetectLog(t *testing.T) {
	for _, f := range logFixtures(t) {
		_, isLog, err := detectLog(testInput(t, f.output, 2000).Doc())
		if err != nil {
			t.Fatal(err)
		}
		if isLog == notLogs[f.name] {
			t.Errorf("%s: detected as a log: %v", f.name, isLog)
		}
	}
	for name, b := range textCases() {
		if _, isLog, _ := detectLog(testInput(t, b, 2000).Doc()); isLog {
			t.Errorf("text case %s detected as a log", name)
		}
	}
}

// syntheticLog is a log made of fixture lines, repeated to about size
// bytes, with one rare error in the middle.
func syntheticLog(t testing.TB, size int) []byte {
	t.Helper()
	var src []byte
	for _, name := range []string{"nginx-error", "postgres", "redis-verbose"} {
		b, err := os.ReadFile(filepath.Join("testdata", "text", name, "output"))
		if err != nil {
			t.Skip("fixtures missing:", err)
		}
		src = append(src, b...)
	}
	var out bytes.Buffer
	for out.Len() < size/2 {
		out.Write(src)
	}
	out.WriteString("2026-11-29 13:02:03.999 UTC [31337] postgres@bench PANIC:  could not write to file \"pg_wal/xlogtemp.31337\": No space left on device\n")
	for out.Len() < size {
		out.Write(src)
	}
	return out.Bytes()
}

// TestLogSampled shrinks the sample so a small log is sampled: the view
// says its counts are a sample's, names the search for the rest, fits and
// is deterministic.
func TestLogSampled(t *testing.T) {
	saved := logSample
	defer func() { logSample = saved }()
	logSample.full, logSample.ends, logSample.window, logSample.windows = 1<<20, 256<<10, 64<<10, 4
	b := syntheticLog(t, 12<<20)
	out := projectBytes(t, b, 2000)
	if again := projectBytes(t, b, 2000); again.Text != out.Text {
		t.Fatal("not deterministic")
	}
	checkLogView(t, b, out, 2000)
	for _, want := range []string{"in a sample of ", "4 windows of 65.5 KB", "Errors and warnings in the sample", "the rest of the log was not searched", "crumb grep "} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("sampled view lacks %q:\n%s", want, out.Text)
		}
	}
}

// TestLogRareErrorShown checks that one rare error among thousands of
// repeated ones is shown with its timestamp when the whole log is read.
func TestLogRareErrorShown(t *testing.T) {
	b := syntheticLog(t, 6<<20)
	out := projectBytes(t, b, 2000)
	checkLogView(t, b, out, 2000)
	if !strings.Contains(out.Text, "2026-11-29 13:02:03.999 UTC [31337] postgres@bench PANIC:  could not write to file") {
		t.Errorf("the one PANIC is not shown:\n%s", out.Text)
	}
}

func TestLogPlan(t *testing.T) {
	for _, size := range []int64{0, 1, logSample.full, logSample.full + 1, 1 << 30, 5 << 30} {
		spans, sampled := logPlan(size)
		if sampled != (size > logSample.full) {
			t.Errorf("size %d: sampled %v", size, sampled)
		}
		var read, prev int64
		for _, s := range spans {
			if s.from < prev || s.to < s.from || s.to > size {
				t.Fatalf("size %d: bad span %v after %d", size, s, prev)
			}
			read += s.to - s.from
			prev = s.to
		}
		if sampled && read > 2*logSample.ends+int64(logSample.windows)*logSample.window {
			t.Errorf("size %d: sample reads %d bytes", size, read)
		}
		if !sampled && read != size {
			t.Errorf("size %d: reads %d bytes, want all", size, read)
		}
	}
}

// TestLogLongLines checks a log with a line longer than a read block: line
// numbers stay right and the view fits.
func TestLogLongLines(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "2026-11-29T13:00:%02dZ INFO request %d served\n", i%60, i)
	}
	b.WriteString("2026-11-29T13:01:00Z INFO payload ")
	b.Write(bytes.Repeat([]byte("x"), 3<<20))
	b.WriteString("\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "2026-11-29T13:02:%02dZ INFO request %d served\n", i%60, i)
		if i == 100 {
			b.WriteString("2026-11-29T13:02:41Z ERROR database is gone\n")
		}
	}
	out := projectBytes(t, b.Bytes(), 1500)
	checkLogView(t, b.Bytes(), out, 1500)
	if !strings.Contains(out.Text, "303\t2026-11-29T13:02:41Z ERROR database is gone") {
		t.Errorf("error not shown as line 303:\n%s", out.Text)
	}
}

// TestLogWithoutStore projects a log that could not be stored: every
// omission says it cannot be read back, and the view still fits.
func TestLogWithoutStore(t *testing.T) {
	b := syntheticLog(t, 2<<20)
	in := testInput(t, b, 1200)
	in.Ref, in.StoreError = "", "disk full"
	out, err := Project(context.Background(), KindText, in)
	if err != nil {
		t.Fatal(err)
	}
	if n := tokens.O200k().Count(out.Text); n > 1200 {
		t.Fatalf("view has %d tokens, budget 1200", n)
	}
	if out.Next != nil || out.Complete {
		t.Errorf("next %v, complete %v: want neither without a store", out.Next, out.Complete)
	}
	if !strings.Contains(out.Text, "could not store this result: disk full") || strings.Contains(out.Text, "crumb read") || strings.Contains(out.Text, "crumb grep") {
		t.Errorf("view should say nothing can be read back:\n%s", out.Text)
	}
}

// TestLogCanceled checks that a canceled context stops the scan.
func TestLogCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := syntheticLog(t, 4<<20)
	if _, err := Project(ctx, KindText, testInput(t, b, 2000)); err == nil {
		t.Error("projecting with a canceled context succeeded")
	}
}
