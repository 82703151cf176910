package agentconfig

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/crumb-dev/crumb/internal/jsonobj"
)

// WrapJSON puts crumb mcp in front of every server in the "mcpServers"
// objects of a JSON configuration: at its top level (Claude Code's
// ~/.claude.json user scope and .mcp.json, Claude Desktop's and Cursor's
// mcp.json) and under "projects" (Claude Code's local scopes). Empty data is
// an empty configuration. It returns the new file, indented with two spaces,
// and what it did per server; out equals data's bytes when nothing changed.
func WrapJSON(data []byte, opt Options) (*Result, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &Result{Data: data}, nil
	}
	out, changes, err := wrapJSON(data, opt)
	if err != nil {
		return nil, err
	}
	res := &Result{Data: out, Changes: changes}
	if res.Changed() {
		if res.Entries, err = entries(out, changes); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func wrapJSON(data []byte, opt Options) (out []byte, changes []Change, err error) {
	root, err := jsonobj.Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("agentconfig: %w", err)
	}
	changed := false
	if raw, ok := root.Get("mcpServers"); ok {
		nv, ch, c, err := wrapServers(raw, "", opt)
		if err != nil {
			return nil, nil, err
		}
		changes = append(changes, ch...)
		if c {
			root.Set("mcpServers", nv)
			changed = true
		}
	}
	if raw, ok := root.Get("projects"); ok {
		projects, err := jsonobj.Parse(raw)
		if err == nil {
			pchanged := false
			for i, m := range projects.Members {
				proj, err := jsonobj.Parse(m.Value)
				if err != nil {
					continue
				}
				servers, ok := proj.Get("mcpServers")
				if !ok {
					continue
				}
				nv, ch, c, err := wrapServers(servers, m.Key+": ", opt)
				if err != nil {
					return nil, nil, err
				}
				changes = append(changes, ch...)
				if c {
					proj.Set("mcpServers", nv)
					projects.Members[i].Value = proj.Bytes()
					pchanged = true
				}
			}
			if pchanged {
				root.Set("projects", projects.Bytes())
				changed = true
			}
		}
	}
	if !changed {
		return data, changes, nil
	}
	out, err = root.Indent("", "  ")
	if err != nil {
		return nil, nil, err
	}
	return append(out, '\n'), changes, nil
}

// server is what WrapJSON reads of a server entry.
type server struct {
	Command *string         `json:"command"`
	Args    []string        `json:"args"`
	URL     string          `json:"url"`
	Type    string          `json:"type"`
	Headers json.RawMessage `json:"headers"`
}

// wrapServers wraps each entry of an mcpServers object.
func wrapServers(raw json.RawMessage, prefix string, opt Options) (json.RawMessage, []Change, bool, error) {
	servers, err := jsonobj.Parse(raw)
	if err != nil {
		return raw, []Change{{Server: prefix + "mcpServers", Action: Skipped, Why: "not a JSON object"}}, false, nil
	}
	var changes []Change
	changed := false
	for i, m := range servers.Members {
		entry, err := jsonobj.Parse(m.Value)
		var s server
		if err == nil {
			err = json.Unmarshal(m.Value, &s)
		}
		name := prefix + m.Key
		switch {
		case err != nil:
			changes = append(changes, Change{Server: name, Action: Skipped, Why: "not an object with a command"})
		case s.Command == nil && s.URL != "":
			changes = append(changes, Change{Server: name, Action: Skipped, Why: remoteWhy})
		case s.Command == nil || *s.Command == "":
			changes = append(changes, Change{Server: name, Action: Skipped, Why: "no command"})
		case isCrumbMCP(*s.Command, s.Args, opt):
			changes = append(changes, Change{Server: name, Action: Already})
		default:
			entry.Set("command", jsonobj.Marshal(opt.Crumb))
			entry.Set("args", jsonobj.Marshal(wrapArgs(*s.Command, s.Args, opt)))
			servers.Members[i].Value = entry.Bytes()
			changes = append(changes, Change{Server: name, Action: Wrapped})
			changed = true
		}
	}
	return servers.Bytes(), changes, changed, nil
}

