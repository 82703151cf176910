package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/crumb-dev/crumb/internal/agentconfig"
)

func init() {
	register(&command{
		name:    "init",
		summary: "put crumb mcp in front of the MCP servers an agent has configured",
		usage: `Usage: crumb init --agent claude-code|codex|cursor [--write] [--project] [--file FILE]

Prints the entries that put 'crumb mcp' in front of every MCP server already
configured for the agent, and, for Claude Code, a PreToolUse hook that runs
the agent's shell commands through 'crumb run'. With --write it merges them
into the agent's own files, keeping a copy of each file as it was
(FILE.crumb-backup). Running it again changes nothing; servers that already
run crumb mcp are left alone, and every other setting is kept as it is.

Files:
  claude-code  ~/.claude.json (your servers and each project's local ones),
               ~/.claude/settings.json for the hook;
               with --project, ./.mcp.json and ./.claude/settings.json
  codex        ~/.codex/config.toml ($CODEX_HOME/config.toml)
  cursor       ~/.cursor/mcp.json; with --project, ./.cursor/mcp.json

Servers reached by URL are left as they are: crumb mcp --upstream URL can
front them, but the agent's own sign-in would not pass through.

Examples:
  crumb init --agent claude-code
  crumb init --agent claude-code --write
  crumb init --agent codex --write --config ~/.config/crumb/crumb.toml`,
		run: runInit,
	})
}

