package agentconfig

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookFixture reads a hook input of testdata/hook and applies edits to its
// tool_input and top-level fields.
func hookFixture(t *testing.T, name string, edit func(top, toolInput map[string]any)) *HookInput {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "hook", name))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		var top map[string]any
		if err := json.Unmarshal(data, &top); err != nil {
			t.Fatal(err)
		}
		edit(top, top["tool_input"].(map[string]any))
		if data, err = json.Marshal(top); err != nil {
			t.Fatal(err)
		}
	}
	in, err := ParseHookInput(data)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func withCommand(cmd string) func(top, ti map[string]any) {
	return func(top, ti map[string]any) { ti["command"] = cmd }
}

// programs stand for the programs on PATH.
var programs = map[string]bool{"go": true, "make": true, "rm": true, "git": true, "npm": true, "cargo": true, "crumb": true}

func testHook(p *Permissions) *Hook {
	return &Hook{Crumb: crumbPath, Permissions: func(*HookInput) (*Permissions, error) { return p, nil },
		Program: func(name string) bool { return programs[name] }}
}

func rules(file string, texts ...string) []Rule {
	var out []Rule
	for _, t := range texts {
		out = append(out, Rule{Text: t, File: file})
	}
	return out
}

// hookOutput is what the hook prints, decoded.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName            string          `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// TestHookEvents answers only PreToolUse: the same Bash call as a
// PostToolUse payload (Claude Code's documented shape, with tool_response)
// gets no output.
func TestHookEvents(t *testing.T) {
	h := testHook(&Permissions{Allow: rules("~/.claude/settings.json", "Bash(go test:*)")})
	pre, err := h.Answer(hookFixture(t, "pretooluse-bash.json", nil))
	if err != nil || pre.Output == nil {
		t.Fatalf("PreToolUse: %+v %v", pre, err)
	}
	var out hookOutput
	if err := json.Unmarshal(pre.Output, &out); err != nil {
		t.Fatal(err)
	}
	if out.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Errorf("hookEventName = %q", out.HookSpecificOutput.HookEventName)
	}
	for _, name := range []string{"posttooluse-bash.json"} {
		a, err := h.Answer(hookFixture(t, name, nil))
		if err != nil || a.Output != nil {
			t.Errorf("%s: %s %v", name, a.Output, err)
		}
	}
	for _, event := range []string{"PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit", ""} {
		a, err := h.Answer(hookFixture(t, "pretooluse-bash.json", func(top, _ map[string]any) { top["hook_event_name"] = event }))
		if err != nil || a.Output != nil {
			t.Errorf("event %q: %s %v", event, a.Output, err)
		}
	}
}

