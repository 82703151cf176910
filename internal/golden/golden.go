// Package golden compares what a test produced with a golden file under
// testdata, or rewrites the file when the test runs with -update.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites golden files instead of comparing with them: go test ./pkg -update.
var update = flag.Bool("update", false, "rewrite golden files")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check compares got with the golden file at path, or rewrites the file when
// -update is given.
func Check(t testing.TB, path string, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run go test with -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("view differs from %s (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
