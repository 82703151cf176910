package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/crumb-dev/crumb/internal/testhome"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the crumb command inside scripts.
// Tests that call run in this process stand for a crumb found through PATH,
// so their continuations say "crumb", not the test binary's path. No test,
// and no crumb a test starts, may write the user's default store
// (testhome).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "crumb" {
		selfName = func() string { return "crumb" }
	}
	testscript.Main(testhome.Guarded(m), map[string]func(){
		"crumb": main,
	})
}

// TestScripts runs the command-line scripts in testdata/script: each is a
// txtar archive of commands and files, in the manner of cmd/go's tests.
// Every script gets its own store (CRUMB_STORE) and no background GC.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// CRUMB_BIN is the crumb that "exec crumb" runs, for scripts
			// that run it by its absolute path.
			bin, err := exec.LookPath("crumb")
			if err != nil {
				return err
			}
			env.Setenv("CRUMB_BIN", bin)
			env.Setenv("CRUMB_STORE", env.WorkDir+"/.store")
			env.Setenv("CRUMB_GC", "off")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
	})
}
