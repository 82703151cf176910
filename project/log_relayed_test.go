package project

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestLogRelayedTrace: a server that relays a program's stderr line by
// line, each under a timestamp of its own (Apache's mod_cgi, made by
// testdata/relayed/make.sh with Python, Ruby and Perl programs), shows the
// first failure of the Python program with the lines of it that follow:
// its first frame, and with room for the whole record, the exception its
// traceback ends with, three frames down.
func TestLogRelayedTrace(t *testing.T) {
	b, err := os.ReadFile("testdata/relayed/apache-cgi-error.log")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	head, exc := -1, -1
	for i, l := range lines {
		if head < 0 && strings.HasSuffix(l, "report.py: Traceback (most recent call last):") {
			head = i
		}
		if head >= 0 && strings.Contains(l, "report.py: KeyError: ") {
			exc = i
			break
		}
	}
	if head < 0 || exc-head < 9 {
		t.Fatalf("fixture: no Python traceback of three frames (run testdata/relayed/make.sh)")
	}
	for _, c := range []struct {
		intent string
		budget int
		want   []int
	}{
		{"", 2000, []int{head, head + 1}},
		{"why do tax reports fail", 2000, []int{head, head + 1}},
		{"", 4000, []int{head, head + 1, exc}},
	} {
		in := testInput(t, b, c.budget)
		in.Args, _ = json.Marshal(map[string]string{"path": "/var/log/apache2/error.log", "intent": c.intent})
		out, err := Project(context.Background(), KindText, in)
		if err != nil {
			t.Fatal(err)
		}
		checkLogView(t, b, out, c.budget)
		for _, i := range c.want {
			if !bytes.Contains([]byte(out.Text), []byte(lines[i])) {
				t.Errorf("intent %q, budget %d: the view does not show line %d of the first failure:\n%s", c.intent, c.budget, i+1, out.Text)
			}
		}
	}
}
