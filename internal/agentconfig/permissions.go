package agentconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Claude Code checks its permission rules against the command a PreToolUse
// hook hands back, not the one the model wrote (see docs/agents.md). A hook
// that rewrites "rm -rf build" into "crumb run -- rm -rf build" would turn a
// deny rule Bash(rm -rf:*) into a prompt, or into nothing at all, and every
// allow rule the user has into a prompt. So the hook reads the rules Claude
// Code reads and rewrites a command only when
//
//   - no deny or ask rule could match it: the test over-approximates, so a
//     rule that Claude Code would match always stands the hook aside;
//   - an allow rule surely matches it (the test under-approximates), or the
//     session runs in bypassPermissions mode: the command would have run
//     without a prompt, so the rewrite answers "allow" and changes only how
//     it runs, never whether.

// SettingsFile is one settings file Claude Code reads, and its scope.
type SettingsFile struct {
	// Path is the file's path.
	Path string
	// Managed marks the administrator's managed settings, whose rules
	// hold even when allowManagedPermissionRulesOnly sets aside the rest.
	Managed bool
	// RestrictOnly marks a file Claude Code may not read (a project's
	// subdirectory): its deny and ask rules and its hooks count, its allow
	// rules do not.
	RestrictOnly bool
}

// ClaudeSettingsFiles returns the settings files Claude Code reads for a
// session in projectDir, as its settings documentation lists them: the
// managed settings of the system (and their managed-settings.d drop-ins),
// the user's settings.json (in $CLAUDE_CONFIG_DIR, else ~/.claude), and the
// project's .claude/settings.json and .claude/settings.local.json. When cwd
// differs from projectDir ($CLAUDE_PROJECT_DIR, "" when unknown), its
// .claude files are read too, for their restrictions only, so that no rule
// Claude Code might apply is missed and none it does not apply allows.
func ClaudeSettingsFiles(goos, home, configDir, projectDir, cwd string) []SettingsFile {
	var files []SettingsFile
	managed := map[string]string{
		"darwin":  "/Library/Application Support/ClaudeCode",
		"linux":   "/etc/claude-code",
		"windows": `C:\Program Files\ClaudeCode`,
	}[goos]
	if managed == "" {
		managed = "/etc/claude-code"
	}
	files = append(files, SettingsFile{Path: filepath.Join(managed, "managed-settings.json"), Managed: true})
	dropins, _ := filepath.Glob(filepath.Join(managed, "managed-settings.d", "*.json"))
	sort.Strings(dropins)
	for _, d := range dropins {
		files = append(files, SettingsFile{Path: d, Managed: true})
	}
	if configDir == "" && home != "" {
		configDir = filepath.Join(home, ".claude")
	}
	if configDir != "" {
		files = append(files, SettingsFile{Path: filepath.Join(configDir, "settings.json")})
	}
	project := func(dir string, restrictOnly bool) {
		files = append(files,
			SettingsFile{Path: filepath.Join(dir, ".claude", "settings.json"), RestrictOnly: restrictOnly},
			SettingsFile{Path: filepath.Join(dir, ".claude", "settings.local.json"), RestrictOnly: restrictOnly})
	}
	if projectDir != "" {
		project(projectDir, false)
	}
	if cwd != "" && (projectDir == "" || filepath.Clean(cwd) != filepath.Clean(projectDir)) {
		project(cwd, true)
	}
	return files
}

// Rule is one permission rule of a settings file.
type Rule struct {
	// Text is the rule as written, such as "Bash(go test:*)".
	Text string
	// File is the settings file it came from.
	File string
}

// Permissions are the permission rules and PreToolUse hooks of a session's
// settings files.
type Permissions struct {
	// Deny, Ask and Allow are the permission rules, in the order of the
	// files and of each file's lists.
	Deny, Ask, Allow []Rule
	// OtherHooks are the commands of PreToolUse hooks, other than crumb's,
	// whose matcher could match the Bash tool.
	OtherHooks []Rule
}

// ErrUnreadableSettings reports a settings file that exists but cannot be
// read or parsed: its rules are unknown, so the hook leaves every command
// alone.
var ErrUnreadableSettings = errors.New("agentconfig: a settings file cannot be read")

