package project

import (
	"context"
	"errors"
	"io"
	"sort"
)

// A JSON document's pass (scanJSON) runs in a prescan while the document
// streams in, reading the bytes the prescan is given. Its size, which
// decides how much of it the pass reads (see jsonSample), is known only
// once it has ended, so the pass reads on as if the document were larger
// than jsonSample.full: its first jsonSample.head bytes, cut. At the end of
// those, or of the stream, it waits for the projector to hand it the stored
// document (takeJSON) and goes on as the document's size says, reading
// the stored document from then on. What the pass records only for a
// sampled document is dropped when it turns out not to be one, so the pass
// ends in the state a pass of the stored document ends in.
//
// The bytes it was given stay readable while the pass may read them again
// (a key, read back for a pointer): the first jsonKeepHead bytes and the
// last jsonKeepBack before the window being read. A read of bytes it no
// longer holds waits for the stored document. Tests make these smaller.
var (
	jsonKeepHead int64 = 256 << 10
	jsonKeepBack int64 = 1 << 20
)

// errPrescanReleased ends the pass of a prescan that no projector took.
var errPrescanReleased = errors.New("project: the prescan was released")

func init() {
	RegisterPrescan(KindJSON, func(c Call) Prescanner {
		return &jsonPrescan{intent: c.Intent, handed: make(chan struct{})}
	})
}

// jsonPrescan is the prescan of a JSON document.
type jsonPrescan struct {
	intent string        // the call's
	p      *Prescan      // the prescan it scans for, set by Scan
	handed chan struct{} // closed by takeJSON, once src, size, limit and cut are set
	src    io.ReaderAt   // the stored document
	size   int64         // its size
	limit  int64         // how much of it the pass reads
	cut    bool          // the limit cuts it

	// Set by the goroutine, read once done is closed.
	pass *jsonPass
	at   bool  // the pass reached the end of a sample's first part
	err  error // the pass failed

	// The goroutine's reading of the stream.
	queue  <-chan []byte // p.Blocks(), nil once it is closed
	blocks [][]byte      // the bytes kept, in order, without gaps but one
	offs   []int64       // where each of blocks starts
	got    int64         // bytes taken from the queue
}

// Limit is the first part of a sampled document.
func (j *jsonPrescan) Limit() int64 { return jsonSample.head }

// Scan runs the pass of the document.
func (j *jsonPrescan) Scan(p *Prescan) {
	j.p, j.queue = p, p.Blocks()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.Quit():
			cancel()
		case <-ctx.Done():
		}
	}()
	rd := &jsonStreamReader{j: j}
	pass := newJSONPass(rd, 0, jsonSample.head, true, newJSONMatcher(j.intent))
	rd.pass = pass
	pass.s.Stream(rd.more)
	j.at, j.err = pass.run(ctx)
	pass.s.Close()
	j.pass = pass
	for _, b := range j.blocks {
		p.Recycle(b)
	}
	j.blocks, j.offs = nil, nil
	// Take what the stream still sends, so that Write never waits for a
	// pass that has ended.
	for j.queue != nil {
		b, ok := <-j.queue
		if !ok {
			j.queue = nil
			break
		}
		p.Recycle(b)
	}
}

// handedOver reports whether the projector has handed the stored document
// over.
func (j *jsonPrescan) handedOver() bool {
	select {
	case <-j.handed:
		return true
	default:
		return false
	}
}

// take takes the next block of the stream; it reports false when none
// will come before the document is handed over.
func (j *jsonPrescan) takeBlock() bool {
	p := j.p
	if j.queue == nil {
		return false
	}
	select {
	case b, ok := <-j.queue:
		if !ok {
			j.queue = nil
			return false
		}
		j.blocks, j.offs = append(j.blocks, b), append(j.offs, j.got)
		j.got += int64(len(b))
		return true
	case <-j.handed:
		return false
	case <-p.Quit():
		return false
	}
}

// waitHandover waits until the stored document is handed over, taking and
// dropping the stream's blocks meanwhile; it reports false when the
// prescan is released first.
func (j *jsonPrescan) waitHandover() bool {
	p := j.p
	for {
		select {
		case b, ok := <-j.queue:
			if !ok {
				j.queue = nil
				continue
			}
			p.Recycle(b)
		case <-j.handed:
			return true
		case <-p.Quit():
			return false
		}
	}
}

