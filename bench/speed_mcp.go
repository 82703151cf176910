package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/mcpproxy"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ModeMCP measures the MCP proxy: one tools/call whose result is a text of
// the given size (the log repeated), from an upstream server that is a
// process of its own, through a proxy served in the measuring process, so
// that the peak memory reported is the proxy's.
const ModeMCP = "mcp"

// ModeMCPSmall measures what the MCP proxy adds to a small tools/call: the
// same client calls the same server, in turns directly and through the
// proxy, and the median time of a call each way is reported.
const ModeMCPSmall = "mcp-small"

// MCPSmallTarget is the most a small call through the proxy may cost, as a
// multiple of the same call made directly.
const MCPSmallTarget = 1.2

// MCPSmallRounds is how many rounds of calls each way the small-call row
// times, unless the spec says otherwise; a round is mcpSmallRound calls.
const MCPSmallRounds = 40

const mcpSmallRound = 50

// MCPMaxSize is the largest result the MCP row is measured at: the largest
// of the sizes up to it.
const MCPMaxSize = 100 << 20

// mcpUpstream is the upstream server: it answers the proxy's tools/list,
// then the tools/call with the message in the file $0.
const mcpUpstream = `read -r l; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"read_log","inputSchema":{"type":"object"}}]}}'; read -r l; exec cat "$0"`

// measureMCP writes the upstream's answer to a file, then times one call
// through the proxy.
func measureMCP(ctx context.Context, s OneSpec) (OneResult, error) {
	src, err := LoadSource(s.Corpus, SpeedLog)
	if err != nil {
		return OneResult{}, err
	}
	q, _ := json.Marshal(string(src))
	msg := filepath.Join(s.Dir, "mcp-answer.json")
	f, err := os.Create(msg)
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: %w", err)
	}
	body := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`),
		Repeat(q[1:len(q)-1], `\n`, s.Size), strings.NewReader("\"}]}}\n"))
	n, err := io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: writing the upstream's answer: %w", err)
	}
	p, closeProxy, err := speedProxy(filepath.Join(s.Dir, "mcp-store"))
	if err != nil {
		return OneResult{}, err
	}
	defer closeProxy()
	up := &mcpproxy.CommandTransport{Command: exec.Command("sh", "-c", mcpUpstream, msg), Stderr: io.Discard}
	cr, cw := io.Pipe() // client → proxy
	pr, pw := io.Pipe() // proxy → client
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, mcpproxy.Stdio(cr, pw), up) }()
	in := bufio.NewReaderSize(pr, 64<<10)
	call := func(line string) (string, error) {
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			return "", err
		}
		return in.ReadString('\n')
	}
	if _, err := call(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`); err != nil {
		return OneResult{}, fmt.Errorf("bench: tools/list through the proxy: %w", err)
	}
	start := time.Now()
	resp, err := call(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_log","arguments":{}}}`)
	elapsed := time.Since(start)
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: tools/call through the proxy: %w", err)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(resp), &r); err != nil || r.Error != nil || len(r.Result) == 0 {
		return OneResult{}, fmt.Errorf("bench: the proxy answered %.300s", resp)
	}
	cw.Close()
	if err := <-done; err != nil {
		return OneResult{}, err
	}
	return OneResult{Bytes: n, Seconds: elapsed.Seconds(), ViewTokens: tokens.O200k().Count(string(r.Result))}, nil
}

// mcpRowSize is the size the MCP row is measured at: the largest of sizes
// up to MCPMaxSize, else the smallest; 0 when there are none.
func mcpRowSize(sizes []int64) int64 {
	var best int64
	for _, n := range sizes {
		if n <= MCPMaxSize && n > best {
			best = n
		}
	}
	if best == 0 && len(sizes) > 0 {
		best = slices.Min(sizes)
	}
	return best
}

