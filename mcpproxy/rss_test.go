package mcpproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crumb-dev/crumb/internal/procmem"
)

// rssLimit is the most memory (peak resident set) crumb mcp may take for
// one tools/call result of 100 MB or more, whatever it is made of.
const rssLimit = 100 << 20

// buildCrumb returns the crumb command built for this test binary: built
// once, by the first test that asks, into the temporary home testhome.Main
// removes at the end of the run (a build takes seconds of CPU, and every
// test that runs crumb as a process shares it). The crumb at
// $CRUMB_TEST_BIN is used instead when it is set (to measure another
// build).
func buildCrumb(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CRUMB_TEST_BIN"); bin != "" {
		return bin
	}
	crumbBuild.once.Do(func() {
		dir, err := os.MkdirTemp(os.Getenv("HOME"), "crumb-bin-")
		if err != nil {
			crumbBuild.err = err
			return
		}
		crumbBuild.bin = filepath.Join(dir, "crumb")
		if out, err := exec.Command("go", "build", "-o", crumbBuild.bin, "github.com/crumb-dev/crumb/cmd/crumb").CombinedOutput(); err != nil {
			crumbBuild.err = fmt.Errorf("go build: %w: %s", err, out)
		}
	})
	if crumbBuild.err != nil {
		t.Fatal(crumbBuild.err)
	}
	return crumbBuild.bin
}

// crumbBuild is buildCrumb's one build.
var crumbBuild struct {
	once sync.Once
	bin  string
	err  error
}

// peakRSS returns a process's peak resident set (VmHWM), in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	n, err := procmem.Peak(pid)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mcpPeak runs crumb mcp (bin) with args, makes one tools/call of tool with
// args, and returns the call's result and crumb's peak resident set
// while it answered.
func mcpPeak(t *testing.T, bin string, env []string, mcpArgs []string, tool, toolArgs string) (json.RawMessage, int64) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "--store", t.TempDir()}, mcpArgs...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = testWriter{t}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() {
		in.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	lines := make(chan []byte, 16)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(outPipe, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		cmd.Wait()
		close(done)
	}()
	call := func(id int, method, params string) map[string]json.RawMessage {
		t.Helper()
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		timeout := time.After(10 * time.Minute)
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("crumb mcp ended before answering %s", method)
				}
				var m map[string]json.RawMessage
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("crumb mcp wrote %.200q: %v", line, err)
				}
				if string(m["id"]) == strconv.Itoa(id) {
					return m
				}
			case <-timeout:
				t.Fatalf("no answer to %s", method)
			}
		}
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rss","version":"0"}}`)
	fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call(2, "tools/list", `{}`)
	resp := call(3, "tools/call", `{"name":"`+tool+`","arguments":`+toolArgs+`}`)
	if e, ok := resp["error"]; ok {
		t.Fatalf("the call failed: %s", e)
	}
	return resp["result"], peakRSS(t, cmd.Process.Pid)
}

// httpBigServer serves, over streamable HTTP, a tool "text" whose result
// is a text of mb megabytes, and a tool "bulk" whose structuredContent is
// mb megabytes of small objects.
func httpBigServer(t testing.TB, jsonResponse bool) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "big-http", Version: "1"}, nil)
	type args struct {
		MB int `json:"mb"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "text", Description: "MB megabytes of text"}, func(ctx context.Context, req *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
		line := strings.Repeat("0123456789abcdef", 4) + "\n"
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(line, in.MB<<20/len(line))}}}, nil, nil
	})
	srv.AddTool(&mcp.Tool{Name: "bulk", Description: "MB megabytes of small objects", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in args
			json.Unmarshal(req.Params.Arguments, &in)
			var res mcp.CallToolResult
			if err := json.Unmarshal([]byte(fakeBulk(in.MB)), &res); err != nil {
				return nil, err
			}
			return &res, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestPeakRSS: crumb mcp, a real process, stays under 100 MB of memory on
// a tools/call result of 100 MB or more, from a server on stdio or one
// reached by URL, a text or a structuredContent of small objects (which
// took 1.73 GB; and a server by URL had its messages held whole).
func TestPeakRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds crumb and moves hundreds of megabytes; skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak resident set from /proc")
	}
	if raceEnabled {
		// The crumb it measures is built without -race either way; under
		// -race only the upstreams the test plays, which write the 100 MB
		// results, are slowed (the five cases took 828 s on 2 cores).
		t.Skip("measures a crumb built without -race against upstreams that -race slows many times; .ci/run runs it without -race")
	}
	bin := buildCrumb(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stdio := []string{"--", exe, "-test.run=^$"}
	fake := []string{"CRUMB_FAKE_UPSTREAM="}
	cases := []struct {
		name     string
		env      []string
		args     func(t *testing.T) []string
		tool     string
		toolArgs string
		want     string // in the view
	}{
		{"stdio structured", fake, func(*testing.T) []string { return stdio }, "bulk", `{"mb":133}`, "structuredContent (139.5 MB of small values)"},
		{"stdio text", fake, func(*testing.T) []string { return stdio }, "huge", `{"mb":100}`, "104.9 MB"},
		{"http sse text", nil, func(t *testing.T) []string { return []string{"--upstream", httpBigServer(t, false)} }, "text", `{"mb":100}`, "104.9 MB"},
		{"http json text", nil, func(t *testing.T) []string { return []string{"--upstream", httpBigServer(t, true)} }, "text", `{"mb":100}`, "104.9 MB"},
		{"http structured", nil, func(t *testing.T) []string { return []string{"--upstream", httpBigServer(t, false)} }, "bulk", `{"mb":133}`, "structuredContent (139.5 MB of small values)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, peak := mcpPeak(t, bin, tc.env, tc.args(t), tc.tool, tc.toolArgs)
			t.Logf("peak RSS of crumb mcp: %.1f MB; the result the client got: %d bytes", float64(peak)/(1<<20), len(res))
			if len(res) > 64<<10 {
				t.Errorf("the client got %d bytes", len(res))
			}
			if !strings.Contains(string(res), tc.want) {
				t.Errorf("the view does not say %q: %.600s", tc.want, res)
			}
			if peak > rssLimit {
				t.Errorf("crumb mcp peaked at %.1f MB of memory, over %d MB", float64(peak)/(1<<20), rssLimit>>20)
			}
		})
	}
}
