//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/storefault"
	"github.com/crumb-dev/crumb/tokens"
)

// crumbProcess runs the crumb binary (this test binary, which TestMain puts
// on PATH as crumb) with stdin and returns its exit status, stdout and
// stderr.
func crumbProcess(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	bin, err := exec.LookPath("crumb")
	if err != nil {
		t.Skip("crumb is not on $PATH")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CRUMB_GC=off", "CRUMB_STORE=")
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("crumb %v: %v", args, err)
	return 0, "", ""
}

// faultOutput is a command's output of n lines whose first and last lines
// name it.
func faultOutput(name string, n int) (data []byte, first, last string) {
	first, last = "first line of "+name, "last line of "+name
	var b bytes.Buffer
	b.WriteString(first + "\n")
	for i := 2; i < n; i++ {
		fmt.Fprintf(&b, "%s: step %d compiles module %d of the build\n", name, i, i%89)
	}
	b.WriteString(last + "\n")
	return b.Bytes(), first, last
}

// unusableDirs are store values crumb refuses or cannot create: a directory
// other users may write to, and a path under a file.
func unusableDirs(t *testing.T) []storefault.Fault {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return []storefault.Fault{
		{Name: "mode 0777", Make: func(testing.TB) string { return open }},
		{Name: "unwritable path", Make: func(testing.TB) string { return filepath.Join(file, "store") }},
	}
}

// checkNotKept checks the view of a large result that a store failed to
// keep, or kept (when the fault allows it): both ends shown, within the
// budget, and the reason it was not kept said.
func checkNotKept(t *testing.T, f storefault.Fault, view, first, last string, budget int) {
	t.Helper()
	if !strings.Contains(view, first) || !strings.Contains(view, last) {
		t.Errorf("the view lost the output's first or last line:\n%.800s", view)
	}
	if n := tokens.O200k().Count(view); n > budget {
		t.Errorf("the view has %d tokens, over the budget of %d", n, budget)
	}
	if f.MayKeep && strings.Contains(view, "crumb read ") {
		return // kept, and the view says how to read it
	}
	if !strings.Contains(view, "could not store this result (") || strings.Contains(view, "crumb read ") {
		t.Errorf("the view of a result not kept does not say so, or names a read:\n%.800s", view)
	}
}

// TestCLIStoreFaults runs crumb project and crumb run, as processes, on a
// store that is unavailable (a stopped Redis), full, read-only or
// evicting, or a directory crumb refuses or cannot create: a small result
// is printed unchanged; a large one as the bounded view of its two ends
// that says why it was not kept; crumb run runs the command and exits with
// its status; a store that cannot be opened is named in one line on stderr.
func TestCLIStoreFaults(t *testing.T) {
	needShell(t)
	const budget = 600
	faults := append(append([]storefault.Fault(nil), storefault.Faults...), unusableDirs(t)...)
	for _, f := range faults {
		t.Run(f.Name, func(t *testing.T) {
			st := f.Make(t)
			code, stdout, stderr := crumbProcess(t, []byte("hello\n"), "project", "--store", st)
			if code != 0 || stdout != "hello\n" {
				t.Errorf("echo hello | crumb project: exit %d, stdout %q, stderr %q; want exit 0 and hello", code, stdout, stderr)
			}
			if n := strings.Count(stderr, "\n"); n > 1 || n == 1 && !strings.Contains(stderr, "warning: results are not kept: ") {
				t.Errorf("crumb project's stderr is not one line that names the problem:\n%s", stderr)
			}

			data, first, last := faultOutput(f.Name+" project", 40000)
			code, stdout, stderr = crumbProcess(t, data, "project", "--store", st, "--budget", fmt.Sprint(budget))
			if code != 0 {
				t.Errorf("crumb project of a large result: exit %d, stderr %s", code, stderr)
			}
			checkNotKept(t, f, stdout, first, last, budget)

			out := filepath.Join(t.TempDir(), "out")
			data, first, last = faultOutput(f.Name+" run", 40000)
			if err := os.WriteFile(out, data, 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr = crumbProcess(t, nil, "run", "--store", st, "--budget", fmt.Sprint(budget), "--", "sh", "-c", "cat '"+out+"'; exit 3")
			if code != 3 {
				t.Errorf("crumb run: exit %d, want the command's 3; stderr %s", code, stderr)
			}
			checkNotKept(t, f, stdout, first, last, budget)
			if !strings.Contains(stdout, "exit status 3") {
				t.Errorf("crumb run's view does not say how the command ended:\n%.600s", stdout)
			}
			code, stdout, stderr = crumbProcess(t, nil, "run", "--store", st, "--", "sh", "-c", "echo small; exit 4")
			if code != 4 || !strings.HasSuffix(stdout, "small\n") {
				t.Errorf("crumb run of a small output: exit %d, stdout %q; want 4 and the output", code, stdout)
			}
			if n := strings.Count(stderr, "\n"); n > 1 || n == 1 && !strings.HasPrefix(stderr, "crumb run: warning: results are not kept: ") {
				t.Errorf("crumb run's stderr is not one line that names the problem:\n%s", stderr)
			}
		})
	}
}

// TestRunUnderEviction runs crumb run, as processes, four at a time, on a
// Redis store near its maxmemory with writers evicting keys all along (for
// each policy that evicts results), over commands that print 3 MiB and exit
// with 0, 1 or 2: every run exits with its command's status and prints the
// output's first and last lines. Each policy takes storefault.EvictionRuns
// runs.
func TestRunUnderEviction(t *testing.T) {
	needShell(t)
	runs := storefault.EvictionRuns()
	dir := t.TempDir()
	var outputs []string
	for i := range 3 {
		data, _, _ := faultOutput(fmt.Sprintf("output %d", i), 60000)
		name := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, name)
	}
	for _, policy := range []string{"volatile-lru", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			st := storefault.EvictingWith(t, policy, 24, 3)
			var lost, wrong, kept atomic.Int64
			storefault.Runs(runs, 4, func(i int) {
				// The run's number goes last, so that every output is
				// a result of its own.
				script := fmt.Sprintf("cat '%s'; echo 'run %d ends'; exit %d", outputs[i%3], i, i%3)
				code, stdout, stderr := crumbProcess(t, nil, "run", "--store", st, "--budget", "500", "--", "sh", "-c", script)
				if code != i%3 {
					wrong.Add(1)
					t.Errorf("run %d: exit %d, want %d; stderr %s", i, code, i%3, stderr)
				}
				if !strings.Contains(stdout, fmt.Sprintf("first line of output %d\n", i%3)) || !strings.Contains(stdout, fmt.Sprintf("run %d ends\n", i)) {
					lost.Add(1)
					t.Errorf("run %d: the output's first or last line is lost:\n%.600s\nstderr %s", i, stdout, stderr)
				}
				if strings.Contains(stdout, "crumb read ") {
					kept.Add(1)
				}
			})
			t.Logf("%s: %d runs: %d kept, %d lost outputs, %d wrong exit statuses", policy, runs, kept.Load(), lost.Load(), wrong.Load())
		})
	}
}

