package mcpproxy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSniffedTestRunThroughProxy: the real filesystem server's
// read_text_file of a CI log that holds a go test -v run (made by
// project/testdata/sniffed/make.sh), through crumb, comes back with the
// run's evidence: the failing subtest, its message at file:line and the
// failing package, not the log's head and tail (issue 10, class 2). With
// an intent in the call, the line it asks about is shown too (class 1).
func TestSniffedTestRunThroughProxy(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	log, err := os.ReadFile(filepath.Join("..", "project", "testdata", "sniffed", "files", "ci-go-test-v.log"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	path := filepath.Join(root, "ci.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := sdkProxied(t, testConfig(t, 1000), []string{bin, root}, nil)
	for _, tt := range []struct {
		name    string
		args    map[string]any
		needles []string
	}{
		{"no intent", map[string]any{"path": path}, nil},
		{"an intent", map[string]any{"path": path, "intent": "did the pricing package pass?"}, []string{"ok  \texample.com/inventory/pricing\t"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("the server refused the call: %+v", res.Content)
			}
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			needles := append([]string{
				"--- FAIL: TestBoxes/units=50 (",
				"stock_test.go:13: Boxes(50) = 2, want 1",
				"FAIL\texample.com/inventory/stock\t",
			}, tt.needles...)
			for _, nd := range needles {
				if !strings.Contains(string(log), nd) {
					t.Errorf("needle %q is not in the log", nd)
				} else if !strings.Contains(text.String(), nd) {
					t.Errorf("the view misses %q:\n%s", nd, text.String())
				}
			}
		})
	}
}
