package crumb_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/store"
)

// partLost is a real directory store whose results, once opened, fail the
// first read that reaches past their first chunk, and serve the reads after
// it: a result whose read met a dropped connection, or a Redis part evicted
// while the reads after it are served from the chunks already fetched.
type partLost struct{ store.Store }

func (s partLost) Open(ctx context.Context, ref store.Ref) (store.Object, error) {
	obj, err := s.Store.Open(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &partLostObject{Object: obj}, nil
}

type partLostObject struct {
	store.Object
	failed atomic.Bool
}

func (o *partLostObject) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > store.ChunkSize && o.failed.CompareAndSwap(false, true) {
		return 0, fmt.Errorf("store: reading %s: a chunk: %w", o.Info().Ref, store.ErrMissing)
	}
	return o.Object.ReadAt(p, off)
}

// TestGuardPartLostWhileProjecting: when a read of the stored result fails
// while its view is built, the view comes from the bytes in memory and says
// the result was not kept; it is never another kind's view of what could
// still be read, which would drop the command's exit status and name reads
// that cannot be served (seen once in 200 runs of TestGuardUnderEviction:
// the command view failed, the text view of the same, half-evicted, result
// was shown with its ref).
func TestGuardPartLostWhileProjecting(t *testing.T) {
	g := newGuard(t, crumb.Config{Store: partLost{newStore(t)}, Budget: 400})
	var b bytes.Buffer
	b.WriteString("build begins\n")
	for j := 0; b.Len() < 3*store.ChunkSize; j++ {
		fmt.Fprintf(&b, "step %d: compiling a module of the build\n", j)
	}
	b.WriteString("build ends with status 2\n")
	code := 2
	v, err := g.Project(context.Background(), crumb.Result{Tool: "run", Kind: crumb.KindCommand, Reader: bytes.NewReader(b.Bytes()), ExitCode: &code})
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.Stored || v.Ref != "" || v.Receipt.Output != crumb.OutputFallback {
		t.Errorf("stored %v, ref %q, output %s: want a fallback that keeps nothing", v.Receipt.Stored, v.Ref, v.Receipt.Output)
	}
	for _, want := range []string{"exit status 2", "build begins", "build ends with status 2", "could not be read back while its view was built"} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("the view lacks %q:\n%.800s", want, v.Text)
		}
	}
	if strings.Contains(v.Text, "crumb read") {
		t.Errorf("the view names a read of a result that is not kept:\n%.800s", v.Text)
	}
}
