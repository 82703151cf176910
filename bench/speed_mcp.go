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
	"github.com/crumb-dev/crumb/mcpproxy"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// ModeMCP measures the MCP proxy: one tools/call whose result is a text of
// the given size (the log repeated), from an upstream server that is a
// process of its own, through a proxy served in the measuring process, so
// that the peak memory reported is the proxy's.
const ModeMCP = "mcp"

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
	st, err := store.OpenDir(filepath.Join(s.Dir, "mcp-store"), store.DirOptions{})
	if err != nil {
		return OneResult{}, err
	}
	defer st.Close()
	p, err := mcpproxy.New(mcpproxy.Config{Guard: crumb.Config{Store: st}})
	if err != nil {
		return OneResult{}, err
	}
	defer p.Close()
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
