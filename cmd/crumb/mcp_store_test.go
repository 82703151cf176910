package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
)

// TestMCPStoreSettingsShared is the report's case: with ttl = "48h" and
// max_size = "10GiB" in crumb mcp's configuration, the crumb gc that other
// commands start used 24 hours and 1 GiB. The proxy keeps its settings in
// the store, and the collector (like every command) applies them.
func TestMCPStoreSettingsShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	cfg := filepath.Join(t.TempDir(), "crumb.toml")
	os.WriteFile(cfg, []byte("[store]\nttl = \"48h\"\nmax_size = \"10GiB\"\n"), 0o644)
	call, _ := mcpSession(t, "--config", cfg, "--store", dir)
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)

	d, err := store.OpenDir(dir, store.DirOptions{ManualGC: true, NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if got, want := d.Settings(), (store.Settings{TTL: 48 * time.Hour, MaxBytes: 10 << 30}); got != want {
		t.Errorf("a command opening the proxy's store applies %+v, want the proxy's %+v", got, want)
	}
	// A result the proxy would keep two days survives crumb gc a day and a
	// half after its last use.
	info, err := d.Put(context.Background(), strings.NewReader("kept for two days\n"), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	setUsed(t, filepath.Join(dir, "meta", string(info.Ref[:2]), string(info.Ref)+".json"), time.Now().Add(-36*time.Hour))
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"gc", "--store", dir, "--json"}, strings.NewReader(""), &out, &errb, func(string) string { return "" }); code != 0 {
		t.Fatalf("crumb gc exited %d: %s", code, errb.String())
	}
	if _, err := d.Stat(context.Background(), info.Ref); err != nil {
		t.Errorf("crumb gc removed a result used 36h ago from a store whose ttl is 48h: %v (gc: %s)", err, out.String())
	}
}

// setUsed makes the record at path say it was last used at used.
func setUsed(t *testing.T, path string, used time.Time) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["used"] = used.Format(time.RFC3339Nano)
	if data, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, used, used); err != nil {
		t.Fatal(err)
	}
}
