package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/recall"
)

// projectLogArgs projects a log with the call's arguments.
func projectLogArgs(t testing.TB, b []byte, budget int, args string) Output {
	t.Helper()
	in := testInput(t, b, budget)
	if args != "" {
		in.Args = json.RawMessage(args)
	}
	out, err := Project(context.Background(), KindText, in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// shownLine reports whether the view shows line n of the input whole, with
// its number.
func shownLine(view string, n int64, text string) bool {
	return regexp.MustCompile(`(?m)^ *` + regexp.QuoteMeta(commaInt(n)) + "\t" + regexp.QuoteMeta(text) + "$").MatchString(view)
}

// lineOf returns the number of the first line of b that holds s.
func lineOf(t testing.TB, b []byte, s string) int64 {
	t.Helper()
	for i, l := range bytes.Split(b, []byte{'\n'}) {
		if bytes.Contains(l, []byte(s)) {
			return int64(i + 1)
		}
	}
	t.Fatalf("no line holds %q", s)
	return 0
}

func TestLogIntentWords(t *testing.T) {
	for _, tt := range []struct {
		intent string
		want   []string
	}{
		{"when was redis-server installed and which version", []string{"redis", "server", "installed", "version"}},
		{"when did the API return 502s", []string{"api", "return", "502s"}},
		{"Show the server log, to find why some price requests fail", []string{"server", "some", "price", "requests", "fail"}},
		{"show the logs", nil},
	} {
		var got []string
		if it := newLogIntent(tt.intent); it != nil {
			for _, w := range it.m.Intent().Words {
				got = append(got, w.Text)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("the words of %q = %q, want %q", tt.intent, got, tt.want)
		}
	}
}

// TestLogIntentMatch checks how log lines meet an intent's words: at the
// start of a word or as a part of a name, not inside a longer number or
// word; a short plural by its singular.
func TestLogIntentMatch(t *testing.T) {
	for _, tt := range []struct {
		intent, line string
		want         rank.Level // the level of the first word
	}{
		{"redis-server", "install redis-server:amd64", rank.Whole},
		{"version", "status installed universal-ctags", rank.None},
		{"version", "upgrade version 2", rank.Exact},
		{"502s", `"get /api/orders/1502 http/1.1" 200`, rank.None},
		{"502s", `"get /api/orders/15 http/1.1" 502 157`, rank.Form},
		{"server", "subserver", rank.Part},
		{"server", "subserver server", rank.Exact},
	} {
		it := newLogIntent(tt.intent)
		if got := it.match([]byte(tt.line)).At(0); got != tt.want {
			t.Errorf("%q in %q: level %d, want %d", tt.intent, tt.line, got, tt.want)
		}
	}
}

// packageLog is a dpkg-style log of many installs, with the lines of one
// package, frobd-server, in its middle.
func packageLog() []byte {
	var b bytes.Buffer
	for i := 0; i < 3000; i++ {
		day := 1 + i/200
		ts := fmt.Sprintf("2026-03-%02d %02d:%02d:%02d", day, i/60%24, i%60, i%60)
		if i == 1700 {
			fmt.Fprintf(&b, "%s install frobd-server:amd64 <none> 2.4.1-3\n", ts)
			fmt.Fprintf(&b, "%s status half-installed frobd-server:amd64 2.4.1-3\n", ts)
			fmt.Fprintf(&b, "%s status unpacked frobd-server:amd64 2.4.1-3\n", ts)
			fmt.Fprintf(&b, "%s configure frobd-server:amd64 2.4.1-3 <none>\n", ts)
			fmt.Fprintf(&b, "%s status installed frobd-server:amd64 2.4.1-3\n", ts)
			continue
		}
		pkg := fmt.Sprintf("lib%c%c%d", 'a'+i%26, 'a'+i/26%26, i%7)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "%s install %s:amd64 <none> 1.%d-1\n", ts, pkg, i%9)
		case 1:
			fmt.Fprintf(&b, "%s status half-installed %s:amd64 1.%d-1\n", ts, pkg, i%9)
		case 2:
			fmt.Fprintf(&b, "%s status unpacked %s:amd64 1.%d-1\n", ts, pkg, i%9)
		default:
			fmt.Fprintf(&b, "%s status installed %s:amd64 1.%d-1\n", ts, pkg, i%9)
		}
		if i%50 == 0 {
			fmt.Fprintf(&b, "%s status installed xserver-common:all 2:21.1.7-%d\n", ts, i)
		}
	}
	return b.Bytes()
}

// TestLogIntentShowsMatches checks that the lines that hold the intent's
// rarest words are shown with their timestamps, named by a line that gives
// the search for them, and that without the intent they are not.
func TestLogIntentShowsMatches(t *testing.T) {
	b := packageLog()
	installed := "status installed frobd-server:amd64 2.4.1-3"
	install := "install frobd-server:amd64 <none> 2.4.1-3"
	args := `{"path": "/var/log/dpkg.log", "intent": "when was frobd-server installed and which version"}`
	out := projectLogArgs(t, b, 2000, args)
	checkLogView(t, b, out, 2000)
	for _, want := range []string{installed, install} {
		n := lineOf(t, b, want)
		line := string(bytes.Split(b, []byte{'\n'})[n-1])
		if !shownLine(out.Text, n, line) {
			t.Errorf("line %d %q is not shown with its timestamp:\n%s", n, line, out.Text)
		}
	}
	if !strings.Contains(out.Text, `Lines that best match the intent ("frobd-server"`) || !strings.Contains(out.Text, "crumb grep ") {
		t.Errorf("no line names the intent's matches and their search:\n%s", out.Text)
	}
	plain := projectLogArgs(t, b, 2000, `{"path": "/var/log/dpkg.log"}`)
	if strings.Contains(plain.Text, installed) {
		t.Skip("the view without an intent shows the line too; the test proves nothing")
	}
	if again := projectLogArgs(t, b, 2000, args); again.Text != out.Text {
		t.Error("not deterministic")
	}
}

// TestLogIntentBest checks which matches rank best: those that hold the
// rarest words, and not those whose words are a part of a better match's.
func TestLogIntentBest(t *testing.T) {
	b := packageLog()
	in := testInput(t, b, 2000)
	in.Args = json.RawMessage(`{"intent": "when was frobd-server installed"}`)
	e, err := newExcerptor(in, true)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := detectLog(e.Doc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scanLog(context.Background(), in, e.Doc, f)
	if err != nil {
		t.Fatal(err)
	}
	best := s.intent.best(s.lines)
	if len(best) == 0 {
		t.Fatal("no match")
	}
	lines := bytes.Split(b, []byte{'\n'})
	for _, p := range best {
		if l := lines[p.first.line-1]; !bytes.Contains(l, []byte("frobd-server")) {
			t.Errorf("match %q (score %.1f) ranks among the best", l, p.score)
		}
	}
	for i := 1; i < len(best); i++ {
		if best[i].score > best[i-1].score {
			t.Errorf("matches out of order: %.1f after %.1f", best[i].score, best[i-1].score)
		}
	}
	if s.intent.st.DF(0, rank.Whole) == 0 || s.intent.st.Units() != s.lines {
		t.Errorf("no line counted for %q, or %d of %d lines counted", s.intent.m.Intent().Words[0].Text, s.intent.st.Units(), s.lines)
	}
}

// TestLogStatusTemplates checks that an access log's statuses keep apart:
// a rare 413 among thousands of 404s is shown, and the templates name
// their status.
func TestLogStatusTemplates(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 20000; i++ {
		ts := fmt.Sprintf("[29/Nov/2026:13:%02d:%02d +0000]", i/600%60, i/10%60)
		switch {
		case i == 7001:
			fmt.Fprintf(&b, "10.0.0.1 - - %s \"POST /upload HTTP/1.1\" 413 183 \"-\" \"loadgen\"\n", ts)
		case i >= 12000 && i < 12300 && i%3 == 0:
			fmt.Fprintf(&b, "10.0.0.1 - - %s \"GET /api/orders/%d HTTP/1.1\" 502 157 \"-\" \"loadgen\"\n", ts, i%300)
		case i%7 == 0:
			fmt.Fprintf(&b, "10.0.0.1 - - %s \"GET /img/p%d.jpg HTTP/1.1\" 404 153 \"-\" \"loadgen\"\n", ts, i%50)
		default:
			fmt.Fprintf(&b, "10.0.0.1 - - %s \"GET /api/orders/%d HTTP/1.1\" 200 %d \"-\" \"loadgen\"\n", ts, i%300, 20+i%9)
		}
	}
	out := projectLogArgs(t, b.Bytes(), 2000, "")
	checkLogView(t, b.Bytes(), out, 2000)
	checkProblemsNamed(t, b.Bytes(), out.Text)
	if !strings.Contains(out.Text, `"POST /upload HTTP/1.1" 413 183`) {
		t.Errorf("the one 413 is not shown:\n%s", out.Text)
	}
	for _, want := range []string{`HTTP/1.1" 502 <*>`, `HTTP/1.1" 404 <*>`, `HTTP/1.1" 200 <*>`} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("no template shows %q:\n%s", want, out.Text)
		}
	}
	first := lineOf(t, b.Bytes(), `" 502 `)
	last := int64(0)
	for i, l := range bytes.Split(b.Bytes(), []byte{'\n'}) {
		if bytes.Contains(l, []byte(`" 502 `)) {
			last = int64(i + 1)
		}
	}
	for _, n := range []int64{first, last} {
		if !regexp.MustCompile(`(?m)^ *` + commaInt(n) + "\t").MatchString(out.Text) {
			t.Errorf("502 line %d (the first or the last) is not shown:\n%s", n, out.Text)
		}
	}
}

