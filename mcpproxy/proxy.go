package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Names are the names of the tools the proxy adds.
type Names struct {
	// Read reads a saved result by lines or bytes (default "crumb_read").
	Read string
	// Search searches a saved result with a pattern (default "crumb_search").
	Search string
	// Query selects from a saved JSON result with jq or a JSON pointer
	// (default "crumb_query").
	Query string
}

// DefaultNames are the names of crumb's tools when none are configured.
var DefaultNames = Names{Read: "crumb_read", Search: "crumb_search", Query: "crumb_query"}

// validToolName reports whether MCP allows name as a tool name: 1 to 128
// letters, digits, '_', '.' or '-'. (Checked by hand: the regular
// expression's {1,128} compiled 128 copies of a class at every start.)
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

func (n Names) withDefaults() Names {
	if n.Read == "" {
		n.Read = DefaultNames.Read
	}
	if n.Search == "" {
		n.Search = DefaultNames.Search
	}
	if n.Query == "" {
		n.Query = DefaultNames.Query
	}
	return n
}

func (n Names) list() []string { return []string{n.Read, n.Search, n.Query} }

func (n Names) validate() error {
	seen := map[string]bool{}
	for _, name := range n.list() {
		if !validToolName(name) {
			return fmt.Errorf("mcpproxy: tool name %q: use 1 to 128 letters, digits, _, - or .", name)
		}
		if seen[name] {
			return fmt.Errorf("mcpproxy: tool name %q is given to two of crumb's tools", name)
		}
		seen[name] = true
	}
	return nil
}

// Config configures a Proxy.
type Config struct {
	// Guard configures the projection of tool results. The proxy sets its
	// Hint, so that views continue with calls of crumb's tools, and adds
	// crumb's tools to its Exempt list. A nil Guard.Store opens the default
	// store. Guard.PageBudget is the most tokens a page of crumb's tools
	// may take (2,000 by default), whatever the views' budget.
	Guard crumb.Config
	// Names are the names of crumb's tools; empty fields take the defaults.
	Names Names
	// Logger receives what the proxy does and why it fell back. Nil
	// discards it.
	Logger *slog.Logger
}

// Proxy serves MCP sessions, each between one client and one upstream
// server. It is safe for concurrent use; sessions share its store.
type Proxy struct {
	guard *crumb.Guard
	names Names
	log   *slog.Logger
	tools []json.RawMessage // crumb's tool definitions, in the order of names.list
	hint  recall.Hint
	// counter counts tokens as the Guard does.
	counter tokens.Counter
	// summaryBytes is the size up to which a result is kept whole for the
	// Guard's summarizer, which reads the exact result (see spill); 0
	// without summaries.
	summaryBytes int64
	// gcfg is the Guard's configuration, for the view of a result that
	// could not be stored (see unstored).
	gcfg crumb.Config
}

// New returns a Proxy with cfg's settings.
func New(cfg Config) (*Proxy, error) {
	names := cfg.Names.withDefaults()
	if err := names.validate(); err != nil {
		return nil, err
	}
	p := &Proxy{names: names, log: cfg.Logger}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.hint = p.renderHint
	gc := cfg.Guard
	if gc.Counter == nil {
		gc.Counter = tokens.O200k()
	}
	p.counter = gc.Counter
	if gc.Summarizer != nil {
		// About 8 bytes a token at most: what the summarizer may take.
		p.summaryBytes = int64(gc.Summarizer.MaxInput()) * 8
	}
	gc.Hint = p.hint
	gc.Exempt = append(append([]string(nil), gc.Exempt...), names.list()...)
	if gc.Logger == nil {
		gc.Logger = p.log
	}
	g, err := crumb.New(gc)
	if err != nil {
		return nil, err
	}
	p.guard = g
	p.gcfg = gc
	p.tools = p.buildTools()
	return p, nil
}

// Guard returns the Guard that projects results; its store holds them.
func (p *Proxy) Guard() *crumb.Guard { return p.guard }

// Names returns the names of crumb's tools.
func (p *Proxy) Names() Names { return p.names }

// Close releases the store if the proxy opened it.
func (p *Proxy) Close() error { return p.guard.Close() }

// Serve runs one session: it connects to the upstream server, then serves the
// client on downstream until the client disconnects or ctx ends, and closes
// the upstream connection (for a command, the process ends). An upstream that
// cannot be reached is an error before anything is served; one that fails
// later is reported to the client call by call.
func (p *Proxy) Serve(ctx context.Context, downstream, upstream mcp.Transport) error {
	up, err := upstream.Connect(ctx)
	if err != nil {
		return fmt.Errorf("mcpproxy: connecting to the upstream server: %w", err)
	}
	down, err := downstream.Connect(ctx)
	if err != nil {
		up.Close()
		return fmt.Errorf("mcpproxy: connecting to the client: %w", err)
	}
	return p.serve(ctx, down, up)
}

// toolDefs returns crumb's tool definitions, in the order of names.list.
func (p *Proxy) toolDefs() []json.RawMessage { return p.tools }

func (p *Proxy) serve(ctx context.Context, down, up mcp.Connection) error {
	for _, c := range []mcp.Connection{down, up} {
		if c, ok := c.(interface{ setLogger(*slog.Logger) }); ok {
			c.setLogger(p.log)
		}
	}
	if c, ok := down.(*stdioConn); ok {
		c.peer = "the client"
	}
	s := newSession(p, down, up)
	err := s.run(ctx)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Transport is a way to reach a peer: an MCP client (the downstream) or an
// MCP server (the upstream). It is the SDK's [mcp.Transport], named here so
// that programs using the proxy need not import the SDK.
type Transport = mcp.Transport

// Stdio returns the transport of a peer on the other end of r and w,
// newline-delimited JSON as MCP's stdio transport speaks it, with no cap on
// the size of a message: a client, or a server the proxy reaches over
// pipes of its own. The proxy reads and writes it as it reads a server run
// as a command (see [CommandTransport]): each message is decoded once, and
// written with one write. Closing the connection closes neither r nor w.
func Stdio(r io.Reader, w io.Writer) Transport {
	return &ioTransport{r: io.NopCloser(r), w: nopWriteCloser{w}}
}

// ioTransport is a transport over a reader and a writer, read and written
// by the proxy's stdio connection.
type ioTransport struct {
	r io.ReadCloser
	w io.WriteCloser
}

// Connect returns the connection; closing it closes r and w.
func (t *ioTransport) Connect(context.Context) (mcp.Connection, error) {
	return newStdioConn(t.r, t.w), nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