// TestHookPermissions: a command that a deny or ask rule could match is
// left alone, so the rule applies to it as written; a command an allow rule
// matches is rewritten with "allow" and the rule named, so it still runs
// without a prompt; a command no allow rule matches is left alone, so
// Claude Code asks about it, not about crumb's command.
func TestHookPermissions(t *testing.T) {
	const user, project = "~/.claude/settings.json", "/home/ada/src/api/.claude/settings.json"
	p := &Permissions{
		Allow: rules(user, "Bash(go test:*)", "Bash(go vet *)", "Bash(make)", "Bash(rm -rf:*)", "Bash(npm run build)", "Bash(git log:*)"),
		Deny:  append(rules(user, "Bash(rm -rf:*)", "Bash(git push --force:*)", "Read(~/.ssh/**)", "Edit(src/secrets/**)"), rules(project, "Read(./.env)")...),
		Ask:   rules(project, "Bash(npm publish:*)", "Bash(go test * -count=100*)"),
	}
	tests := []struct {
		name, command, mode string
		rewrite             bool
		why                 string
	}{
		{"allowed prefix", "go test ./...", "default", true, "allowed by Bash(go test:*)"},
		{"allowed wildcard", "go vet ./store", "acceptEdits", true, "allowed by Bash(go vet *)"},
		{"allowed wildcard, no args", "go vet", "default", true, "allowed by Bash(go vet *)"},
		{"allowed exact", "make", "dontAsk", true, "allowed by Bash(make)"},
		{"exact is not a prefix", "make install", "default", false, "no allow rule"},
		{"prefix needs a word boundary", "go testing", "default", false, "no allow rule"},
		{"no allow rule", "cargo test", "default", false, "no allow rule"},
		{"deny beats allow", "rm -rf build", "default", false, "names rm"},
		{"deny, options moved", "git push origin main --force", "default", false, "the deny rule Bash(git push --force:*)"},
		{"deny, quoted", `git push "--force"`, "default", false, "the deny rule Bash(git push --force:*)"},
		{"deny in bypass mode", "git push --force", "bypassPermissions", false, "the deny rule"},
		{"ask rule", "npm publish --tag next", "default", false, "the ask rule Bash(npm publish:*)"},
		{"ask wildcard", "go test ./store -count=1000", "default", false, "the ask rule Bash(go test * -count=100*)"},
		{"read deny names the file", "go run ./cmd/check .env", "default", false, "the deny rule Read(./.env)"},
		{"read deny, another file", "go env", "default", false, "no allow rule"},
		{"read deny of a directory", "go run ./cmd/keys .ssh/id_ed25519", "default", false, "the deny rule Read(~/.ssh/**)"},
		{"edit deny from below", "go run ./gen secrets/key.go", "default", false, "the deny rule Edit(src/secrets/**)"},
		{"bypass without allow", "cargo test", "bypassPermissions", true, "bypassPermissions"},
		{"plan mode", "go test ./...", "plan", false, "permission mode plan"},
		{"auto mode", "go test ./...", "auto", false, "permission mode auto"},
		{"pipeline", "go test ./... | tail -5", "default", false, "not a simple command"},
		{"list", "go test ./... && rm -rf /", "bypassPermissions", false, "not a simple command"},
		{"substitution", "go test $(go list ./...)", "default", false, "not a simple command"},
		{"redirect", "go test ./... > out.txt", "default", false, "not a simple command"},
		{"absolute path", "go test /etc", "default", false, "not a simple command"},
		{"climbs", "go test ../other/...", "default", false, "not a simple command"},
		{"function or alias", "myalias ./...", "bypassPermissions", false, "not a program on PATH"},
		{"env prefix", "GOFLAGS=-v go test ./...", "bypassPermissions", false, "not a program on PATH"},
		{"cd", "cd store", "bypassPermissions", false, "changes the shell's state"},
		{"crumb", "crumb read 0123456789abcdef", "bypassPermissions", false, "runs crumb already"},
		{"word boundary of deny", "git log --format=rmx", "default", true, "allowed by Bash(git log:*)"},
	}
	h := testHook(p)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := h.Answer(hookFixture(t, "pretooluse-bash.json", func(top, ti map[string]any) {
				ti["command"] = tt.command
				top["permission_mode"] = tt.mode
			}))
			if err != nil {
				t.Fatal(err)
			}
			if (a.Output != nil) != tt.rewrite || !strings.Contains(a.Why, tt.why) {
				t.Fatalf("rewrite %v (%s), want %v (%s)", a.Output != nil, a.Why, tt.rewrite, tt.why)
			}
			if a.Output == nil {
				return
			}
			var out hookOutput
			if err := json.Unmarshal(a.Output, &out); err != nil {
				t.Fatal(err)
			}
			var in struct {
				Command     string
				Description string
				Timeout     int
			}
			json.Unmarshal(out.HookSpecificOutput.UpdatedInput, &in)
			want := crumbPath + " run --intent 'Run the store package tests' -- " + tt.command
			if in.Command != want || in.Description != "Run the store package tests" || in.Timeout != 120000 {
				t.Errorf("updatedInput = %s\nwant command %s", out.HookSpecificOutput.UpdatedInput, want)
			}
			wantDecision := "allow"
			if tt.mode == "bypassPermissions" && !strings.HasPrefix(tt.why, "allowed") {
				wantDecision = ""
			}
			if out.HookSpecificOutput.PermissionDecision != wantDecision || !strings.Contains(out.HookSpecificOutput.PermissionDecisionReason, strings.TrimPrefix(tt.why, "bypassPermissions")) {
				t.Errorf("decision %q (%s), want %q", out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason, wantDecision)
			}
		})
	}
}

