package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/crumb-dev/crumb/recall"
)

// selfName is how the continuations crumb prints name crumb itself, so that
// they run as printed; it is worked out once per process.
var selfName = sync.OnceValue(func() string {
	return reachableName(os.Args[0], os.Executable, exec.LookPath)
})

// reachableName returns how this program can be run from a shell: its name
// (the last element of arg0) when PATH finds this same binary under that
// name, else the absolute path of the running executable. "./crumb", or a
// binary a hook installed by absolute path, is then named by that path
// rather than by a name that runs another crumb or none.
func reachableName(arg0 string, executable func() (string, error), lookPath func(string) (string, error)) string {
	exe, err := executable()
	if err != nil {
		return "crumb"
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	name := filepath.Base(arg0)
	if name == "" || name == "." || name == string(filepath.Separator) {
		name = filepath.Base(exe)
	}
	if found, err := lookPath(name); err == nil && sameFile(found, exe) {
		return name
	}
	if abs, err := filepath.Abs(exe); err == nil {
		return abs
	}
	return exe
}

// sameFile reports whether the paths a and b name one file, following
// symlinks.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// hint renders continuations for the command line, naming crumb the way
// this process can be reached.
func (e *env) hint() recall.Hint { return recall.CLIHintFor(e.prog) }
