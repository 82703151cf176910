package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

// withoutHTTP removes "http" from a JSON answer's "next", keeping the order
// and the indentation of everything else.
func withoutHTTP(t *testing.T, b []byte) []byte {
	t.Helper()
	obj, err := jsonobj.Parse(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	next, ok := obj.Get("next")
	if !ok {
		t.Fatalf("no next in %s", b)
	}
	n, err := jsonobj.Parse(next)
	if err != nil {
		t.Fatal(err)
	}
	if !n.Has("http") {
		t.Fatalf("next has no http: %s", next)
	}
	n.Delete("http")
	obj.Set("next", n.Bytes())
	out, err := obj.Indent("", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestServeMatchesCLI: the sidecar answers the same JSON as crumb project,
// read and grep --json print, with "http" added to continuations.
func TestServeMatchesCLI(t *testing.T) {
	root := t.TempDir()
	s, err := server.New(server.Options{Open: server.DirOpener(root, store.DirOptions{ManualGC: true})})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s)
	defer ts.Close()
	var body bytes.Buffer
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&body, "2026-12-01T10:00:%02dZ INFO request id=%d served <ok> & done\n", i%60, i)
	}
	cli := func(stdin []byte, args ...string) []byte {
		var out, errb bytes.Buffer
		env := map[string]string{"CRUMB_STORE": filepath.Join(root, server.DefaultNamespace), "CRUMB_GC": "off"}
		if code := run(context.Background(), args, bytes.NewReader(stdin), &out, &errb, func(k string) string { return env[k] }); code != 0 {
			t.Fatalf("crumb %v: exit %d: %s", args, code, errb.String())
		}
		return out.Bytes()
	}
	get := func(method, path string, b []byte) []byte {
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(b))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
		return out
	}
	httpView := get("POST", "/v1/results?kind=text&tool=log&budget=400", body.Bytes())
	cliView := cli(body.Bytes(), "project", "--kind", "text", "--tool", "log", "--budget", "400", "--json")
	if got := withoutHTTP(t, httpView); !bytes.Equal(got, cliView) {
		t.Errorf("POST /v1/results differs from crumb project --json:\n%s\nCLI:\n%s", got, cliView)
	}
	ref := regexp.MustCompile(`"ref": "([0-9a-f]{16})"`).FindSubmatch(cliView)[1]
	for _, c := range []struct {
		path string
		argv []string
	}{
		{"/v1/results/" + string(ref) + "?lines=17:400&budget=300", []string{"read", string(ref), "--lines", "17:400", "--budget", "300", "--json"}},
		{"/v1/results/" + string(ref) + "?bytes=100:20000", []string{"read", string(ref), "--bytes", "100:20000", "--json"}},
		{"/v1/results/" + string(ref) + "/grep?pattern=id%3D1%5B0-9%5D%2B+&context=1&budget=300", []string{"grep", string(ref), "id=1[0-9]+ ", "-C", "1", "--budget", "300", "--json"}},
	} {
		if got, want := withoutHTTP(t, get("GET", c.path, nil)), cli(nil, c.argv...); !bytes.Equal(got, want) {
			t.Errorf("GET %s differs from crumb %v:\n%s\nCLI:\n%s", c.path, c.argv, got, want)
		}
	}
}

