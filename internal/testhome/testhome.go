// Package testhome keeps a test binary, and every process its tests start,
// away from the user's own crumb store.
//
// A test that falls back to the default store (store.DefaultPath: the user
// cache directory) writes into the store of whoever runs the tests, and
// nothing fails: a subprocess that gets a filtered environment, as MCP
// clients give the servers they start (the TypeScript SDK passes on HOME
// and PATH, not CRUMB_STORE), does so without its test knowing. A package
// whose tests start such processes calls [Main] from its TestMain: the
// tests run with a home and cache directory of their own, and the run fails
// when anything created a crumb store in them.
package testhome

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// TestingM is what Main runs: a *testing.M, or what testscript.Main is
// given.
type TestingM interface {
	Run() int
}

// Main runs m with HOME, XDG_CACHE_HOME and XDG_CONFIG_HOME pointing into a
// fresh temporary directory and CRUMB_STORE unset, for the test binary and
// every process it starts; the Go toolchain's own directories (GOCACHE,
// GOMODCACHE, GOPATH, GOENV) stay where they were, so a test that runs go
// build still finds its cache. When a crumb store appeared in the user
// cache directory of that home (by XDG_CACHE_HOME, or by HOME alone, as a
// process whose environment was filtered sees it), Main names what it
// holds and fails the run, however the tests went: a test leaked into what
// would have been the user's store. It returns the exit code for os.Exit.
func Main(m TestingM) int {
	root, err := os.MkdirTemp("", "crumb-testhome-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testhome:", err)
		return 1
	}
	defer os.RemoveAll(root)
	pinGoDirs()
	home := filepath.Join(root, "home")
	for k, v := range map[string]string{
		"HOME":            home,
		"XDG_CACHE_HOME":  filepath.Join(root, "cache"),
		"XDG_CONFIG_HOME": filepath.Join(root, "config"),
	} {
		if err := os.MkdirAll(v, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, "testhome:", err)
			return 1
		}
		os.Setenv(k, v)
	}
	os.Unsetenv("CRUMB_STORE")
	stores := DefaultStores()

	code := m.Run()
	for _, dir := range stores {
		if _, err := os.Stat(dir); err == nil {
			fmt.Fprintf(os.Stderr, "testhome: a test wrote crumb's default store %s (the user's own, had it not been redirected); give every store and every crumb process a store of its own (CRUMB_STORE, --store): %s\n",
				dir, describe(dir))
			code = max(code, 1)
		}
	}
	return code
}

// Guarded returns m with Main around its Run, for a runner that calls Run
// itself (testscript.Main).
func Guarded(m TestingM) TestingM { return guarded{m} }

type guarded struct{ m TestingM }

func (g guarded) Run() int { return Main(g.m) }

// DefaultStores returns where a crumb process would put its default store
// in the present environment, with CRUMB_STORE unset: in the user cache
// directory, and in HOME's own cache directory (which is where a process
// that is given HOME and not XDG_CACHE_HOME puts it).
func DefaultStores() []string {
	var out []string
	if dir, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(dir, "crumb"))
	}
	if home := os.Getenv("HOME"); home != "" {
		for _, d := range []string{filepath.Join(home, ".cache", "crumb"), filepath.Join(home, "Library", "Caches", "crumb")} {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// pinGoDirs sets the Go toolchain's directories that derive from the home
// or cache directory to what they are now, unless they are set already.
func pinGoDirs() {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	out, err := exec.Command("go", append([]string{"env", "-json"}, keys...)...).Output()
	if err != nil {
		return // no go command: nothing of it to keep
	}
	var env map[string]string
	if json.Unmarshal(out, &env) != nil {
		return
	}
	for _, k := range keys {
		if _, set := os.LookupEnv(k); !set && env[k] != "" {
			os.Setenv(k, env[k])
		}
	}
}

// describe says what a store directory holds: its records' tools.
func describe(dir string) string {
	tools := map[string]int{}
	n := 0
	filepath.WalkDir(filepath.Join(dir, "meta"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		n++
		var rec struct {
			Tool string `json:"tool"`
		}
		if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &rec) == nil {
			tools[rec.Tool]++
		}
		return nil
	})
	var names []string
	for t, c := range tools {
		names = append(names, fmt.Sprintf("%q ×%d", t, c))
	}
	sort.Strings(names)
	return fmt.Sprintf("%d records (%s)", n, strings.Join(names, ", "))
}
