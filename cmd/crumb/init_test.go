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

// testdataAgents is absolute, for tests that change directory.
var testdataAgents, _ = filepath.Abs("../../internal/agentconfig/testdata")

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

// printedBlocks returns the blocks of the output indented by four spaces
// that follow a line ending in ":" (what --write would merge), unindented.
func printedBlocks(out string) []string {
	var blocks []string
	var cur []string
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "    ") && (len(cur) > 0 || i > 0 && strings.HasSuffix(lines[i-1], ":")) {
			cur = append(cur, strings.TrimPrefix(l, "    "))
			continue
		}
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	return blocks
}

// TestInitDryRunPastes: what the dry run prints can be pasted as it is: a
// JSON document nested as the file nests it (a project's local server
// under "projects"), and the hook as settings.
func TestInitDryRunPastes(t *testing.T) {
	home := t.TempDir()
	copyFile(t, filepath.Join(testdataAgents, "claude.json"), filepath.Join(home, ".claude.json"))
	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--crumb", "/opt/crumb/bin/crumb")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	blocks := printedBlocks(out)
	if len(blocks) != 2 {
		t.Fatalf("want 2 blocks, got %d:\n%s", len(blocks), out)
	}
	var entries struct {
		MCPServers map[string]struct{ Command string }
		Projects   map[string]struct {
			MCPServers map[string]struct{ Command string }
		}
	}
	if err := json.Unmarshal([]byte(blocks[0]), &entries); err != nil {
		t.Fatalf("the entries are not JSON: %v\n%s", err, blocks[0])
	}
	if entries.MCPServers["filesystem"].Command != "/opt/crumb/bin/crumb" ||
		entries.Projects["/home/ada/src/api"].MCPServers["postgres"].Command != "/opt/crumb/bin/crumb" {
		t.Errorf("entries: %+v", entries)
	}
	var hook struct {
		Hooks struct {
			PreToolUse []struct {
				Matcher string
				Hooks   []struct{ Type, Command string }
			}
		}
	}
	if err := json.Unmarshal([]byte(blocks[1]), &hook); err != nil {
		t.Fatalf("the hook is not JSON: %v\n%s", err, blocks[1])
	}
	if len(hook.Hooks.PreToolUse) != 1 || hook.Hooks.PreToolUse[0].Hooks[0].Command != "/opt/crumb/bin/crumb hook claude-code" {
		t.Errorf("hook: %+v", hook)
	}
	if !strings.Contains(out, "--write to change ~/.claude.json and ~/.claude/settings.json") || strings.Contains(out, "another PreToolUse hook") {
		t.Errorf("the files that would change are not named:\n%s", out)
	}
}

// TestInitProjectShared: a project's shared files run "crumb" through PATH,
// not this user's binary, and a new one is created 0644; an existing one
// keeps its mode.
func TestInitProjectShared(t *testing.T) {
	home := t.TempDir()
	t.Chdir(t.TempDir())
	copyFile(t, filepath.Join(testdataAgents, "mcp.json"), ".mcp.json")
	const self = "/home/ada/go/bin/crumb"
	defer func(f func() string) { selfPath = f }(selfPath)
	selfPath = func() string { return self }
	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--project", "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	mcp, _ := os.ReadFile(".mcp.json")
	settings, _ := os.ReadFile(filepath.Join(".claude", "settings.json"))
	for name, b := range map[string][]byte{".mcp.json": mcp, "settings.json": settings} {
		if bytes.Contains(b, []byte(self)) {
			t.Errorf("%s names this user's binary %s:\n%s", name, self, b)
		}
	}
	if !bytes.Contains(mcp, []byte(`"command": "crumb"`)) || !bytes.Contains(settings, []byte(`"command": "crumb hook claude-code"`)) {
		t.Errorf("shared files do not run crumb through PATH:\n%s\n%s", mcp, settings)
	}
	if st, err := os.Stat(filepath.Join(".claude", "settings.json")); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("new .claude/settings.json: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(".mcp.json"); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf(".mcp.json changed its mode: %v %v", st.Mode(), err)
	}
	if i, j := strings.Index(out, "Changing .mcp.json and .claude/settings.json:"), strings.Index(out, "wrote .mcp.json"); i < 0 || j < i {
		t.Errorf("the files are not named before they change:\n%s", out)
	}
	// Your own files keep the absolute path.
	copyFile(t, filepath.Join(testdataAgents, "mcp.json"), filepath.Join(home, ".claude.json"))
	code, _, _ = runWithHome(t, home, "", "init", "--agent", "claude-code", "--write", "--crumb", "/opt/crumb")
	if own, _ := os.ReadFile(filepath.Join(home, ".claude.json")); code != 0 || !bytes.Contains(own, []byte(`"command": "/opt/crumb"`)) {
		t.Errorf("user file: exit %d\n%s", code, own)
	}
	if st, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("new ~/.claude/settings.json: %v %v", st, err)
	}
}

