package drain

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTimestamp(t *testing.T) {
	tests := []struct {
		line string
		want string // the timestamp found, "" for none
	}{
		{"2024-05-01T12:00:00Z INFO ready", "2024-05-01T12:00:00Z"},
		{"2024-05-01T12:00:00.123456+02:00 level=info", "2024-05-01T12:00:00.123456+02:00"},
		{"2024-05-01 12:00:00,123 - app - ERROR - boom", "2024-05-01 12:00:00,123"},
		{"2025-11-29 12:00:00.123 UTC [1234] ERROR:  relation \"x\" does not exist", "2025-11-29 12:00:00.123 UTC"},
		{"2024/05/01 12:00:00 [error] 12#12: *1 open() failed", "2024/05/01 12:00:00"},
		{"May  1 12:00:00 host sshd[42]: Accepted publickey", "May  1 12:00:00"},
		{"Nov 29 09:15:02 host cron[7]: job", "Nov 29 09:15:02"},
		{"1234:M 01 May 2024 12:00:00.123 * Ready to accept connections", "01 May 2024 12:00:00.123"},
		{`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET / HTTP/1.1" 200 612`, "[01/May/2024:12:00:00 +0000]"},
		{`127.0.0.1 - - [29/Nov/2025 12:00:00] "GET /x HTTP/1.1" 404 -`, "[29/Nov/2025 12:00:00]"},
		{"Wed May  1 12:00:00 2024 something", "Wed May  1 12:00:00 2024"},
		{"I0501 12:00:00.123456    42 main.go:10] hello", "I0501 12:00:00.123456"},
		{"12:00:01.500 DEBUG tick", "12:00:01.500"},
		{"1714564800.123 event", "1714564800.123"},
		{"2024-05-01 status installed libc6:amd64 2.36", "2024-05-01"},
		{"time=2024-05-01T12:00:00.000Z level=INFO msg=hi", "2024-05-01T12:00:00.000Z"},
		{"hello world 12:00:00", ""},
		{"a version stamp far into the line, past its prefix: 2024-05-01T12:00:00Z", ""},
		{"12345 is not a time", ""},
		{"", ""},
		{"Mayday 12:00:00", ""},
	}
	for _, tt := range tests {
		s, e, ok := Timestamp([]byte(tt.line))
		got := ""
		if ok {
			got = tt.line[s:e]
		}
		if got != tt.want {
			t.Errorf("Timestamp(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestTemplateMasking(t *testing.T) {
	tests := []struct{ line, want string }{
		{"2024-05-01T12:00:00Z INFO served /api in 12ms", "<*> INFO served /api in <*>"},
		{"conn from 10.0.0.1:5432 id=0x7f3a uuid 123e4567-e89b-12d3-a456-426614174000", "conn from <*> id=<*> uuid <*>"},
		{`"GET /users/42 HTTP/1.1" 404 153`, `"GET <*> HTTP/1.1" <*> <*>`},
		{"pid [1234] took 3.5s, 40% done.", "pid [<*>] took <*>, <*> done."},
		{"user42 utf8 sha deadbeefcafe1234", "user42 utf8 sha <*>"},
		{"count=12 level=WARN path=/var/lib/x", "count=<*> level=WARN path=/var/lib/x"},
		{"time=2024-05-01T12:00:00.000Z level=INFO msg=hi", "time=<*> level=INFO msg=hi"},
		{`{"time":"2024-05-01T12:00:00Z","level":"INFO","msg":"walked dir","files":12,"attrs":{"a":1}}`,
			"time=<*> level=INFO msg=walked dir files=<*> attrs=<*>"},
		{`{"level":"error","msg":"open /data/7/x: no such file"}`, "level=error msg=open <*>: no such file"},
		{strings.Repeat("a", 80) + " tail", "<*> tail"},
	}
	m := New(Options{})
	for _, tt := range tests {
		if got := m.Template([]byte(tt.line)); got != tt.want {
			t.Errorf("Template(%q)\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
}

func TestMine(t *testing.T) {
	lines := []string{
		"2024-05-01T12:00:00Z INFO request served path=/a status=200 user alice",
		"2024-05-01T12:00:01Z INFO request served path=/b status=200 user bob",
		"2024-05-01T12:00:02Z ERROR db timeout after 30s on shard 3",
		"2024-05-01T12:00:03Z INFO request served path=/c status=200 user carol",
		"2024-05-01T12:00:04Z ERROR db timeout after 31s on shard 4",
		"2024-05-01T12:00:05Z WARN cache miss for key alpha",
		"2024-05-01T12:00:06Z INFO request served path=/d status=500 user dave",
	}
	m := New(Options{})
	for i, l := range lines {
		m.Add([]byte(l), int64(i+1))
	}
	got := m.Clusters()
	want := []Cluster{
		{ID: 0, Template: "<*> INFO request served path=<*> status=<*> user <*>", Count: 4, First: 1, Last: 7},
		{ID: 1, Template: "<*> ERROR db timeout after <*> on shard <*>", Count: 2, First: 3, Last: 5},
		{ID: 2, Template: "<*> WARN cache miss for key alpha", Count: 1, First: 6, Last: 6},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("clusters:\n got %v\nwant %v", got, want)
	}
}

func TestGroupsStayApart(t *testing.T) {
	m := New(Options{})
	a := m.AddIn(0, []byte("connection reset by peer 1"), 1)
	b := m.AddIn(2, []byte("connection reset by peer 2"), 2)
	c := m.AddIn(2, []byte("connection reset by peer 3"), 3)
	if a == b || b != c {
		t.Errorf("ids %d %d %d: want the first apart and the last two together", a, b, c)
	}
	if m.Match(2, []byte("connection reset by peer 9")) != b || m.Match(1, []byte("connection reset by peer 9")) != Other {
		t.Error("Match does not respect groups")
	}
}

func TestCap(t *testing.T) {
	m := New(Options{MaxClusters: 3})
	shapes := []string{"alpha beta gamma", "one two", "red green blue yellow", "x y z w v", "alpha beta delta"}
	ids := make([]int, len(shapes))
	for i, s := range shapes {
		ids[i] = m.Add([]byte(s), int64(i))
	}
	if m.Len() != 3 {
		t.Fatalf("Len = %d, want 3", m.Len())
	}
	if ids[3] != Other || m.OtherTotal() != 1 || m.Others(0) != 1 {
		t.Errorf("a new shape on a full miner: id %d, others %d", ids[3], m.OtherTotal())
	}
	// "alpha beta delta" is similar enough to "alpha beta gamma" to merge
	// once the miner is full.
	if ids[4] != ids[0] {
		t.Errorf("similar line on a full miner went to %d, want %d", ids[4], ids[0])
	}
	if got := m.Cluster(ids[0]).Template; got != "alpha beta <*>" {
		t.Errorf("merged template %q", got)
	}
}

func TestMaxTokens(t *testing.T) {
	m := New(Options{MaxTokens: 4})
	got := m.Template([]byte("a b c d e f g"))
	if got != "a b c "+Ellipsis {
		t.Errorf("got %q", got)
	}
}

func TestDeterministic(t *testing.T) {
	lines := fixtureLines(t, 20000)
	run := func() string {
		m := New(Options{MaxClusters: 50})
		for i, l := range lines {
			m.Add(l, int64(i))
		}
		return fmt.Sprint(m.Clusters(), m.OtherTotal())
	}
	if a, b := run(), run(); a != b {
		t.Error("two runs over the same lines differ")
	}
}

// fixtureLines returns up to n lines of the real logs under
// project/testdata/text, in a fixed order.
func fixtureLines(tb testing.TB, n int) [][]byte {
	tb.Helper()
	paths, _ := filepath.Glob("../../project/testdata/text/*/output")
	var out [][]byte
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() && len(out) < n {
			out = append(out, bytes.Clone(sc.Bytes()))
		}
		f.Close()
	}
	if len(out) == 0 {
		tb.Skip("no fixtures under project/testdata/text (run scripts/fixtures/logs.sh)")
	}
	return out
}

func FuzzDrain(f *testing.F) {
	for _, s := range []string{
		"2024-05-01T12:00:00Z INFO request served path=/a status=200",
		`{"time":"2024-05-01T12:00:00Z","level":"INFO","msg":"x y","n":{"a":[1,2]}}`,
		`127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET / HTTP/1.1" 200 612`,
		"{\"a\":\"\\\"", "[", "{\"", "x=", "=x", "\xff\xfe 12:00:00",
	} {
		f.Add([]byte(s), []byte("2024-05-01 12:00:00 ERROR boom 42"))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		run := func() string {
			m := New(Options{MaxClusters: 4, MaxTokens: 8})
			var out strings.Builder
			for i, l := range [][]byte{a, b, a, append(append([]byte{}, b...), " 7"...), a} {
				id := m.AddIn(uint8(i%2), l, int64(i))
				if id != Other && (id < 0 || id >= m.Len()) {
					t.Fatalf("bad id %d", id)
				}
				fmt.Fprintln(&out, id)
			}
			if m.Len() > 4 {
				t.Fatalf("%d clusters, cap 4", m.Len())
			}
			var total int64
			for _, c := range m.Clusters() {
				total += c.Count
				// Tokens are joined by one space and hold none.
				if n := len(strings.Split(c.Template, " ")); n > 8 {
					t.Fatalf("template %q has more than 8 tokens", c.Template)
				}
			}
			if total+m.OtherTotal() != 5 {
				t.Fatalf("counts add up to %d, want 5", total+m.OtherTotal())
			}
			fmt.Fprint(&out, m.Clusters())
			return out.String()
		}
		if run() != run() {
			t.Fatal("not deterministic")
		}
	})
}