// TestHookStandsAside: another PreToolUse hook on Bash, a bare Bash deny or
// ask rule, or settings that cannot be read leave every command alone.
func TestHookStandsAside(t *testing.T) {
	allow := rules("u", "Bash")
	for name, p := range map[string]*Permissions{
		"other hook":     {Allow: allow, OtherHooks: rules("p", "rtk hook claude")},
		"bare deny":      {Allow: allow, Deny: rules("u", "Bash")},
		"deny all":       {Allow: allow, Deny: rules("u", "Bash(*)")},
		"bare ask":       {Allow: allow, Ask: rules("u", "Bash")},
		"ask, no quotes": {Allow: allow, Ask: rules("u", `Bash(go "test":*)`)},
	} {
		a, err := testHook(p).Answer(hookFixture(t, "pretooluse-bash.json", nil))
		if err != nil || a.Output != nil {
			t.Errorf("%s: %s (%s) %v", name, a.Output, a.Why, err)
		}
	}
	broken := &Hook{Crumb: crumbPath, Permissions: func(*HookInput) (*Permissions, error) { return nil, ErrUnreadableSettings }}
	if a, err := broken.Answer(hookFixture(t, "pretooluse-bash.json", nil)); err != nil || a.Output != nil {
		t.Errorf("unreadable settings: %s %v", a.Output, err)
	}
	if a, err := testHook(&Permissions{Allow: allow}).Answer(hookFixture(t, "pretooluse-bash.json", func(top, _ map[string]any) { top["tool_name"] = "Edit" })); err != nil || a.Output != nil {
		t.Errorf("other tool: %s %v", a.Output, err)
	}
	if _, err := ParseHookInput([]byte("not json")); err == nil {
		t.Error("bad input: no error")
	}
}

// TestLoadPermissions reads the rules and the hooks that race crumb's from
// real-shaped settings files, in the places Claude Code reads them.
func TestLoadPermissions(t *testing.T) {
	root := t.TempDir()
	home, project := filepath.Join(root, "home"), filepath.Join(root, "src", "api")
	write := func(path, data string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	settings, err := os.ReadFile("testdata/claude-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(home, ".claude", "settings.json"), string(settings))
	write(filepath.Join(project, ".claude", "settings.json"), `{"permissions": {"deny": ["Bash(git push --force:*)"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "crumb hook claude-code"}]}]}}`)
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"permissions": {"allow": ["Bash(make:*)"], "ask": ["Bash(npm publish:*)"]}}`)

	files := ClaudeSettingsFiles("linux", home, "", project, project)
	p, err := LoadPermissions(files)
	if err != nil {
		t.Fatal(err)
	}
	texts := func(rs []Rule) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.Text)
		}
		return strings.Join(s, " ")
	}
	if got := texts(p.Allow); got != "Bash(go test:*) Read(~/src/**) Bash(make:*)" {
		t.Errorf("allow = %s", got)
	}
	if got := texts(p.Deny); got != "Read(./.env) Bash(git push --force:*)" {
		t.Errorf("deny = %s", got)
	}
	if got := texts(p.Ask); got != "Bash(npm publish:*)" {
		t.Errorf("ask = %s", got)
	}
	if len(p.OtherHooks) != 0 {
		t.Errorf("crumb's own hook or an Edit|Write hook counted as racing: %v", p.OtherHooks)
	}

	// A hook on every tool races; so does one whose matcher is a regexp
	// that selects Bash.
	for _, matcher := range []string{"", "*", "Bash|Edit", "Ba.*"} {
		write(filepath.Join(project, ".claude", "settings.local.json"), `{"hooks": {"PreToolUse": [{"matcher": "`+matcher+`", "hooks": [{"type": "command", "command": "rtk hook claude"}]}]}}`)
		p, err := LoadPermissions(files)
		if err != nil || len(p.OtherHooks) != 1 || p.OtherHooks[0].Text != "rtk hook claude" {
			t.Errorf("matcher %q: %+v %v", matcher, p, err)
		}
	}
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"permissions": `)
	if _, err := LoadPermissions(files); err == nil {
		t.Error("a broken settings file: no error")
	}

	// Managed settings that keep only their own rules: the user's allow
	// rules no longer count, their deny rules still do.
	managed := filepath.Join(root, "managed.json")
	write(managed, `{"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Bash(go vet:*)"]}}`)
	write(filepath.Join(project, ".claude", "settings.local.json"), `{}`)
	p, err = LoadPermissions(append([]SettingsFile{{Path: managed, Managed: true}}, files[len(files)-3:]...))
	if err != nil || texts(p.Allow) != "Bash(go vet:*)" || texts(p.Deny) != "Read(./.env) Bash(git push --force:*)" {
		t.Errorf("managed only: %+v %v", p, err)
	}

	// A subdirectory's file restricts but does not allow.
	sub := filepath.Join(project, "store")
	write(filepath.Join(sub, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(rm:*)"], "deny": ["Bash(curl:*)"]}}`)
	p, err = LoadPermissions(ClaudeSettingsFiles("linux", home, "", project, sub))
	if err != nil || strings.Contains(texts(p.Allow), "Bash(rm:*)") || !strings.Contains(texts(p.Deny), "Bash(curl:*)") {
		t.Errorf("subdirectory: %+v %v", p, err)
	}
}

func TestClaudeSettingsFiles(t *testing.T) {
	var paths []string
	for _, f := range ClaudeSettingsFiles("linux", "/home/ada", "", "/src/api", "/src/api/store") {
		paths = append(paths, f.Path)
	}
	want := "/etc/claude-code/managed-settings.json /home/ada/.claude/settings.json /src/api/.claude/settings.json /src/api/.claude/settings.local.json /src/api/store/.claude/settings.json /src/api/store/.claude/settings.local.json"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("files:\n got %s\nwant %s", got, want)
	}
	for _, f := range ClaudeSettingsFiles("linux", "/home/ada", "", "/src/api", "/src/api/store")[4:] {
		if !f.RestrictOnly {
			t.Errorf("%s: a subdirectory's allow rules would count", f.Path)
		}
	}
	if f := ClaudeSettingsFiles("linux", "/home/ada", "", "", "/src/api"); len(f) != 4 || !f[2].RestrictOnly {
		t.Errorf("without a project directory: %+v", f)
	}
	if f := ClaudeSettingsFiles("darwin", "/Users/ada", "/Users/ada/.cc", "/p", "/p"); f[0].Path != "/Library/Application Support/ClaudeCode/managed-settings.json" || f[1].Path != "/Users/ada/.cc/settings.json" {
		t.Errorf("darwin: %v", f)
	}
}

// FuzzRuleMatching: whatever an allow rule surely matches, the same rule
// as a deny or ask rule may match — the over-approximation covers the
// under-approximation, so a deny rule can never be missed where the allow
// rule of the same text would hold.
func FuzzRuleMatching(f *testing.F) {
	for _, s := range [][2]string{
		{"go test:*", "go test ./..."}, {"go vet *", "go vet"}, {"make", "make"}, {"git * main", "git push origin main"},
		{"npm run test:*", "npm run test"}, {"*", "ls"}, {"ls*", "lsof -i"}, {"* --force", "git push --force"},
		{"docker compose *", "docker compose up -d"}, {`git commit -m "x":*`, `git commit -m "x" --amend`},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, spec, command string) {
		if _, ok := simpleCommand(command); !ok {
			return
		}
		rule := "Bash(" + spec + ")"
		if surelyAllows(rule, command) && !mayMatch(rule, command) {
			t.Fatalf("%s surely matches %q as an allow rule but not as a deny rule", rule, command)
		}
	})
}

