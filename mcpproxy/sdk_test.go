package mcpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectSDK serves a proxy between the official Go SDK's client and
// upstream, over in-memory pipes.
func connectSDK(t testing.TB, cfg Config, upstream mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	clientT, proxyT := pipePair()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, proxyT, upstream) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx, clientT, nil)
	if err != nil {
		cancel()
		t.Fatalf("connecting through the proxy: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("Serve did not return after the client closed")
		}
		cancel()
		p.Close()
	})
	return cs
}

// TestSDKClient drives the proxy with the official Go SDK's client.
func TestSDKClient(t *testing.T) {
	ctx := context.Background()
	cs := connectSDK(t, testConfig(t, 600), fakeCommand("", io.Discard), nil)
	if got := cs.InitializeResult().ServerInfo; got.Name != "fake-upstream" || got.Version != "1.2.3" {
		t.Errorf("server info = %+v", got)
	}
	if got := cs.InitializeResult().Instructions; got != "Use the fake tools wisely." {
		t.Errorf("instructions = %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"small", "big", "crumb_read", "crumb_search", "crumb_query"} {
		if byName[name] == nil {
			t.Errorf("tool %s missing", name)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"lines": 10000}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if n := tokens.O200k().Count(string(raw)); n > 600 {
		t.Errorf("view is %d tokens, over 600", n)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	m := hintRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no continuation in %s", text)
	}
	var args map[string]any
	json.Unmarshal([]byte(m[1]), &args)
	page, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crumb_read", Arguments: args})
	if err != nil || page.IsError {
		t.Fatalf("crumb_read: %v %+v", err, page)
	}
	if !strings.HasPrefix(page.Content[0].(*mcp.TextContent).Text, "[crumb read ") {
		t.Errorf("page: %.200s", page.Content[0].(*mcp.TextContent).Text)
	}
}

// httpUpstream starts an MCP server of the Go SDK over streamable HTTP.
func httpUpstream(t testing.TB) (*mcp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "9"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "lines", Description: "N lines"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fakeBigText(in.N, 60)}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// TestHTTPUpstream checks the proxy in front of a server reached by URL:
// calls, projection, and notifications the server sends on its own
// (list_changed), which need the standalone stream.
func TestHTTPUpstream(t *testing.T) {
	ctx := context.Background()
	srv, url := httpUpstream(t)
	var changed atomic.Int32
	cs := connectSDK(t, testConfig(t, 500), &HTTPTransport{Endpoint: url}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed.Add(1) },
	})
	if got := cs.InitializeResult().ServerInfo.Name; got != "http-upstream" {
		t.Errorf("server info = %q", got)
	}
	small, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lines", Arguments: map[string]any{"n": 3}})
	if err != nil || small.Content[0].(*mcp.TextContent).Text != fakeBigText(3, 60) {
		t.Fatalf("small call: %v %+v", err, small)
	}
	big, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lines", Arguments: map[string]any{"n": 5000}})
	if err != nil {
		t.Fatal(err)
	}
	if !hintRE.MatchString(big.Content[0].(*mcp.TextContent).Text) {
		t.Errorf("big result not projected: %.200s", big.Content[0].(*mcp.TextContent).Text)
	}
	// A tool added now makes the server send list_changed on the
	// standalone stream.
	srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	deadline := time.Now().Add(10 * time.Second)
	for changed.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if changed.Load() == 0 {
		t.Error("list_changed from the HTTP upstream did not reach the client")
	}
}

// TestHTTPListen serves the proxy over streamable HTTP to the SDK's client.
func TestHTTPListen(t *testing.T) {
	ctx := context.Background()
	p, err := New(testConfig(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var sessions atomic.Int32
	h := NewHTTPHandler(p, func() mcp.Transport {
		sessions.Add(1)
		return fakeCommand("", io.Discard)
	})
	hs := httptest.NewServer(h)
	defer func() {
		hs.Close()
		h.Close()
	}()
	for i := range 2 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, MaxEventSize: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.InitializeResult().ServerInfo.Name; got != "fake-upstream" {
			t.Errorf("server info = %q", got)
		}
		if n := h.sessionCount(); n != 1 {
			t.Errorf("%d sessions open for one client", n)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"lines": 4000}})
		if err != nil {
			t.Fatal(err)
		}
		m := hintRE.FindStringSubmatch(res.Content[0].(*mcp.TextContent).Text)
		if m == nil {
			t.Fatalf("session %d: not projected", i)
		}
		var args map[string]any
		json.Unmarshal([]byte(m[1]), &args)
		page, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crumb_read", Arguments: args})
		if err != nil || page.IsError {
			t.Fatalf("crumb_read over HTTP: %v %+v", err, page)
		}
		cs.Close()
		deadline := time.Now().Add(10 * time.Second)
		for h.sessionCount() > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := h.sessionCount(); n != 0 {
			t.Errorf("%d sessions left open after the client closed", n)
		}
	}
	if sessions.Load() < 2 {
		t.Errorf("%d upstream connections for 2 sessions", sessions.Load())
	}
}

// TestHTTPUpstreamLargeResult: a server reached by URL, answering in SSE
// or in JSON, whose tools/call result is larger than spoolAt: the result
// is spooled to a file (the SDK reads a placeholder in its place), stored
// exactly and projected, as from a server on stdio; a large answer that is
// not a tools/call result reaches the client whole.
func TestHTTPUpstreamLargeResult(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonResponse), func(t *testing.T) {
			ctx := context.Background()
			srv := mcp.NewServer(&mcp.Implementation{Name: "http-upstream", Version: "9"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "lines", Description: "N lines"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
				N int `json:"n"`
			}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fakeBigText(in.N, 60)}}}, nil, nil
			})
			big := fakeBigText(40000, 60)
			srv.AddPrompt(&mcp.Prompt{Name: "long"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: big}}}}, nil
			})
			hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			t.Cleanup(hs.Close)
			var logs syncBuffer
			cfg := testConfig(t, 500)
			cfg.Logger = newTestLogger(&logs)
			cs := connectSDK(t, cfg, &HTTPTransport{Endpoint: hs.URL}, nil)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lines", Arguments: map[string]any{"n": 40000}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			m := hintRE.FindStringSubmatch(text)
			if m == nil || strings.Contains(text, spoolKey) {
				t.Fatalf("the large result was not projected: %.300s", text)
			}
			if !strings.Contains(logs.String(), "from_file=true stored_apart=1") {
				t.Errorf("the result was not projected from a spool file: %s", logs.String())
			}
			var args struct {
				Ref string `json:"ref"`
			}
			json.Unmarshal([]byte(m[1]), &args)
			if got, err := store.ReadAll(ctx, cfg.Guard.Store, store.Ref(args.Ref)); err != nil || string(got) != big {
				t.Errorf("the stored result is not the server's (%d bytes, want %d): %v", len(got), len(big), err)
			}
			p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "long"})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Messages[0].Content.(*mcp.TextContent).Text; got != big {
				t.Errorf("a large prompt did not pass whole: %d bytes, want %d", len(got), len(big))
			}
		})
	}
}
