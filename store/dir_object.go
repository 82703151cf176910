package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// dirObject is an open result of a [Dir]. It keeps the last chunk it verified,
// so sequential reads hash every chunk once and memory stays at one chunk.
// A chunk verified before by this process (see verified.go), or written by
// it (written), is read straight from the file without hashing it again, as
// long as the file is in the state it was in then.
type dirObject struct {
	mu      sync.Mutex
	f       *os.File
	info    Info
	buf     []byte      // the verified chunk with index cached, or scratch space
	cached  int64       // index of the chunk in buf, -1 when none
	written os.FileInfo // for a staged object: the file's state once written, nil when not trusted
	closed  bool
}

// newWrittenObject returns an object reading the file this process has
// just written as info, and hashed while writing it: its chunks are not
// hashed again unless the file changes.
func newWrittenObject(f *os.File, info Info) (*dirObject, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("store: reading back a staged result: %w", err)
	}
	return &dirObject{f: f, info: info, cached: -1, written: fi}, nil
}

func (o *dirObject) Info() Info  { return o.info }
func (o *dirObject) Size() int64 { return o.info.Size }

// Close releases the open file and the chunk buffer.
func (o *dirObject) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	o.buf = nil
	return o.f.Close()
}

// ReadAt reads len(p) bytes at off, verifying every chunk it reads from. It
// follows io.ReaderAt: fewer than len(p) bytes come with an error, io.EOF at
// the end of the result.
func (o *dirObject) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return 0, fmt.Errorf("store: reading %s: %w", o.info.Ref, os.ErrClosed)
	}
	if off < 0 {
		return 0, fmt.Errorf("store: reading %s: negative offset %d", o.info.Ref, off)
	}
	size := o.info.Size
	if off >= size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off+int64(n) < size {
		pos := off + int64(n)
		idx := pos / ChunkSize
		want := int(min(int64(len(p)-n), min((idx+1)*ChunkSize, size)-pos))
		if o.cached != idx && o.readTrusted(p[n:n+want], pos, idx) {
			n += want
			continue
		}
		chunk, err := o.chunk(idx)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], chunk[pos-idx*ChunkSize:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// key names chunk idx of the object's result in the process's memory.
func (o *dirObject) key(idx int64) verifiedKey {
	return verifiedKey{ref: o.info.Ref, idx: idx, digest: o.info.Chunks[idx]}
}

// readTrusted reads dst at pos, within chunk idx, straight from the file
// if the chunk was written or verified by this process and the file has not
// changed since. It reports false when it did not, and dst is then to be
// filled from the verified chunk.
func (o *dirObject) readTrusted(dst []byte, pos, idx int64) bool {
	was := o.written
	if was == nil {
		var ok bool
		if was, ok = verified.lookup(o.key(idx)); !ok {
			return false
		}
	}
	if k, err := o.f.ReadAt(dst, pos); k != len(dst) && err != nil {
		return false
	}
	// The state after the read matches the state the chunk was checked in:
	// nothing changed the file in between.
	if now, err := o.f.Stat(); err == nil && sameState(was, now) {
		return true
	}
	o.written = nil
	return false
}

// chunk returns chunk idx, read and verified (or cached).
func (o *dirObject) chunk(idx int64) ([]byte, error) {
	start := idx * ChunkSize
	clen := min(ChunkSize, o.info.Size-start)
	if o.cached == idx {
		return o.buf[:clen], nil
	}
	o.cached = -1
	if int64(cap(o.buf)) < clen {
		o.buf = make([]byte, min(ChunkSize, o.info.Size))
	}
	buf := o.buf[:clen]
	// The file's state before the read is the one the check vouches for: a
	// change during or after the read moves it.
	checked := time.Now()
	fi, statErr := o.f.Stat()
	if _, err := o.f.ReadAt(buf, start); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, brokenErr(o.info.Ref, fmt.Sprintf("chunk %d: its content file is shorter than its record says", idx))
		}
		return nil, fmt.Errorf("store: reading %s: %w", o.info.Ref, err)
	}
	chunkVerifications.Add(1)
	sum := sha256.Sum256(buf)
	if hex.EncodeToString(sum[:]) != o.info.Chunks[idx] {
		return nil, brokenErr(o.info.Ref, fmt.Sprintf("chunk %d (bytes %d-%d) does not match its digest", idx, start, start+clen-1))
	}
	o.cached = idx
	if statErr == nil {
		verified.remember(o.key(idx), fi, checked)
	}
	return buf, nil
}