// serveView posts a result to a crumb serve at addr and returns the status
// and the answer.
func serveView(t *testing.T, addr string, body []byte, query string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post("http://"+addr+"/v1/results?"+query, "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Errorf("POST /v1/results: %v", err)
		return 0, nil
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Errorf("POST /v1/results: %d, decoding the answer: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, v
}

// health gets /healthz of a crumb serve at addr.
func health(t *testing.T, addr string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("GET /healthz: %d, decoding the answer: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, v
}

// TestServeStoreFaults runs crumb serve, as a process, on a store that is
// unavailable, full, read-only or evicting: it starts (saying so in one line
// when the store cannot be used), /healthz reports the store's state (503
// "degraded" and why, or 200 "ok"), a small result comes back unchanged and
// a large one as the bounded view that says why it was not kept, with a
// receipt that says so too. Under eviction, 200 posts (40 with -short), four
// at a time, each get a view.
func TestServeStoreFaults(t *testing.T) {
	const budget = 600
	for _, f := range storefault.Faults {
		t.Run(f.Name, func(t *testing.T) {
			st := f.Make(t)
			_, addr, stderr := startServe(t, fmt.Sprintf(`["serve", "--listen", "127.0.0.1:0", "--store", %q]`, st))
			code, h := health(t, addr)
			storeState, _ := h["store"].(map[string]any)
			if f.MayKeep {
				if code != http.StatusOK || h["status"] != "ok" || storeState["state"] != "ok" {
					t.Errorf("/healthz of a store that answers: %d %v", code, h)
				}
			} else if code != http.StatusServiceUnavailable || h["status"] != "degraded" || storeState["state"] != "unavailable" || storeState["error"] == "" {
				t.Errorf("/healthz of a store that is %s: %d %v; want 503, degraded, unavailable and why", f.Name, code, h)
			}
			// The line is written before the server answers; the copy of
			// its stderr may lag behind.
			for i := 0; i < 100 && !f.MayKeep && !strings.Contains(stderr.String(), "\n"); i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if !f.MayKeep && !strings.Contains(stderr.String(), "crumb serve: warning: results are not kept: ") {
				t.Errorf("crumb serve did not say the store cannot be used:\n%s", stderr.String())
			}

			code, v := serveView(t, addr, []byte("hello\n"), "")
			if code != http.StatusOK || v["view"] != "hello\n" {
				t.Errorf("a small result: %d %v; want it unchanged", code, v)
			}
			posts := 1
			if f.MayKeep {
				posts = storefault.EvictionRuns()
			}
			var kept, notKept atomic.Int64
			storefault.Runs(posts, 4, func(i int) {
				data, first, last := faultOutput(fmt.Sprintf("%s post %d", f.Name, i), 60000)
				code, v := serveView(t, addr, data, fmt.Sprintf("kind=text&budget=%d", budget))
				if code != http.StatusOK {
					t.Errorf("post %d: %d %v; want a view", i, code, v)
					return
				}
				view, _ := v["view"].(string)
				rc, _ := v["receipt"].(map[string]any)
				if rc["stored"] == true {
					kept.Add(1)
					if !f.MayKeep {
						t.Errorf("post %d: stored in a store that is %s", i, f.Name)
					}
					if !strings.Contains(view, first) || !strings.Contains(view, last) {
						t.Errorf("post %d: the view lost the first or last line:\n%.600s", i, view)
					}
					return
				}
				notKept.Add(1)
				why, _ := rc["store_error"].(string)
				if why == "" || rc["output"] != "fallback" {
					t.Errorf("post %d: a receipt of a result not kept does not say why: %v", i, rc)
				}
				checkNotKept(t, storefault.Fault{Name: f.Name}, view, first, last, budget)
			})
			t.Logf("%s: %d posts: %d kept, %d not kept (and said why)", f.Name, posts, kept.Load(), notKept.Load())
		})
	}
}

// TestMCPStoreFaults starts crumb mcp on a store that is unavailable, full,
// read-only or evicting: it starts (saying in one line when the store
// cannot be opened), lists the upstream's tools and crumb's, passes a small
// result through unchanged, and a large one — of many lines, or of one long
// line — reaches the client bounded (within the session's budget, and a
// small multiple of it in bytes) with both its ends, and told why it was not
// kept, or, when the store kept it, with the read that shows them. (How the
// proxy bounds a result it could not store is tested in package mcpproxy.)
func TestMCPStoreFaults(t *testing.T) {
	const budget = 300
	reasons := map[string]string{"unavailable": "connection refused", "full": "no space left on device", "read-only": "read-only file system"}
	for _, f := range storefault.Faults {
		t.Run(f.Name, func(t *testing.T) {
			st := f.Make(t)
			call, stderr := mcpSession(t, "--budget", strconv.Itoa(budget), "--store", st)
			init := call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
			if !bytes.Contains(init["result"], []byte(`"name":"helper"`)) {
				t.Fatalf("initialize: %s %s", init["result"], init["error"])
			}
			list := call("tools/list", `{}`)
			for _, name := range []string{"lines", "crumb_read"} {
				if !bytes.Contains(list["result"], []byte(`"name":"`+name+`"`)) {
					t.Errorf("tools/list lacks %s: %s", name, list["result"])
				}
			}
			small := call("tools/call", `{"name":"lines","arguments":{"n":2}}`)
			if want := `{"content":[{"type":"text","text":"line 1 of the helper's output\nline 2 of the helper's output\n"}]}`; string(small["result"]) != want {
				t.Errorf("small result changed: %s %s", small["result"], small["error"])
			}
			for _, c := range []struct{ name, args, last string }{
				{"5,000 lines", `{"n":5000}`, "line 5000 of the helper's output"},
				{"one line of 200,000 items", `{"n":200000,"one_line":true}`, "line 200000 of the helper's output"},
			} {
				big := call("tools/call", `{"name":"lines","arguments":`+c.args+`}`)
				res := string(big["result"])
				var r struct {
					Content []struct{ Text string } `json:"content"`
				}
				if err := json.Unmarshal(big["result"], &r); err != nil || len(r.Content) != 1 {
					t.Fatalf("%s: not a result of one content block (%v): %.600s %s", c.name, err, res, big["error"])
				}
				text := r.Content[0].Text
				if len(res) > tokens.MaxBytes(budget) || tokens.O200k().Count(text) > budget {
					t.Errorf("%s: the client got %d bytes, %d tokens, over the budget of %d tokens (%d bytes): %.600s",
						c.name, len(res), tokens.O200k().Count(text), budget, tokens.MaxBytes(budget), res)
				}
				kept := strings.Contains(text, `crumb_read {"ref":`)
				if kept && !f.MayKeep {
					t.Errorf("%s: a large result names a read of a store that is %s: %.600s", c.name, f.Name, res)
				}
				if !kept {
					if !strings.Contains(text, "line 1 of the helper") || !strings.Contains(text, c.last) {
						t.Errorf("%s: a large result lost its first or last line: %.600s", c.name, text)
					}
					if !strings.Contains(text, "could not store this result (") || !strings.Contains(text, reasons[f.Name]) {
						t.Errorf("%s: the client is not told why the result was not kept (%q): %.600s", c.name, reasons[f.Name], text)
					}
				}
				t.Logf("%s: a large result of %s reached the client as %d bytes (kept %v)", f.Name, c.name, len(res), kept)
			}
			if opened := strings.Contains(stderr.String(), "warning: results are not kept: "); opened == f.MayKeep && f.Name != "full" {
				t.Errorf("crumb mcp's stderr (warned %v) for a store that is %s:\n%s", opened, f.Name, stderr.String())
			}
		})
	}
}