// LoadPermissions reads the rules and hooks of the files; a missing file
// has none. A file that exists but cannot be read or parsed is an error
// wrapping ErrUnreadableSettings.
func LoadPermissions(files []SettingsFile) (*Permissions, error) {
	p := &Permissions{}
	type allowRule struct {
		Rule
		managed bool
	}
	var allows []allowRule
	managedOnly := false
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnreadableSettings, f.Path, err)
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		var s struct {
			Permissions struct {
				Allow, Deny, Ask []string
			} `json:"permissions"`
			AllowManagedPermissionRulesOnly bool                 `json:"allowManagedPermissionRulesOnly"`
			Hooks                           map[string][]hookSet `json:"hooks"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnreadableSettings, f.Path, err)
		}
		// Deny and ask rules count wherever they are written: reading
		// too many only makes the hook stand aside more often.
		for _, r := range s.Permissions.Deny {
			p.Deny = append(p.Deny, Rule{Text: r, File: f.Path})
		}
		for _, r := range s.Permissions.Ask {
			p.Ask = append(p.Ask, Rule{Text: r, File: f.Path})
		}
		for _, r := range s.Permissions.Allow {
			if !f.RestrictOnly {
				allows = append(allows, allowRule{Rule{Text: r, File: f.Path}, f.Managed})
			}
		}
		managedOnly = managedOnly || f.Managed && s.AllowManagedPermissionRulesOnly
		for _, set := range s.Hooks["PreToolUse"] {
			if !matcherMayMatch(set.Matcher, "Bash") {
				continue
			}
			for _, h := range set.Hooks {
				if h.Type == "command" && isCrumbHook(h.Command) {
					continue
				}
				what := h.Command
				if what == "" {
					what = h.Type + " hook"
				}
				p.OtherHooks = append(p.OtherHooks, Rule{Text: what, File: f.Path})
			}
		}
	}
	// Allow rules count only where Claude Code applies them.
	for _, r := range allows {
		if r.managed || !managedOnly {
			p.Allow = append(p.Allow, r.Rule)
		}
	}
	return p, nil
}

// hookSet is one entry of a settings file's hooks.PreToolUse list.
type hookSet struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	} `json:"hooks"`
}

// matcherMayMatch reports whether a hook's matcher could select the tool:
// an empty matcher or "*" selects every tool, anything else is a regular
// expression; one that does not compile here is taken to match.
func matcherMayMatch(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	re, err := regexp.Compile(matcher)
	return err != nil || re.MatchString(tool)
}

// splitRule splits "Tool(specifier)" into its tool and specifier; has is
// false for a bare tool name.
func splitRule(rule string) (tool, spec string, has bool) {
	rule = strings.TrimSpace(rule)
	i := strings.IndexByte(rule, '(')
	if i < 0 || !strings.HasSuffix(rule, ")") {
		return rule, "", false
	}
	return rule[:i], rule[i+1 : len(rule)-1], true
}

// mayMatch reports whether a deny or ask rule could match the command, in
// any way Claude Code might read either: it over-approximates. A Bash rule
// may match when every word of its specifier occurs in the command as a
// word (case folded, with quotes and backslashes removed, wherever it
// stands), so that splitting compound commands, stripping wrappers and
// reordering options cannot hide a match. A rule of another tool with a
// specifier (Read(./.env), Read(~/.ssh/**), WebFetch(domain:example.com))
// may match a command that names the last element of its path (.env,
// .ssh) or its domain; a bare rule of another tool does not concern Bash.
func mayMatch(rule, command string) bool {
	tool, spec, has := splitRule(rule)
	norm := normalizeCommand(command)
	if tool != "Bash" {
		if !has {
			return false
		}
		spec = strings.TrimPrefix(spec, "domain:")
		// The last element of each literal piece of the path: a command
		// run in a directory below names no more of it.
		for _, piece := range strings.Split(spec, "*") {
			piece = strings.Trim(strings.TrimSpace(piece), "/")
			if i := strings.LastIndexByte(piece, '/'); i >= 0 {
				piece = piece[i+1:]
			}
			if piece != "" && piece != "." && piece != "~" && strings.Contains(norm, strings.ToLower(piece)) {
				return true
			}
		}
		return false
	}
	if !has {
		return true
	}
	spec = strings.ToLower(spec)
	if strings.HasSuffix(spec, ":*") {
		spec = strings.TrimSuffix(spec, ":*") + " *"
	}
	spec = strings.ReplaceAll(spec, `\`, "")
	spec = strings.NewReplacer(`"`, "", `'`, "").Replace(spec)
	for i := 0; i < len(spec); {
		if isSpace(spec[i]) || spec[i] == '*' {
			i++
			continue
		}
		j := i
		for j < len(spec) && !isSpace(spec[j]) && spec[j] != '*' {
			j++
		}
		leftFree := i > 0 && spec[i-1] == '*'
		rightFree := j < len(spec) && spec[j] == '*'
		if !containsWord(norm, spec[i:j], !leftFree, !rightFree) {
			return false
		}
		i = j
	}
	return true
}

// normalizeCommand folds case and removes quotes, backslashes and line
// continuations, which a shell (and Claude Code's parser) would remove
// before the words are compared.
func normalizeCommand(c string) string {
	c = strings.ReplaceAll(c, "\\\n", "")
	c = strings.NewReplacer(`\`, "", `"`, "", `'`, "").Replace(c)
	return strings.ToLower(c)
}

// containsWord reports whether w occurs in s with a word boundary on the
// sides asked for: there the neighbouring byte is not a letter, digit or
// underscore.
func containsWord(s, w string, left, right bool) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (!left || i == 0 || !isWordByte(s[i-1])) && (!right || end == len(s) || !isWordByte(s[end])) {
			return true
		}
		from = i + 1
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// surelyAllows reports whether an allow rule certainly matches the command
// the way Claude Code matches it: it under-approximates, and is only asked
// about simple commands (see simpleCommand). "Bash" and "Bash(*)" allow
// every command; "Bash(go test:*)" allows "go test" and "go test ARGS"; a
// specifier with "*" is a wildcard pattern whose trailing " *" may match
// nothing; any other specifier is the exact command. A specifier with a
// backslash (an escaped "*") is not trusted.
func surelyAllows(rule, command string) bool {
	tool, spec, has := splitRule(rule)
	if tool != "Bash" {
		return false
	}
	if !has || spec == "*" {
		return true
	}
	if strings.Contains(spec, `\`) {
		return false
	}
	if p, ok := strings.CutSuffix(spec, ":*"); ok && !strings.Contains(p, "*") {
		return command == p || strings.HasPrefix(command, p+" ")
	}
	if !strings.Contains(spec, "*") {
		return command == spec
	}
	var re strings.Builder
	re.WriteString("^")
	body, optionalTail := strings.CutSuffix(spec, " *")
	for i, piece := range strings.Split(body, "*") {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(piece))
	}
	if optionalTail {
		re.WriteString("(?: .*)?")
	}
	re.WriteString("$")
	m, err := regexp.MatchString(re.String(), command)
	return err == nil && m
}
