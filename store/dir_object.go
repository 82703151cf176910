package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// dirObject is an open result of a [Dir]. It keeps the last chunk it verified,
// so sequential reads hash every chunk once and memory stays at one chunk.
type dirObject struct {
	mu     sync.Mutex
	f      *os.File
	info   Info
	buf    []byte // the verified chunk with index cached, or scratch space
	cached int64  // index of the chunk in buf, -1 when none
	closed bool
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
	if _, err := o.f.ReadAt(buf, start); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, brokenErr(o.info.Ref, fmt.Sprintf("chunk %d: its content file is shorter than its record says", idx))
		}
		return nil, fmt.Errorf("store: reading %s: %w", o.info.Ref, err)
	}
	sum := sha256.Sum256(buf)
	if hex.EncodeToString(sum[:]) != o.info.Chunks[idx] {
		return nil, brokenErr(o.info.Ref, fmt.Sprintf("chunk %d (bytes %d-%d) does not match its digest", idx, start, start+clen-1))
	}
	if err := checkChunkLines(o.info, idx, buf); err != nil {
		return nil, brokenErr(o.info.Ref, err.Error())
	}
	o.cached = idx
	return buf, nil
}
