package mcpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nodeModules returns the node_modules directory the end-to-end tests'
// servers are installed in, or skips.
func nodeModules(t *testing.T) string {
	t.Helper()
	bin := npmServer(t, "mcp-server-everything") // skips when not installed
	return filepath.Dir(filepath.Dir(bin))
}

// TestBannerServer: a real server started behind a banner line on its
// standard output, as `sh -c "echo ...; exec server"` does, works through
// crumb as it does with the TypeScript SDK directly (which logs the line
// and skips it); a 3 MB file it reads is stored once and reads back
// exactly.
func TestBannerServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	var big strings.Builder
	for i := 1; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "%06d: a line of the file behind the banner\n", i)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := []string{"sh", "-c", `echo 'Server starting on stdio...'; exec "$0" "$1"`, bin, root}
	var log syncBuffer
	cfg := testConfig(t, 2000)
	cfg.Logger = newTestLogger(&log)
	cs := &countingStore{Store: cfg.Guard.Store}
	cfg.Guard.Store = cs
	proxied := sdkProxied(t, cfg, argv, nil)
	ctx := context.Background()
	tools, err := proxied.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 4 {
		t.Fatalf("tools/list behind a banner: %v", err)
	}
	if !strings.Contains(log.String(), "Server starting on stdio...") {
		t.Errorf("the banner was not logged as skipped:\n%s", log.String())
	}
	res, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": path}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if n := tokens.O200k().Count(string(raw)); n > 2000 {
		t.Errorf("first view of a 3 MB file is %d tokens, over the budget", n)
	}
	m := hintRE.FindStringSubmatch(res.Content[0].(*mcp.TextContent).Text)
	if m == nil {
		t.Fatalf("no continuation in the view:\n%s", raw)
	}
	var hint struct{ Ref string }
	json.Unmarshal([]byte(m[1]), &hint)
	// The server sends the text twice (content and structuredContent):
	// the store keeps it once.
	list, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, info := range list {
		total += info.Size
	}
	if limit := int64(big.Len()) + 64<<10; cs.bytes > limit || total > limit {
		t.Errorf("a 3 MB file put %d bytes in %d puts; the store holds %d bytes in %d results", cs.bytes, cs.puts, total, len(list))
	}
	call := func(name, args string) (string, bool) {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		r, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return r.Content[0].(*mcp.TextContent).Text, r.IsError
	}
	if got := readAll(t, call, hint.Ref); got != big.String() {
		t.Errorf("crumb_read pages reassemble %d bytes, not the file's %d", len(got), big.Len())
	}
}

// TestServerDiesMidResponse: a real server (the TypeScript SDK's) that
// dies while it writes its answer gets the call an error that says how it
// ended and what its stderr said went wrong, whether the answer had
// reached a few bytes or megabytes (written to the spool file).
func TestServerDiesMidResponse(t *testing.T) {
	modules := nodeModules(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "dying-server.cjs"))
	for _, after := range []int{100, 3 << 20} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			cmd := exec.Command("node", script)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules, fmt.Sprintf("DIE_AFTER=%d", after))
			c, _ := startRaw(t, testConfig(t, 500), &CommandTransport{Command: cmd, Stderr: testWriter{t}})
			c.initialize()
			if ok := c.toolCall("ok", `{}`); ok.Error != nil {
				t.Fatalf("ok: %s", ok.line)
			}
			resp := c.toolCall("die", `{}`)
			if resp.Error == nil {
				t.Fatalf("die: %.300s", resp.line)
			}
			msg := resp.Error.Message
			for _, want := range []string{"exit status 1", "in the middle of a message", "Error: widget store corrupted: cannot read page 7"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the error does not say %q: %s", want, msg)
				}
			}
			if strings.Contains(msg, "Node.js v") || strings.Contains(msg, "unexpected EOF") {
				t.Errorf("the error reports the runtime's last words, not what went wrong: %s", msg)
			}
		})
	}
}

// TestMissingModule: node started on a script that does not exist exits at
// once; the client's first request gets an error that names the missing
// module, not node's version line printed after it.
func TestMissingModule(t *testing.T) {
	nodeModules(t)
	missing := filepath.Join(t.TempDir(), "no-such-server.mjs")
	c, _ := startRaw(t, testConfig(t, 500), &CommandTransport{Command: exec.Command("node", missing), Stderr: testWriter{t}})
	resp := c.initialize()
	if resp.Error == nil {
		t.Fatalf("initialize: %.300s", resp.line)
	}
	msg := resp.Error.Message
	for _, want := range []string{"exit status 1", "Error: Cannot find module", "no-such-server.mjs"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q: %s", want, msg)
		}
	}
	if strings.Contains(msg, "Node.js v") {
		t.Errorf("the error reports node's last words: %s", msg)
	}
}

