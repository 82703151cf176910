package agentconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/internal/lazyre"
)

// HookInput is what Claude Code writes to a hook's standard input for the
// tool events (its hooks reference, "PreToolUse input"): the common fields
// and the tool's.
type HookInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
}

// ParseHookInput reads a hook's input.
func ParseHookInput(data []byte) (*HookInput, error) {
	var in HookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("agentconfig: hook input: %w", err)
	}
	return &in, nil
}

// Hook answers Claude Code's PreToolUse hook for the Bash tool.
type Hook struct {
	// Crumb is the crumb command the rewritten command runs.
	Crumb string
	// Permissions returns the session's rules and hooks
	// (LoadPermissions); it is called only for a command the hook could
	// rewrite. An error leaves the command alone.
	Permissions func(*HookInput) (*Permissions, error)
	// Program reports whether a command name is a program crumb run can
	// start (exec.LookPath): a shell function or alias is not.
	Program func(name string) bool
}

// Answer is the hook's answer to one input.
type Answer struct {
	// Output is the JSON to print, nil when the hook prints nothing and
	// the call goes on as it is.
	Output []byte
	// Why says why the command was left alone, or what allowed the
	// rewrite.
	Why string
}

// stateful matches shell commands that change the shell's own state (its
// directory, its variables, its options). Claude Code keeps that state from
// one Bash call to the next, which a command run inside crumb run would
// lose, so such commands are left as they are.
var stateful = lazyre.New(`(^|[;&|(\n])\s*(cd|pushd|popd|export|unset|source|\.|alias|unalias|set|shopt|ulimit|umask|declare|typeset|local|readonly)(\s|$)`)

// protectedWords name what Claude Code guards even from allowed commands
// (rm and rmdir of critical paths, its protected directories); a command
// that names one is left to Claude Code's own checks.
var protectedWords = []string{"rm", "rmdir", ".git", ".claude", ".vscode", ".idea"}

