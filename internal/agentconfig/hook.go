package agentconfig

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonobj"
)

// stateful matches shell commands that change the shell's own state (its
// directory, its variables, its options). Claude Code keeps that state from
// one Bash call to the next, which a command run inside crumb run would
// lose, so such commands are left as they are.
var stateful = regexp.MustCompile(`(^|[;&|(\n])\s*(cd|pushd|popd|export|unset|source|\.|alias|unalias|set|shopt|ulimit|umask|declare|typeset|local|readonly)(\s|$)`)

// RewriteBash answers Claude Code's PreToolUse hook: given the hook's input
// for a Bash call, it returns the hook output that runs the command through
// crumb run instead, so that a long output is stored and projected. It
// returns nil — leave the call as it is — for other tools, for commands run
// in the background, for commands that already run crumb, and for commands
// that change the shell's state (cd, export, source, ...).
//
// The output only replaces the command (hookSpecificOutput.updatedInput); it
// makes no permission decision, so Claude Code asks for permission as it
// would have.
func RewriteBash(input []byte, crumb string) ([]byte, error) {
	var in struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("agentconfig: hook input: %w", err)
	}
	if in.ToolName != "Bash" || len(in.ToolInput) == 0 {
		return nil, nil
	}
	toolInput, err := jsonobj.Parse(in.ToolInput)
	if err != nil {
		return nil, fmt.Errorf("agentconfig: hook input: tool_input: %w", err)
	}
	var args struct {
		Command         string `json:"command"`
		RunInBackground bool   `json:"run_in_background"`
	}
	if err := json.Unmarshal(in.ToolInput, &args); err != nil {
		return nil, fmt.Errorf("agentconfig: hook input: tool_input: %w", err)
	}
	cmd := strings.TrimSpace(args.Command)
	if cmd == "" || args.RunInBackground || runsCrumb(cmd, crumb) || stateful.MatchString(cmd) {
		return nil, nil
	}
	toolInput.Set("command", jsonobj.Marshal(shellQuote(crumb)+" run -- bash -c "+shellQuote(args.Command)))
	out := &jsonobj.Object{}
	out.Set("hookEventName", jsonobj.Marshal("PreToolUse"))
	out.Set("updatedInput", toolInput.Bytes())
	wrap := &jsonobj.Object{}
	wrap.Set("hookSpecificOutput", out.Bytes())
	return wrap.Bytes(), nil
}

// runsCrumb reports whether a command line starts with crumb.
func runsCrumb(cmd, crumb string) bool {
	first, _, _ := strings.Cut(cmd, " ")
	first = strings.Trim(first, `'"`)
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
