package mcpproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"github.com/crumb-dev/crumb/internal/netaddr"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler serves the proxy over streamable HTTP, the MCP transport for
// servers reached by URL. Each client session (a POST without an
// Mcp-Session-Id header) gets a connection to the upstream of its own: for a
// command, a process of its own.
//
// It answers every path, and refuses requests to a loopback address whose
// Host header names another host (DNS rebinding), as the SDK's handler does.
type HTTPHandler struct {
	p        *Proxy
	upstream func() mcp.Transport

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*httpSession
	wg       sync.WaitGroup
}

type httpSession struct {
	transport *mcp.StreamableServerTransport
	conn      mcp.Connection
}

// NewHTTPHandler returns a handler that serves p, connecting each session to
// a new upstream transport from upstream.
func NewHTTPHandler(p *Proxy, upstream func() mcp.Transport) *HTTPHandler {
	ctx, cancel := context.WithCancel(context.Background())
	return &HTTPHandler{p: p, upstream: upstream, ctx: ctx, cancel: cancel, sessions: map[string]*httpSession{}}
}

// Close ends every session and waits for their upstream connections to
// close.
func (h *HTTPHandler) Close() error {
	h.cancel()
	h.mu.Lock()
	for _, s := range h.sessions {
		s.conn.Close()
	}
	h.mu.Unlock()
	h.wg.Wait()
	return nil
}

const sessionHeader = "Mcp-Session-Id"

// ServeHTTP serves one request of the streamable HTTP transport.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && netaddr.IsLoopback(local.String()) && !netaddr.IsLoopback(r.Host) {
		http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
		return
	}
	sid := r.Header.Get(sessionHeader)
	switch r.Method {
	case http.MethodPost:
		if sid == "" {
			h.start(w, r)
			return
		}
		if s := h.lookup(w, sid); s != nil {
			s.transport.ServeHTTP(w, r)
		}
	case http.MethodGet:
		if sid == "" {
			http.Error(w, "Bad Request: GET requires an Mcp-Session-Id header", http.StatusBadRequest)
			return
		}
		if s := h.lookup(w, sid); s != nil {
			s.transport.ServeHTTP(w, r)
		}
	case http.MethodDelete:
		if sid == "" {
			http.Error(w, "Bad Request: DELETE requires an Mcp-Session-Id header", http.StatusBadRequest)
			return
		}
		if s := h.lookup(w, sid); s != nil {
			s.conn.Close()
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// sessionCount returns the number of sessions open.
func (h *HTTPHandler) sessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *HTTPHandler) lookup(w http.ResponseWriter, sid string) *httpSession {
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil {
		http.Error(w, "session not found", http.StatusNotFound)
	}
	return s
}

// start opens a session: it connects to the upstream, then relays between
// the two until the client deletes the session or the handler closes.
func (h *HTTPHandler) start(w http.ResponseWriter, r *http.Request) {
	if h.ctx.Err() != nil {
		http.Error(w, "server is closing", http.StatusServiceUnavailable)
		return
	}
	up, err := h.upstream().Connect(h.ctx)
	if err != nil {
		h.p.log.Warn("crumb mcp: connecting to the upstream server", "err", err)
		http.Error(w, "crumb: cannot reach the upstream server: "+err.Error(), http.StatusBadGateway)
		return
	}
	sid := rand.Text()
	t := &mcp.StreamableServerTransport{SessionID: sid}
	down, err := t.Connect(h.ctx)
	if err != nil {
		up.Close()
		http.Error(w, "crumb: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s := &httpSession{transport: t, conn: down}
	// A first message other than initialize (a server/discover probe of a
	// newer client) gets a session that ends with its request, as the SDK's
	// own handler does; only an initialize opens a session that lasts.
	ephemeral := !isInitialize(r)
	if !ephemeral {
		h.mu.Lock()
		h.sessions[sid] = s
		h.mu.Unlock()
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		if err := h.p.serve(h.ctx, down, up); err != nil {
			h.p.log.Warn("crumb mcp: session ended", "session", sid, "err", err)
		}
		h.mu.Lock()
		delete(h.sessions, sid)
		h.mu.Unlock()
	}()
	t.ServeHTTP(w, r)
	if ephemeral {
		down.Close()
	}
}

// maxBody is the most bytes of a client's POST read to look at it.
const maxBody = 64 << 20

// isInitialize reports whether a POST carries an initialize request, and
// leaves its body to be read again.
func isInitialize(r *http.Request) bool {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == methodInitialize
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) == nil {
		for _, m := range batch {
			if m.Method == methodInitialize {
				return true
			}
		}
	}
	return false
}
