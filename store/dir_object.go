package store

import (
	"bytes"
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
	piece   []byte      // the buffer verifyThrough reads a chunk through
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
	o.buf, o.piece = nil, nil
	return o.f.Close()
}

// ReadAt reads len(p) bytes at off, verifying every chunk it reads from. It
// follows io.ReaderAt: fewer than len(p) bytes come with an error, io.EOF at
// the end of the result. Reads of whole chunks go straight into p and may
// run in parallel; the rest go through the object's chunk buffer, one at a
// time.
func (o *dirObject) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	closed := o.closed
	o.mu.Unlock()
	if closed {
		return 0, fmt.Errorf("store: reading %s: %w", o.info.Ref, os.ErrClosed)
	}
	return ReadChunked(o.info.Ref, o.info.Size, p, off, func(dst []byte, pos, idx int64) (int, error) {
		if pos == idx*ChunkSize && pos+int64(len(dst)) == min((idx+1)*ChunkSize, o.info.Size) {
			if err := o.readWhole(dst, idx); err != nil {
				return 0, err
			}
			return len(dst), nil
		}
		return o.readPart(dst, pos, idx)
	})
}

// readPart reads dst at pos, a part of chunk idx, through the chunk buffer.
func (o *dirObject) readPart(dst []byte, pos, idx int64) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cached != idx {
		if was := o.trusted(idx); was != nil {
			if o.readTrusted(dst, pos, was) {
				return len(dst), nil
			}
			o.written = nil
		}
		if done, err := o.verifyThrough(dst, pos, idx); done || err != nil {
			if err != nil {
				return 0, err
			}
			return len(dst), nil
		}
	}
	chunk, err := o.chunk(idx)
	if err != nil {
		return 0, err
	}
	return copy(dst, chunk[pos-idx*ChunkSize:]), nil
}

// pieceSize is the size of the pieces verifyThrough reads a chunk in.
const pieceSize = 64 << 10

// verifyThrough verifies chunk idx by reading it in pieces through a small
// buffer, copying the bytes at pos that dst asks for as they go by, when
// the process will remember the verification (the file has not changed
// within the racy margin): later reads of the chunk then read straight from
// the file, and the object need not hold the chunk. Memory the process has
// not touched yet costs more than hashing it (a page read of a 1 GB result
// spent about 0.5 ms faulting in the 1 MiB chunk buffer), so a page read
// holds 64 KiB instead. It returns false, having read nothing, when the
// verification would not be remembered: the caller reads the chunk into
// the chunk buffer and keeps it there. The caller holds o.mu.
func (o *dirObject) verifyThrough(dst []byte, pos, idx int64) (bool, error) {
	checked := time.Now()
	fi, err := o.f.Stat()
	if err != nil || racy(fi, checked) {
		return false, nil
	}
	if o.piece == nil {
		o.piece = make([]byte, pieceSize)
	}
	start := idx * ChunkSize
	clen := min(ChunkSize, o.info.Size-start)
	h := sha256.New()
	var newlines int64
	endsLine := false
	for off := start; off < start+clen; {
		b := o.piece[:min(int64(len(o.piece)), start+clen-off)]
		if _, err := o.f.ReadAt(b, off); err != nil {
			return true, readErr(o.info.Ref, idx, err)
		}
		h.Write(b)
		newlines += int64(bytes.Count(b, []byte{'\n'}))
		endsLine = b[len(b)-1] == '\n'
		if lo, hi := max(off, pos), min(off+int64(len(b)), pos+int64(len(dst))); lo < hi {
			copy(dst[lo-pos:hi-pos], b[lo-off:hi-off])
		}
		off += int64(len(b))
	}
	chunkVerifications.Add(1)
	if hex.EncodeToString(h.Sum(nil)) != o.info.Chunks[idx] {
		return true, brokenErr(o.info.Ref, fmt.Sprintf("chunk %d (bytes %d-%d) does not match its digest", idx, start, start+clen-1))
	}
	if err := checkChunkCount(o.info, idx, newlines, endsLine, int(clen)); err != nil {
		return true, brokenErr(o.info.Ref, err.Error())
	}
	verified.remember(o.key(idx), fi, checked)
	return true, nil
}

