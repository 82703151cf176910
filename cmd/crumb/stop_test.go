package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProjectStopsOnSignal runs crumb project as a real process on a pipe
// that stays open and sends it SIGTERM or SIGINT: it must exit at once with
// 128+N, print no view, and leave nothing in the store, not even a partly
// written temporary file.
func TestProjectStopsOnSignal(t *testing.T) {
	bin, err := exec.LookPath("crumb") // TestMain puts this test binary there
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		sig   syscall.Signal
		write int // bytes written before the pipe goes quiet
		code  int
	}{
		{"idle SIGTERM", syscall.SIGTERM, 0, 143},
		{"idle SIGINT", syscall.SIGINT, 0, 130},
		{"mid-result SIGTERM", syscall.SIGTERM, 1 << 20, 143},
		{"mid-result SIGINT", syscall.SIGINT, 1 << 20, 130},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			cmd := exec.Command(bin, "project", "--kind", "text")
			cmd.Env = append(os.Environ(), "CRUMB_STORE="+dir, "CRUMB_GC=off")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// crumb opens the store after it has set up its signal
			// handling; with data written, it is staging the result.
			waitFor(t, func() bool { return exists(dir) })
			if tt.write > 0 {
				if _, err := in.Write(bytes.Repeat([]byte("a line of a log that goes on\n"), tt.write/29)); err != nil {
					t.Fatal(err)
				}
				waitFor(t, func() bool { return len(tempFiles(t, dir)) > 0 })
			}
			if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("crumb project still ran 30s after %s with its input open; stderr: %s", tt.sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Fatalf("crumb project after %s: %v, want exit status %d; stderr: %s", tt.sig, err, tt.code, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("crumb project printed a view after %s:\n%s", tt.sig, stdout.String())
			}
			if want := "crumb project: stopped by " + signalName(tt.sig); !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr = %q, want it to say %q", stderr.String(), want)
			}
			if left := tempFiles(t, dir); len(left) > 0 {
				t.Errorf("left half-stored files behind: %q", left)
			}
			out, err := exec.Command(bin, "ls", "--json", "--store", dir).Output()
			if err != nil || strings.TrimSpace(string(out)) != "[]" {
				t.Errorf("crumb ls after the stop: %s (%v), want an empty store", out, err)
			}
		})
	}
}

// waitFor polls cond until it holds, failing after 30 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for crumb")
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// tempFiles lists the files in the store that are not a committed result's.
func tempFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "put-") {
			out = append(out, path)
		}
		return nil
	})
	return out
}
