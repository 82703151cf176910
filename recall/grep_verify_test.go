package recall

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
)

// A search of a whole result of many chunks verifies each chunk once, and
// a second search in the same process hashes none again; a chunk changed
// on disk afterwards is caught, and the search reports the result broken.
func TestGrepVerifiesEachChunkOnceAndCatchesTampering(t *testing.T) {
	st := testStore(t)
	data := numbered(300_000) // some 6.5 MB
	ref := put(t, st, data)
	chunks := (int64(len(data)) + store.ChunkSize - 1) / store.ChunkSize
	blob := filepath.Join(st.Path(), "objects", string(ref[:2]), string(ref))
	// A file changed a moment ago is checked on every read (see
	// store/verified.go); this one was written long ago.
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(blob, past, past); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for run, want := range []int64{chunks, 0} {
		before := store.ChunkVerifications()
		p, err := Read(ctx, st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "no-such-row"}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Text, "no matches in lines 1-300,000") {
			t.Fatalf("search %d: %s", run+1, p.Text)
		}
		if got := store.ChunkVerifications() - before; got != want {
			t.Errorf("search %d of a %d-chunk result verified %d chunks, want %d", run+1, chunks, got, want)
		}
	}
	// Change one byte in chunk 3, keeping the size.
	f, err := os.OpenFile(blob, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte{'X'}, 3*store.ChunkSize+100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	later := past.Add(time.Minute)
	if err := os.Chtimes(blob, later, later); err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"no-such-row", `row 1\d{5} value`} {
		_, err = Read(ctx, st, Request{Ref: ref, Grep: &GrepSpec{Pattern: pat, From: 100_000}}, Options{})
		if !errors.Is(err, store.ErrBroken) {
			t.Errorf("search for %q of a tampered result: %v, want ErrBroken", pat, err)
		}
	}
}