// Answer answers a hook input. Only a PreToolUse call of the Bash tool is
// answered; every other event and tool gets no output. A command is
// rewritten into "crumb run --intent DESCRIPTION -- COMMAND" only when
// doing so cannot change what Claude Code permits (see permissions.go):
//
//   - it is a simple command (words only: no pipes, lists, redirections,
//     substitutions, variables or globs) whose program is on PATH and which
//     does not change the shell's state (cd, export, ...), is not run in
//     the background and does not already run crumb;
//   - no other PreToolUse hook on Bash is configured: Claude Code runs
//     matching hooks in parallel and keeps the updatedInput of whichever
//     finishes last, so two rewriting hooks would race;
//   - no deny or ask rule could match it;
//   - an allow rule matches it, or the session is in bypassPermissions
//     mode. The answer then says "allow", naming the rule.
func (h *Hook) Answer(in *HookInput) (Answer, error) {
	if in.HookEventName != "PreToolUse" {
		return Answer{Why: fmt.Sprintf("event %q: crumb answers PreToolUse only", in.HookEventName)}, nil
	}
	if in.ToolName != "Bash" || len(in.ToolInput) == 0 {
		return Answer{Why: "not the Bash tool"}, nil
	}
	toolInput, err := jsonobj.Parse(in.ToolInput)
	if err != nil {
		return Answer{}, fmt.Errorf("agentconfig: hook input: tool_input: %w", err)
	}
	var args struct {
		Command         string `json:"command"`
		Description     string `json:"description"`
		RunInBackground bool   `json:"run_in_background"`
	}
	if err := json.Unmarshal(in.ToolInput, &args); err != nil {
		return Answer{}, fmt.Errorf("agentconfig: hook input: tool_input: %w", err)
	}
	cmd := strings.TrimSpace(args.Command)
	words, ok := simpleCommand(cmd)
	switch {
	case cmd == "":
		return Answer{Why: "no command"}, nil
	case args.RunInBackground:
		return Answer{Why: "runs in the background"}, nil
	case !ok:
		return Answer{Why: "not a simple command"}, nil
	case runsCrumb(words[0], h.Crumb):
		return Answer{Why: "runs crumb already"}, nil
	case stateful.MatchString(cmd):
		return Answer{Why: "changes the shell's state"}, nil
	case h.Program != nil && !h.Program(words[0]):
		return Answer{Why: words[0] + " is not a program on PATH (a shell function or alias would be lost)"}, nil
	}
	norm := normalizeCommand(cmd)
	for _, w := range protectedWords {
		if containsWord(norm, w, true, true) {
			return Answer{Why: "names " + w + ", which Claude Code checks itself"}, nil
		}
	}
	if in.PermissionMode == "plan" || in.PermissionMode == "auto" {
		return Answer{Why: "permission mode " + in.PermissionMode}, nil
	}
	p := &Permissions{}
	if h.Permissions != nil {
		if p, err = h.Permissions(in); err != nil {
			return Answer{Why: err.Error()}, nil
		}
	}
	if len(p.OtherHooks) > 0 {
		o := p.OtherHooks[0]
		return Answer{Why: fmt.Sprintf("another PreToolUse hook on Bash (%s in %s): rewrites would race", o.Text, o.File)}, nil
	}
	for _, list := range []struct {
		name  string
		rules []Rule
	}{{"deny", p.Deny}, {"ask", p.Ask}} {
		for _, r := range list.rules {
			if mayMatch(r.Text, cmd) {
				return Answer{Why: fmt.Sprintf("the %s rule %s in %s could match it", list.name, r.Text, r.File)}, nil
			}
		}
	}
	why := ""
	for _, r := range p.Allow {
		if surelyAllows(r.Text, cmd) {
			why = fmt.Sprintf("allowed by %s in %s", r.Text, r.File)
			break
		}
	}
	if why == "" && in.PermissionMode != "bypassPermissions" {
		return Answer{Why: "no allow rule surely matches it: Claude Code would ask, and would ask about crumb's command instead"}, nil
	}
	rewritten := shellQuote(h.Crumb) + " run"
	if d := strings.TrimSpace(args.Description); d != "" {
		rewritten += " --intent " + shellQuote(d)
	}
	rewritten += " -- " + cmd
	toolInput.Set("command", jsonobj.Marshal(rewritten))
	out := &jsonobj.Object{}
	out.Set("hookEventName", jsonobj.Marshal("PreToolUse"))
	if why != "" {
		out.Set("permissionDecision", jsonobj.Marshal("allow"))
		out.Set("permissionDecisionReason", jsonobj.Marshal("crumb: "+why+"; its output goes through crumb run"))
	} else {
		why = "bypassPermissions mode"
	}
	out.Set("updatedInput", toolInput.Bytes())
	wrap := &jsonobj.Object{}
	wrap.Set("hookSpecificOutput", out.Bytes())
	return Answer{Output: wrap.Bytes(), Why: why}, nil
}

// simpleCommand splits a command into its words when it is a simple
// command that any POSIX shell reads the same way: letters, digits, spaces
// and -_./=:,+@% only, with single or double quotes around words but no
// variables, substitutions, globs, redirections, pipes, lists, escapes or
// newlines; single spaces between words; no word that is an absolute
// path, climbs with ".." or starts with "=" (zsh expands =cmd). An allow
// rule is matched against such a command only, so that no shell rule of
// Claude Code's (each part of a compound command must be allowed) can
// disagree with the match.
func simpleCommand(cmd string) ([]string, bool) {
	if cmd == "" || strings.Contains(cmd, "  ") {
		return nil, false
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if !(isWordByte(c) || c == ' ' || strings.IndexByte("-./=:,+@%'\"", c) >= 0) {
			return nil, false
		}
	}
	var words []string
	var cur strings.Builder
	quote := byte(0)
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, cur.String())
	}
	for _, w := range words {
		if strings.HasPrefix(w, "/") || strings.HasPrefix(w, "=") || w == ".." || strings.HasPrefix(w, "../") ||
			strings.HasSuffix(w, "/..") || strings.Contains(w, "/../") || strings.Contains(w, "=/") || strings.Contains(w, "=..") {
			return nil, false
		}
	}
	if len(words) == 0 {
		return nil, false
	}
	return words, true
}

// runsCrumb reports whether a command's first word is crumb.
func runsCrumb(first, crumb string) bool {
	return first == crumb || filepath.Base(first) == "crumb"
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,+@%:", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
