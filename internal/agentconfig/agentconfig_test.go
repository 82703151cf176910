package agentconfig

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const crumbPath = "/usr/local/bin/crumb"

var opt = Options{Crumb: crumbPath}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

func actions(cs []Change) map[string]string {
	m := map[string]string{}
	for _, c := range cs {
		m[c.Server] = c.Action
	}
	return m
}

// TestWrapJSON runs the merge over real-shaped JSON configurations: the
// result matches its golden file, a second run changes nothing, and
// everything but the wrapped commands is as it was.
func TestWrapJSON(t *testing.T) {
	tests := []struct {
		file string
		want map[string]string
	}{
		{"claude.json", map[string]string{"filesystem": Wrapped, "github": Skipped, "sentry": Skipped, "already": Already,
			"/home/ada/src/api: postgres": Wrapped}},
		{"mcp.json", map[string]string{"everything": Wrapped, "memory": Wrapped}},
		{"cursor-mcp.json", map[string]string{"playwright": Wrapped, "linear": Skipped, "local-script": Wrapped}},
		{"claude-desktop.json", map[string]string{"filesystem": Wrapped}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			res, err := WrapJSON(in, opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := actions(res.Changes); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("changes = %v, want %v", got, tt.want)
			}
			golden(t, tt.file+".golden", res.Data)
			golden(t, tt.file+".entries.golden", res.Entries)

			again, err := WrapJSON(res.Data, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again.Data, res.Data) || again.Changed() {
				t.Errorf("a second run changed the file: %v", again.Changes)
			}
			checkJSONPreserved(t, in, res.Data, res.Changes)
		})
	}
}

