package testhome_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/testhome"
)

// The test binary run again as one of these programs (TESTHOME_MODE): a
// test run that leaks a result into the default store, in process or
// through a child given only HOME and PATH (as an MCP client starts its
// server), and one that keeps to a store of its own.
func TestMain(m *testing.M) {
	switch os.Getenv("TESTHOME_MODE") {
	case "":
		os.Exit(testhome.Main(m))
	case "child":
		if err := projectLarge(""); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(2)
		}
		os.Exit(0)
	default:
		os.Exit(testhome.Main(runFunc(leak)))
	}
}

// runFunc is a test run that is one function.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// leak is the run TESTHOME_MODE names.
func leak() int {
	var err error
	switch os.Getenv("TESTHOME_MODE") {
	case "in-process":
		err = projectLarge("")
	case "filtered":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = []string{"TESTHOME_MODE=child", "HOME=" + os.Getenv("HOME"), "PATH=" + os.Getenv("PATH")}
		cmd.Stderr = os.Stderr
		err = cmd.Run()
	case "own store":
		dir, derr := os.MkdirTemp("", "testhome-store-")
		if derr != nil {
			return 2
		}
		defer os.RemoveAll(dir)
		err = projectLarge(dir)
	default:
		err = errors.New("unknown TESTHOME_MODE")
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	return 0
}

// projectLarge stores a large result through a Guard over the store at dir,
// or over the default store when dir is empty.
func projectLarge(dir string) error {
	if dir != "" {
		os.Setenv("CRUMB_STORE", dir)
	}
	g, err := crumb.New(crumb.Config{})
	if err != nil {
		return err
	}
	defer g.Close()
	v, err := g.Project(context.Background(), crumb.Result{Tool: "read_text_file", Body: bytes.Repeat([]byte("a line of a large file\n"), 5000)})
	if err != nil {
		return err
	}
	if !v.Receipt.Stored {
		return errors.New("the result was not stored: " + v.Receipt.StoreError)
	}
	return nil
}

// TestMainFailsOnALeak: a run whose tests pass fails when a result reached
// the default store, in the test process or in a process it started with a
// filtered environment, and says which records; a run that keeps to its
// own store passes.
func TestMainFailsOnALeak(t *testing.T) {
	for _, tt := range []struct {
		mode string
		fail bool
	}{{"in-process", true}, {"filtered", true}, {"own store", false}} {
		t.Run(tt.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "TESTHOME_MODE="+tt.mode)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			switch {
			case tt.fail && (!errors.As(err, &exit) || exit.ExitCode() != 1):
				t.Errorf("the run that leaked ended with %v, want exit status 1; stderr:\n%s", err, stderr.String())
			case tt.fail && !strings.Contains(stderr.String(), `default store`) || tt.fail && !strings.Contains(stderr.String(), `"read_text_file" ×1`):
				t.Errorf("the failure does not name the leaked record:\n%s", stderr.String())
			case !tt.fail && err != nil:
				t.Errorf("the run that kept to its own store ended with %v:\n%s", err, stderr.String())
			}
		})
	}
}

// TestMainRedirects: the tests of this very package see a home and a cache
// of their own, and no CRUMB_STORE.
func TestMainRedirects(t *testing.T) {
	if _, set := os.LookupEnv("CRUMB_STORE"); set {
		t.Error("CRUMB_STORE is set under testhome.Main")
	}
	for _, k := range []string{"HOME", "XDG_CACHE_HOME"} {
		if v := os.Getenv(k); !strings.Contains(v, "crumb-testhome-") {
			t.Errorf("%s=%q, not a directory of testhome's", k, v)
		}
	}
	if gc := os.Getenv("GOCACHE"); gc != "" && strings.Contains(gc, "crumb-testhome-") {
		t.Errorf("GOCACHE moved into testhome's directory: %s", gc)
	}
}
