package project

import (
	"testing"

	"github.com/crumb-dev/crumb/internal/golden"
)

// checkGolden compares got with the golden file at path, or rewrites the
// file when the tests run with -update.
func checkGolden(t *testing.T, path string, got string) {
	t.Helper()
	golden.Check(t, path, got)
}
