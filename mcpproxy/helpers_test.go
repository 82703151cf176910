package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/testhome"
	"github.com/crumb-dev/crumb/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("CRUMB_FAKE_UPSTREAM"); ok {
		serveFake(os.Stdin, os.Stdout, mode == "shadow", os.Exit)
		os.Exit(0)
	}
	if argv, ok := os.LookupEnv("CRUMB_TEST_PROXY"); ok {
		os.Exit(serveTestProxy(argv))
	}
	// No test, and no process a test starts, may write the user's store.
	os.Exit(testhome.Main(m))
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeCommand runs the fake upstream as a process: this test binary.
func fakeCommand(mode string, stderr io.Writer) *CommandTransport {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CRUMB_FAKE_UPSTREAM="+mode)
	return &CommandTransport{Command: cmd, Stderr: stderr, TerminateDuration: 2 * time.Second}
}

// pipePair returns the two ends of a pair of pipes, for in-process peers:
// the SDK's transport for a client, and the proxy's own (as Stdio gives
// it) for the proxy serving it. Closing either connection closes its pipes.
func pipePair() (client *mcp.IOTransport, proxy mcp.Transport) {
	ar, aw := io.Pipe()
	br, bw := io.Pipe()
	return &mcp.IOTransport{Reader: ar, Writer: bw, MaxLineLength: -1}, &ioTransport{r: br, w: aw}
}

// inProcessFake returns the SDK's transport to a fake upstream served
// in-process, as a client would connect to it.
func inProcessFake() mcp.Transport {
	r, w := serveFakePipes()
	return &mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: -1}
}

// inProcessUpstream returns the proxy's own transport to a fake upstream
// served in-process: the connection it reads a server run as a command
// with.
func inProcessUpstream() mcp.Transport {
	r, w := serveFakePipes()
	return &ioTransport{r: r, w: w}
}

// serveFakePipes serves a fake upstream in-process and returns its output
// and its input.
func serveFakePipes() (io.ReadCloser, io.WriteCloser) {
	ar, aw := io.Pipe() // → fake
	br, bw := io.Pipe() // fake →
	go func() {
		serveFake(ar, bw, false, func(int) { ar.Close(); bw.Close() })
		bw.Close()
	}()
	return br, aw
}

// testConfig is a proxy configuration over a fresh store.
func testConfig(t testing.TB, budget int) Config {
	t.Helper()
	d, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return Config{Guard: crumb.Config{Store: d, Budget: budget}}
}

// projectWhole projects a tools/call result with the library alone, over
// the store of a fresh test configuration: what the proxy's view is
// compared with.
func projectWhole(t testing.TB, budget int, tool string, result []byte) *crumb.View {
	t.Helper()
	g, err := crumb.New(testConfig(t, budget).Guard)
	if err != nil {
		t.Fatal(err)
	}
	v, err := g.Project(context.Background(), crumb.Result{Tool: tool, Kind: crumb.KindMCP, Body: result})
	if err != nil {
		t.Fatalf("projecting the result with the library: %v", err)
	}
	return v
}

// wireMsg is a JSON-RPC message as the raw client sees it.
type wireMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
	line []byte
}

// rawClient speaks JSON-RPC to the proxy by hand, to see its bytes.
type rawClient struct {
	t      testing.TB
	w      io.Writer
	in     chan *wireMsg
	mu     sync.Mutex
	nextID int
	seen   []*wireMsg // notifications and requests received while waiting
	// onRequest answers requests the proxy relays from the upstream.
	onRequest func(m *wireMsg) string
}

// startRaw serves a proxy between a raw client and upstream; the proxy
// reads the client as `crumb mcp` reads its standard input.
func startRaw(t testing.TB, cfg Config, upstream mcp.Transport) (*rawClient, *Proxy) {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cr, cw := io.Pipe() // client → proxy
	pr, pw := io.Pipe() // proxy → client
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- p.Serve(ctx, &ioTransport{r: cr, w: pw}, upstream)
	}()
	c := &rawClient{t: t, w: cw, in: make(chan *wireMsg, 64)}
	go func() {
		br := bufio.NewReaderSize(pr, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				m := &wireMsg{line: line}
				// A batch is an array: its line is kept whole.
				if json.Unmarshal(line, m) != nil && (line[0] != '[' || !json.Valid(line)) {
					t.Errorf("proxy wrote a line that is not JSON: %.200q", line)
				}
				c.in <- m
			}
			if err != nil {
				close(c.in)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cw.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("Serve did not return after the client closed")
		}
		cancel()
		p.Close()
	})
	return c, p
}