func TestWithStatus(t *testing.T) {
	for _, tt := range []struct {
		tmpl string
		code uint16
		want string
	}{
		{`<*> - - <*> "GET <*> HTTP/1.1" <*> <*> "-"`, 404, `<*> - - <*> "GET <*> HTTP/1.1" 404 <*> "-"`},
		{`<*> - - <*> code <*>, message File not found`, 404, `<*> - - <*> code 404, message File not found`},
		{`<*> - - <*> "BREW /pot HTCPCP/1.0" <*>`, 400, `<*> - - <*> "BREW /pot HTCPCP/1.0" 400`},
		{`<*> served <*>`, 200, `<*> served <*> [status 200]`},
		{`<*> served <*>`, 0, `<*> served <*>`},
	} {
		if got := withStatus(tt.tmpl, tt.code); got != tt.want {
			t.Errorf("withStatus(%q, %d) = %q, want %q", tt.tmpl, tt.code, got, tt.want)
		}
	}
}

// TestLogTraceReachesUserFrame checks that a panic's excerpt goes on
// through the runtime's frames to the first frame in the program's own
// code, further than a record's usual lines.
func TestLogTraceReachesUserFrame(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "2026/11/29 13:40:%02d.%06d 127.0.0.1 GET /price/%d 0s\n", i/100%60, i, i%3)
		if i == 1500 {
			fmt.Fprintf(&b, "2026/11/29 13:40:55.585771 http: panic serving 127.0.0.1:43246: runtime error: index out of range [3] with length 3\n")
			b.WriteString("goroutine 9 [running]:\n")
			for k := 0; k < 6; k++ {
				fmt.Fprintf(&b, "net/http.(*conn).serve.func%d()\n\t/usr/local/go/src/net/http/server.go:%d +0xbd\n", k, 1897+k)
			}
			b.WriteString("main.price({0x72e818, 0x468996d3590}, 0x46899480400?)\n")
			b.WriteString("\t/home/me/shop/main.go:22 +0x125\n")
			b.WriteString("net/http.HandlerFunc.ServeHTTP(0x9917a0?)\n\t/usr/local/go/src/net/http/server.go:2286 +0x29\n")
		}
	}
	out := projectLogArgs(t, b.Bytes(), 2000, "")
	checkLogView(t, b.Bytes(), out, 2000)
	n := lineOf(t, b.Bytes(), "main.go:22 +0x125")
	if !regexp.MustCompile(`(?m)^ *` + commaInt(n) + `\t.*/home/me/shop/main\.go:22 \+0x125$`).MatchString(out.Text) {
		t.Errorf("the first frame in the program's code (line %d) is not shown:\n%s", n, out.Text)
	}
}

