package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CodeUpstream is the JSON-RPC error code of calls that fail because the
// upstream server is gone or could not be reached: a code of the range
// JSON-RPC leaves to implementations.
const CodeUpstream = -32000

// MCP methods the proxy looks at.
const (
	methodToolsList  = "tools/list"
	methodToolsCall  = "tools/call"
	methodCancelled  = "notifications/cancelled"
	methodInitialize = "initialize"
)

// call is a client request forwarded upstream, awaiting its response.
type call struct {
	method string
	tool   string          // tools/call: the tool's name
	args   json.RawMessage // tools/call: its arguments
	first  bool            // tools/list: the first page (no cursor)
	// internal, when set, receives the response of a request the proxy
	// made itself; it never reaches the client.
	internal chan *jsonrpc.Response
}

// toolInfo is what the proxy knows of an upstream tool.
type toolInfo struct {
	// outputSchema is the tool's outputSchema, or the JSON null when it
	// declared none.
	outputSchema json.RawMessage
}

// session relays one client's messages to one upstream connection and back.
type session struct {
	p    *Proxy
	down mcp.Connection
	up   mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]*call
	dead    error               // why the upstream is gone; nil while it is up
	tools   map[string]toolInfo // upstream tools, from tools/list responses
	shadow  map[string]bool     // crumb tool names the upstream offers itself
	listed  bool                // the tools were listed (by the client or the proxy)
	nextID  int                 // for the proxy's own requests

	wg sync.WaitGroup // goroutines answering calls
}

func newSession(p *Proxy, down, up mcp.Connection) *session {
	return &session{
		p: p, down: down, up: up,
		pending: map[jsonrpc.ID]*call{},
		tools:   map[string]toolInfo{},
		shadow:  map[string]bool{},
	}
}

// run relays messages until the client disconnects or ctx ends.
func (s *session) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		s.readUpstream(ctx)
	}()
	err := s.readDownstream(ctx)
	cancel()
	// Closing the upstream ends its process (for a command) and its reader.
	if cerr := s.up.Close(); cerr != nil {
		s.p.log.Debug("crumb mcp: closing the upstream connection", "err", cerr)
	}
	<-upDone
	s.wg.Wait()
	s.down.Close()
	return err
}

// readDownstream relays the client's messages until its connection ends.
func (s *session) readDownstream(ctx context.Context) error {
	for {
		msg, err := s.down.Read(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("mcpproxy: reading from the client: %w", err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				s.clientCall(ctx, m)
				continue
			}
			if m.Method == methodCancelled {
				s.forget(m.Params)
			}
			s.forwardUp(ctx, m)
		case *jsonrpc.Response:
			// The client's answer to a request the upstream made of it.
			s.forwardUp(ctx, m)
		}
	}
}

// clientCall handles a request from the client: crumb's tools are answered
// here, everything else goes upstream.
func (s *session) clientCall(ctx context.Context, m *jsonrpc.Request) {
	c := &call{method: m.Method}
	switch m.Method {
	case methodToolsCall:
		// A malformed call goes upstream, which answers it as it would.
		if name, args, ok := callParams(m.Params); ok {
			if s.isOwn(name) {
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					s.writeDown(ctx, s.answerOwn(ctx, m.ID, name, args))
				}()
				return
			}
			c.tool, c.args = name, args
		}
	case methodToolsList:
		var params struct {
			Cursor *string `json:"cursor"`
		}
		_ = json.Unmarshal(m.Params, &params)
		c.first = params.Cursor == nil || *params.Cursor == ""
	}
	s.mu.Lock()
	if s.dead != nil {
		dead := s.dead
		s.mu.Unlock()
		s.writeDown(ctx, errorResponse(m.ID, dead.Error()))
		return
	}
	s.pending[m.ID] = c
	s.mu.Unlock()
	if err := s.up.Write(ctx, m); err != nil {
		s.mu.Lock()
		_, still := s.pending[m.ID]
		delete(s.pending, m.ID)
		s.mu.Unlock()
		if still && ctx.Err() == nil {
			s.writeDown(ctx, errorResponse(m.ID, "crumb: sending the request to the upstream server failed: "+err.Error()))
		}
	}
}

// forget drops the pending call a cancellation names: the upstream need not
// answer it.
func (s *session) forget(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	s.mu.Lock()
	delete(s.pending, id)
	s.mu.Unlock()
}

