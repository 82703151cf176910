package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPTransport is an [mcp.Transport] to an MCP server over streamable HTTP.
//
// It wraps mcp.StreamableClientTransport, which the SDK's client configures
// once a session is initialized: it sends the negotiated protocol version
// with every request, and opens the standalone SSE stream on which the server
// sends notifications (list_changed, resource updates) and requests
// (sampling, elicitation) of its own. The proxy relays the initialization
// instead of making it, so HTTPTransport does both itself.
type HTTPTransport struct {
	// Endpoint is the server's URL.
	Endpoint string
	// Header is added to every request, for example an Authorization header.
	Header http.Header
	// Client makes the requests. Nil means http.DefaultClient's transport.
	Client *http.Client
}

// Connect returns a connection to the server; it sends nothing until the
// first message is written.
func (t *HTTPTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	base := http.DefaultTransport
	if t.Client != nil && t.Client.Transport != nil {
		base = t.Client.Transport
	}
	c := &httpConn{
		endpoint: t.Endpoint,
		header:   t.Header.Clone(),
		in:       make(chan msgOrErr, 16),
		done:     make(chan struct{}),
		spools:   newHTTPSpools(),
	}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.client = &http.Client{Transport: &headerTransport{base: base, conn: c}}
	inner, err := (&mcp.StreamableClientTransport{
		Endpoint:             t.Endpoint,
		HTTPClient:           c.client,
		MaxEventSize:         -1,
		DisableStandaloneSSE: true, // the SDK opens it only for its own client; listen does
	}).Connect(ctx)
	if err != nil {
		c.cancel()
		return nil, err
	}
	c.inner = inner
	go c.pump()
	return c, nil
}

type msgOrErr struct {
	msg jsonrpc.Message
	big *spooled // a response spooled to a file (see httpSpools)
	err error
}

// httpConn is a connection to an upstream over streamable HTTP.
type httpConn struct {
	endpoint string
	header   http.Header
	client   *http.Client
	inner    mcp.Connection
	ctx      context.Context
	cancel   context.CancelFunc

	in   chan msgOrErr
	done chan struct{}
	// spools holds the large responses read from the server, in files.
	spools *httpSpools

	mu       sync.Mutex
	initID   jsonrpc.ID // the client's initialize request
	version  string     // the negotiated protocol version
	listenMu sync.Once
	closeMu  sync.Once
}

func (c *httpConn) protocolVersion() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// pump moves the SDK connection's messages to in, noting the protocol
// version the server negotiates.
func (c *httpConn) pump() {
	for {
		msg, err := c.inner.Read(c.ctx)
		if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
			c.mu.Lock()
			if c.initID.IsValid() && resp.ID == c.initID && resp.Error == nil {
				var r struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(resp.Result, &r) == nil {
					c.version = r.ProtocolVersion
				}
			}
			c.mu.Unlock()
		}
		m := msgOrErr{msg: msg, err: err}
		if err == nil {
			if sp := c.spools.take(msg); sp != nil {
				m = msgOrErr{big: sp}
			}
		}
		if !c.deliver(m) {
			if m.big != nil {
				m.big.close()
			}
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *httpConn) deliver(m msgOrErr) bool {
	select {
	case c.in <- m:
		return true
	case <-c.done:
		return false
	}
}

// Read returns the next message from the server, from the response to a
// request or from the standalone stream, read into memory however long it
// is.
func (c *httpConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, big, err := c.readMessage(ctx)
	if big != nil {
		return big.message()
	}
	return m, err
}

// readMessage returns the next message, or a response larger than
// spoolAt as it is in a spool file (see httpSpools).
func (c *httpConn) readMessage(ctx context.Context) (jsonrpc.Message, *spooled, error) {
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-c.done:
		return nil, nil, io.EOF
	case m := <-c.in:
		return m.msg, m.big, m.err
	}
}

// Write sends a message to the server. Once the client's initialized
// notification is through, it opens the standalone stream.
func (c *httpConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, isReq := msg.(*jsonrpc.Request)
	if isReq && req.Method == methodInitialize && req.IsCall() {
		c.mu.Lock()
		c.initID = req.ID
		c.mu.Unlock()
	}
	if err := c.inner.Write(ctx, msg); err != nil {
		return err
	}
	if isReq && req.Method == "notifications/initialized" {
		c.listenMu.Do(func() { go c.listen() })
	}
	return nil
}

// Close ends the session with the server.
func (c *httpConn) Close() error {
	var err error
	c.closeMu.Do(func() {
		c.cancel()
		close(c.done)
		err = c.inner.Close()
		c.spools.closeAll()
	})
	return err
}

// SessionID returns the server's session ID.
func (c *httpConn) SessionID() string { return c.inner.SessionID() }

// listen holds the standalone SSE stream open, reconnecting with
// Last-Event-ID when it breaks, until the connection closes or the server
// says it offers no such stream.
func (c *httpConn) listen() {
	lastID := ""
	failures := 0
	for c.ctx.Err() == nil && failures < 5 {
		req, err := http.NewRequestWithContext(c.ctx, http.MethodGet, c.endpoint, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		if sid := c.inner.SessionID(); sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := c.client.Do(req)
		switch {
		case err != nil:
			failures++
		case resp.StatusCode >= 400 && resp.StatusCode < 500:
			resp.Body.Close()
			return // no standalone stream here (405), or no session
		case resp.StatusCode < 200 || resp.StatusCode >= 300:
			resp.Body.Close()
			failures++
		default:
			if c.readEvents(resp.Body, &lastID) {
				failures = 0
			} else {
				failures++
			}
			resp.Body.Close()
		}
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// readEvents relays the messages of an SSE stream and reports whether it
// carried any.
func (c *httpConn) readEvents(r io.Reader, lastID *string) bool {
	br := bufio.NewReader(r)
	var data bytes.Buffer
	hasData, got := false, false
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 && (err == nil || hasData) {
			if hasData {
				if msg, derr := jsonrpc.DecodeMessage(data.Bytes()); derr == nil {
					if !c.deliver(msgOrErr{msg: msg}) {
						return got
					}
					got = true
				}
			}
			data.Reset()
			hasData = false
		} else if len(line) > 0 && line[0] != ':' {
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.Write(value)
				hasData = true
			case "id":
				*lastID = string(value)
			}
		}
		if err != nil {
			return got
		}
	}
}

// headerTransport adds the configured headers and the negotiated protocol
// version to every request.
type headerTransport struct {
	base http.RoundTripper
	conn *httpConn
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.conn.header {
		req.Header[http.CanonicalHeaderKey(k)] = vs
	}
	if req.Header.Get("Mcp-Protocol-Version") == "" {
		if v := t.conn.protocolVersion(); v != "" {
			req.Header.Set("Mcp-Protocol-Version", v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && resp.StatusCode >= 200 && resp.StatusCode < 300 {
		resp.Body = t.conn.spools.spoolBody(resp)
	}
	return resp, err
}