// entries returns the entries of the servers wrapped as a JSON document
// nested the way the file nests them ({"mcpServers": {...}} and, for
// Claude Code's local scopes, {"projects": {"/path": {"mcpServers":
// {...}}}}), so that it can be pasted as it is printed.
func entries(data []byte, changes []Change) ([]byte, error) {
	root, err := jsonobj.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("agentconfig: %w", err)
	}
	wanted := map[string]bool{}
	for _, c := range changes {
		if c.Action == Wrapped {
			wanted[c.Server] = true
		}
	}
	// pick returns {"mcpServers": ...} with the wrapped members of an
	// mcpServers object, or nil when none is wrapped.
	pick := func(raw json.RawMessage, prefix string) *jsonobj.Object {
		servers, err := jsonobj.Parse(raw)
		if err != nil {
			return nil
		}
		picked := &jsonobj.Object{}
		for _, m := range servers.Members {
			if wanted[prefix+m.Key] {
				picked.Set(m.Key, m.Value)
			}
		}
		if len(picked.Members) == 0 {
			return nil
		}
		out := &jsonobj.Object{}
		out.Set("mcpServers", picked.Bytes())
		return out
	}
	out := &jsonobj.Object{}
	if raw, ok := root.Get("mcpServers"); ok {
		if top := pick(raw, ""); top != nil {
			out = top
		}
	}
	if raw, ok := root.Get("projects"); ok {
		if projects, err := jsonobj.Parse(raw); err == nil {
			picked := &jsonobj.Object{}
			for _, m := range projects.Members {
				if proj, err := jsonobj.Parse(m.Value); err == nil {
					if s, ok := proj.Get("mcpServers"); ok {
						if p := pick(s, m.Key+": "); p != nil {
							picked.Set(m.Key, p.Bytes())
						}
					}
				}
			}
			if len(picked.Members) > 0 {
				out.Set("projects", picked.Bytes())
			}
		}
	}
	return out.Indent("", "  ")
}

// hookEntry is Claude Code's PreToolUse entry that routes Bash through crumb.
type hookEntry struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
}

// HookEntry returns the PreToolUse entry AddClaudeHook adds.
func HookEntry(command string) json.RawMessage {
	return jsonobj.Marshal(hookEntry{Matcher: "Bash", Hooks: []hookCommand{{Type: "command", Command: command}}})
}

// HookSettings returns the settings that hold only the hook AddClaudeHook
// adds, indented: what a settings file without hooks would merge.
func HookSettings(command string) []byte {
	pre := &jsonobj.Object{}
	pre.Set("PreToolUse", jsonobj.Marshal([]hookEntry{{Matcher: "Bash", Hooks: []hookCommand{{Type: "command", Command: command}}}}))
	out := &jsonobj.Object{}
	out.Set("hooks", pre.Bytes())
	b, _ := out.Indent("", "  ")
	return b
}

// AddClaudeHook adds to Claude Code's settings (~/.claude/settings.json or a
// project's .claude/settings.json) a PreToolUse hook on Bash that runs
// command. A hook whose command runs "crumb hook" is already there when
// added is false; everything else in the settings keeps its bytes.
func AddClaudeHook(data []byte, command string) (out []byte, added bool, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	root, err := jsonobj.Parse(data)
	if err != nil {
		return nil, false, fmt.Errorf("agentconfig: settings: %w", err)
	}
	hooks := &jsonobj.Object{}
	if raw, ok := root.Get("hooks"); ok {
		if hooks, err = jsonobj.Parse(raw); err != nil {
			return nil, false, fmt.Errorf("agentconfig: settings: \"hooks\" is not an object")
		}
	}
	pre := json.RawMessage("[]")
	if raw, ok := hooks.Get("PreToolUse"); ok {
		var entries []hookEntry
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, false, fmt.Errorf("agentconfig: settings: hooks.PreToolUse is not a list of hooks: %w", err)
		}
		for _, e := range entries {
			for _, h := range e.Hooks {
				if isCrumbHook(h.Command) {
					return data, false, nil
				}
			}
		}
		pre = raw
	}
	pre, err = jsonobj.AppendArray(pre, HookEntry(command))
	if err != nil {
		return nil, false, err
	}
	hooks.Set("PreToolUse", pre)
	root.Set("hooks", hooks.Bytes())
	out, err = root.Indent("", "  ")
	if err != nil {
		return nil, false, err
	}
	return append(out, '\n'), true, nil
}

// isCrumbHook reports whether a hook command runs crumb's hook.
func isCrumbHook(command string) bool {
	return bytes.Contains([]byte(command), []byte("crumb")) && bytes.Contains([]byte(command), []byte(" hook "))
}
