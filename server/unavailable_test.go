package server_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

// TestStoreThatCannotBeOpened serves a namespace whose store fails to open
// until it is fixed: POST /v1/results answers views (a small result
// unchanged, a large one as the bounded view that says why it was not
// kept), the routes that read answer 503 unavailable, /healthz answers 503
// degraded with the reason; once the store opens, all of it recovers.
func TestStoreThatCannotBeOpened(t *testing.T) {
	root := t.TempDir()
	var broken atomic.Bool
	broken.Store(true)
	dirs := server.DirOpener(root, store.DirOptions{ManualGC: true})
	ts := newServer(t, server.Options{Open: func(ns string) (store.Store, error) {
		if broken.Load() {
			return nil, errors.New("the disk is on fire")
		}
		return dirs(ns)
	}})
	var big bytes.Buffer
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&big, "line %d of a long log\n", i)
	}

	if a := ts.do(t, "GET", "/healthz", "", nil); a.status != 503 || !strings.Contains(string(a.body), `"degraded"`) || !strings.Contains(string(a.body), "the disk is on fire") {
		t.Errorf("/healthz of a store that cannot be opened: %d %s; want 503, degraded and why", a.status, a.body)
	}
	if a := ts.do(t, "POST", "/v1/results", "", strings.NewReader("hello\n")); a.status != 200 || a.json(t)["view"] != "hello\n" {
		t.Errorf("a small result: %d %s; want it unchanged", a.status, a.body)
	}
	a := ts.do(t, "POST", "/v1/results?kind=text&budget=300", "", bytes.NewReader(big.Bytes()))
	v := a.json(t)
	view, _ := v["view"].(string)
	rc, _ := v["receipt"].(map[string]any)
	if a.status != 200 || rc["stored"] != false || !strings.Contains(view, "could not store this result (") || !strings.Contains(view, "the disk is on fire") ||
		!strings.Contains(view, "line 1 of") || !strings.Contains(view, "line 20000 of") || v["ref"] != nil {
		t.Errorf("a large result: %d %.600s", a.status, a.body)
	}
	if a := ts.do(t, "GET", "/v1/results", "", nil); a.status != 503 || !strings.Contains(string(a.body), `"unavailable"`) {
		t.Errorf("GET /v1/results of a store that cannot be opened: %d %s; want 503 unavailable", a.status, a.body)
	}

	broken.Store(false)
	if a := ts.do(t, "GET", "/healthz", "", nil); a.status != 200 || !strings.Contains(string(a.body), `"ok"`) {
		t.Errorf("/healthz once the store opens: %d %s", a.status, a.body)
	}
	a = ts.do(t, "POST", "/v1/results?kind=text&budget=300", "", bytes.NewReader(big.Bytes()))
	if v := a.json(t); a.status != 200 || v["ref"] == nil {
		t.Errorf("a large result once the store opens: %d %.300s", a.status, a.body)
	}
}
