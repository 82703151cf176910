package server_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

// serve runs s.Serve on a loopback listener and returns its address and a
// function that stops it and returns Serve's error.
func serve(t *testing.T, s *server.Server) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), func() error { cancel(); return <-errc }
}

// TestReadTimeout: a client that stalls in the middle of its body is cut
// off after the read timeout, and nothing of its result is stored.
func TestReadTimeout(t *testing.T) {
	root := t.TempDir()
	s, err := server.New(server.Options{Open: server.DirOpener(root, store.DirOptions{ManualGC: true}), ReadTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url, stop := serve(t, s)
	defer stop()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/v1/results?kind=text", "text/plain", pr)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	pw.Write(bytes.Repeat([]byte("a line of a result that never ends\n"), 20000))
	var status int
	select {
	case status = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled request was not cut off")
	}
	pw.Close()
	if status == 200 {
		t.Fatal("a stalled request was answered 200")
	}
	resp, err := http.Get(url + "/v1/results")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"total": 0`) {
		t.Errorf("a cut-off result is listed: %s", b)
	}
}

// TestShutdownTimeout: Serve waits for a request in flight up to the
// shutdown timeout, then cancels it and says so; the result is not stored.
func TestShutdownTimeout(t *testing.T) {
	root := t.TempDir()
	s, err := server.New(server.Options{Open: server.DirOpener(root, store.DirOptions{ManualGC: true}), ShutdownTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url, stop := serve(t, s)
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		if resp, err := http.Post(url+"/v1/results?kind=text", "text/plain", pr); err == nil {
			resp.Body.Close()
		}
	}()
	pw.Write(bytes.Repeat([]byte("a line\n"), 100000))
	// Wait until the result is being written into the store.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(root, server.DefaultNamespace, "tmp", "put-*")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the result never reached the store")
		}
	}
	start := time.Now()
	err = stop()
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("Serve after a shutdown that timed out: %v", err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("Serve returned after %s, before the shutdown timeout", d)
	}
	st, err := store.OpenDir(root+"/"+server.DefaultNamespace, store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if infos, _ := st.List(context.Background()); len(infos) != 0 {
		t.Errorf("a cancelled result is stored: %v", infos)
	}
}
