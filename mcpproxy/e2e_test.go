package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The end-to-end tests run real MCP servers from npm, which .ci/run
// installs: CRUMB_MCP_NODE_DIR names the directory whose node_modules holds
// them (default: .ci/node at the top of the repository). Without them they
// skip, which go test shows only with -v; when CRUMB_MCP_NODE_DIR is set, or
// CRUMB_MCP_E2E=required (as .ci/run sets it), a missing server or node is a
// failure instead.

// npmServer returns the command line of an npm server's binary, or skips.
func npmServer(t *testing.T, bin string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s: end-to-end test with a real server; skipped in -short mode", bin)
	}
	dir := os.Getenv("CRUMB_MCP_NODE_DIR")
	skipf := t.Skipf
	if dir != "" || os.Getenv("CRUMB_MCP_E2E") == "required" {
		skipf = t.Fatalf
	}
	if dir == "" {
		dir = filepath.Join("..", ".ci", "node")
	}
	p, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		skipf("%s is not installed (%v): .ci/run installs it with npm; set CRUMB_MCP_NODE_DIR to a directory whose node_modules has it", bin, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		skipf("node is not installed")
	}
	return p
}

// sdkDirect connects the SDK's client to a server without crumb.
func sdkDirect(t *testing.T, argv []string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "0"}, opts).
		Connect(context.Background(), &CommandTransport{Command: exec.Command(argv[0], argv[1:]...), Stderr: testWriter{t}}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", argv[0], err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sdkProxied connects the SDK's client to a server through crumb.
func sdkProxied(t *testing.T, cfg Config, argv []string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectSDK(t, cfg, &CommandTransport{Command: exec.Command(argv[0], argv[1:]...), Stderr: testWriter{t}}, opts)
}

// testWriter logs a server's standard error.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("server stderr: %s", bytes.TrimSpace(p))
	return len(p), nil
}

// rawDirect speaks JSON-RPC by hand to a server without crumb.
func rawDirect(t *testing.T, argv []string) *rawClient {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, w: stdin, in: make(chan *wireMsg, 64)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		br := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				m := &wireMsg{line: line}
				json.Unmarshal(line, m)
				c.in <- m
			}
			if err != nil {
				close(c.in)
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		wg.Wait()
	})
	return c
}

