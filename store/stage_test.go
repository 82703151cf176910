package store_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

func TestStageThenCommit(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(9, 3*store.ChunkSize+17)
	st, err := d.Stage(ctx, bytes.NewReader(data), store.Meta{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	info := st.Info()
	if info.Ref != storetest.RefFor(data) || info.Size != int64(len(data)) {
		t.Fatalf("staged info %+v", info)
	}
	if _, err := d.Stat(ctx, info.Ref); !errors.Is(err, store.ErrMissing) {
		t.Fatalf("a staged result is visible before Commit: %v", err)
	}
	obj := st.Object()
	defer obj.Close()
	half := make([]byte, len(data)/2)
	if _, err := obj.ReadAt(half, 0); err != nil || !bytes.Equal(half, data[:len(half)]) {
		t.Fatalf("reading the staged object: %v", err)
	}
	committed, err := st.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if committed.Ref != info.Ref {
		t.Fatalf("commit gave ref %s, stage %s", committed.Ref, info.Ref)
	}
	// The object still reads after Commit renamed its file.
	rest := make([]byte, len(data)-len(half))
	if _, err := obj.ReadAt(rest, int64(len(half))); err != nil && !errors.Is(err, io.EOF) || !bytes.Equal(rest, data[len(half):]) {
		t.Fatalf("reading the staged object after Commit: %v", err)
	}
	got, err := store.ReadAll(ctx, d, info.Ref)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadAll after Commit: %v", err)
	}
	if _, err := st.Commit(ctx); err == nil {
		t.Error("a second Commit succeeded")
	}
}

func TestStageThenAbortLeavesNothing(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	st, err := d.Stage(ctx, bytes.NewReader([]byte("discard me")), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	st.Object().Close()
	if err := st.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Stat(ctx, st.Info().Ref); !errors.Is(err, store.ErrMissing) {
		t.Errorf("an aborted result is visible: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(d.Path(), "tmp"))
	if len(entries) != 0 {
		t.Errorf("abort left temp files: %v", entries)
	}
}

// TestCommitSyncsRecordBesideBlob checks that a commit writes and syncs its
// record's temp file while the blob is being synced, rather than after:
// the blob's sync here waits until the record's has begun, which a commit
// that syncs one after the other never reaches. The record still becomes
// visible only with its blob in place.
func TestCommitSyncsRecordBesideBlob(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	recordSync := make(chan struct{})
	var once sync.Once
	store.OnSync(d, func(name string) {
		switch {
		case strings.HasPrefix(name, "rec-"):
			once.Do(func() { close(recordSync) })
		case strings.HasPrefix(name, "put-"):
			select {
			case <-recordSync:
			case <-time.After(5 * time.Second):
				t.Error("the blob's sync ended before the record's began")
			}
		}
	})
	data := storetest.Content(3, 2*store.ChunkSize+5)
	info, err := d.Put(ctx, bytes.NewReader(data), store.Meta{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ReadAll(ctx, d, info.Ref)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("reading back: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(d.Path(), "tmp"))
	if len(entries) != 0 {
		t.Errorf("a commit left temp files: %v", entries)
	}
}

// TestStageCommitWhileReadingDir is the stage/commit race of the
// conformance helper on the directory store: reads of a staged object
// during Commit's rename see every staged byte.
func TestStageCommitWhileReadingDir(t *testing.T) {
	storetest.StageWhileReading(t, openDir(t, store.DirOptions{ManualGC: true}), 300)
}