func runInit(e *env, args []string) error {
	c := commands["init"]
	flags := newFlags(e, c)
	agent := flags.String("agent", "", "the agent: `NAME` claude-code, codex or cursor")
	write := flags.Bool("write", false, "merge the entries into the agent's files (a backup of each is kept)")
	project := flags.Bool("project", false, "edit the project's files in the current directory instead of your own")
	file := flags.String("file", "", "edit the MCP configuration `FILE` instead of the agent's default")
	settings := flags.String("settings", "", "Claude Code settings `FILE` for the hook (default ~/.claude/settings.json)")
	noHook := flags.Bool("no-hook", false, "do not add Claude Code's hook that runs shell commands through crumb run")
	crumbPath := flags.String("crumb", "", "the crumb `PATH` the entries run (default: this program)")
	configFile := flags.String("config", "", "make the entries run crumb mcp --config `FILE`")
	pos, err := parse(e, c, flags, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	if *crumbPath == "" {
		*crumbPath = selfPath()
	}
	opt := agentconfig.Options{Crumb: *crumbPath}
	if *configFile != "" {
		abs, err := filepath.Abs(*configFile)
		if err != nil {
			return err
		}
		opt.Flags = []string{"--config", abs}
	}
	home := e.getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return err
		}
	}
	var mcpFile, hookFile string
	var wrap func([]byte, agentconfig.Options) (*agentconfig.Result, error)
	switch *agent {
	case "claude-code":
		mcpFile, hookFile = filepath.Join(home, ".claude.json"), filepath.Join(home, ".claude", "settings.json")
		if *project {
			mcpFile, hookFile = ".mcp.json", filepath.Join(".claude", "settings.json")
		}
		wrap = agentconfig.WrapJSON
	case "cursor":
		mcpFile = filepath.Join(home, ".cursor", "mcp.json")
		if *project {
			mcpFile = filepath.Join(".cursor", "mcp.json")
		}
		wrap = agentconfig.WrapJSON
	case "codex":
		dir := e.getenv("CODEX_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".codex")
		}
		mcpFile = filepath.Join(dir, "config.toml")
		wrap = agentconfig.WrapCodexTOML
	case "":
		return usagef(c.name, "--agent is required: claude-code, codex or cursor")
	default:
		return usagef(c.name, "unknown agent %q: want claude-code, codex or cursor", *agent)
	}
	if *file != "" {
		mcpFile = *file
	}
	if *settings != "" {
		hookFile = *settings
	}
	if *noHook {
		hookFile = ""
	}
	show := func(p string) string {
		if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(p) {
			return filepath.Join("~", rel)
		}
		return p
	}
	w := e.stdout
	wrote := false

	data, err := os.ReadFile(mcpFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	res, err := wrap(data, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", mcpFile, err)
	}
	fmt.Fprintf(w, "%s:\n", show(mcpFile))
	if len(res.Changes) == 0 {
		fmt.Fprintf(w, "  no MCP servers configured\n")
		fmt.Fprintf(w, "  add one in front of crumb with, for example:\n    %s\n", addExample(*agent, *crumbPath))
	}
	for _, ch := range res.Changes {
		line := fmt.Sprintf("  %-8s %s", ch.Action, ch.Server)
		if ch.Why != "" {
			line += ": " + ch.Why
		}
		fmt.Fprintln(w, line)
	}
	if res.Changed() {
		if *write {
			if err := writeWithBackup(mcpFile, data, res.Data); err != nil {
				return err
			}
			fmt.Fprintf(w, "  wrote %s (as it was: %s)\n", show(mcpFile), show(mcpFile+backupSuffix))
			wrote = true
		} else {
			fmt.Fprintf(w, "\n  the entries --write merges:\n%s\n", indent(string(res.Entries), "    "))
		}
	}

	if hookFile != "" {
		hookCmd := shellWord(*crumbPath) + " hook claude-code"
		sdata, err := os.ReadFile(hookFile)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		out, added, err := agentconfig.AddClaudeHook(sdata, hookCmd)
		if err != nil {
			return fmt.Errorf("%s: %w", hookFile, err)
		}
		fmt.Fprintf(w, "\n%s:\n", show(hookFile))
		switch {
		case !added:
			fmt.Fprintf(w, "  already   the PreToolUse hook that runs Bash commands through crumb run\n")
		case *write:
			if err := writeWithBackup(hookFile, sdata, out); err != nil {
				return err
			}
			fmt.Fprintf(w, "  added     the PreToolUse hook that runs Bash commands through crumb run\n")
			fmt.Fprintf(w, "  wrote %s", show(hookFile))
			if sdata != nil {
				fmt.Fprintf(w, " (as it was: %s)", show(hookFile+backupSuffix))
			}
			fmt.Fprintln(w)
			wrote = true
		default:
			fmt.Fprintf(w, "  the PreToolUse hook --write adds to \"hooks\", which runs Bash commands through crumb run:\n%s\n",
				indent(string(agentconfig.HookEntry(hookCmd)), "    "))
		}
	}
	switch {
	case !*write && (res.Changed() || hookFile != ""):
		fmt.Fprintf(w, "\nRun again with --write to merge these (a copy of each file is kept as FILE%s).\n", backupSuffix)
	case wrote:
		fmt.Fprintf(w, "\nRestart the agent (or reload its MCP servers) for the change to take effect.\n")
	}
	return nil
}

const backupSuffix = ".crumb-backup"

// writeWithBackup keeps old as FILE.crumb-backup (when the file existed),
// then replaces the file with data atomically, keeping its mode.
func writeWithBackup(name string, old, data []byte) error {
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
		if err := os.WriteFile(name+backupSuffix, old, mode); err != nil {
			return fmt.Errorf("keeping a backup of %s: %w", name, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".crumb-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// selfPath returns the path of this program, or "crumb" when it runs from a
// temporary build (go run).
func selfPath() string {
	p, err := os.Executable()
	if err != nil || strings.Contains(p, string(filepath.Separator)+"go-build") {
		return "crumb"
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p
}

func addExample(agent, crumb string) string {
	switch agent {
	case "claude-code":
		return "claude mcp add fs -- " + shellWord(crumb) + " mcp -- npx -y @modelcontextprotocol/server-filesystem ~/src"
	case "codex":
		return "codex mcp add fs -- " + shellWord(crumb) + " mcp -- npx -y @modelcontextprotocol/server-filesystem ~/src"
	}
	return `"fs": {"command": "` + crumb + `", "args": ["mcp", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/home/me/src"]}`
}

// shellWord quotes s for a shell when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[](){}<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func indent(s, prefix string) string {
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