// checkJSONPreserved checks that out is in with the wrapped servers'
// command and args, and nothing else, changed, and that those run the
// original command through crumb mcp.
func checkJSONPreserved(t *testing.T, in, out []byte, changes []Change) {
	t.Helper()
	var before, after map[string]any
	if err := json.Unmarshal(in, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	servers := func(doc map[string]any, name string) map[string]any {
		if proj, srv, ok := strings.Cut(name, ": "); ok {
			return doc["projects"].(map[string]any)[proj].(map[string]any)["mcpServers"].(map[string]any)[srv].(map[string]any)
		}
		return doc["mcpServers"].(map[string]any)[name].(map[string]any)
	}
	for _, c := range changes {
		if c.Action != Wrapped {
			continue
		}
		b, a := servers(before, c.Server), servers(after, c.Server)
		wantArgs := []any{"mcp", "--", b["command"]}
		if args, ok := b["args"].([]any); ok {
			wantArgs = append(wantArgs, args...)
		}
		if a["command"] != crumbPath || !reflect.DeepEqual(a["args"], wantArgs) {
			t.Errorf("%s: command %v %v, want %s %v", c.Server, a["command"], a["args"], crumbPath, wantArgs)
		}
		a["command"], a["args"] = b["command"], b["args"]
		if _, had := b["args"]; !had {
			delete(a, "args")
		}
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("something besides the wrapped commands changed")
	}
}

// TestWrapCodexTOML runs the merge over a real-shaped Codex configuration.
func TestWrapCodexTOML(t *testing.T) {
	in, err := os.ReadFile("testdata/codex.toml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := WrapCodexTOML(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"docs": Wrapped, "git repo": Wrapped, "noargs": Wrapped, "figma": Skipped, "wrapped": Already}
	if got := actions(res.Changes); !reflect.DeepEqual(got, want) {
		t.Errorf("changes = %v, want %v", got, want)
	}
	var order []string
	for _, c := range res.Changes {
		order = append(order, c.Server)
	}
	if strings.Join(order, ",") != "docs,git repo,noargs,wrapped,figma" {
		t.Errorf("changes not in the order of the file: %v", order)
	}
	golden(t, "codex.toml.golden", res.Data)
	golden(t, "codex.toml.entries.golden", res.Entries)

	again, err := WrapCodexTOML(res.Data, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Data, res.Data) || again.Changed() {
		t.Errorf("a second run changed the file: %v", again.Changes)
	}

	var before, after map[string]any
	if err := toml.Unmarshal(in, &before); err != nil {
		t.Fatal(err)
	}
	if err := toml.Unmarshal(res.Data, &after); err != nil {
		t.Fatalf("output is not TOML: %v\n%s", err, res.Data)
	}
	for _, name := range []string{"docs", "git repo", "noargs"} {
		b := before["mcp_servers"].(map[string]any)[name].(map[string]any)
		a := after["mcp_servers"].(map[string]any)[name].(map[string]any)
		wantArgs := []any{"mcp", "--", b["command"]}
		if args, ok := b["args"].([]any); ok {
			wantArgs = append(wantArgs, args...)
		}
		if a["command"] != crumbPath || !reflect.DeepEqual(a["args"], wantArgs) {
			t.Errorf("%s: command %v %v, want %s %v", name, a["command"], a["args"], crumbPath, wantArgs)
		}
		a["command"], a["args"] = b["command"], b["args"]
		if _, had := b["args"]; !had {
			delete(a, "args")
		}
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("something besides the wrapped commands changed")
	}
	// Comments survive, except one inside an args list that was replaced.
	for _, line := range strings.Split(string(in), "\n") {
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line, "the repository") {
			if !strings.Contains(string(res.Data), line[i:]) {
				t.Errorf("comment %q lost", line[i:])
			}
		}
	}
}

func TestWrapErrors(t *testing.T) {
	if _, err := WrapJSON([]byte(`{"mcpServers": `), opt); err == nil {
		t.Error("WrapJSON accepted broken JSON")
	}
	if _, err := WrapCodexTOML([]byte("[mcp_servers.x\ncommand = 1"), opt); err == nil {
		t.Error("WrapCodexTOML accepted broken TOML")
	}
	res, err := WrapJSON(nil, opt)
	if err != nil || res.Changed() {
		t.Errorf("empty file: %v %v", res, err)
	}
	// An inline table is reported, not edited.
	res, err = WrapCodexTOML([]byte("mcp_servers = { x = { command = \"npx\" } }\n"), opt)
	if err != nil || len(res.Changes) != 1 || res.Changes[0].Action != Skipped {
		t.Errorf("inline table: %+v %v", res, err)
	}
	// Flags of crumb mcp go before "--".
	res, err = WrapJSON([]byte(`{"mcpServers":{"a":{"command":"srv"}}}`), Options{Crumb: "crumb", Flags: []string{"--config", "/c.toml"}})
	if err != nil || !bytes.Contains(res.Data, []byte(`"args": [
        "mcp",
        "--config",
        "/c.toml",
        "--",
        "srv"
      ]`)) {
		t.Errorf("flags: %s %v", res.Data, err)
	}
}

// TestAddClaudeHook merges the Bash hook into real-shaped settings.
func TestAddClaudeHook(t *testing.T) {
	in, err := os.ReadFile("testdata/claude-settings.json")
	if err != nil {
		t.Fatal(err)
	}
	const cmd = crumbPath + " hook claude-code"
	out, added, err := AddClaudeHook(in, cmd)
	if err != nil || !added {
		t.Fatalf("AddClaudeHook: %v %v", added, err)
	}
	golden(t, "claude-settings.json.golden", out)
	again, added, err := AddClaudeHook(out, cmd)
	if err != nil || added || !bytes.Equal(again, out) {
		t.Errorf("a second run changed the settings")
	}
	var before, after map[string]any
	json.Unmarshal(in, &before)
	json.Unmarshal(out, &after)
	pre := after["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(pre) != 2 {
		t.Fatalf("PreToolUse has %d entries", len(pre))
	}
	after["hooks"].(map[string]any)["PreToolUse"] = pre[:1]
	if !reflect.DeepEqual(before, after) {
		t.Error("something besides the new hook changed")
	}
	for _, empty := range []string{"", "{}"} {
		out, added, err := AddClaudeHook([]byte(empty), cmd)
		if err != nil || !added || !json.Valid(out) || !bytes.Contains(out, []byte(`"matcher": "Bash"`)) {
			t.Errorf("settings %q: %s %v %v", empty, out, added, err)
		}
	}
	if _, _, err := AddClaudeHook([]byte(`{"hooks": []}`), cmd); err == nil {
		t.Error("hooks that are not an object: no error")
	}
}

func FuzzWrapJSON(f *testing.F) {
	for _, name := range []string{"claude.json", "mcp.json", "cursor-mcp.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := WrapJSON(data, opt)
		if err != nil {
			return
		}
		if res.Changed() && !json.Valid(res.Data) {
			t.Fatalf("wrote invalid JSON")
		}
		again, err := WrapJSON(res.Data, opt)
		if err != nil || again.Changed() {
			t.Fatalf("not idempotent: %v %v", err, again.Changes)
		}
	})
}

func FuzzWrapCodexTOML(f *testing.F) {
	b, _ := os.ReadFile("testdata/codex.toml")
	f.Add(b)
	f.Add([]byte("[mcp_servers.a]\ncommand = \"x\\ty\"\nargs = []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := WrapCodexTOML(data, opt)
		if err != nil {
			return
		}
		var v map[string]any
		if err := toml.Unmarshal(res.Data, &v); err != nil {
			t.Fatalf("wrote invalid TOML: %v\n%s", err, res.Data)
		}
		again, err := WrapCodexTOML(res.Data, opt)
		if err != nil || again.Changed() {
			t.Fatalf("not idempotent: %v %+v\n%s", err, again, res.Data)
		}
	})
}