// withoutCrumbTools removes crumb's tools from a raw tools/list result.
func withoutCrumbTools(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	obj, err := jsonobj.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	tools, _ := obj.Get("tools")
	var list []json.RawMessage
	json.Unmarshal(tools, &list)
	var keep []json.RawMessage
	for _, tool := range list {
		var n struct{ Name string }
		json.Unmarshal(tool, &n)
		if !strings.HasPrefix(n.Name, "crumb_") {
			keep = append(keep, tool)
		}
	}
	arr, _ := jsonobj.AppendArray(json.RawMessage("[]"), keep...)
	obj.Set("tools", arr)
	return obj.Bytes()
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestFilesystemServer puts crumb in front of the reference filesystem
// server: a 2 MB file costs the model at most the budget and reads back
// exactly with crumb_read, a directory tree is projected, and everything
// else the server offers answers as it does without crumb.
func TestFilesystemServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	var big strings.Builder
	for i := 1; big.Len() < 2<<20; i++ {
		fmt.Fprintf(&big, "%06d: the file crumb reads back exactly, byte for byte, page by page\n", i)
	}
	bigPath := filepath.Join(root, "big.txt")
	if err := os.WriteFile(bigPath, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for d := range 30 {
		dir := filepath.Join(root, "tree", fmt.Sprintf("package-%02d", d), "internal")
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%02d.go", f)), []byte("package x\n"), 0o644)
		}
	}
	argv := []string{bin, root}
	const budget = 2000
	ctx := context.Background()
	proxied := sdkProxied(t, testConfig(t, budget), argv, nil)
	direct := sdkDirect(t, argv, nil)

	// The 2 MB read: a first view within the budget.
	res, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": bigPath}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if n := tokens.O200k().Count(string(raw)); n > budget {
		t.Errorf("first view of a 2 MB file is %d tokens, over the budget of %d", n, budget)
	}
	if res.StructuredContent == nil {
		t.Errorf("projection dropped the structuredContent read_text_file's outputSchema requires")
	}
	view := res.Content[0].(*mcp.TextContent).Text
	m := hintRE.FindStringSubmatch(view)
	if m == nil {
		t.Fatalf("first view has no crumb_read continuation:\n%s", view)
	}
	var hint struct{ Ref string }
	json.Unmarshal([]byte(m[1]), &hint)
	// Pages of crumb_read reassemble the exact bytes.
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
	// Any part of it reads back exactly.
	page, isErr := call("crumb_read", `{"ref":"`+hint.Ref+`","lines":"20000:20002"}`)
	want := fmt.Sprintf("020000: the file crumb reads back exactly, byte for byte, page by page\n020001: the file crumb reads back exactly, byte for byte, page by page\n020002: the file crumb reads back exactly, byte for byte, page by page\n")
	if isErr || !strings.Contains(page, "\n"+want+"[") {
		t.Errorf("lines 20000-20002:\n%s", page)
	}

	// A directory tree: projected within the budget, and read back whole.
	tree, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": filepath.Join(root, "tree")}})
	if err != nil {
		t.Fatal(err)
	}
	treeDirect, err := direct.CallTool(ctx, &mcp.CallToolParams{Name: "directory_tree", Arguments: map[string]any{"path": filepath.Join(root, "tree")}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ = json.Marshal(tree)
	if n := tokens.O200k().Count(string(raw)); n > budget {
		t.Errorf("directory tree view is %d tokens, over %d", n, budget)
	}
	if m := hintRE.FindStringSubmatch(tree.Content[0].(*mcp.TextContent).Text); m == nil {
		t.Errorf("directory tree view has no continuation")
	} else {
		json.Unmarshal([]byte(m[1]), &hint)
		// A page ends every line with a newline, the last one too.
		want := treeDirect.Content[0].(*mcp.TextContent).Text
		if !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if got := readAll(t, call, hint.Ref); got != want {
			t.Errorf("directory tree read back (%d bytes) differs from the server's (%d bytes)", len(got), len(treeDirect.Content[0].(*mcp.TextContent).Text))
		}
	}

	// Everything else answers as it does without crumb.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"list_allowed_directories", map[string]any{}},
		{"list_directory", map[string]any{"path": root}},
		{"get_file_info", map[string]any{"path": filepath.Join(root, "tree")}},
		{"search_files", map[string]any{"path": root, "pattern": "file_07"}},
		{"read_text_file", map[string]any{"path": bigPath, "head": 3}},
	} {
		a, errA := proxied.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		b, errB := direct.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if (errA == nil) != (errB == nil) || !sameJSON(ja, jb) {
			t.Errorf("%s through crumb:\n%.400s %v\nwithout:\n%.400s %v", c.tool, ja, errA, jb, errB)
		}
	}
	// The tool list is the server's, plus crumb's, byte for byte.
	rp, _ := startRaw(t, testConfig(t, budget), &CommandTransport{Command: exec.Command(argv[0], argv[1:]...), Stderr: testWriter{t}})
	rd := rawDirect(t, argv)
	rp.initialize()
	rd.initialize()
	lp, ld := rp.call("tools/list", `{}`), rd.call("tools/list", `{}`)
	if got := withoutCrumbTools(t, lp.Result); !bytes.Equal(got, ld.Result) {
		t.Errorf("tools/list through crumb differs:\n%.600s\nwithout:\n%.600s", got, ld.Result)
	}
}

