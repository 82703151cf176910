package project

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// updateGolden rewrites golden files instead of comparing with them:
// go test ./project -update.
var updateGolden = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with the golden file at path, or rewrites the
// file when -update is given.
func checkGolden(t *testing.T, path string, got string) {
	t.Helper()
	if *updateGolden {
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
		t.Fatalf("reading golden file (run go test ./project -update to create it): %v", err)
	}
	if string(want) != got {
		t.Errorf("view differs from %s (run with -update if the change is intended)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