// forget drops the blocks that end before off, but for those of the
// document's first jsonKeepHead bytes.
func (j *jsonPrescan) forget(off int64) {
	p := j.p
	k := 0
	for i, b := range j.blocks {
		if j.offs[i] < jsonKeepHead || j.offs[i]+int64(len(b)) > off {
			j.blocks[k], j.offs[k] = b, j.offs[i]
			k++
		} else {
			p.Recycle(b)
		}
	}
	clear(j.blocks[k:])
	j.blocks, j.offs = j.blocks[:k], j.offs[:k]
}

// jsonStreamReader reads the document for the pass of a JSON prescan:
// the stream's bytes it holds, else the stored document once handed over.
type jsonStreamReader struct {
	j    *jsonPrescan
	pass *jsonPass
}

// more tells the pass how far it reads (see jsonscan.Scanner.Stream): the
// first jsonSample.head bytes, cut, while the stream goes on; the stored
// document's limit once handed over.
func (r *jsonStreamReader) more(next, want int64) (int64, bool) {
	j := r.j
	if j.handedOver() {
		return r.handed()
	}
	j.forget(next - jsonKeepBack)
	want = min(want, jsonSample.head)
	for j.got < want && j.takeBlock() {
	}
	if next < jsonSample.head && j.got >= want {
		return jsonSample.head, true
	}
	// At the end of the head or of the stream: the size decides.
	if !j.waitHandover() {
		return next, true // released: the pass ends here
	}
	return r.handed()
}

// handed gives the pass, once the document is handed over, its size, and
// returns its limit: before the pass reaches either, so that what it
// records at a cut is as a pass of the stored document records it.
func (r *jsonStreamReader) handed() (int64, bool) {
	j := r.j
	r.pass.size, r.pass.outer.end = j.size, j.size
	return j.limit, j.cut
}

// ReadAt reads bytes of the document.
func (r *jsonStreamReader) ReadAt(b []byte, off int64) (int, error) {
	j := r.j
	if !j.handedOver() {
		end := off + int64(len(b))
		for j.got < end && j.takeBlock() {
		}
		if n, ok := j.copyAt(b, off); ok {
			return n, nil
		}
		if !j.waitHandover() {
			return 0, errPrescanReleased
		}
	}
	return j.src.ReadAt(b, off)
}

// copyAt copies the bytes at off into b from the blocks kept, and reports
// whether they held all of them.
func (j *jsonPrescan) copyAt(b []byte, off int64) (int, bool) {
	if off+int64(len(b)) > j.got {
		return 0, false
	}
	i := sort.Search(len(j.offs), func(i int) bool { return j.offs[i] > off }) - 1
	n := 0
	for ; i >= 0 && i < len(j.blocks) && n < len(b); i++ {
		pos := off + int64(n)
		if j.offs[i] > pos || pos >= j.offs[i]+int64(len(j.blocks[i])) {
			return 0, false // a gap: forgotten bytes
		}
		n += copy(b[n:], j.blocks[i][pos-j.offs[i]:])
	}
	return n, n == len(b)
}

// takeJSON hands the stored document, src of size bytes, to the prescan's
// pass, waits for the pass to end and returns it, with whether it reached
// the end of a sample's first part, when the prescan read this document
// (else nil): the pass is then as scanJSON leaves it before finish. It
// hands over its state once.
func takeJSON(ctx context.Context, p *Prescan, src io.ReaderAt, size int64) (*jsonPass, bool) {
	j, ok := p.Scanner().(*jsonPrescan)
	if !ok || !p.Take() {
		return nil, false
	}
	p.Close()
	if p.Sent() != min(size, j.Limit()) {
		p.Release() // it saw other bytes than the store keeps
		return nil, false
	}
	j.src, j.size = src, size
	j.limit, j.cut = jsonScanLimit(size)
	close(j.handed)
	if !p.Wait(ctx) || j.err != nil {
		return nil, false
	}
	pass := j.pass
	pass.s.SetReader(src)
	if j.cut {
		pass.scanned = j.limit
	} else {
		pass.sampled, pass.scanned = false, 0
		pass.clearFirst()
	}
	return pass, j.at
}
