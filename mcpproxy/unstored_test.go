package mcpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tmpfs mounts a tmpfs of size (mount's notation, "1m") in a new
// directory, for a store that fills up or turns read-only; it skips the
// test, saying why, where mounting is not allowed (only root may mount).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs for a full or read-only store needs root; skipping")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a tmpfs at %s failed (%v: %s); skipping", dir, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// redisToStop starts a redis-server and opens a store on it; the function
// it returns stops the server, so that the store can no longer be reached.
func redisToStop(t *testing.T) (store.Store, func()) {
	srv := redistest.Start(t)
	st, err := redisstore.Open(context.Background(), srv.URL(0), redisstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, srv.Stop
}

// fullStore opens a store on a tmpfs of size, which a large result fills.
func fullStore(t *testing.T, size string) store.Store {
	dir := tmpfs(t, size)
	st, err := store.OpenDir(filepath.Join(dir, "store"), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestUnstoredResultIsBounded: whatever keeps the store from keeping a
// large result — Redis killed in the middle of a session, a full disk, a
// store turned read-only, Redis out of memory — the client gets a bounded
// view that says why the result was not kept and shows its first and last
// lines, never the whole result (before, it got all 9 MB of it).
func TestUnstoredResultIsBounded(t *testing.T) {
	const budget = 1000
	const lines = 150000 // about 9 MB of text
	cases := []struct {
		name string
		// open returns the store, and break makes it fail once the
		// session has stored a first result.
		open   func(t *testing.T) (st store.Store, breakIt func())
		reason string // in the view: what the store said
		log    string // in the log, besides
	}{
		{"unavailable", redisToStop, "connection refused", ""},
		{"full", func(t *testing.T) (store.Store, func()) { return fullStore(t, "2m"), func() {} }, "no space left on device", ""},
		{"full, temporary files too", func(t *testing.T) (store.Store, func()) {
			// The disk of the store is also where the large message
			// from the server would be spooled.
			dir := tmpfs(t, "2m")
			st, err := store.OpenDir(filepath.Join(dir, "store"), store.DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			t.Setenv("TMPDIR", dir)
			return st, func() {}
		}, "no space left on device", "it is held in memory"},
		{"read-only", func(t *testing.T) (store.Store, func()) {
			dir := tmpfs(t, "64m")
			st, err := store.OpenDir(filepath.Join(dir, "store"), store.DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, func() {
				if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
					t.Fatalf("remounting %s read-only: %v: %s", dir, err, out)
				}
				t.Cleanup(func() { exec.Command("mount", "-o", "remount,rw", dir).Run() })
			}
		}, "read-only file system", ""},
		{"evicting", func(t *testing.T) (store.Store, func()) {
			srv := redistest.Start(t, "--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru")
			st, err := redisstore.Open(context.Background(), srv.URL(0), redisstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st, func() {}
		}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, breakIt := tc.open(t)
			var logs syncBuffer
			cfg := Config{Guard: crumb.Config{Store: st, Budget: budget}, Logger: newTestLogger(&logs)}
			c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
			c.initialize()
			// A first result is stored and projected as ever.
			first := decodeResult(t, c.toolCall("big", `{"lines":3000}`).Result)
			if len(first.Content) == 0 || !strings.Contains(first.Content[0].Text, "crumb_read") {
				t.Fatalf("before the store broke, a large result was not projected: %+v", first)
			}
			breakIt()
			resp := c.toolCall("big", `{"lines":150000}`)
			if resp.Error != nil {
				t.Fatalf("the call failed: %+v", resp.Error)
			}
			if n := len(resp.Result); n > 64<<10 {
				t.Fatalf("the client got %d bytes of a result that could not be stored: %.300s", n, resp.Result)
			}
			r := decodeResult(t, resp.Result)
			if len(r.Content) != 1 || r.Content[0].Type != "text" {
				t.Fatalf("the view is not one text block: %s", resp.Result)
			}
			text := r.Content[0].Text
			t.Logf("the view:\n%s", text)
			if n := tokens.O200k().Count(text); n > budget {
				t.Errorf("the view takes %d tokens, over the budget of %d", n, budget)
			}
			if !strings.Contains(text, "could not store this result") || !strings.Contains(text, tc.reason) {
				t.Errorf("the view does not say why the result was not kept (%q):\n%s", tc.reason, text)
			}
			// Unchanged in meaning: the lines it shows are the result's,
			// its first and its last among them, and it names no read of
			// what was not kept.
			for _, want := range []string{fakeLine(1, 60), fakeLine(lines, 60)} {
				if !strings.Contains(text, want) {
					t.Errorf("the view does not show %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "crumb_read") {
				t.Errorf("the view names a read of a result that is not stored:\n%s", text)
			}
			if !strings.Contains(logs.String(), tc.log) {
				t.Errorf("the log does not say %q: %s", tc.log, logs.String())
			}
			if !strings.Contains(logs.String(), "could not store") {
				t.Errorf("the log does not say the result was not stored: %s", logs.String())
			}
		})
	}
}

// TestUnstoredFilesystemServer: the filesystem server from npm reads a
// 4 MB file, and the store's disk is full. The SDK's client gets a bounded
// result that says why it was not kept and shows the file's first and
// last lines; as read_text_file's outputSchema requires the
// structuredContent the view leaves out, the result is an error, which the
// client accepts without it.
func TestUnstoredFilesystemServer(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	dir := tmpfs(t, "1m")
	st, err := store.OpenDir(filepath.Join(dir, "store"), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root := t.TempDir()
	var big strings.Builder
	n := 0
	for big.Len() < 4<<20 {
		n++
		fmt.Fprintf(&big, "%06d: a line of a file that the full store cannot keep\n", n)
	}
	path := filepath.Join(root, "big.txt")
	if err := os.WriteFile(path, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const budget = 2000
	cs := sdkProxied(t, Config{Guard: crumb.Config{Store: st, Budget: budget}}, []string{bin, root}, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": path}})
	if err != nil {
		t.Fatalf("the client refused the result: %v", err)
	}
	raw, _ := json.Marshal(res)
	if len(raw) > 64<<10 {
		t.Fatalf("the client got %d bytes: %.300s", len(raw), raw)
	}
	// The budget holds for the text the model reads; the JSON-RPC
	// encoding's escapes are not the model's tokens.
	text := res.Content[0].(*mcp.TextContent).Text
	if n := tokens.O200k().Count(text); n > budget {
		t.Fatalf("the view is %d tokens, over the budget of %d:\n%.300s", n, budget, text)
	}
	for _, want := range []string{"no space left on device", fmt.Sprintf("%06d: a line", 1), fmt.Sprintf("%06d: a line", n)} {
		if !strings.Contains(text, want) {
			t.Errorf("the view does not hold %q:\n%s", want, text)
		}
	}
	if !res.IsError {
		t.Errorf("a result without the structuredContent its outputSchema requires is not an error")
	}
}

// TestUnstoredStructuredLineIsBounded: a tool that returns structuredContent
// alone answers with one JSON line of 2 MB, and the store will not keep it
// (Redis killed in the middle of the session, a full disk). The client gets
// a bounded view that says why, and shows the start and the end of that
// line, cut between characters and marked as cut (before, the view showed
// nothing of the result, only why it was not kept).
func TestUnstoredStructuredLineIsBounded(t *testing.T) {
	const budget = 1000
	cases := []struct {
		name   string
		open   func(t *testing.T) (store.Store, func())
		reason string
	}{
		{"unavailable", redisToStop, "connection refused"},
		{"full", func(t *testing.T) (store.Store, func()) { return fullStore(t, "1m"), func() {} }, "no space left on device"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, breakIt := tc.open(t)
			c, _ := startRaw(t, Config{Guard: crumb.Config{Store: st, Budget: budget}}, fakeCommand("", io.Discard))
			c.initialize()
			breakIt()
			resp := c.toolCall("bulk", `{"mb":2,"structured_only":true}`)
			if resp.Error != nil {
				t.Fatalf("the call failed: %+v", resp.Error)
			}
			if n := len(resp.Result); n > 16<<10 {
				t.Fatalf("the client got %d bytes of a result that could not be stored: %.300s", n, resp.Result)
			}
			r := decodeResult(t, resp.Result)
			if len(r.Content) != 1 || r.Content[0].Type != "text" || r.StructuredContent != nil {
				t.Fatalf("the view is not one text block: %s", resp.Result)
			}
			text := r.Content[0].Text
			t.Logf("the view:\n%s", text)
			if n := tokens.O200k().Count(text); n > budget || n < budget/2 {
				t.Errorf("the view takes %d tokens of a budget of %d", n, budget)
			}
			if !strings.Contains(text, "could not store this result") || !strings.Contains(text, tc.reason) {
				t.Errorf("the view does not say why the result was not kept (%q):\n%s", tc.reason, text)
			}
			for _, want := range []string{`{"content":[],"structuredContent":{"items":[` + fakeBulkItem(0) + "," + fakeBulkItem(1), `]}}`} {
				if !strings.Contains(text, want) {
					t.Errorf("the view does not show %q:\n%s", want, text)
				}
			}
			if strings.Count(text, "…") < 2 || strings.Contains(text, "crumb_read") {
				t.Errorf("the view does not mark its cuts, or names a read of a result not kept:\n%s", text)
			}
		})
	}
}