// readErr is the error of a failed read of chunk idx of the content file
// of ref.
func readErr(ref Ref, idx int64, err error) error {
	if errors.Is(err, io.EOF) {
		return brokenErr(ref, fmt.Sprintf("chunk %d: its content file is shorter than its record says", idx))
	}
	return fmt.Errorf("store: reading %s: %w", ref, err)
}

// readWhole reads all of chunk idx into dst and verifies it there, unless
// it is trusted. It holds the lock only to look at the object's state.
func (o *dirObject) readWhole(dst []byte, idx int64) error {
	o.mu.Lock()
	was := o.trusted(idx)
	o.mu.Unlock()
	if was != nil {
		if o.readTrusted(dst, idx*ChunkSize, was) {
			return nil
		}
		o.mu.Lock()
		o.written = nil
		o.mu.Unlock()
	}
	return o.verify(dst, idx)
}

// key names chunk idx of the object's result in the process's memory,
// with what its record's line index says of it, which a verification
// checks too.
func (o *dirObject) key(idx int64) verifiedKey {
	k := verifiedKey{ref: o.info.Ref, idx: idx, digest: o.info.Chunks[idx]}
	if info := o.info; info.Newlines != nil && idx < int64(len(info.ChunkNewlines)) {
		k.lines.indexed = true
		k.lines.before = info.ChunkNewlines[idx]
		k.lines.after = *info.Newlines
		if idx+1 < int64(len(info.ChunkNewlines)) {
			k.lines.after = info.ChunkNewlines[idx+1]
		} else if info.Lines != nil {
			k.lines.total = *info.Lines
		}
	}
	return k
}

// trusted returns the state of the file in which chunk idx was written or
// verified by this process, or nil. The caller holds o.mu.
func (o *dirObject) trusted(idx int64) os.FileInfo {
	if o.written != nil {
		return o.written
	}
	if was, ok := verified.lookup(o.key(idx)); ok {
		return was
	}
	return nil
}

// readTrusted reads dst at pos straight from the file, and reports whether
// the file was still in the state was after the read: then dst holds bytes
// of a chunk known to be sound. Otherwise the object stops trusting what it
// wrote (the caller sets written to nil), and dst is to be read again with a
// check.
func (o *dirObject) readTrusted(dst []byte, pos int64, was os.FileInfo) bool {
	if k, err := o.f.ReadAt(dst, pos); k != len(dst) && err != nil {
		return false
	}
	// The state after the read matches the state the chunk was checked in:
	// nothing changed the file in between.
	if now, err := o.f.Stat(); err == nil && sameState(was, now) {
		return true
	}
	return false
}

// chunk returns chunk idx, read into the chunk buffer and verified (or
// cached there). The caller holds o.mu.
func (o *dirObject) chunk(idx int64) ([]byte, error) {
	clen := min(ChunkSize, o.info.Size-idx*ChunkSize)
	if o.cached == idx {
		return o.buf[:clen], nil
	}
	o.cached = -1
	if int64(cap(o.buf)) < clen {
		o.buf = make([]byte, min(ChunkSize, o.info.Size))
	}
	buf := o.buf[:clen]
	if err := o.verify(buf, idx); err != nil {
		return nil, err
	}
	o.cached = idx
	return buf, nil
}

// verify reads chunk idx into buf, which is as long as the chunk, and
// checks it against its digest; a sound chunk is remembered for the
// process.
func (o *dirObject) verify(buf []byte, idx int64) error {
	start := idx * ChunkSize
	// The file's state before the read is the one the check vouches for: a
	// change during or after the read moves it.
	checked := time.Now()
	fi, statErr := o.f.Stat()
	if _, err := o.f.ReadAt(buf, start); err != nil {
		return readErr(o.info.Ref, idx, err)
	}
	chunkVerifications.Add(1)
	sum := sha256.Sum256(buf)
	if hex.EncodeToString(sum[:]) != o.info.Chunks[idx] {
		return brokenErr(o.info.Ref, fmt.Sprintf("chunk %d (bytes %d-%d) does not match its digest", idx, start, start+int64(len(buf))-1))
	}
	if err := checkChunkLines(o.info, idx, buf); err != nil {
		return brokenErr(o.info.Ref, err.Error())
	}
	if statErr == nil {
		verified.remember(o.key(idx), fi, checked)
	}
	return nil
}