// TestServeChild is the crumb serve process of TestServeGracefulShutdown.
func TestServeChild(t *testing.T) {
	args := os.Getenv("CRUMB_SERVE_CHILD")
	if args == "" {
		t.Skip("run by TestServeGracefulShutdown")
	}
	var argv []string
	json.Unmarshal([]byte(args), &argv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, argv, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// startServe starts crumb serve as a process of its own, with the
// arguments argv (JSON), and returns it, the address it listens on and its
// standard error.
func startServe(t *testing.T, argv string) (*exec.Cmd, string, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$")
	cmd.Env = append(os.Environ(), "CRUMB_SERVE_CHILD="+argv, "CRUMB_TOKENS=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	// A bufio.Reader, not a Scanner: what it read past the line that
	// names the address is copied on with the rest.
	lines := bufio.NewReader(stderr)
	var addr string
	for {
		line, err := lines.ReadString('\n')
		if m := regexp.MustCompile(`listening on http://(\S+)`).FindStringSubmatch(line); m != nil {
			addr = m[1]
			break
		}
		if err != nil {
			break
		}
	}
	if addr == "" {
		t.Fatal("crumb serve did not say where it listens")
	}
	logged := &syncBuffer{}
	go io.Copy(logged, lines)
	return cmd, addr, logged
}

// syncBuffer is a buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeTwoProcesses runs two crumb serve processes on different ports
// over one store, a shared directory and a real redis-server on loopback:
// each serves the other's refs within a namespace and refuses them across
// namespaces.
func TestServeTwoProcesses(t *testing.T) {
	t.Run("dir", func(t *testing.T) { serveTwoProcesses(t, t.TempDir()) })
	t.Run("redis", func(t *testing.T) {
		srv := redistest.Start(t)
		serveTwoProcesses(t, srv.URL(0))
	})
}

func serveTwoProcesses(t *testing.T, shared string) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("tok-a team-a\ntok-b team-b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	argv, _ := json.Marshal([]string{"serve", "--listen", "127.0.0.1:0", "--store", shared, "--tokens", tokens})
	_, addr1, _ := startServe(t, string(argv))
	_, addr2, _ := startServe(t, string(argv))
	do := func(method, url, token string, body []byte) (int, []byte) {
		req, _ := http.NewRequest(method, url, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	var body bytes.Buffer
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&body, "line %d of a result stored by one process and read by the other\n", i)
	}
	status, b := do("POST", "http://"+addr1+"/v1/results?kind=text", "tok-a", body.Bytes())
	if status != 200 {
		t.Fatalf("POST to the first process: %d %s", status, b)
	}
	var view struct {
		Ref  string
		Next struct {
			HTTP struct{ Method, Path, Query string }
		}
	}
	json.Unmarshal(b, &view)
	if view.Ref == "" {
		t.Fatalf("no ref: %s", b)
	}
	if status, raw := do("GET", "http://"+addr2+"/v1/results/"+view.Ref+"/raw", "tok-a", nil); status != 200 || !bytes.Equal(raw, body.Bytes()) {
		t.Errorf("the second process reads %d, %d bytes of the first's result", status, len(raw))
	}
	h := view.Next.HTTP
	if status, b := do(h.Method, "http://"+addr2+h.Path+"?"+h.Query, "tok-a", nil); status != 200 || !bytes.Contains(b, []byte("of a result stored by one process")) {
		t.Errorf("the second process follows the first's continuation: %d %.300s", status, b)
	}
	for _, addr := range []string{addr1, addr2} {
		if status, b := do("GET", "http://"+addr+"/v1/results/"+view.Ref+"/raw", "tok-b", nil); status != 404 || !bytes.Contains(b, []byte(`"code": "missing"`)) {
			t.Errorf("another namespace reads the result from %s: %d %s", addr, status, b)
		}
	}
}

// TestServeGracefulShutdown runs crumb serve as a real process and sends it
// SIGTERM while two results are being posted: the one whose body then
// arrives whole is answered and stored; the one whose client goes away is
// not stored at all; new connections are refused; the process exits 0.
func TestServeGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	argv, _ := json.Marshal([]string{"serve", "--listen", "127.0.0.1:0", "--store", dir, "--tokens", filepath.Join(dir, "tokens")})
	if err := os.WriteFile(filepath.Join(dir, "tokens"), []byte("tok team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, addr, logged := startServe(t, string(argv))
	type result struct {
		status int
		body   []byte
		err    error
	}
	post := func(body io.Reader) chan result {
		ch := make(chan result, 1)
		go func() {
			req, _ := http.NewRequest("POST", "http://"+addr+"/v1/results?kind=text&budget=300", body)
			req.Header.Set("Authorization", "Bearer tok")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				ch <- result{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			ch <- result{resp.StatusCode, b, err}
		}()
		return ch
	}
	var whole bytes.Buffer
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&whole, "line %06d of the result that arrives whole\n", i)
	}
	half := whole.Len() / 2
	prA, pwA := io.Pipe()
	prB, pwB := io.Pipe()
	a, b := post(prA), post(prB)
	if _, err := pwA.Write(whole.Bytes()[:half]); err != nil {
		t.Fatal(err)
	}
	if _, err := pwB.Write(bytes.Repeat([]byte("a result whose client goes away\n"), 50000)); err != nil {
		t.Fatal(err)
	}
	// Wait until both results are being written into the store.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(dir, "team", "tmp", "put-*")); len(m) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the two results never reached the store")
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The listener closes: a new connection is refused.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("crumb serve still accepts connections after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	pwB.CloseWithError(fmt.Errorf("the client went away"))
	if _, err := pwA.Write(whole.Bytes()[half:]); err != nil {
		t.Fatal(err)
	}
	pwA.Close()
	ra := <-a
	if ra.err != nil || ra.status != 200 {
		t.Fatalf("the request in flight did not finish: %v %d %s", ra.err, ra.status, ra.body)
	}
	if rb := <-b; rb.err == nil && rb.status == 200 {
		t.Fatalf("the abandoned request was answered 200: %s", rb.body)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("crumb serve exited with %v\n%s", err, logged.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("crumb serve did not exit after SIGTERM")
	}
	var view struct{ Ref store.Ref }
	if err := json.Unmarshal(ra.body, &view); err != nil || view.Ref == "" {
		t.Fatalf("no ref in %s", ra.body)
	}
	st, err := store.OpenDir(filepath.Join(dir, "team"), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Ref != view.Ref {
		var refs []string
		for _, in := range infos {
			refs = append(refs, fmt.Sprintf("%s (%d bytes)", in.Ref, in.Size))
		}
		t.Fatalf("the store holds %s; want only %s", strings.Join(refs, ", "), view.Ref)
	}
	got, err := store.ReadAll(context.Background(), st, view.Ref)
	if err != nil || !bytes.Equal(got, whole.Bytes()) {
		t.Fatalf("the stored result is not the posted one: %v (%d bytes of %d)", err, len(got), whole.Len())
	}
}

// TestServeInsecure: --insecure serves every interface without tokens.
func TestServeInsecure(t *testing.T) {
	argv, _ := json.Marshal([]string{"serve", "--listen", "0.0.0.0:0", "--insecure", "--store", t.TempDir()})
	_, addr, _ := startServe(t, string(argv))
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/v1/results")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("GET /v1/results without a token on an insecure server: %d", resp.StatusCode)
	}
}
