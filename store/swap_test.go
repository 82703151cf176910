package store

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestTallyIsAlwaysWhole tallies a result again and again while another
// goroutine reads its tally file: the reader always finds a whole tally,
// the counts add up, and no file is left in the store's tmp directory.
func TestTallyIsAlwaysWhole(t *testing.T) {
	d, err := OpenDir(t.TempDir(), DirOptions{ManualGC: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	info, err := d.Put(ctx, strings.NewReader("a result\n"), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Tally(ctx, info.Ref, map[string]int64{"reads": 1}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	var stop atomic.Bool
	done := make(chan error)
	go func() {
		var bad error
		for !stop.Load() {
			data, err := os.ReadFile(d.tallyPath(info.Ref))
			var counts map[string]int64
			if err == nil {
				err = json.Unmarshal(data, &counts)
			}
			if err != nil && bad == nil {
				bad = err
			}
		}
		done <- bad
	}()
	for range n {
		if err := d.Tally(ctx, info.Ref, map[string]int64{"reads": 1, "read_tokens": 1000}); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	if err := <-done; err != nil {
		t.Errorf("a reader of the tally file found: %v", err)
	}
	got, err := d.Stat(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.Attrs["reads"] != "201" || got.Attrs["read_tokens"] != "200000" {
		t.Errorf("tallied reads %q, read_tokens %q; want 201 and 200000", got.Attrs["reads"], got.Attrs["read_tokens"])
	}
	left, err := os.ReadDir(d.tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("tallying left %d files in the store's tmp directory", len(left))
	}
}

func BenchmarkTally(b *testing.B) {
	d, err := OpenDir(b.TempDir(), DirOptions{ManualGC: true, NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	info, err := d.Put(ctx, strings.NewReader("a result\n"), Meta{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := d.Tally(ctx, info.Ref, map[string]int64{"reads": 1, "read_tokens": 1000}); err != nil {
			b.Fatal(err)
		}
	}
}
