package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runWithHome runs the command line in-process with HOME and CODEX_HOME set.
func runWithHome(t *testing.T, home string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, func(k string) string {
		switch k {
		case "HOME":
			return home
		case "CODEX_HOME":
			return filepath.Join(home, ".codex")
		}
		return ""
	})
	return code, stdout.String(), stderr.String()
}

func copyFile(t *testing.T, from, to string) []byte {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

const testdataAgents = "../../internal/agentconfig/testdata"

// TestInitClaudeCode prints, then writes, then writes again: the second
// write changes nothing.
func TestInitClaudeCode(t *testing.T) {
	home := t.TempDir()
	orig := copyFile(t, filepath.Join(testdataAgents, "claude.json"), filepath.Join(home, ".claude.json"))
	settings := filepath.Join(home, ".claude", "settings.json")

	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--crumb", "/opt/crumb/bin/crumb")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"~/.claude.json:", "wrapped  filesystem", "skipped  github: a remote server", "already  already",
		"wrapped  /home/ada/src/api: postgres", `"command": "/opt/crumb/bin/crumb"`, "~/.claude/settings.json:", "hook claude-code", "--write"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(home, ".claude.json")); !bytes.Equal(now, orig) {
		t.Error("printing changed the file")
	}
	if _, err := os.Stat(settings); err == nil {
		t.Error("printing created the settings")
	}

	code, out, errOut = runWithHome(t, home, "", "init", "--agent", "claude-code", "--crumb", "/opt/crumb/bin/crumb", "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	written, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	if backup, _ := os.ReadFile(filepath.Join(home, ".claude.json.crumb-backup")); !bytes.Equal(backup, orig) {
		t.Error("the backup is not the file as it was")
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal(written, &cfg); err != nil {
		t.Fatal(err)
	}
	if fs := cfg.MCPServers["filesystem"]; fs.Command != "/opt/crumb/bin/crumb" || strings.Join(fs.Args[:3], " ") != "mcp -- npx" {
		t.Errorf("filesystem entry: %+v", fs)
	}
	hook, err := os.ReadFile(settings)
	if err != nil || !bytes.Contains(hook, []byte(`"/opt/crumb/bin/crumb hook claude-code"`)) {
		t.Errorf("settings: %s %v", hook, err)
	}
	if !strings.Contains(out, "Restart the agent") {
		t.Errorf("output: %s", out)
	}

	code, out, _ = runWithHome(t, home, "", "init", "--agent", "claude-code", "--crumb", "/opt/crumb/bin/crumb", "--write")
	again, _ := os.ReadFile(filepath.Join(home, ".claude.json"))
	hookAgain, _ := os.ReadFile(settings)
	if code != 0 || !bytes.Equal(again, written) || !bytes.Equal(hookAgain, hook) || strings.Contains(out, "wrote") {
		t.Errorf("a second --write changed something:\n%s", out)
	}
}

func TestInitCodexAndCursor(t *testing.T) {
	home := t.TempDir()
	copyFile(t, filepath.Join(testdataAgents, "codex.toml"), filepath.Join(home, ".codex", "config.toml"))
	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "codex", "--crumb", "/opt/crumb", "--write", "--config", "/etc/crumb.toml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if !bytes.Contains(got, []byte(`args = ["mcp", "--config", "/etc/crumb.toml", "--", "npx", "-y", "@upstash/context7-mcp"]`)) {
		t.Errorf("codex config:\n%s\n%s", got, out)
	}
	if strings.Contains(out, "settings.json") {
		t.Error("a hook was offered to codex")
	}

	// Cursor, in a project, with no servers yet.
	t.Chdir(t.TempDir())
	os.MkdirAll(".cursor", 0o755)
	os.WriteFile(filepath.Join(".cursor", "mcp.json"), []byte(`{"mcpServers": {}}`), 0o644)
	code, out, _ = runWithHome(t, home, "", "init", "--agent", "cursor", "--project", "--crumb", "/opt/crumb")
	if code != 0 || !strings.Contains(out, "no MCP servers configured") || !strings.Contains(out, `"args": ["mcp", "--"`) {
		t.Errorf("cursor without servers:\n%s", out)
	}
}

func TestInitUsage(t *testing.T) {
	for _, args := range [][]string{{"init"}, {"init", "--agent", "vim"}, {"init", "--agent", "codex", "extra"}} {
		if code, _, errOut := runWithHome(t, t.TempDir(), "", args...); code != 2 || !strings.Contains(errOut, "crumb init: error:") {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": `), 0o600)
	if code, _, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code"); code != 1 || !strings.Contains(errOut, ".claude.json") {
		t.Errorf("broken config: exit %d, %s", code, errOut)
	}
}

// TestHookCommand runs crumb hook over Claude Code's documented payloads:
// a PreToolUse call that the user's allow rule lets run is rewritten, with
// the call's description as the intent; the same call as PostToolUse, or
// with a deny rule that could match it, gets no output; all exit 0.
func TestHookCommand(t *testing.T) {
	pre, err := os.ReadFile(filepath.Join(testdataAgents, "hook", "pretooluse-bash.json"))
	if err != nil {
		t.Fatal(err)
	}
	post, err := os.ReadFile(filepath.Join(testdataAgents, "hook", "posttooluse-bash.json"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(go test:*)"]}}`), 0o600)

	code, out, errOut := runWithHome(t, home, string(pre), "hook", "claude-code")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if commands["run"] == nil {
		if out != "" {
			t.Errorf("without crumb run the command must run as it is, got %s", out)
		}
		return
	}
	var res struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision string
			UpdatedInput                      struct{ Command, Description string }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	u := res.HookSpecificOutput.UpdatedInput
	if res.HookSpecificOutput.HookEventName != "PreToolUse" || res.HookSpecificOutput.PermissionDecision != "allow" ||
		!strings.HasSuffix(u.Command, " run --intent 'Run the store package tests' -- go test ./...") || u.Description != "Run the store package tests" {
		t.Errorf("hook output: %s", out)
	}
	if code, out, _ := runWithHome(t, home, string(post), "hook", "claude-code"); code != 0 || out != "" {
		t.Errorf("PostToolUse: exit %d, %q", code, out)
	}
	os.WriteFile(settings, []byte(`{"permissions": {"allow": ["Bash(go test:*)"], "deny": ["Bash(go test:*)"]}}`), 0o600)
	if code, out, _ := runWithHome(t, home, string(pre), "hook", "claude-code"); code != 0 || out != "" {
		t.Errorf("deny rule: exit %d, %q", code, out)
	}
	if code, out, _ := runWithHome(t, home, "not json", "hook", "claude-code"); code != 0 || out != "" {
		t.Errorf("bad input: exit %d, %q", code, out)
	}
}