// callParams returns the name and the arguments of a tools/call's params;
// ok is false when they are not an object whose name is a string. The
// arguments are a slice of params.
func callParams(params json.RawMessage) (name string, args json.RawMessage, ok bool) {
	var rawName []byte
	err := members(params, func(k, v []byte) error {
		switch {
		case keyIs(k, "name"):
			rawName = v
		case keyIs(k, "arguments"):
			args = v
		}
		return nil
	})
	if err != nil {
		return "", nil, false
	}
	if rawName == nil {
		return "", args, true
	}
	name, ok = unquote(rawName)
	return name, args, ok
}

// isOwn reports whether a call names one of crumb's tools that the
// upstream does not shadow.
func (s *session) isOwn(name string) bool {
	if n := s.p.names; name != n.Read && name != n.Search && name != n.Query {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.shadow[name]
}

// forwardUp sends a notification or a response upstream; while the upstream
// is gone there is nobody to send it to.
func (s *session) forwardUp(ctx context.Context, m jsonrpc.Message) {
	s.mu.Lock()
	dead := s.dead
	s.mu.Unlock()
	if dead != nil {
		return
	}
	if err := s.up.Write(ctx, m); err != nil && ctx.Err() == nil {
		s.p.log.Warn("crumb mcp: forwarding a message to the upstream server failed", "err", err)
	}
}

// spoolingConn is a connection that can hand over a large message as it
// is in a spool file, unread (see stdioConn).
type spoolingConn interface {
	readMessage(ctx context.Context) (jsonrpc.Message, *spooled, error)
}

// readUpstream relays the upstream's messages until its connection ends.
func (s *session) readUpstream(ctx context.Context) {
	sc, _ := s.up.(spoolingConn)
	for {
		var (
			msg jsonrpc.Message
			big *spooled
			err error
		)
		if sc != nil {
			msg, big, err = sc.readMessage(ctx)
		} else {
			msg, err = s.up.Read(ctx)
		}
		if err != nil {
			s.upstreamGone(ctx, err)
			return
		}
		if big != nil {
			if msg, err = s.spooledMessage(ctx, big); err != nil {
				s.p.log.Warn("crumb mcp: skipping a message of the upstream server", "err", err)
				continue
			}
			if msg == nil {
				continue // a tools/call result, being projected
			}
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			// A notification, or a request the upstream makes of the client.
			s.writeDown(ctx, m)
		case *jsonrpc.Response:
			c := s.take(m.ID)
			switch {
			case c == nil:
				s.writeDown(ctx, m)
			case c.internal != nil:
				c.internal <- m
			case c.method == methodToolsList:
				s.writeDown(ctx, s.listTools(m, c))
			case c.method == methodToolsCall && s.p.guard.Passes(c.tool, len(m.Result)):
				// It goes to the client as it came, at once, neither stored
				// nor projected (see project).
				s.writeDown(ctx, m)
			case c.method == methodToolsCall:
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					s.writeDown(ctx, s.project(ctx, c, m.ID, inMemory(m)))
				}()
			default:
				s.writeDown(ctx, m)
			}
		}
	}
}

// take removes and returns the pending call of an ID.
func (s *session) take(id jsonrpc.ID) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.pending[id]
	delete(s.pending, id)
	return c
}

// spooledMessage handles a message held in a spool file: the result of a
// tools/call is projected from the file, in a goroutine of its own (and
// nil is returned); any other message is read into memory and returned.
func (s *session) spooledMessage(ctx context.Context, big *spooled) (jsonrpc.Message, error) {
	if big.request || !big.hasResult {
		return big.message()
	}
	s.mu.Lock()
	c := s.pending[big.id]
	if c == nil || c.method != methodToolsCall || c.internal != nil {
		s.mu.Unlock()
		return big.message()
	}
	delete(s.pending, big.id)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer big.close()
		s.writeDown(ctx, s.project(ctx, c, big.id, fromSpool(big)))
	}()
	return nil, nil
}

// upstreamGone records why the upstream connection ended and fails every
// call in flight with that reason.
func (s *session) upstreamGone(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return // the session is ending; the client is gone
	}
	reason := "crumb: upstream server connection failed: " + err.Error()
	if er, ok := s.up.(interface{ exitReason(string) string }); ok {
		var pe *partialError
		switch {
		case errors.As(err, &pe):
			reason = "crumb: " + er.exitReason(fmt.Sprintf(" in the middle of a message (%d bytes of it were read)", pe.n))
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed):
			reason = "crumb: " + er.exitReason("")
		}
	}
	s.mu.Lock()
	s.dead = errors.New(reason)
	pending := s.pending
	s.pending = map[jsonrpc.ID]*call{}
	s.mu.Unlock()
	s.p.log.Warn(reason)
	for id := range pending {
		s.writeDown(ctx, errorResponse(id, reason))
	}
}