// TestInitNothingHalfWritten: when one file cannot be merged, none is
// written.
func TestInitNothingHalfWritten(t *testing.T) {
	home := t.TempDir()
	t.Chdir(t.TempDir())
	orig := copyFile(t, filepath.Join(testdataAgents, "mcp.json"), ".mcp.json")
	os.MkdirAll(".claude", 0o755)
	os.WriteFile(filepath.Join(".claude", "settings.json"), []byte(`{"hooks": []}`), 0o644)
	code, _, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--project", "--write")
	if code != 1 || !strings.Contains(errOut, "settings.json") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if now, _ := os.ReadFile(".mcp.json"); !bytes.Equal(now, orig) {
		t.Error(".mcp.json was written although the settings could not be merged")
	}
}

// TestInitCodexProject edits the project's .codex/config.toml, never the
// user's ~/.codex/config.toml.
func TestInitCodexProject(t *testing.T) {
	home := t.TempDir()
	userCfg := copyFile(t, filepath.Join(testdataAgents, "codex.toml"), filepath.Join(home, ".codex", "config.toml"))
	t.Chdir(t.TempDir())
	copyFile(t, filepath.Join(testdataAgents, "codex.toml"), filepath.Join(".codex", "config.toml"))
	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "codex", "--project", "--write")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if now, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); !bytes.Equal(now, userCfg) {
		t.Error("--project changed the user's ~/.codex/config.toml")
	}
	proj, _ := os.ReadFile(filepath.Join(".codex", "config.toml"))
	if !bytes.Contains(proj, []byte(`command = "crumb"`)) || !strings.HasPrefix(out, ".codex/config.toml:") || strings.Contains(out, "~/.codex") {
		t.Errorf("project config:\n%s\noutput:\n%s", proj, out)
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

// TestInitNamesRacingHook: crumb init says when another PreToolUse hook on
// Bash would make crumb's stand aside.
func TestInitNamesRacingHook(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "rtk hook claude"}]}]}}`), 0o600)
	code, out, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--crumb", "/opt/crumb")
	if code != 0 || !strings.Contains(out, "another PreToolUse hook on Bash is here (rtk hook claude)") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
}

// TestInitProjectConfig: with --project, a --config inside the project is
// written relative to it; one outside it is named as this user's.
func TestInitProjectConfig(t *testing.T) {
	home := t.TempDir()
	t.Chdir(t.TempDir())
	copyFile(t, filepath.Join(testdataAgents, "mcp.json"), ".mcp.json")
	os.WriteFile("crumb.toml", nil, 0o644)
	code, _, errOut := runWithHome(t, home, "", "init", "--agent", "claude-code", "--project", "--no-hook", "--write", "--config", "crumb.toml")
	mcp, _ := os.ReadFile(".mcp.json")
	if code != 0 || !bytes.Contains(mcp, []byte(`"--config",
        "crumb.toml",`)) {
		t.Errorf("exit %d %s:\n%s", code, errOut, mcp)
	}
	outside := filepath.Join(home, "crumb.toml")
	code, out, _ := runWithHome(t, home, "", "init", "--agent", "cursor", "--project", "--config", outside)
	if code != 0 || !strings.Contains(out, "note: "+outside+" is outside the project") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