// measureMCPSmall times small tools/call requests made by the Go SDK's
// client to an MCP server of the Go SDK's, served in this process over
// pipes: directly, and through a proxy that reads both sides as crumb mcp
// does (mcpproxy.Stdio). The result is the first whole lines of the log
// within PassThroughBytes, under any threshold, so that it passes through.
// The two sessions take turns, a round of calls each, each first in turn,
// so that a slow spell of the machine falls on both alike; Seconds is the
// median time of a call through the proxy over the rounds, BaseSeconds the
// direct call's.
func measureMCPSmall(ctx context.Context, s OneSpec) (OneResult, error) {
	src, err := LoadSource(s.Corpus, SpeedLog)
	if err != nil {
		return OneResult{}, err
	}
	text := string(cutAtBoundary(src[:min(len(src), PassThroughBytes)], "\n"))
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench-upstream", Version: "0"}, nil)
	srv.AddTool(&mcp.Tool{Name: "read_log", Description: "Returns the head of a log.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	// serve serves srv on a pair of pipes and returns their other ends.
	serve := func() (io.ReadCloser, io.WriteCloser, error) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		closers = append(closers, inR, inW, outR, outW)
		if _, err := srv.Connect(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}, nil); err != nil {
			return nil, nil, fmt.Errorf("bench: serving the upstream: %w", err)
		}
		return outR, inW, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	r, w, err := serve()
	if err != nil {
		return OneResult{}, err
	}
	direct, err := client.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: connecting to the upstream: %w", err)
	}
	defer direct.Close()

	p, closeProxy, err := speedProxy(filepath.Join(s.Dir, "mcp-small-store"))
	if err != nil {
		return OneResult{}, err
	}
	defer closeProxy()
	upR, upW, err := serve()
	if err != nil {
		return OneResult{}, err
	}
	cr, cw := io.Pipe() // client → proxy
	pr, pw := io.Pipe() // proxy → client
	closers = append(closers, cr, cw, pr, pw)
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, mcpproxy.Stdio(cr, pw), mcpproxy.Stdio(upR, upW)) }()
	proxied, err := client.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: cw}, nil)
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: connecting through the proxy: %w", err)
	}
	defer proxied.Close()

	params := &mcp.CallToolParams{Name: "read_log", Arguments: map[string]any{}}
	var size int64
	call := func(cs *mcp.ClientSession) error {
		res, err := cs.CallTool(ctx, params)
		if err != nil {
			return fmt.Errorf("bench: a small tools/call: %w", err)
		}
		if tc, ok := res.Content[0].(*mcp.TextContent); len(res.Content) != 1 || !ok || tc.Text != text {
			return fmt.Errorf("bench: a small tools/call did not pass through: %+v", res.Content)
		}
		size = int64(len(text))
		return nil
	}
	sessions := []*mcp.ClientSession{direct, proxied}
	rounds := s.Runs
	if rounds <= 0 {
		rounds = MCPSmallRounds
	}
	var times [2][]time.Duration
	for n := -1; n < rounds; n++ { // the first round warms up
		for j := range sessions {
			i := (j + max(n, 0)) % 2
			start := time.Now()
			for range mcpSmallRound {
				if err := call(sessions[i]); err != nil {
					return OneResult{}, err
				}
			}
			if n >= 0 {
				times[i] = append(times[i], time.Since(start)/mcpSmallRound)
			}
		}
	}
	proxied.Close()
	if err := <-done; err != nil {
		return OneResult{}, err
	}
	med := func(ts []time.Duration) float64 {
		m, _ := quantiles(ts)
		return m.Seconds()
	}
	return OneResult{Bytes: size, Seconds: med(times[1]), BaseSeconds: med(times[0]), BaseName: "direct call",
		Runs: rounds * mcpSmallRound}, nil
}

// mcpSmallLine says what the small-call row measured, for WriteSpeed.
func mcpSmallLine(m OneResult) string {
	return fmt.Sprintf("a %s text result of a tools/call, Go SDK client and server: %s through the MCP proxy, %s directly (%.2f×; medians of rounds, %d calls each way)",
		textfmt.Size(m.Bytes), seconds(m.Seconds), seconds(m.BaseSeconds), m.Seconds/m.BaseSeconds, m.Runs)
}

// mcpSmallTarget is the small-call row beside its target.
func mcpSmallTarget(m OneResult) Target {
	ratio := m.Seconds / m.BaseSeconds
	return Target{"MCP proxy, a small call (" + textfmt.Size(m.Bytes) + ") vs a direct call",
		fmt.Sprintf("%.2f× (%s vs %s)", ratio, seconds(m.Seconds), seconds(m.BaseSeconds)),
		fmt.Sprintf("≤ %.1f×", MCPSmallTarget), ratio <= MCPSmallTarget}
}

// speedProxy opens a store in dir and an MCP proxy over it, on crumb's
// defaults; close closes both.
func speedProxy(dir string) (p *mcpproxy.Proxy, close func(), err error) {
	st, err := store.OpenDir(dir, store.DirOptions{})
	if err != nil {
		return nil, nil, err
	}
	if p, err = mcpproxy.New(mcpproxy.Config{Guard: crumb.Config{Store: st}}); err != nil {
		st.Close()
		return nil, nil, err
	}
	return p, func() { p.Close(); st.Close() }, nil
}
