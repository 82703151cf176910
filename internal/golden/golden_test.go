package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "view.golden")
	if err := os.WriteFile(path, []byte("want"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, got string
		fail      bool
	}{
		{path, "want", false},
		{path, "other", true},
		{path + ".missing", "want", true},
	} {
		r := &recorder{TB: t}
		Check(r, c.path, c.got)
		if r.failed != c.fail {
			t.Errorf("Check(%s, %q) failed = %v, want %v", filepath.Base(c.path), c.got, r.failed, c.fail)
		}
	}
}