// TestLogEventLines checks the lines around an error that share its
// timestamp: the request line Python's http.server writes after its error
// shows with it, and so do the lines that led to an error; in a busy
// second, or when they are the log's background, they do not.
func TestLogEventLines(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 4000; i++ {
		ts := fmt.Sprintf("[29/Nov/2026 13:%02d:%02d]", i/60%60, i%60)
		switch i {
		case 2100:
			fmt.Fprintf(&b, "127.0.0.1 - - %s code 400, message Bad request version ('HTCPCP/1.0')\n", ts)
			fmt.Fprintf(&b, "127.0.0.1 - - %s \"BREW /pot HTCPCP/1.0\" 400 -\n", ts)
		default:
			fmt.Fprintf(&b, "127.0.0.1 - - %s \"GET /api/orders/%d HTTP/1.0\" 200 -\n", ts, i%300)
		}
	}
	out := projectLogArgs(t, b.Bytes(), 1500, "")
	checkLogView(t, b.Bytes(), out, 1500)
	if !strings.Contains(out.Text, `"BREW /pot HTCPCP/1.0" 400 -`) {
		t.Errorf("the request line of the 400 is not shown:\n%s", out.Text)
	}

	// Millisecond timestamps: the lines that led to the error share its
	// timestamp; the frequent "served" lines are background.
	var r bytes.Buffer
	for i := 0; i < 3000; i++ {
		ts := fmt.Sprintf("2026-11-29T13:%02d:%02d.%03dZ", i/600%60, i/10%60, i%10*100)
		fmt.Fprintf(&r, "%s INFO request %d served\n", ts, i)
		if i == 1800 {
			ts = "2026-11-29T13:03:00.777Z"
			fmt.Fprintf(&r, "%s INFO request %d served\n", ts, i)
			fmt.Fprintf(&r, "%s INFO connecting to primary 10.1.2.3:6379\n", ts)
			fmt.Fprintf(&r, "%s ERROR sync failed: connection refused\n", ts)
		}
	}
	out = projectLogArgs(t, r.Bytes(), 1500, "")
	checkLogView(t, r.Bytes(), out, 1500)
	n := lineOf(t, r.Bytes(), "connecting to primary")
	if !shownLine(out.Text, n, "2026-11-29T13:03:00.777Z INFO connecting to primary 10.1.2.3:6379") {
		t.Errorf("the line that led to the error (line %d) is not shown:\n%s", n, out.Text)
	}
	if shownLine(out.Text, n-1, "2026-11-29T13:03:00.777Z INFO request 1800 served") {
		t.Errorf("a background line (line %d) is shown as leading to the error:\n%s", n-1, out.Text)
	}
}

