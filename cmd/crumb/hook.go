package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/agentconfig"
)

func init() {
	register(&command{
		name:    "hook",
		summary: "answer an agent's hook (crumb init installs it): run shell commands through crumb run",
		usage: `Usage: crumb hook claude-code < HOOK_INPUT

Answers Claude Code's PreToolUse hook for the Bash tool: it reads the hook's
JSON input and, for a command it may rewrite, prints the output that runs
it as 'crumb run --intent DESCRIPTION -- COMMAND', so that a long output is
stored and the model sees a projection of it, ranked by the call's
description. Every other event, tool and command gets no output: the call
goes on as it is.

Claude Code checks its permission rules against the rewritten command, so
the hook reads the rules Claude Code reads (managed, user and project
settings) and rewrites only a simple command that an allow rule already
lets run without asking (or any, in bypassPermissions mode), that no deny
or ask rule could match, and only when no other PreToolUse hook on Bash
could race it. It then answers "allow", naming the rule. See docs/agents.md.

Set CRUMB_HOOK_DEBUG=1 to have it say on standard error why it left a
command alone.

'crumb init --agent claude-code --write' installs it.

Examples:
  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."}}' | crumb hook claude-code
  crumb init --agent claude-code --write`,
		run: runHook,
	})
}

func runHook(e *env, args []string) error {
	c := commands["hook"]
	fs := newFlags(e, c)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "claude-code" {
		return usagef(c.name, "want: crumb hook claude-code")
	}
	input, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err != nil {
		return fmt.Errorf("reading the hook's input: %w", err)
	}
	// A hook that fails must not stop the agent's command: whatever goes
	// wrong, it prints nothing and exits 0.
	debug := func(format string, a ...any) {
		if e.getenv("CRUMB_HOOK_DEBUG") != "" {
			fmt.Fprintf(e.stderr, "crumb hook: "+format+"\n", a...)
		}
	}
	// Without crumb run in this build, the command runs as it is.
	if commands["run"] == nil {
		return nil
	}
	in, err := agentconfig.ParseHookInput(input)
	if err != nil {
		fmt.Fprintf(e.stderr, "crumb hook: %v\n", err)
		return nil
	}
	h := &agentconfig.Hook{Crumb: selfPath(), Permissions: func(in *agentconfig.HookInput) (*agentconfig.Permissions, error) {
		if flag := launchFlag(os.Getpid()); flag != "" {
			return nil, fmt.Errorf("Claude Code was started with %s, whose rules the hook cannot read", flag)
		}
		home := e.getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		// Claude Code sets CLAUDE_PROJECT_DIR for its hooks; without it,
		// the call's directory counts only for its restrictions.
		return agentconfig.LoadPermissions(agentconfig.ClaudeSettingsFiles(runtime.GOOS, home, e.getenv("CLAUDE_CONFIG_DIR"), e.getenv("CLAUDE_PROJECT_DIR"), in.Cwd))
	}, Program: func(name string) bool {
		_, err := exec.LookPath(name)
		return err == nil
	}}
	a, err := h.Answer(in)
	if err != nil {
		fmt.Fprintf(e.stderr, "crumb hook: %v\n", err)
		return nil
	}
	if a.Output == nil {
		debug("left alone: %s", a.Why)
		return nil
	}
	debug("rewritten: %s", a.Why)
	_, err = fmt.Fprintf(e.stdout, "%s\n", a.Output)
	return err
}

// rulesFlags are Claude Code's command-line flags that bring permission
// rules or settings a hook cannot read from files (the Agent SDK passes its
// options this way too).
var rulesFlags = []string{"--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools",
	"--settings", "--setting-sources"}

// launchFlag returns the first of rulesFlags on the command line of a
// process above pid (Claude Code runs the hook through a shell), or "".
// It reads /proc, so it finds them on Linux only; docs/agents.md says what
// that leaves open elsewhere.
func launchFlag(pid int) string {
	for depth := 0; depth < 8 && pid > 1; depth++ {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			return ""
		}
		// The parent's pid is the second field after the command's name,
		// which is in parentheses and may hold spaces.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			return ""
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			return ""
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			return ""
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			return ""
		}
		for _, arg := range strings.Split(string(cmdline), "\x00") {
			for _, f := range rulesFlags {
				if arg == f || strings.HasPrefix(arg, f+"=") {
					return f
				}
			}
		}
	}
	return ""
}
