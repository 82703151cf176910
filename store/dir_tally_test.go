package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

// TestTally checks that tallies add up, concurrent ones included; that Stat,
// Open and List report them beside the record's own attributes; that an
// annotation does not count them twice; that a damaged tally file counts as
// none without breaking the result; and that a missing result is an error
// that says so.
func TestTally(t *testing.T) {
	ctx := context.Background()
	d, err := store.OpenDir(t.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	info, err := d.Put(ctx, strings.NewReader("a\nb\n"), store.Meta{Attrs: map[string]string{"reads": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	ref := info.Ref
	recBefore, err := os.ReadFile(store.RecordPath(d, ref))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 1; i <= 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := d.Tally(ctx, ref, map[string]int64{"reads": 1, "read_tokens": int64(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := func(stage string, attrs map[string]string, reads, tokens string) {
		t.Helper()
		if attrs["reads"] != reads || attrs["read_tokens"] != tokens {
			t.Errorf("%s: reads %q, read_tokens %q; want %s and %s", stage, attrs["reads"], attrs["read_tokens"], reads, tokens)
		}
	}
	st, err := d.Stat(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	want("Stat", st.Attrs, "12", "55")
	obj, err := d.Open(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	want("Open", obj.Info().Attrs, "12", "55")
	obj.Close()
	list, err := d.List(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("List: %v, %v", list, err)
	}
	want("List", list[0].Attrs, "12", "55")
	// The record itself was not rewritten.
	if rec, _ := os.ReadFile(store.RecordPath(d, ref)); string(rec) != string(recBefore) {
		t.Errorf("Tally rewrote the record")
	}
	if err := d.Annotate(ctx, ref, map[string]string{"view_tokens": "7"}); err != nil {
		t.Fatal(err)
	}
	st, _ = d.Stat(ctx, ref)
	want("after Annotate", st.Attrs, "12", "55")

	if err := os.WriteFile(store.TallyPath(d, ref), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err = d.Stat(ctx, ref)
	if err != nil {
		t.Fatalf("a damaged tally broke the result: %v", err)
	}
	want("damaged tally", st.Attrs, "2", "")
	if err := d.Tally(ctx, ref, map[string]int64{"reads": 1}); err != nil {
		t.Fatal(err)
	}
	st, _ = d.Stat(ctx, ref)
	want("tally after damage", st.Attrs, "3", "")

	if err := d.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(store.TallyPath(d, ref)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Delete left the tally: %v", err)
	}
	if err := d.Tally(ctx, ref, map[string]int64{"reads": 1}); !errors.Is(err, store.ErrMissing) {
		t.Errorf("tallying a missing result: %v, want ErrMissing", err)
	}
}
