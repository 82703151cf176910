package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCompactCommand compacts the fixture threads (16 tool turns made of
// crumb's own views of corpus cases; see history's TestWriteFixture) and
// reads a breadcrumb's result and a folded message back with crumb read.
func TestCompactCommand(t *testing.T) {
	for _, format := range []string{"openai", "anthropic"} {
		t.Run(format, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", "compact", "thread-"+format+".json"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			code, stdout, stderr := runCrumb(t, dir, strings.NewReader(string(in)), "compact", "--format", format, "--budget", "6000", "--stats")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stderr, "crumb compact: "+format+" (within budget)") {
				t.Errorf("stats: %s", stderr)
			}
			var out struct {
				Model    string            `json:"model"`
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("output is not JSON: %v", err)
			}
			if out.Model != "test-model" || len(out.Messages) == 0 {
				t.Fatalf("the request body's shape was not kept: model %q, %d messages", out.Model, len(out.Messages))
			}
			// Every read the output names works.
			reads := 0
			for _, line := range strings.Split(strings.ReplaceAll(stdout, `\n`, "\n"), "\n") {
				i := strings.Index(line, "with: crumb read ")
				if i < 0 {
					continue
				}
				ref := line[i+len("with: crumb read "):]
				ref = ref[:min(len(ref), 16)]
				code, page, stderr := runCrumb(t, dir, nil, "read", ref, "--all")
				if code != 0 || page == "" {
					t.Fatalf("crumb read %s --all: exit %d: %s", ref, code, stderr)
				}
				reads++
			}
			if reads < 2 {
				t.Errorf("%d reads named in the compacted thread: want breadcrumbs and a summary", reads)
			}
		})
	}
}

func TestCompactBadInput(t *testing.T) {
	for _, c := range []struct{ in, args, want string }{
		{`not json`, "", "not JSON"},
		{`{"model":"x"}`, "", `no "messages"`},
		{`[]`, "--format mistral", "unknown format"},
		{`[]`, "--budget -1", "--budget: -1 is out of range"},
		{`[]`, "--recent 0", "--recent: 0 is out of range"},
		{`{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}`, "", `the key "messages" twice`},
	} {
		args := append([]string{"compact"}, strings.Fields(c.args)...)
		code, _, stderr := runCrumb(t, t.TempDir(), strings.NewReader(c.in), args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q %s: exit %d, stderr %q; want an error with %q", c.in, c.args, code, stderr, c.want)
		}
	}
}

// longThread builds a long thread from a fixture thread (crumb's views of
// corpus cases, in a real request body's shape): its task, then its turns
// again and again, each copy's tool call ids renamed so that every call
// keeps its own result.
func longThread(t *testing.T, format string, copies int) []byte {
	t.Helper()
	in, err := os.ReadFile(filepath.Join("testdata", "compact", "thread-"+format+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(in, &body); err != nil {
		t.Fatal(err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(body["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	anchor := 1
	if format == "openai" {
		anchor = 2 // the system message and the task
	}
	out := append([]json.RawMessage(nil), msgs[:anchor]...)
	for c := 0; c < copies; c++ {
		for _, m := range msgs[anchor:] {
			out = append(out, json.RawMessage(strings.ReplaceAll(string(m), `"call_`, fmt.Sprintf(`"call_%d_`, c))))
		}
	}
	if body["messages"], err = json.Marshal(out); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompactLongThread compacts a thread of 30 copies of the fixture's
// turns (480 tool turns): with small fold steps the summary merges its
// blocks until the thread is within budget, and exits 0; given a budget the
// task and the recent turns alone exceed, it writes the thread in full,
// says on stderr what each part takes and which do not fit, and exits 3.
func TestCompactLongThread(t *testing.T) {
	stats := regexp.MustCompile(`-> [\d,]+ messages, ([\d,]+) tokens`)
	for _, format := range []string{"openai", "anthropic"} {
		in := longThread(t, format, 30)
		dir := t.TempDir()
		t.Run(format+"/within", func(t *testing.T) {
			code, stdout, stderr := runCrumb(t, dir, bytes.NewReader(in), "compact", "--budget", "8000", "--fold-step", "2", "--recent", "2", "--stats")
			m := stats.FindStringSubmatch(stderr)
			if code != 0 || m == nil || !strings.Contains(stderr, "(within budget)") {
				t.Fatalf("exit %d, stderr %s: want 0 and within budget", code, stderr)
			}
			if n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); n > 8000 || n == 0 {
				t.Errorf("%d tokens after compaction, want at most 8,000", n)
			}
			if !json.Valid([]byte(stdout)) {
				t.Error("the output is not JSON")
			}
		})
		t.Run(format+"/over", func(t *testing.T) {
			code, stdout, stderr := runCrumb(t, dir, bytes.NewReader(in), "compact", "--budget", "1000")
			if code != 3 {
				t.Errorf("exit %d, want 3 (over budget)", code)
			}
			for _, want := range []string{"crumb compact: over budget: ", "for a budget of 1,000", "the 6 recent turns kept word for word", "in 1 block", "the task and the recent turns alone are over the budget"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			var out struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out.Messages) == 0 {
				t.Errorf("the compacted thread was not written in full: %v", err)
			}
		})
	}
}