func (s *session) writeDown(ctx context.Context, m jsonrpc.Message) {
	err := s.down.Write(ctx, m)
	if err == nil || ctx.Err() != nil {
		return
	}
	// A notification the client has no stream open for (streamable HTTP
	// without the standalone stream) is the client's choice; a response
	// that cannot be delivered is worth a warning.
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsCall() {
		s.p.log.Debug("crumb mcp: a notification did not reach the client", "method", req.Method, "err", err)
		return
	}
	s.p.log.Warn("crumb mcp: writing to the client failed", "err", err)
}

func errorResponse(id jsonrpc.ID, msg string) *jsonrpc.Response {
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: CodeUpstream, Message: msg}}
}

// listTools records the upstream's tools and appends crumb's to the first
// page. A result it cannot read passes through unchanged.
func (s *session) listTools(m *jsonrpc.Response, c *call) *jsonrpc.Response {
	if m.Error != nil || len(m.Result) == 0 {
		return m
	}
	obj, err := jsonobj.Parse(m.Result)
	if err != nil {
		s.p.log.Warn("crumb mcp: tools/list result is not an object; passing it through", "err", err)
		return m
	}
	raw, ok := obj.Get("tools")
	if !ok {
		return m
	}
	var tools []struct {
		Name         string          `json:"name"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &tools); err != nil {
		s.p.log.Warn("crumb mcp: tools/list result has no list of tools; passing it through", "err", err)
		return m
	}
	s.mu.Lock()
	s.listed = true
	if c.first {
		s.shadow = map[string]bool{}
	}
	for _, t := range tools {
		schema := t.OutputSchema
		if len(schema) == 0 {
			schema = json.RawMessage("null")
		}
		s.tools[t.Name] = toolInfo{outputSchema: schema}
		for _, own := range s.p.names.list() {
			if t.Name == own {
				s.shadow[own] = true
			}
		}
	}
	shadow := make(map[string]bool, len(s.shadow))
	for k, v := range s.shadow {
		shadow[k] = v
	}
	s.mu.Unlock()
	if !c.first {
		return m
	}
	var add []json.RawMessage
	for i, t := range s.p.toolDefs() {
		name := s.p.names.list()[i]
		if shadow[name] {
			s.p.log.Warn("crumb mcp: the upstream server has a tool of the same name as one of crumb's; crumb's is left out (rename it in the config file)", "tool", name)
			continue
		}
		add = append(add, t)
	}
	arr, err := jsonobj.AppendArray(raw, add...)
	if err != nil {
		return m
	}
	obj.Set("tools", arr)
	return &jsonrpc.Response{ID: m.ID, Result: obj.Bytes()}
}

// listUpstreamTools asks the upstream for its tools itself, once a session,
// when a tool is called before the client listed them: the projection of a
// result needs to know the tool's outputSchema. The request's ID is a
// string of the proxy's own, which no client's ID collides with in
// practice, and its response never reaches the client.
func (s *session) listUpstreamTools(ctx context.Context) {
	s.mu.Lock()
	if s.listed || s.dead != nil {
		s.mu.Unlock()
		return
	}
	s.listed = true
	s.mu.Unlock()
	cursor := ""
	for page := 0; page < 100; page++ {
		s.mu.Lock()
		s.nextID++
		id, _ := jsonrpc.MakeID(fmt.Sprintf("crumb-tools-list-%d", s.nextID))
		c := &call{method: methodToolsList, first: false, internal: make(chan *jsonrpc.Response, 1)}
		s.pending[id] = c
		s.mu.Unlock()
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params = jsonobj.Marshal(map[string]string{"cursor": cursor})
		}
		if err := s.up.Write(ctx, &jsonrpc.Request{ID: id, Method: methodToolsList, Params: params}); err != nil {
			s.mu.Lock()
			delete(s.pending, id)
			s.mu.Unlock()
			return
		}
		var resp *jsonrpc.Response
		select {
		case resp = <-c.internal:
		case <-ctx.Done():
			return
		case <-time.After(10 * time.Second):
			s.mu.Lock()
			delete(s.pending, id)
			s.mu.Unlock()
			s.p.log.Warn("crumb mcp: the upstream did not answer crumb's tools/list")
			return
		}
		if resp.Error != nil {
			return
		}
		s.listTools(resp, c)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		if json.Unmarshal(resp.Result, &next) != nil || next.NextCursor == "" {
			return
		}
		cursor = next.NextCursor
	}
}

// outputSchema returns the outputSchema the upstream declared for a tool:
// the JSON null when it declared none, empty when the tool was never listed.
func (s *session) outputSchema(tool string) json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tools[tool].outputSchema
}
