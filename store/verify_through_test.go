package store

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// pageTestResult stores three chunks and a bit of lines and returns the
// open object, the content, and the content file's path. The file's
// modification time is set an hour back, so that verifications of it are
// remembered; the process's memory of verified chunks starts empty.
func pageTestResult(t *testing.T) (*dirObject, []byte, string) {
	t.Helper()
	old := verified
	verified = &verifiedCache{state: make(map[verifiedKey]os.FileInfo)}
	t.Cleanup(func() { verified = old })
	d, err := OpenDir(t.TempDir(), DirOptions{ManualGC: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	var b bytes.Buffer
	for i := 0; b.Len() < 3*ChunkSize+5000; i++ {
		b.WriteString(strings.Repeat("abcdefghij", i%17) + "\n")
	}
	data := b.Bytes()
	info, err := d.Put(context.Background(), bytes.NewReader(data), Meta{})
	if err != nil {
		t.Fatal(err)
	}
	path := d.blobPath(info.Ref)
	back := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, back, back); err != nil {
		t.Fatal(err)
	}
	obj, err := d.Open(context.Background(), info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obj.Close() })
	return obj.(*dirObject), data, path
}

// TestPageReadHoldsNoChunk checks that reads of parts of chunks whose
// verification is remembered give the stored bytes, hash each chunk once,
// and never fill the 1 MiB chunk buffer.
func TestPageReadHoldsNoChunk(t *testing.T) {
	o, data, _ := pageTestResult(t)
	before := ChunkVerifications()
	reads := []struct{ off, n int64 }{
		{ChunkSize - 19, 4000},      // across the first chunk boundary, as a page from the middle of a result
		{10, 100},                   // the first chunk again
		{2*ChunkSize + 70000, 9000}, // across a piece boundary of the third chunk
		{3 * ChunkSize, 5000},       // the short last chunk, to the end
		{ChunkSize + pieceSize, 1},
	}
	for _, r := range reads {
		p := make([]byte, r.n)
		if _, err := o.ReadAt(p, r.off); err != nil {
			t.Fatalf("ReadAt(%d bytes at %d): %v", r.n, r.off, err)
		}
		if !bytes.Equal(p, data[r.off:r.off+r.n]) {
			t.Fatalf("ReadAt(%d bytes at %d) gives other bytes than were stored", r.n, r.off)
		}
	}
	if got := ChunkVerifications() - before; got != 4 {
		t.Errorf("the reads hashed %d chunks, want each of the 4 once", got)
	}
	if o.buf != nil {
		t.Errorf("the object holds a chunk buffer of %d bytes", cap(o.buf))
	}
}

// TestPageReadOfDamagedChunk checks that a read through the pieces still
// finds a chunk that does not match its digest, or its line index.
func TestPageReadOfDamagedChunk(t *testing.T) {
	t.Run("content", func(t *testing.T) {
		o, _, path := pageTestResult(t)
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("X"), ChunkSize+pieceSize+7); err != nil {
			t.Fatal(err)
		}
		f.Close()
		back := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path, back, back); err != nil {
			t.Fatal(err)
		}
		_, err = o.ReadAt(make([]byte, 10), ChunkSize+5)
		if !strings.Contains(err.Error(), "chunk 1 (bytes 1048576-2097151) does not match its digest") {
			t.Fatalf("reading the damaged chunk: %v, want it found broken", err)
		}
		if _, err := o.ReadAt(make([]byte, 10), ChunkSize+5); err == nil {
			t.Fatalf("reading the damaged chunk again succeeds")
		}
	})
	t.Run("line index", func(t *testing.T) {
		o, _, _ := pageTestResult(t)
		o.info.ChunkNewlines[2]++
		_, err := o.ReadAt(make([]byte, 10), ChunkSize+5)
		if err == nil || !strings.Contains(err.Error(), "chunk 1 holds") {
			t.Fatalf("reading a chunk its line index miscounts: %v, want it found broken", err)
		}
	})
}
