package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/llmtest"
)

const deepFailAnswer = `{"overview":"go test -v ./... failed: one subtest of TestTour fails.","critical_facts":["--- FAIL: TestTour/tour_2"],"omitted":"the passing tests"}`

func runWithEnv(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, func(k string) string { return env[k] })
	return code, stdout.String(), stderr.String()
}

// TestSummarizeCommands checks that crumb project --summarize, crumb run
// --summarize and CRUMB_SUMMARY=on use the configured endpoint through the
// one library call, and give the same view.
func TestSummarizeCommands(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "command-go-test-v-deep-fail", "output"))
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := llmtest.Start(t, api, deepFailAnswer)
			env := map[string]string{"CRUMB_STORE": t.TempDir(), "CRUMB_GC": "off", "CRUMB_SUMMARY_API": api, "CRUMB_SUMMARY_URL": e.BaseURL,
				"CRUMB_SUMMARY_MODELS": "500,ok", "CRUMB_SUMMARY_KEY": llmtest.Key}
			code, view, stderr := runWithEnv(t, env, string(out), "project", "--kind", "command", "--exit-code", "1", "--summarize")
			if code != 0 || !strings.Contains(view, "[crumb summary of a command result") || !strings.Contains(view, "✓ --- FAIL: TestTour/tour_2") {
				t.Fatalf("project --summarize: exit %d\n%s\n%s", code, view, stderr)
			}
			if strings.Contains(stderr, llmtest.Key) {
				t.Error("the key was printed")
			}
			// Off by default: the same call without --summarize projects.
			_, plain, _ := runWithEnv(t, env, string(out), "project", "--kind", "command", "--exit-code", "1")
			if strings.Contains(plain, "[crumb summary") {
				t.Error("summaries are on without --summarize or CRUMB_SUMMARY=on")
			}
			// On for every call, and the JSON receipt says so.
			env["CRUMB_SUMMARY"] = "on"
			_, js, _ := runWithEnv(t, env, string(out), "project", "--kind", "command", "--exit-code", "1", "--json")
			if !strings.Contains(js, `"output": "summarized"`) || !strings.Contains(js, `"model": "ok"`) || !strings.Contains(js, `"attempts": [`) {
				t.Errorf("project --json with CRUMB_SUMMARY=on:\n%.2000s", js)
			}
			// crumb run gives the same view.
			file := filepath.Join(t.TempDir(), "out.txt")
			if err := os.WriteFile(file, out, 0o644); err != nil {
				t.Fatal(err)
			}
			code, ran, _ := runWithEnv(t, env, "", "run", "--", "sh", "-c", "cat "+file+"; exit 1")
			if code != 1 || !strings.Contains(ran, "✓ --- FAIL: TestTour/tour_2") {
				t.Errorf("run with summaries: exit %d\n%s", code, ran)
			}
		})
	}
}

func TestSummarizeNotConfigured(t *testing.T) {
	env := map[string]string{"CRUMB_STORE": t.TempDir(), "CRUMB_GC": "off"}
	code, _, stderr := runWithEnv(t, env, strings.Repeat("line of output\n", 2000), "project", "--summarize")
	if code == 0 || !strings.Contains(stderr, "CRUMB_SUMMARY_MODELS") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	env["CRUMB_SUMMARY"] = "maybe"
	if code, _, stderr := runWithEnv(t, env, "x", "project"); code == 0 || !strings.Contains(stderr, "want on or off") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
