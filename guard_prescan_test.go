package crumb_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/crumb-dev/crumb"
)

// TestGuardPrescansEnd projects results whose first part a prescan reads
// while they are stored (a JSON document, a command's output, a log), one
// of them kept only in part (so its prescan is not taken over), and checks
// that every prescan's goroutine has ended once Project returns.
func TestGuardPrescansEnd(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("project", "testdata", "json", "go-list-std", "output"))
	if err != nil {
		t.Fatal(err)
	}
	doc = bytes.Repeat(doc, 3)
	exit := 1
	results := []crumb.Result{
		{Tool: "t", Kind: crumb.KindJSON, Body: doc},
		{Tool: "t", Kind: crumb.KindCommand, Body: plainLines(20000), ExitCode: &exit, Command: []string{"make"}},
		{Tool: "t", Kind: crumb.KindText, Body: logLines(20000)},
	}
	ctx := context.Background()
	for _, maxKeep := range []int64{0, 64 << 10} {
		g := newGuard(t, crumb.Config{MaxKeep: maxKeep})
		before := runtime.NumGoroutine()
		for _, res := range results {
			v, err := g.Project(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Receipt.Stored || v.Receipt.Truncated != (maxKeep > 0) {
				t.Fatalf("%s, keeping %d: receipt %+v", res.Kind, maxKeep, v.Receipt)
			}
		}
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			t.Fatalf("keeping %d: %d goroutines are left after Project, %d before:\n%s", maxKeep, n, before, buf[:runtime.Stack(buf, true)])
		}
	}
}
