package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

// readScattered reads obj back and forth across all its chunks, in small
// pieces, the way the line views do, and checks the bytes against data.
func readScattered(t *testing.T, obj store.Object, data []byte) {
	t.Helper()
	p := make([]byte, 4096)
	size := int64(len(data))
	for round := 0; round < 3; round++ {
		for _, off := range []int64{0, size - 100, store.ChunkSize - 10, 5, 2*store.ChunkSize + 7, store.ChunkSize + 99, size / 2} {
			n, _ := obj.ReadAt(p, off)
			if n == 0 || !bytes.Equal(p[:n], data[off:off+int64(n)]) {
				t.Fatalf("round %d: ReadAt(%d) = %d bytes, not the stored ones", round, off, n)
			}
		}
	}
}

// settle moves the modification time of the file at path an hour back, so
// that a check made now is not within a clock tick of its last change.
func settle(t *testing.T, path string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestChunksVerifiedOncePerProcess(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(21, 3*store.ChunkSize+1234)
	info := putBytes(t, d, data)
	blob := store.BlobPath(d, info.Ref)
	settle(t, blob)

	before := store.ChunkVerifications()
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	readScattered(t, obj, data)
	obj.Close()
	// A second object of the same process trusts what the first verified.
	obj, err = d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	readScattered(t, obj, data)
	if got := store.ChunkVerifications() - before; got != 4 {
		t.Errorf("reading 4 chunks over and over, by two objects, verified %d chunks; want each once", got)
	}

	// A change to the file is caught by the open object on its next read of
	// the chunk, and by a new one.
	flipByte(t, blob, store.ChunkSize+12345)
	p := make([]byte, 10)
	_, err = obj.ReadAt(p, store.ChunkSize+12340)
	wantIs(t, "the open object reading the damaged chunk", err, store.ErrBroken, "chunk 1")
	obj.Close()
	obj, err = d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	_, err = obj.ReadAt(p, store.ChunkSize+12340)
	wantIs(t, "a new object reading the damaged chunk", err, store.ErrBroken, "chunk 1")
	if _, err := obj.ReadAt(p, 0); err != nil {
		t.Errorf("an undamaged chunk of the changed file: %v", err)
	}
}

func TestRacyChecksAreNotRemembered(t *testing.T) {
	// A file whose last change is not a clock tick older than the check
	// could change again unseen: its chunks are verified on every load.
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(22, 3*store.ChunkSize)
	info := putBytes(t, d, data)
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(store.BlobPath(d, info.Ref), future, future); err != nil {
		t.Fatal(err)
	}
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	before := store.ChunkVerifications()
	p := make([]byte, 10)
	for _, off := range []int64{0, store.ChunkSize, 0} {
		if _, err := obj.ReadAt(p, off); err != nil {
			t.Fatal(err)
		}
	}
	if got := store.ChunkVerifications() - before; got != 3 {
		t.Errorf("three loads of chunks of a racy file verified %d; want 3", got)
	}
}

func TestStagedObjectTrustsWhatItWrote(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(23, 3*store.ChunkSize+99)
	before := store.ChunkVerifications()
	st, err := d.Stage(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Abort()
	obj := st.Object()
	defer obj.Close()
	readScattered(t, obj, data)
	if got := store.ChunkVerifications() - before; got != 0 {
		t.Errorf("reading a staged result verified %d chunks; its process hashed them while writing", got)
	}
	// A change to the staged file ends the trust.
	tmps, _ := filepath.Glob(filepath.Join(d.Path(), "tmp", "put-*"))
	if len(tmps) != 1 {
		t.Fatalf("temp files %v, want one", tmps)
	}
	flipByte(t, tmps[0], 2*store.ChunkSize+1)
	// A write moves the modification time; move it past any clock tick, as
	// a change made later than one tick after the store's write would.
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(tmps[0], later, later); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	_, err = obj.ReadAt(p, 2*store.ChunkSize)
	wantIs(t, "the staged object reading a changed chunk", err, store.ErrBroken, "chunk 2")
}

// Whole chunks read in parallel are each verified, and a damaged one is
// caught, whichever goroutine reads it.
func TestParallelWholeChunkReads(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(24, 8*store.ChunkSize+500)
	info := putBytes(t, d, data)
	flipByte(t, store.BlobPath(d, info.Ref), 5*store.ChunkSize+3)
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	errs := make(chan error, 9)
	for i := int64(0); i < 9; i++ {
		go func() {
			off := i * store.ChunkSize
			p := make([]byte, min(store.ChunkSize, int64(len(data))-off))
			n, err := obj.ReadAt(p, off)
			if err == nil && !bytes.Equal(p[:n], data[off:off+int64(n)]) {
				err = fmt.Errorf("chunk %d: wrong bytes", i)
			}
			if err != nil {
				err = fmt.Errorf("chunk %d: %w", i, err)
			}
			errs <- err
		}()
	}
	broken := 0
	for range 9 {
		if err := <-errs; err != nil {
			if !errors.Is(err, store.ErrBroken) || !strings.Contains(err.Error(), "chunk 5") {
				t.Error(err)
			}
			broken++
		}
	}
	if broken != 1 {
		t.Errorf("%d chunks read as broken; want the damaged one", broken)
	}
}

// A chunk verified under one record's line index is checked again under a
// record that says otherwise of it, and the wrong index reads as broken.
func TestRememberedChunkRecheckedUnderAnotherLineIndex(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	var b bytes.Buffer
	for i := 0; b.Len() < 3*store.ChunkSize; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	data := b.Bytes()
	info := putBytes(t, d, data)
	settle(t, store.BlobPath(d, info.Ref))
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	readScattered(t, obj, data)
	obj.Close()
	editRecord(t, d, info.Ref, func(m map[string]any) {
		nl := m["chunk_newlines"].([]any)
		nl[2] = nl[2].(float64) - 3
	})
	obj, err = d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatalf("Open with a shifted line index: %v", err)
	}
	defer obj.Close()
	p := make([]byte, 10)
	_, err = obj.ReadAt(p, store.ChunkSize+5)
	wantIs(t, "reading chunk 1 under the shifted index", err, store.ErrBroken, "newlines")
}
