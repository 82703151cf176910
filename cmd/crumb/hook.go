package main

import (
	"fmt"
	"io"

	"github.com/crumb-dev/crumb/internal/agentconfig"
)

func init() {
	register(&command{
		name:    "hook",
		summary: "answer an agent's hook (crumb init installs it): run shell commands through crumb run",
		usage: `Usage: crumb hook claude-code < HOOK_INPUT

Answers Claude Code's PreToolUse hook for the Bash tool: it reads the hook's
JSON input and prints the output that runs the command through 'crumb run',
so that a long output is stored and the model sees a projection of it. It
prints nothing — the command runs as it is — for commands run in the
background, commands that already run crumb, and commands that change the
shell's state (cd, export, source, ...), which Claude Code keeps from one
call to the next. It makes no permission decision.

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
	// Without crumb run in this build, the command runs as it is.
	if commands["run"] == nil {
		return nil
	}
	out, err := agentconfig.RewriteBash(input, selfPath())
	if err != nil || out == nil {
		// A hook that fails must not stop the agent's command.
		if err != nil {
			fmt.Fprintf(e.stderr, "crumb hook: %v\n", err)
		}
		return nil
	}
	_, err = fmt.Fprintf(e.stdout, "%s\n", out)
	return err
}
