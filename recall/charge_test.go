package recall

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

// TestChargeAddsUp checks that every charged page counts, concurrent ones
// included, and that a missing result is an error that says so.
func TestChargeAddsUp(t *testing.T) {
	ctx := context.Background()
	d := testStore(t)
	ref := put(t, d, []byte("some\nlines\n"))
	var wg sync.WaitGroup
	for i := 1; i <= 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Charge(ctx, d, ref, i); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	info, err := d.Stat(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Attrs[AttrReadTokens]; got != "210" {
		t.Errorf("read_tokens = %q, want 210 (1+2+...+20)", got)
	}
	if got := info.Attrs[AttrReads]; got != "20" {
		t.Errorf("reads = %q, want 20", got)
	}
	if err := Charge(ctx, d, "0123456789abcdef", 5); !errors.Is(err, store.ErrMissing) {
		t.Errorf("charging a missing result: %v, want ErrMissing", err)
	}
}
