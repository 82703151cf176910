package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelperMCPServer is not a test: run as a subprocess with
// CRUMB_TEST_MCP_SERVER=1, it is a minimal MCP server on stdio, the upstream
// of the tests of crumb mcp.
func TestHelperMCPServer(t *testing.T) {
	if os.Getenv("CRUMB_TEST_MCP_SERVER") != "1" {
		return
	}
	br := bufio.NewReader(os.Stdin)
	for {
		line, err := br.ReadBytes('\n')
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && len(m.ID) > 0 {
			var result string
			switch m.Method {
			case "initialize":
				result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"helper","version":"1"}}`
			case "tools/list":
				result = `{"tools":[{"name":"lines","inputSchema":{"type":"object"}}]}`
			case "tools/call":
				n, _ := m.Params.Arguments["n"].(float64)
				// With "one_line", the lines are joined by spaces: one
				// line, as minified output is.
				sep := "\n"
				if m.Params.Arguments["one_line"] == true {
					sep = " "
				}
				var b strings.Builder
				for i := 1; i <= int(n); i++ {
					fmt.Fprintf(&b, "line %d of the helper's output%s", i, sep)
				}
				text, _ := json.Marshal(b.String())
				result = `{"content":[{"type":"text","text":` + string(text) + `}]}`
			default:
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", m.ID)
				continue
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		}
		if err != nil {
			os.Exit(0)
		}
	}
}

// mcpSession runs crumb mcp in-process in front of the helper server and
// returns a function that sends a request and returns its response.
func mcpSession(t *testing.T, args ...string) (call func(method, params string) map[string]json.RawMessage, stderr *bytes.Buffer) {
	t.Helper()
	return mcpSessionEnv(t, nil, args...)
}

// mcpSessionEnv is mcpSession with more environment variables.
func mcpSessionEnv(t *testing.T, env map[string]string, args ...string) (call func(method, params string) map[string]json.RawMessage, stderr *bytes.Buffer) {
	t.Helper()
	t.Setenv("CRUMB_TEST_MCP_SERVER", "1")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr = &bytes.Buffer{}
	argv := append([]string{"mcp", "--store", t.TempDir()}, args...)
	argv = append(argv, "--", os.Args[0], "-test.run=^TestHelperMCPServer$")
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), argv, inR, outW, stderr, func(k string) string {
			if k == "HOME" {
				return os.Getenv("HOME")
			}
			return env[k]
		})
		outW.Close()
		// A crumb mcp that has exited reads no more: a call's request must
		// fail, not wait for a reader forever.
		inR.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("crumb mcp exited with %d", code)
			}
		case <-time.After(20 * time.Second):
			t.Error("crumb mcp did not exit when its input closed")
		}
	})
	br := bufio.NewReader(outR)
	id := 0
	call = func(method, params string) map[string]json.RawMessage {
		t.Helper()
		id++
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading crumb mcp's output: %v", err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatalf("crumb mcp wrote %q: %v", line, err)
			}
			if string(m["id"]) == fmt.Sprint(id) {
				return m
			}
		}
	}
	return call, stderr
}

func TestMCPCommand(t *testing.T) {
	call, _ := mcpSession(t, "--budget", "300")
	init := call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	if !bytes.Contains(init["result"], []byte(`"name":"helper"`)) {
		t.Fatalf("initialize: %s", init["result"])
	}
	list := call("tools/list", `{}`)
	for _, name := range []string{"lines", "crumb_read", "crumb_search", "crumb_query"} {
		if !bytes.Contains(list["result"], []byte(`"name":"`+name+`"`)) {
			t.Errorf("tools/list lacks %s: %s", name, list["result"])
		}
	}
	small := call("tools/call", `{"name":"lines","arguments":{"n":2}}`)
	if want := `{"content":[{"type":"text","text":"line 1 of the helper's output\nline 2 of the helper's output\n"}]}`; string(small["result"]) != want {
		t.Errorf("small result changed: %s", small["result"])
	}
	big := call("tools/call", `{"name":"lines","arguments":{"n":5000}}`)
	if len(big["result"]) > 4000 || !bytes.Contains(big["result"], []byte(`crumb_read {\"ref\":`)) {
		t.Errorf("big result not projected within the budget (%d bytes): %.300s", len(big["result"]), big["result"])
	}
}

func TestMCPConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "crumb.toml")
	os.WriteFile(cfg, []byte("budget = 300\n[mcp]\nread_tool = \"saved_read\"\n"), 0o644)
	call, _ := mcpSession(t, "--config", cfg)
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	list := call("tools/list", `{}`)
	if !bytes.Contains(list["result"], []byte(`"name":"saved_read"`)) || bytes.Contains(list["result"], []byte(`"name":"crumb_read"`)) {
		t.Errorf("tools/list does not use the configured name: %s", list["result"])
	}
	big := call("tools/call", `{"name":"lines","arguments":{"n":5000}}`)
	if !bytes.Contains(big["result"], []byte(`saved_read {\"ref\":`)) || len(big["result"]) > 4000 {
		t.Errorf("view does not continue with saved_read within the budget: %.300s", big["result"])
	}
}

func TestMCPUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"mcp"}, 2, "give the upstream server"},
		{[]string{"mcp", "--upstream", "http://127.0.0.1:1/mcp", "--", "srv"}, 2, "not both"},
		{[]string{"mcp", "--header", "A: b", "--", "srv"}, 2, "--upstream URL only"},
		{[]string{"mcp", "--log-level", "loud", "--", "srv"}, 2, "--log-level"},
		{[]string{"mcp", "--config", "/nonexistent/crumb.toml", "--", "srv"}, 1, "no such file"},
		{[]string{"mcp", "--store", "", "--", "/nonexistent/mcp-server"}, 1, "starting the upstream server"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			store := t.TempDir()
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr, func(k string) string {
				if k == "CRUMB_STORE" {
					return store
				}
				return ""
			})
			if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), tt.code, tt.want)
			}
		})
	}
}
