package agentconfig

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// codexServer is what WrapCodexTOML reads of a [mcp_servers.NAME] table.
type codexServer struct {
	Command *string `toml:"command"`
	Args    []any   `toml:"args"`
	URL     string  `toml:"url"`
}

// kvLoc is where a key-value pair is in the file.
type kvLoc struct {
	start, end int // the whole pair, key to the end of its value
	valStart   int // where the value begins
	key        string
}

// WrapCodexTOML puts crumb mcp in front of every server in the
// [mcp_servers.NAME] tables of Codex's config.toml. It edits the values of
// "command" and "args" in place, so comments, other tables and the layout
// of the file keep their bytes.
func WrapCodexTOML(data []byte, opt Options) (*Result, error) {
	var doc struct {
		MCPServers map[string]codexServer `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("agentconfig: config.toml: %w", err)
	}
	locs, err := scanTOML(data)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	// In the order of the file, then by name for any not found.
	order := func(n string) int {
		if l, ok := locs[n+"\x00command"]; ok {
			return l.start
		}
		return len(data) + 1
	}
	sort.SliceStable(names, func(i, j int) bool {
		oi, oj := order(names[i]), order(names[j])
		if oi != oj {
			return oi < oj
		}
		return names[i] < names[j]
	})

	type edit struct {
		from, to int
		text     string
	}
	var edits []edit
	res := &Result{}
	var entries strings.Builder
	for _, name := range names {
		s := doc.MCPServers[name]
		args, ok := stringList(s.Args)
		switch {
		case s.Command == nil && s.URL != "":
			res.Changes = append(res.Changes, Change{Server: name, Action: Skipped, Why: remoteWhy})
			continue
		case s.Command == nil || *s.Command == "":
			res.Changes = append(res.Changes, Change{Server: name, Action: Skipped, Why: "no command"})
			continue
		case !ok:
			res.Changes = append(res.Changes, Change{Server: name, Action: Skipped, Why: "args is not a list of strings"})
			continue
		case isCrumbMCP(*s.Command, args, opt):
			res.Changes = append(res.Changes, Change{Server: name, Action: Already})
			continue
		}
		cmd, hasCmd := locs[name+"\x00command"]
		if !hasCmd {
			res.Changes = append(res.Changes, Change{Server: name, Action: Skipped,
				Why: "its command is not a plain `command = ...` line of [mcp_servers." + name + "] (an inline table?); wrap it by hand"})
			continue
		}
		newArgs := tomlArray(wrapArgs(*s.Command, args, opt))
		edits = append(edits, edit{cmd.valStart, cmd.end, tomlString(opt.Crumb)})
		if a, ok := locs[name+"\x00args"]; ok {
			edits = append(edits, edit{a.valStart, a.end, newArgs})
		} else {
			prefix := strings.TrimSuffix(cmd.key, "command")
			edits = append(edits, edit{cmd.end, cmd.end, "\n" + prefix + "args = " + newArgs})
		}
		res.Changes = append(res.Changes, Change{Server: name, Action: Wrapped})
		fmt.Fprintf(&entries, "[mcp_servers.%s]\ncommand = %s\nargs = %s\n\n", tomlKey(name), tomlString(opt.Crumb), newArgs)
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].from > edits[j].from })
	out := append([]byte(nil), data...)
	for _, e := range edits {
		out = append(out[:e.from], append([]byte(e.text), out[e.to:]...)...)
	}
	res.Data = out
	res.Entries = []byte(strings.TrimSuffix(entries.String(), "\n"))
	return res, nil
}

// scanTOML finds the command and args pairs of each mcp_servers table,
// keyed by NAME "\x00" command|args.
func scanTOML(data []byte) (map[string]kvLoc, error) {
	locs := map[string]kvLoc{}
	var p unstable.Parser
	p.Reset(data)
	var table []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e)
		case unstable.KeyValue:
			full := append(append([]string(nil), table...), keyParts(e)...)
			if len(full) != 3 || full[0] != "mcp_servers" || (full[2] != "command" && full[2] != "args") {
				continue
			}
			start, end := int(e.Raw.Offset), int(e.Raw.Offset+e.Raw.Length)
			raw := data[start:end]
			eq := assignment(raw)
			if eq < 0 {
				continue
			}
			val := eq + 1
			for val < len(raw) && (raw[val] == ' ' || raw[val] == '\t') {
				val++
			}
			locs[full[1]+"\x00"+full[2]] = kvLoc{start: start, end: end, valStart: start + val,
				key: strings.TrimSpace(string(raw[:eq]))}
		}
	}
	if err := p.Error(); err != nil {
		return nil, fmt.Errorf("agentconfig: config.toml: %w", err)
	}
	return locs, nil
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	it := n.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// assignment returns the offset of the "=" that ends a pair's key, skipping
// quoted keys.
func assignment(raw []byte) int {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(raw) && raw[i] != '\''; i++ {
			}
		case '=':
			return i
		}
	}
	return -1
}

func stringList(v []any) ([]string, bool) {
	out := make([]string, 0, len(v))
	for _, x := range v {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlArray(list []string) string {
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// tomlKey writes a key bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) < 0 {
		return k
	}
	return tomlString(k)
}
