package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/llmtest"
	"github.com/crumb-dev/crumb/tokens"
)

const deepFailAnswer = `{"overview":"go test -v ./... failed: one subtest of TestTour fails.","critical_facts":[{"fact":"TestTour/tour_2 fails","quotes":["--- FAIL: TestTour/tour_2"]}],"omitted":"the passing tests"}`

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
			if code != 0 || !strings.Contains(view, "[crumb summary of a result (command)") || !strings.Contains(view, `✓ L2502: "--- FAIL: TestTour/tour_2"`) {
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
			// On for every call, and the JSON receipt says so. A store of
			// its own, since the summary checked above is shared through
			// the store and this call must ask the model (its ladder's
			// attempts are reported).
			env["CRUMB_SUMMARY"] = "on"
			env["CRUMB_STORE"] = t.TempDir()
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
			if code != 1 || !strings.Contains(ran, `✓ L2502: "--- FAIL: TestTour/tour_2"`) {
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

// TestMCPSummaries checks that crumb mcp summarizes large tool results when
// its configuration file turns summaries on, and keeps the CallToolResult's
// shape.
func TestMCPSummaries(t *testing.T) {
	e := llmtest.Start(t, "openai", `{"overview":"the helper printed 5000 numbered lines","critical_facts":[{"fact":"the last is line 5000","quotes":["line 5000 of the helper's output"]}],"omitted":"the lines themselves"}`)
	cfg := filepath.Join(t.TempDir(), "crumb.toml")
	os.WriteFile(cfg, []byte("budget = 300\n[summary]\nenabled = true\napi = \"openai\"\nurl = \""+e.BaseURL+"\"\nmodels = [\"ok\"]\n"), 0o644)
	call, stderr := mcpSessionEnv(t, map[string]string{"CRUMB_SUMMARY_KEY": llmtest.Key}, "--config", cfg)
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	call("tools/list", `{}`)
	big := call("tools/call", `{"name":"lines","arguments":{"n":5000}}`)
	var r struct {
		Content []struct {
			Type, Text string
		} `json:"content"`
	}
	if err := json.Unmarshal(big["result"], &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("result %s: %v (stderr %s)", big["result"], err, stderr)
	}
	if text := r.Content[0].Text; !strings.Contains(text, "[crumb summary of a result (mcp)") || !strings.Contains(text, `✓ L1: "line 5000 of the helper's output"`) || !strings.Contains(text, "crumb_read {") {
		t.Errorf("the MCP result is not the summary naming crumb_read:\n%s", text)
	}
	if e.Calls() != 1 {
		t.Errorf("%d model calls", e.Calls())
	}
}

// TestSummaryHugeAnswerBounded runs crumb project --summarize as a process
// against an endpoint whose valid answer has an "omitted" of 50 MB: crumb
// reads the answer only to its bound, shows the projection within the
// budget, saying why, and its peak RSS stays under 100 MB.
func TestSummaryHugeAnswerBounded(t *testing.T) {
	crumbBin, err := exec.LookPath("crumb") // the test binary, set up by testscript.Main
	if err != nil {
		t.Skip("crumb is not on $PATH")
	}
	out, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "command-go-test-v-deep-fail", "output"))
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			e := llmtest.Start(t, api, deepFailAnswer)
			e.HugeBytes = 50 << 20
			cmd := exec.Command(crumbBin, "project", "--kind", "command", "--exit-code", "1", "--summarize", "--json")
			cmd.Env = append(os.Environ(), "CRUMB_STORE="+t.TempDir(), "CRUMB_GC=off", "CRUMB_SUMMARY_API="+api, "CRUMB_SUMMARY_URL="+e.BaseURL,
				"CRUMB_SUMMARY_MODELS=huge", "CRUMB_SUMMARY_KEY="+llmtest.Key, "CRUMB_SUMMARY_TIMEOUT=20s")
			cmd.Stdin = bytes.NewReader(out)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			rss, err := runPeak(t, cmd)
			if err != nil {
				t.Fatalf("crumb project: %v\n%s", err, stderr.String())
			}
			took := time.Since(start)
			var got struct {
				View    string `json:"view"`
				Receipt struct {
					Output     string `json:"output"`
					ViewTokens int    `json:"view_tokens"`
					Budget     int    `json:"budget"`
					Summary    struct {
						Error string `json:"error"`
					} `json:"summary"`
				} `json:"receipt"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("%v:\n%.500s", err, stdout.String())
			}
			n := tokens.O200k().Count(got.View)
			t.Logf("a 50 MB answer: %s in %v, peak RSS %.1f MB, a view of %d tokens; %s", got.Receipt.Output, took.Round(time.Millisecond), float64(rss)/(1<<20), n, got.Receipt.Summary.Error)
			if got.Receipt.Output != "fallback" || !strings.Contains(got.Receipt.Summary.Error, "too large") || !strings.HasPrefix(got.View, "[crumb: no summary (huge: summarize: the answer is too large") {
				t.Errorf("the answer was not refused as too large: %s\n%.300s", got.Receipt.Summary.Error, got.View)
			}
			if n > got.Receipt.Budget || got.Receipt.ViewTokens > got.Receipt.Budget {
				t.Errorf("a view of %d tokens (receipt %d), budget %d", n, got.Receipt.ViewTokens, got.Receipt.Budget)
			}
			if limit := int64(rssLimit / 2); rss > limit {
				t.Errorf("peak RSS %d MB, limit %d MB", rss>>20, limit>>20)
			}
		})
	}
}

// TestSummaryFlagsEnvFile checks which configuration a summary follows: a
// flag (--summary-url, --summary-models) beats the environment, which beats
// the configuration file's [summary] section. Each source names its own
// local endpoint and model; the one that gets the call, and the model it is
// asked for, say which source won.
func TestSummaryFlagsEnvFile(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "command-go-test-v-deep-fail", "output"))
	if err != nil {
		t.Fatal(err)
	}
	const mcpAnswer = `{"overview":"the helper printed 5000 numbered lines","critical_facts":[{"fact":"the last is line 5000","quotes":["line 5000 of the helper's output"]}],"omitted":"the lines themselves"}`
	for _, c := range []struct {
		name             string
		cmd              string // project, run or mcp
		file, env, flags bool   // which sources set a URL and a ladder
		want             string // the source that wins
	}{
		{name: "project env", cmd: "project", env: true, want: "env"},
		{name: "project flag over env", cmd: "project", env: true, flags: true, want: "flag"},
		{name: "project flag alone", cmd: "project", flags: true, want: "flag"},
		{name: "run flag over env", cmd: "run", env: true, flags: true, want: "flag"},
		{name: "mcp file", cmd: "mcp", file: true, want: "file"},
		{name: "mcp env over file", cmd: "mcp", file: true, env: true, want: "env"},
		{name: "mcp flag over env and file", cmd: "mcp", file: true, env: true, flags: true, want: "flag"},
	} {
		t.Run(c.name, func(t *testing.T) {
			answer := deepFailAnswer
			if c.cmd == "mcp" {
				answer = mcpAnswer
			}
			ends := map[string]*llmtest.Endpoint{}
			for _, src := range []string{"file", "env", "flag"} {
				ends[src] = llmtest.Start(t, "openai", answer)
			}
			env := map[string]string{"CRUMB_STORE": t.TempDir(), "CRUMB_GC": "off", "CRUMB_SUMMARY_KEY": llmtest.Key}
			if c.env {
				env["CRUMB_SUMMARY_URL"], env["CRUMB_SUMMARY_MODELS"] = ends["env"].BaseURL, "env-model"
			}
			var flags []string
			if c.flags {
				flags = []string{"--summary-url", ends["flag"].BaseURL, "--summary-models", "flag-model"}
			}
			var view string
			switch c.cmd {
			case "project":
				// --summarize is left out where a flag configures the
				// summary: giving one asks for it.
				args := append([]string{"project", "--kind", "command", "--exit-code", "1"}, flags...)
				if !c.flags {
					args = append(args, "--summarize")
				}
				code, stdout, stderr := runWithEnv(t, env, string(out), args...)
				if code != 0 {
					t.Fatalf("crumb %v: exit %d: %s", args, code, stderr)
				}
				view = stdout
			case "run":
				file := filepath.Join(t.TempDir(), "out.txt")
				if err := os.WriteFile(file, out, 0o644); err != nil {
					t.Fatal(err)
				}
				args := append(append([]string{"run"}, flags...), "--", "sh", "-c", "cat "+file+"; exit 1")
				code, stdout, stderr := runWithEnv(t, env, "", args...)
				if code != 1 {
					t.Fatalf("crumb %v: exit %d: %s", args, code, stderr)
				}
				view = stdout
			case "mcp":
				cfg := filepath.Join(t.TempDir(), "crumb.toml")
				toml := "budget = 300\n[summary]\nenabled = true\napi = \"openai\"\n"
				if c.file {
					toml += "url = \"" + ends["file"].BaseURL + "\"\nmodels = [\"file-model\"]\n"
				}
				if err := os.WriteFile(cfg, []byte(toml), 0o644); err != nil {
					t.Fatal(err)
				}
				call, stderr := mcpSessionEnv(t, env, append([]string{"--config", cfg}, flags...)...)
				call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
				big := call("tools/call", `{"name":"lines","arguments":{"n":5000}}`)
				var r struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.Unmarshal(big["result"], &r); err != nil || len(r.Content) != 1 {
					t.Fatalf("result %s: %v (stderr %s)", big["result"], err, stderr)
				}
				view = r.Content[0].Text
			}
			if !strings.Contains(view, "[crumb summary of a result") {
				t.Fatalf("no summary:\n%.1000s", view)
			}
			for src, e := range ends {
				if n, want := e.Calls(), src == c.want; (n > 0) != want {
					t.Errorf("the %s endpoint got %d calls; the %s configuration should win", src, n, c.want)
				}
			}
			if m := ends[c.want].Last()["model"]; m != c.want+"-model" {
				t.Errorf("the %s endpoint was asked for model %v, want %s-model", c.want, m, c.want)
			}
		})
	}
}

// TestSummaryHelp holds that every command that can summarize says, in its
// --help, how summaries are configured: the flags, the environment
// variables and the configuration file's [summary] section.
func TestSummaryHelp(t *testing.T) {
	for _, name := range []string{"project", "run", "mcp"} {
		t.Run(name, func(t *testing.T) {
			code, help, stderr := runWithEnv(t, nil, "", name, "--help")
			if code != 0 {
				t.Fatalf("crumb %s --help: exit %d: %s", name, code, stderr)
			}
			for _, want := range []string{"--summarize", "--summary-url URL", "--summary-models LIST",
				"CRUMB_SUMMARY=on", "CRUMB_SUMMARY_API", "CRUMB_SUMMARY_URL", "CRUMB_SUMMARY_MODELS", "CRUMB_SUMMARY_KEY",
				"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CRUMB_SUMMARY_TIMEOUT", "CRUMB_SUMMARY_SCHEMA", "CRUMB_SUMMARY_INSTRUCTIONS",
				"[summary]", "max_input", "max_output"} {
				if !strings.Contains(help, want) {
					t.Errorf("crumb %s --help does not mention %s", name, want)
				}
			}
		})
	}
}