// TestLogRareTemplates checks that a one-off line of an ordinary level, in
// the middle of thousands of repeated ones, is shown: such lines tell the
// story of a log.
func TestLogRareTemplates(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "2026-11-29 13:%02d:%02d.%03d INFO accepted connection from 10.0.%d.%d\n", i/600%60, i/10%60, i%1000, i%7, i%200)
		if i == 2500 {
			b.WriteString("2026-11-29 13:04:10.500 INFO background save terminated with success\n")
		}
	}
	out := projectLogArgs(t, b.Bytes(), 2000, "")
	checkLogView(t, b.Bytes(), out, 2000)
	if !strings.Contains(out.Text, "2026-11-29 13:04:10.500 INFO background save terminated with success") {
		t.Errorf("the one-off line is not shown:\n%s", out.Text)
	}
}

// FuzzLogIntent projects logs with an intent: the view fits, is the same
// twice and accounts for every line.
func FuzzLogIntent(f *testing.F) {
	f.Add(packageLog()[:6000], "when was frobd-server installed", uint16(600))
	f.Add([]byte("2024-05-01T12:00:00Z INFO a b\n2024-05-01T12:00:01Z ERROR b c\nTraceback:\n  x\n2024-05-01T12:00:02Z WARN c\n"), "why b", uint16(200))
	f.Add([]byte("1.2.3.4 - - [29/Nov/2026:13:43:03 +0000] \"GET / HTTP/1.1\" 502 1\n1.2.3.4 - - [29/Nov/2026:13:43:03 +0000] \"GET / HTTP/1.1\" 200 1\nx\n"), "502s", uint16(150))
	f.Fuzz(func(t *testing.T, b []byte, intent string, budget uint16) {
		if int(budget) < recall.MinBudget {
			return // Project raises it
		}
		arg, err := json.Marshal(map[string]string{"intent": intent})
		if err != nil {
			return
		}
		out := projectLogArgs(t, b, int(budget), string(arg))
		if again := projectLogArgs(t, b, int(budget), string(arg)); again.Text != out.Text {
			t.Fatal("not deterministic")
		}
		checkLogView(t, b, out, int(budget))
	})
}

// testLogView scans b as the log view does, with the call's arguments.
func testLogView(t testing.TB, b []byte, args string) *logView {
	t.Helper()
	in := testInput(t, b, 2000)
	if args != "" {
		in.Args = json.RawMessage(args)
	}
	e, err := newExcerptor(in, true)
	if err != nil {
		t.Fatal(err)
	}
	f, isLog, err := detectLog(e.Doc)
	if err != nil || !isLog {
		t.Fatalf("not a log (%v)", err)
	}
	s, err := scanLog(context.Background(), in, e.Doc, f)
	if err != nil {
		t.Fatal(err)
	}
	v := &logView{e: e, s: s, size: e.Doc.Size(), total: e.Total, levels: map[int64]classify.Level{}}
	v.intent = s.intent.best(s.lines)
	return v
}