// TestHookCommandWords: a POSIX shell reads the rewritten command as crumb
// run with the description as one --intent word, then the command's own
// words as the shell would have read them unrewritten.
func TestHookCommandWords(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	h := testHook(&Permissions{Allow: rules("u", "Bash(git commit:*)")})
	a, err := h.Answer(hookFixture(t, "pretooluse-bash.json", func(_, ti map[string]any) {
		ti["command"] = `git commit -m "fix: the store GC" --author='Ada Lovelace'`
		ti["description"] = `Commit Ada's "GC" fix`
	}))
	if err != nil || a.Output == nil {
		t.Fatalf("%+v %v", a, err)
	}
	var out hookOutput
	json.Unmarshal(a.Output, &out)
	var in struct{ Command string }
	json.Unmarshal(out.HookSpecificOutput.UpdatedInput, &in)
	words, err := exec.Command(sh, "-c", `eval "set -- $1"; printf '%s\n' "$@"`, "sh", in.Command).Output()
	if err != nil {
		t.Fatalf("%s: %v", in.Command, err)
	}
	want := crumbPath + "\nrun\n--intent\nCommit Ada's \"GC\" fix\n--\ngit\ncommit\n-m\nfix: the store GC\n--author=Ada Lovelace\n"
	if string(words) != want {
		t.Errorf("the shell reads %q as\n%s\nwant\n%s", in.Command, words, want)
	}
}