// TestEverythingServer puts crumb in front of the reference server that
// exercises every feature of MCP: its tools, resources, templates, prompts,
// completions, images, structured content, progress, logging, roots and
// sampling reach the client as they do without crumb.
func TestEverythingServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	argv := []string{bin}
	ctx := context.Background()
	var progress, logs atomic.Int32
	opts := func() *mcp.ClientOptions {
		return &mcp.ClientOptions{
			ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
			LoggingMessageHandler:       func(context.Context, *mcp.LoggingMessageRequest) { logs.Add(1) },
			CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "sampled through crumb"}}, nil
			},
		}
	}
	proxied := sdkProxied(t, testConfig(t, 2000), argv, opts())
	direct := sdkDirect(t, argv, opts())
	if p, d := proxied.InitializeResult(), direct.InitializeResult(); !reflect.DeepEqual(p, d) {
		pj, _ := json.Marshal(p)
		dj, _ := json.Marshal(d)
		t.Errorf("initialize result differs:\n%s\n%s", pj, dj)
	}

	same := func(what string, a any, errA error, b any, errB error) {
		t.Helper()
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if (errA == nil) != (errB == nil) || !sameJSON(ja, jb) {
			t.Errorf("%s through crumb:\n%.500s %v\nwithout:\n%.500s %v", what, ja, errA, jb, errB)
		}
	}
	rp, errP := proxied.ListResources(ctx, nil)
	rd, errD := direct.ListResources(ctx, nil)
	same("resources/list", rp, errP, rd, errD)
	if errP == nil && len(rp.Resources) > 0 {
		uri := rp.Resources[0].URI
		a, e1 := proxied.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		b, e2 := direct.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		same("resources/read "+uri, a, e1, b, e2)
	}
	tp, e1 := proxied.ListResourceTemplates(ctx, nil)
	td, e2 := direct.ListResourceTemplates(ctx, nil)
	same("resources/templates/list", tp, e1, td, e2)
	pp, e1 := proxied.ListPrompts(ctx, nil)
	pd, e2 := direct.ListPrompts(ctx, nil)
	same("prompts/list", pp, e1, pd, e2)
	gp, e1 := proxied.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"})
	gd, e2 := direct.GetPrompt(ctx, &mcp.GetPromptParams{Name: "simple-prompt"})
	same("prompts/get", gp, e1, gd, e2)
	complete := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
		Argument: mcp.CompleteParamsArgument{Name: "department", Value: "E"}}
	cp, e1 := proxied.Complete(ctx, complete)
	cd, e2 := direct.Complete(ctx, complete)
	same("completion/complete", cp, e1, cd, e2)
	if e1 == nil && (len(cp.Completion.Values) != 1 || cp.Completion.Values[0] != "Engineering") {
		t.Errorf("completion: %+v", cp.Completion)
	}

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"message": "hello <crumb> & co"}},
		{"get-sum", map[string]any{"a": 2, "b": 40}},
		{"get-tiny-image", map[string]any{}},
		{"get-structured-content", map[string]any{"location": "New York"}},
		{"get-annotated-message", map[string]any{"messageType": "success", "includeImage": true}},
		{"get-resource-links", map[string]any{"count": 3}},
		{"get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1}},
	} {
		a, e1 := proxied.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		b, e2 := direct.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		same("tools/call "+c.tool, a, e1, b, e2)
		if c.tool == "get-tiny-image" && e1 == nil {
			found := false
			for _, block := range a.Content {
				if img, ok := block.(*mcp.ImageContent); ok && len(img.Data) > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("the image did not stay an image: %+v", a.Content)
			}
		}
	}

	// Progress notifications of a long-running operation.
	params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": 4}}
	params.SetProgressToken("crumb-progress")
	if _, err := proxied.CallTool(ctx, params); err != nil {
		t.Fatal(err)
	}
	// crumb relays them in order, before the result (readUpstream writes
	// each message as it comes); the client may still be handling the last
	// one when CallTool returns, now that a small result comes back at
	// once: wait for it, a while.
	for end := time.Now().Add(5 * time.Second); progress.Load() < 4 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := progress.Load(); n != 4 {
		t.Errorf("got %d progress notifications through crumb, want 4", n)
	}

	// Sampling: the server asks the client, through crumb.
	s, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "say hi", "maxTokens": 10}})
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := json.Marshal(s); !bytes.Contains(j, []byte("sampled through crumb")) {
		t.Errorf("sampling result: %s", j)
	}

	// Logging notifications.
	if err := proxied.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	before := logs.Load()
	if _, err := proxied.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-simulated-logging", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for logs.Load() == before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if logs.Load() == before {
		t.Error("no logging notification reached the client through crumb")
	}

	// Cancellation reaches the server: a cancelled long operation ends the
	// call at once.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	start := time.Now()
	_, err = proxied.CallTool(cctx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 30, "steps": 3}})
	cancel()
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("cancelled call: %v after %v", err, time.Since(start))
	}
	if err := proxied.Ping(ctx, nil); err != nil {
		t.Errorf("session broken after a cancellation: %v", err)
	}
}
