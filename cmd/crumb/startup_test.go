package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/lazyre"
)

// TestEveryLazyRegexpCompiles compiles every regular expression that a
// package linked into crumb declares with lazyre: they compile on first
// use, so a bad one would otherwise panic only once the code that uses it
// runs.
func TestEveryLazyRegexpCompiles(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}

// maxInitBytes is the most a crumb package may allocate while it is
// initialised. Every crumb command runs the initialisation of every
// package, so a table built there (a compiled regular expression, a large
// map) is paid by each "crumb read" of a page; build it on first use
// instead (lazyre, sync.OnceValue).
const maxInitBytes = 48 << 10

// TestPackagesInitialiseCheaply runs this test binary, which links every
// package crumb does, with GODEBUG=inittrace=1 and checks what each crumb
// package allocates while initialised. Allocations, unlike times, are the
// same on every run.
func TestPackagesInitialiseCheaply(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.Bytes())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @0.5 ms, 0.1 ms clock, 1234 bytes, 5 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," || !strings.HasPrefix(f[1], "github.com/crumb-dev/crumb") {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("reading %q: %v", sc.Text(), err)
		}
		if n > maxInitBytes {
			t.Errorf("package %s allocates %d bytes while initialised, more than %d: build its tables on first use", f[1], n, maxInitBytes)
		}
	}
	if seen < 5 {
		t.Fatalf("the trace names %d crumb packages; GODEBUG=inittrace=1 wrote:\n%s", seen, stderr.Bytes())
	}
}
