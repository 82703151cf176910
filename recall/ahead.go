package recall

import (
	"errors"
	"io"
	"runtime"
	"sync"
)

// readAhead reads a large object front to back for a scan: goroutines read
// (and so verify) the chunks ahead of the scan in parallel, and ReadAt
// serves the scan from them. A read that falls outside the chunks ahead
// goes to the object itself. io.ReaderAt lets parallel reads of one source
// run at once; a store object verifies the chunks each reads.
type readAhead struct {
	src   io.ReaderAt
	size  int64
	chunk int64
	depth int // chunks read ahead at most

	mu    sync.Mutex
	ready map[int64]*aheadChunk
	next  int64 // the next chunk to start reading
	free  [][]byte
	wg    sync.WaitGroup
}

type aheadChunk struct {
	done chan struct{}
	buf  []byte
	err  error
}

// newReadAhead returns a read-ahead of src, which holds size bytes, in
// pieces of chunk bytes (the store's chunk size, so that each read
// verifies one chunk).
func newReadAhead(src io.ReaderAt, size, chunk int64) *readAhead {
	workers := max(1, runtime.GOMAXPROCS(0))
	return &readAhead{src: src, size: size, chunk: chunk, depth: 2 * workers, ready: make(map[int64]*aheadChunk)}
}

// ReadAt reads p at off from the chunks ahead, starting more as the scan
// moves on.
func (a *readAhead) ReadAt(p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) && off+int64(n) < a.size {
		pos := off + int64(n)
		idx := pos / a.chunk
		b, err := a.chunkBytes(idx)
		if err != nil {
			return n, err
		}
		if b == nil {
			k, err := a.src.ReadAt(p[n:], pos)
			return n + k, err
		}
		n += copy(p[n:], b[pos-idx*a.chunk:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// chunkBytes returns the bytes of chunk idx once read, without a copy:
// they stay valid until a read of a later chunk. It returns nil, and no
// error, when idx is behind the chunks ahead.
func (a *readAhead) chunkBytes(idx int64) ([]byte, error) {
	c := a.get(idx)
	if c == nil {
		return nil, nil
	}
	<-c.done
	if c.err != nil && !(errors.Is(c.err, io.EOF) && len(c.buf) == int(min(a.chunk, a.size-idx*a.chunk))) {
		return nil, c.err
	}
	return c.buf, nil
}

// get returns chunk idx, read or being read, after dropping the chunks
// before it and starting those after it up to the depth; nil when idx is
// behind the chunks ahead.
func (a *readAhead) get(idx int64) *aheadChunk {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.ready[idx]; !ok && idx < a.next {
		return nil
	}
	for i, c := range a.ready {
		if i < idx {
			select {
			case <-c.done:
				a.free = append(a.free, c.buf[:cap(c.buf)])
				delete(a.ready, i)
			default: // still being read: dropped once done, by close
			}
		}
	}
	if a.next < idx {
		a.next = idx
	}
	chunks := (a.size + a.chunk - 1) / a.chunk
	for a.next < min(idx+int64(a.depth), chunks) {
		a.start(a.next)
		a.next++
	}
	return a.ready[idx]
}

// start begins reading chunk i. The caller holds a.mu.
func (a *readAhead) start(i int64) {
	var buf []byte
	if k := len(a.free); k > 0 {
		buf, a.free = a.free[k-1], a.free[:k-1]
	} else {
		buf = make([]byte, a.chunk)
	}
	buf = buf[:min(a.chunk, a.size-i*a.chunk)]
	c := &aheadChunk{done: make(chan struct{}), buf: buf}
	a.ready[i] = c
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(c.done)
		k, err := a.src.ReadAt(c.buf, i*a.chunk)
		c.buf, c.err = c.buf[:k], err
	}()
}

// close waits for the reads under way.
func (a *readAhead) close() { a.wg.Wait() }
