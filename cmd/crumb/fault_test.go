//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

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
			code, stdout, _ = crumbProcess(t, nil, "run", "--store", st, "--", "sh", "-c", "echo small; exit 4")
			if code != 4 || !strings.HasSuffix(stdout, "small\n") {
				t.Errorf("crumb run of a small output: exit %d, stdout %q; want 4 and the output", code, stdout)
			}
		})
	}
}

// TestRunUnderEviction runs crumb run, as processes, four at a time, on a
// Redis store near its maxmemory with writers evicting keys all along (for
// each policy that evicts results), over commands that print 3 MiB and exit
// with 0, 1 or 2: every run exits with its command's status and prints the
// output's first and last lines. Each policy takes 200 runs (40 with
// -short).
func TestRunUnderEviction(t *testing.T) {
	needShell(t)
	runs := 200
	if testing.Short() {
		runs = 40
	}
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
			var wg sync.WaitGroup
			sem := make(chan struct{}, 4)
			for i := range runs {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
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
				}()
			}
			wg.Wait()
			t.Logf("%s: %d runs: %d kept, %d lost outputs, %d wrong exit statuses", policy, runs, kept.Load(), lost.Load(), wrong.Load())
		})
	}
}