// tsResult is what testdata/ts-client.cjs prints.
type tsResult struct {
	Tools []string `json:"tools"`
	Error string   `json:"error"`
	Calls []struct {
		Result *struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
		Error string `json:"error"`
	} `json:"calls"`
	raw string
}

// tsClient runs the TypeScript SDK's client against argv, through crumb
// (this test binary as crumb mcp, over the store dir) unless dir is empty,
// and makes the calls.
func tsClient(t *testing.T, dir string, argv []string, calls string, env ...string) tsResult {
	t.Helper()
	modules := nodeModules(t)
	script, _ := filepath.Abs(filepath.Join("testdata", "ts-client.cjs"))
	server := argv
	if dir != "" {
		up, _ := json.Marshal(argv)
		server = []string{os.Args[0], "-test.run=^$"}
		env = append(env, "CRUMB_TEST_PROXY="+string(up), "CRUMB_TEST_STORE="+dir)
	}
	sa, _ := json.Marshal(server)
	cmd := exec.Command("node", script)
	cmd.Env = append(append(os.Environ(), "NODE_PATH="+modules, "SERVER_ARGV="+string(sa), "CALLS="+calls), env...)
	cmd.Stderr = testWriter{t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	var r tsResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("the TypeScript client printed %.500s: %v", out, err)
	}
	r.raw = string(out)
	return r
}

// TestTypeScriptClient runs the TypeScript SDK's client against real
// servers through crumb: a server behind a banner line works as it does
// without crumb, its 3 MB file reads as a view within the budget whose
// structuredContent the client validates against the tool's outputSchema,
// and the store keeps the text once; a server that dies mid-response gets
// the client an error with its exit status and what its stderr said.
func TestTypeScriptClient(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	var big strings.Builder
	for i := 1; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "%06d: a line the TypeScript client reads through crumb\n", i)
	}
	path := filepath.Join(root, "big.txt")
	os.WriteFile(path, []byte(big.String()), 0o644)
	argv := []string{"sh", "-c", `echo 'Server starting on stdio...'; exec "$0" "$1"`, bin, root}
	calls, _ := json.Marshal([]any{map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": path}}})

	direct := tsClient(t, "", argv, string(calls))
	if direct.Error != "" || len(direct.Calls) != 1 || direct.Calls[0].Result == nil {
		t.Fatalf("without crumb: %.500s", direct.raw)
	}
	dir := t.TempDir()
	proxied := tsClient(t, dir, argv, string(calls))
	if proxied.Error != "" || len(proxied.Calls) != 1 || proxied.Calls[0].Result == nil {
		t.Fatalf("through crumb: %.1000s", proxied.raw)
	}
	if !reflect.DeepEqual(withoutCrumb(proxied.Tools), direct.Tools) {
		t.Errorf("tools through crumb %v, without %v", proxied.Tools, direct.Tools)
	}
	res := proxied.Calls[0].Result
	if n := tokens.O200k().Count(proxied.raw); n > 2100 {
		t.Errorf("the view of a 3 MB file is %d tokens", n)
	}
	m := hintRE.FindStringSubmatch(res.Content[0].Text)
	if m == nil || res.StructuredContent == nil {
		t.Fatalf("no continuation, or no structuredContent: %.1000s", proxied.raw)
	}
	var hint struct{ Ref string }
	json.Unmarshal([]byte(m[1]), &hint)
	st := openStore(t, dir)
	got, err := store.ReadAll(context.Background(), st, store.Ref(hint.Ref))
	if err != nil || string(got) != big.String() {
		t.Errorf("the continuation's ref does not hold the file: %v", err)
	}
	list, _ := st.List(context.Background())
	var total int64
	for _, info := range list {
		total += info.Size
	}
	if total > int64(big.Len())+64<<10 {
		t.Errorf("the store holds %d bytes in %d results for a file of %d", total, len(list), big.Len())
	}

	// A server that dies in the middle of its answer.
	script, _ := filepath.Abs(filepath.Join("testdata", "dying-server.cjs"))
	die := tsClient(t, t.TempDir(), []string{"node", script}, `[{"name":"ok","arguments":{}},{"name":"die","arguments":{}}]`, "DIE_AFTER=2000000")
	if len(die.Calls) != 2 || die.Calls[0].Result == nil {
		t.Fatalf("the dying server: %.1000s", die.raw)
	}
	msg := die.Calls[1].Error
	for _, want := range []string{"exit status 1", "in the middle of a message", "Error: widget store corrupted: cannot read page 7"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the client's error does not say %q: %s", want, msg)
		}
	}
}

// withoutCrumb drops crumb's tools from a list of names.
func withoutCrumb(names []string) []string {
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "crumb_") {
			out = append(out, n)
		}
	}
	return out
}

func openStore(t *testing.T, dir string) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(dir, store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