func (c *rawClient) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s+"\n"); err != nil {
		c.t.Fatalf("writing to the proxy: %v", err)
	}
}

// call sends a request and waits for its response.
func (c *rawClient) call(method, params string) *wireMsg {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return c.await(strconv.Itoa(id))
}

// await waits for the response to the request with the given ID.
func (c *rawClient) await(id string) *wireMsg {
	c.t.Helper()
	c.mu.Lock()
	for i, m := range c.seen {
		if m.Method == "" && string(m.ID) == id {
			c.seen = append(c.seen[:i:i], c.seen[i+1:]...)
			c.mu.Unlock()
			return m
		}
	}
	c.mu.Unlock()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-c.in:
			if !ok {
				c.t.Fatalf("proxy closed the connection while waiting for response %s", id)
			}
			if m.Method == "" && string(m.ID) == id {
				return m
			}
			if m.Method != "" && len(m.ID) > 0 && c.onRequest != nil {
				c.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + c.onRequest(m) + `}`)
			}
			c.mu.Lock()
			c.seen = append(c.seen, m)
			c.mu.Unlock()
		case <-timeout:
			c.t.Fatalf("no response to request %s", id)
		}
	}
}

// initialize runs the MCP handshake.
func (c *rawClient) initialize() *wireMsg {
	c.t.Helper()
	m := c.call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"0"}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// toolCall calls a tool and returns its result.
func (c *rawClient) toolCall(name, args string) *wireMsg {
	c.t.Helper()
	return c.call("tools/call", `{"name":`+strconv.Quote(name)+`,"arguments":`+args+`}`)
}

// seenMethods returns the methods of the messages seen so far.
func (c *rawClient) seenMethods() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.seen {
		out = append(out, m.Method)
	}
	return out
}

// result is a CallToolResult as tests read it.
type result struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func decodeResult(t testing.TB, raw json.RawMessage) result {
	t.Helper()
	var r result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result is not a CallToolResult: %v: %.300s", err, raw)
	}
	return r
}

// hintRE finds a continuation of crumb's read tool in a view.
var hintRE = regexp.MustCompile(`crumb_read (\{[^}\n]*\})`)

var nextRE = regexp.MustCompile(`^\[next: crumb_read (\{.*\})\]$`)

// readAll reads a whole saved result back with crumb_read pages, from its
// first line to its end, and returns the content of the pages.
func readAll(t testing.TB, call func(name, args string) (string, bool), ref string) string {
	t.Helper()
	var out strings.Builder
	args := `{"ref":"` + ref + `","lines":"1:"}`
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("too many pages")
		}
		text, isErr := call("crumb_read", args)
		if isErr {
			t.Fatalf("crumb_read %s: %s", args, text)
		}
		nl := strings.IndexByte(text, '\n')
		if nl < 0 || !strings.HasPrefix(text, "[crumb read ") {
			t.Fatalf("page without a header: %.200q", text)
		}
		body := text[nl+1:]
		last := strings.LastIndexByte(body, '\n')
		footer := body[last+1:]
		body = body[:last+1]
		if footer == "[end of result]" || footer == "[end of the range asked for]" {
			out.WriteString(body)
			return out.String()
		}
		m := nextRE.FindStringSubmatch(footer)
		if m == nil {
			t.Fatalf("page footer is not a continuation: %q", footer)
		}
		args = m[1]
		// A line longer than a page is shown in pieces, each marked " …",
		// and continued by bytes.
		if strings.Contains(args, `"bytes"`) {
			body = strings.TrimSuffix(body, " …\n")
		}
		out.WriteString(body)
	}
}

// newTestLogger logs to w as text, at every level.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// serveTestProxy is the test binary run as crumb mcp, for clients that
// start their server themselves (the TypeScript SDK's): it serves a proxy
// on its standard input and output in front of the command argv (a JSON
// array), over the store $CRUMB_TEST_STORE, with a budget of 2,000 tokens.
func serveTestProxy(argv string) int {
	var args []string
	if err := json.Unmarshal([]byte(argv), &args); err != nil || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "CRUMB_TEST_PROXY: want a JSON array of the upstream command:", err)
		return 2
	}
	d, err := store.OpenDir(os.Getenv("CRUMB_TEST_STORE"), store.DirOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer d.Close()
	p, err := New(Config{Guard: crumb.Config{Store: d, Budget: 2000}, Logger: newTestLogger(os.Stderr)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	up := &CommandTransport{Command: exec.Command(args[0], args[1:]...), Stderr: os.Stderr}
	if err := p.Serve(context.Background(), Stdio(os.Stdin, os.Stdout), up); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