// TestLogRecord checks what shows with a line: the lines that led to it,
// the rest of its event, and a stack trace as far as the program's own
// code; none of the lines around it in a busy second or of the log's
// background.
func TestLogRecord(t *testing.T) {
	var b bytes.Buffer
	var offs []int64 // where each line starts
	add := func(format string, a ...any) {
		offs = append(offs, int64(b.Len()))
		fmt.Fprintf(&b, format, a...)
	}
	for i := 0; i < 400; i++ {
		add("2026-11-29T13:%02d:%02d.%03dZ INFO request %d served\n", i/600%60, i/10%60, i%10*100, i)
		switch i {
		case 100, 200, 300:
			// Three panics, their frames not rare: the record must reach
			// the frame in the program's code on its own.
			add("2026-11-29T13:20:%02d.555Z ERROR panic: index out of range\n", i/10)
			add("goroutine %d [running]:\n", i)
			for k := 0; k < 6; k++ {
				add("net/http.(*conn).serve.func%d()\n", k)
				add("\t/usr/local/go/src/net/http/server.go:%d +0xbd\n", 1897+k)
			}
			add("main.price(0x%x)\n", i)
			add("\t/home/me/shop/main.go:22 +0x125\n")
			add("net/http.HandlerFunc.ServeHTTP()\n")
			add("\t/usr/local/go/src/net/http/server.go:2286 +0x29\n")
		case 150:
			add("2026-11-29T13:30:00.777Z INFO request %d served\n", i)
			add("2026-11-29T13:30:00.777Z INFO dialing primary 10.1.2.3:6379\n")
			add("2026-11-29T13:30:00.777Z ERROR sync failed: connection refused\n")
			add("2026-11-29T13:30:00.777Z WARN retrying the sync in 1s\n")
			add("2026-11-29T13:30:01.000Z INFO request %d served\n", i)
		case 250:
			// A busy second: more lines share the timestamp than one
			// event writes.
			for k := 0; k < 12; k++ {
				add("2026-11-29T13:40:00.000Z INFO connecting to primary 10.1.2.3:6379\n")
			}
			add("2026-11-29T13:40:00.000Z ERROR sync failed again: connection refused\n")
		}
		if i%20 == 0 {
			// The busy second's error is frequent enough that the
			// lines around it are not background.
			add("2026-11-29T13:50:%02d.000Z ERROR sync failed again: connection refused\n", i/20)
		}
	}
	offs = append(offs, int64(b.Len()))
	v := testLogView(t, b.Bytes(), "")
	lineNo := func(s string) int {
		t.Helper()
		return int(lineOf(t, b.Bytes(), s)) - 1 // index into offs
	}

	panicAt := lineNo("ERROR panic: index out of range")
	user := lineNo("/home/me/shop/main.go:22")
	r, err := v.record(offs[panicAt], true)
	if err != nil {
		t.Fatal(err)
	}
	if r.must != offs[user+1] || r.end < r.must {
		t.Errorf("panic record: must %d, end %d; want must %d (the end of the first frame in the program's code)", r.must, r.end, offs[user+1])
	}

	failed := lineNo("ERROR sync failed: connection refused")
	r, err = v.record(offs[failed], true)
	if err != nil {
		t.Fatal(err)
	}
	if want := offs[failed-1]; r.lead != want {
		t.Errorf("lead starts at %d, want %d (the line that led to the error, not the background before it)", r.lead, want)
	}
	if want := offs[failed+2]; r.end != want {
		t.Errorf("record ends at %d, want %d (with the warning of the same event)", r.end, want)
	}
	r, err = v.record(offs[failed], false)
	if err != nil {
		t.Fatal(err)
	}
	if r.lead != offs[failed] {
		t.Errorf("lead %d without asking for it", r.lead)
	}

	busy := lineNo("13:40:00.000Z ERROR sync failed again")
	r, err = v.record(offs[busy], true)
	if err != nil {
		t.Fatal(err)
	}
	if r.lead != offs[busy] || r.end != offs[busy+1] {
		t.Errorf("in a busy second the record takes lines around it: lead %d, end %d; want %d, %d", r.lead, r.end, offs[busy], offs[busy+1])
	}
}
