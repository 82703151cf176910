package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	} {
		args := append([]string{"compact"}, strings.Fields(c.args)...)
		code, _, stderr := runCrumb(t, t.TempDir(), strings.NewReader(c.in), args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q %s: exit %d, stderr %q; want an error with %q", c.in, c.args, code, stderr, c.want)
		}
	}
}
