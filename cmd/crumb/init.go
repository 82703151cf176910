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
  codex        ~/.codex/config.toml ($CODEX_HOME/config.toml);
               with --project, ./.codex/config.toml (read in trusted projects)
  cursor       ~/.cursor/mcp.json; with --project, ./.cursor/mcp.json

Your own files run crumb by its absolute path (desktop applications start
without your PATH); a project's files, which a team shares, run "crumb" as
each user's PATH finds it, and a new one is created readable by all (0644).
Every file that will change is named before any does. The hook's rules are
in docs/agents.md.

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
	crumbPath := flags.String("crumb", "", "the crumb `PATH` the entries run (default: this program; \"crumb\", found through PATH, with --project)")
	configFile := flags.String("config", "", "make the entries run crumb mcp --config `FILE`")
	pos, err := parse(e, c, flags, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	// A project's files are shared: they name crumb as every user's PATH
	// finds it, not as this user installed it.
	if *crumbPath == "" {
		*crumbPath = selfPath()
		if *project {
			*crumbPath = "crumb"
		}
	}
	opt := agentconfig.Options{Crumb: *crumbPath}
	configNote := ""
	if *configFile != "" {
		abs, err := filepath.Abs(*configFile)
		if err != nil {
			return err
		}
		opt.Flags = []string{"--config", abs}
		// In a project's files, a configuration inside the project is
		// named relative to it (agents start servers there); one outside
		// it is this user's.
		if *project {
			wd, _ := os.Getwd()
			if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
				opt.Flags[1] = rel
			} else {
				configNote = abs + " is outside the project: the others who share its files may not have it"
			}
		}
	}
	home := e.getenv("HOME")
	if home == "" {
		if home, err = os.UserHomeDir(); err != nil {
			return err
		}
	}
	var mcpFile, hookFile, note string
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
		if *project {
			mcpFile, note = filepath.Join(".codex", "config.toml"), "Codex reads a project's .codex/config.toml only when the project is trusted"
		}
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
	// Every file is read and every change worked out and printed before
	// any file changes.
	var changes []fileChange

	data, err := readConfig(mcpFile)
	if err != nil {
		return err
	}
	res, err := wrap(data, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", mcpFile, err)
	}
	fmt.Fprintf(w, "%s:\n", show(mcpFile))
	for _, n := range []string{note, configNote} {
		if n != "" {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
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
		changes = append(changes, fileChange{path: mcpFile, old: data, data: res.Data, shared: *project})
		if !*write {
			fmt.Fprintf(w, "\n  the entries --write merges:\n%s\n", indent(string(res.Entries), "    "))
		}
	}

	if hookFile != "" {
		hookCmd := shellWord(*crumbPath) + " hook claude-code"
		sdata, err := readConfig(hookFile)
		if err != nil {
			return err
		}
		out, added, err := agentconfig.AddClaudeHook(sdata, hookCmd)
		if err != nil {
			return fmt.Errorf("%s: %w", hookFile, err)
		}
		fmt.Fprintf(w, "\n%s:\n", show(hookFile))
		if p, err := agentconfig.LoadPermissions([]agentconfig.SettingsFile{{Path: hookFile}}); err == nil && len(p.OtherHooks) > 0 {
			fmt.Fprintf(w, "  note: another PreToolUse hook on Bash is here (%s); crumb's hook leaves every command alone while it is, since the two would race (docs/agents.md)\n", p.OtherHooks[0].Text)
		}
		switch {
		case !added:
			fmt.Fprintf(w, "  already   the PreToolUse hook that runs Bash commands through crumb run\n")
		default:
			changes = append(changes, fileChange{path: hookFile, old: sdata, data: out, shared: *project})
			fmt.Fprintf(w, "  add       the PreToolUse hook that runs Bash commands through crumb run\n")
			if !*write {
				fmt.Fprintf(w, "\n  the hook --write merges into the settings:\n%s\n", indent(string(agentconfig.HookSettings(hookCmd)), "    "))
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	names := make([]string, len(changes))
	for i, ch := range changes {
		names[i] = show(ch.path)
	}
	if !*write {
		fmt.Fprintf(w, "\nRun again with --write to change %s (a copy of each file is kept as FILE%s).\n", strings.Join(names, " and "), backupSuffix)
		return nil
	}
	fmt.Fprintf(w, "\nChanging %s:\n", strings.Join(names, " and "))
	for _, ch := range changes {
		if err := ch.apply(); err != nil {
			return err
		}
		if ch.old != nil {
			fmt.Fprintf(w, "  wrote %s (as it was: %s)\n", show(ch.path), show(ch.path+backupSuffix))
		} else {
			fmt.Fprintf(w, "  created %s\n", show(ch.path))
		}
	}
	fmt.Fprintf(w, "\nRestart the agent (or reload its MCP servers) for the change to take effect.\n")
	return nil
}

const backupSuffix = ".crumb-backup"

// fileChange is a file crumb init will write.
type fileChange struct {
	path      string
	old, data []byte // old is nil when the file does not exist yet
	// shared marks a project's file, which a team shares (and commits): a
	// new one is readable by all, as such files are (0644); a user's own
	// new file is readable by the user alone (0600).
	shared bool
}

// readConfig reads a configuration file; nil, without an error, when it
// does not exist.
func readConfig(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// apply keeps the file as it was as FILE.crumb-backup (when it existed),
// then replaces it with the new data atomically, keeping its mode.
func (ch fileChange) apply() error {
	name := ch.path
	mode := fs.FileMode(0o600)
	if ch.shared {
		mode = 0o644
	}
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
		if err := os.WriteFile(name+backupSuffix, ch.old, mode); err != nil {
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
	if _, err := tmp.Write(ch.data); err != nil {
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
// temporary build (go run). Tests replace it.
var selfPath = func() string {
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
