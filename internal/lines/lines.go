// Package lines gives line-addressed access to a stored result without
// holding it in memory: where line N starts, which line an offset falls in,
// and whole lines read forward or backward from an offset, each capped in
// length so that a single 1 GB line costs no more memory than a short one.
package lines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// blockSize is the unit of reads; a multiple of the store's chunk size keeps
// verified-chunk caching effective.
const blockSize = 64 << 10

// Doc is a text addressed by lines. It is not safe for concurrent use.
type Doc struct {
	r    io.ReaderAt
	size int64
	// newlines is the total number of '\n' bytes, or -1 while unknown.
	newlines int64
	// chunkNL[i] is the number of '\n' before byte i*chunkSize.
	chunkNL   []int64
	chunkSize int64
	buf       []byte
	// held is the part of buf that holds the bytes at heldOff, as a read
	// of lines left it: the next line read from inside it is not read
	// again (a page reads many short lines one after another).
	held    []byte
	heldOff int64
	// lastNL is 1 when the last byte is a newline, 0 when it is not, and
	// -1 while unknown: it is read once, as the end of a large result lies
	// in another chunk than the lines a page reads.
	lastNL int8
	// counted is the offset counted last, and the newlines before it.
	counted struct {
		off, nl int64
		ok      bool
	}
}

// New returns a Doc over r, which holds size bytes. newlines, when not nil, is
// the number of newline bytes in r, and chunkNL[i] the number before byte
// i*chunkSize; without them, the Doc counts by scanning when it must.
func New(r io.ReaderAt, size int64, newlines *int64, chunkNL []int64, chunkSize int64) *Doc {
	d := &Doc{r: r, size: size, newlines: -1, chunkSize: chunkSize, lastNL: -1}
	if newlines != nil {
		d.newlines = *newlines
		if chunkSize > 0 && int64(len(chunkNL)) == (size+chunkSize-1)/chunkSize {
			d.chunkNL = chunkNL
		}
	}
	return d
}

// Size returns the number of bytes.
func (d *Doc) Size() int64 { return d.size }

// ReaderAt returns what the Doc reads from, for a reader that scans the
// document by itself.
func (d *Doc) ReaderAt() io.ReaderAt { return d.r }

// block returns the Doc's read buffer, for a read whose bytes are not
// held for the next one.
func (d *Doc) block() []byte {
	if d.buf == nil {
		d.buf = make([]byte, blockSize)
	}
	d.held = nil
	return d.buf
}

// KnowLines records the number of lines, as a line index gives it, so that
// the Doc need not read the last byte to tell whether the last line ends
// with a newline (that byte lies in the last chunk, which a page in the
// middle of a large result does not otherwise read). A count that does not
// fit the known newlines, neither equal to them nor one more, is ignored.
func (d *Doc) KnowLines(total int64) {
	if d.newlines < 0 || d.size == 0 {
		return
	}
	switch total {
	case d.newlines:
		d.lastNL = 1
	case d.newlines + 1:
		d.lastNL = 0
	}
}

// chunkEnd returns the end of the chunk that holds off, or of the
// document when it has no chunks.
func (d *Doc) chunkEnd(off int64) int64 {
	if d.chunkSize <= 0 {
		return d.size
	}
	return min(d.size, (off/d.chunkSize+1)*d.chunkSize)
}

// chunkStart returns the start of the chunk that holds off.
func (d *Doc) chunkStart(off int64) int64 {
	if d.chunkSize <= 0 {
		return 0
	}
	return off / d.chunkSize * d.chunkSize
}

// holds reports whether the bytes held include the one at off.
func (d *Doc) holds(off int64) bool {
	return d.held != nil && off >= d.heldOff && off < d.heldOff+int64(len(d.held))
}

// at returns the bytes from off on that the Doc holds or reads at once: at
// most a block, and never past the end of the chunk that holds off, so
// that reading a line near a chunk's end does not read (and verify) the
// next chunk unless the line goes on into it. It returns no bytes at the
// end of the document.
func (d *Doc) at(off int64) ([]byte, error) {
	if d.holds(off) {
		return d.held[off-d.heldOff:], nil
	}
	buf := d.block()
	k, err := d.readAt(buf[:min(int64(len(buf)), d.chunkEnd(off)-off)], off)
	if err != nil {
		return nil, err
	}
	d.held, d.heldOff = buf[:k], off
	return d.held, nil
}

// readAt reads len(p) bytes at off, or fewer at the end of the document.
func (d *Doc) readAt(p []byte, off int64) (int, error) {
	if off >= d.size {
		return 0, nil
	}
	if rem := d.size - off; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := d.r.ReadAt(p, off)
	if err != nil && !(errors.Is(err, io.EOF) && n == len(p)) {
		return n, err
	}
	return n, nil
}

// countNewlines counts '\n' in [from, to).
func (d *Doc) countNewlines(from, to int64) (int64, error) {
	var n int64
	buf := d.block()
	for off := from; off < to; {
		m := min(int64(len(buf)), to-off)
		k, err := d.readAt(buf[:m], off)
		if err != nil {
			return 0, err
		}
		if k == 0 {
			break
		}
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		off += int64(k)
	}
	return n, nil
}

// Newlines returns the number of newline bytes, scanning once if unknown.
func (d *Doc) Newlines() (int64, error) {
	if d.newlines < 0 {
		n, err := d.countNewlines(0, d.size)
		if err != nil {
			return 0, err
		}
		d.newlines = n
	}
	return d.newlines, nil
}

// EndsWithNewline reports whether the last byte is a newline.
func (d *Doc) EndsWithNewline() (bool, error) {
	if d.size == 0 {
		return false, nil
	}
	if d.lastNL < 0 {
		var b [1]byte
		if _, err := d.readAt(b[:], d.size-1); err != nil {
			return false, err
		}
		d.lastNL = 0
		if b[0] == '\n' {
			d.lastNL = 1
		}
	}
	return d.lastNL == 1, nil
}

// Lines returns the number of lines: a final line without a newline counts,
// an empty document has none.
func (d *Doc) Lines() (int64, error) {
	n, err := d.Newlines()
	if err != nil {
		return 0, err
	}
	nl, err := d.EndsWithNewline()
	if err != nil {
		return 0, err
	}
	if d.size > 0 && !nl {
		n++
	}
	return n, nil
}

// newlinesBefore returns the number of '\n' in [0, off).
func (d *Doc) newlinesBefore(off int64) (int64, error) {
	if off <= 0 {
		return 0, nil
	}
	off = min(off, d.size)
	if d.newlines >= 0 && off >= d.size-1 {
		// At the end: known without reading the last chunk again.
		nl, err := d.EndsWithNewline()
		if err != nil {
			return 0, err
		}
		if off == d.size-1 && nl {
			return d.newlines - 1, nil
		}
		return d.newlines, nil
	}
	// Count from the nearest offset whose count is known: the start of
	// the document, the edges of off's chunk when a line index gives
	// them, or the offset counted last (a view numbers its excerpts in
	// order, most in few chunks).
	from, fromNL, to, toNL := int64(0), int64(0), d.size, int64(-1)
	if d.newlines >= 0 {
		toNL = d.newlines
	}
	if d.chunkNL != nil {
		c := off / d.chunkSize
		if c >= int64(len(d.chunkNL)) {
			return d.newlines, nil
		}
		from, fromNL = c*d.chunkSize, d.chunkNL[c]
		if c+1 < int64(len(d.chunkNL)) {
			to, toNL = (c+1)*d.chunkSize, d.chunkNL[c+1]
		}
	}
	if m := d.counted; m.ok && m.off >= from && m.off <= off {
		from, fromNL = m.off, m.nl
	} else if m.ok && m.off > off && m.off <= to {
		to, toNL = m.off, m.nl
	}
	var n int64
	var err error
	if toNL >= 0 && to-off < off-from {
		var back int64
		back, err = d.countNewlines(off, to)
		n = toNL - back
	} else {
		var fwd int64
		fwd, err = d.countNewlines(from, off)
		n = fromNL + fwd
	}
	if err != nil {
		return 0, err
	}
	d.counted.off, d.counted.nl, d.counted.ok = off, n, true
	return n, nil
}

// LineAt returns the 1-based number of the line that holds byte off. An
// offset at the end of the document gives the number of the line that would
// start there.
func (d *Doc) LineAt(off int64) (int64, error) {
	n, err := d.newlinesBefore(off)
	return n + 1, err
}

// LineStart returns the byte offset where line n (1-based) starts. Line
// Lines()+1 starts at Size(); later lines are out of range.
func (d *Doc) LineStart(n int64) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("lines: line %d: lines are numbered from 1", n)
	}
	if n == 1 {
		return 0, nil
	}
	total, err := d.Lines()
	if err != nil {
		return 0, err
	}
	if n > total+1 {
		return 0, fmt.Errorf("lines: line %d is past the end (%d lines)", n, total)
	}
	want := n - 1 // the newline that ends line n-1
	from := int64(0)
	var seen int64
	if d.chunkNL != nil {
		// The last chunk whose preceding newlines are fewer than want.
		lo, hi := 0, len(d.chunkNL)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if d.chunkNL[mid] < want {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		from, seen = int64(lo)*d.chunkSize, d.chunkNL[lo]
		// The index gives the newlines before the next chunk too: when the
		// newline sought is nearer the end of chunk lo than its start,
		// count back from there. A page from the middle of a large result
		// often starts just before a chunk boundary, and counting forward
		// read the whole chunk to find it.
		if lo+1 < len(d.chunkNL) {
			if end, after := int64(lo+1)*d.chunkSize, d.chunkNL[lo+1]; after >= want && after-want < want-seen {
				return d.lineStartBack(want, end, after)
			}
		}
	}
	buf := d.block()
	for off := from; off < d.size; {
		k, err := d.readAt(buf, off)
		if err != nil {
			return 0, err
		}
		if k == 0 {
			break
		}
		b := buf[:k]
		c := int64(bytes.Count(b, []byte{'\n'}))
		if seen+c < want {
			seen += c
			off += int64(k)
			continue
		}
		for i := 0; i < k; i++ {
			if b[i] == '\n' {
				seen++
				if seen == want {
					return off + int64(i) + 1, nil
				}
			}
		}
		off += int64(k)
	}
	// want == total newlines + 1 is impossible here; a final line without a
	// newline starts after the last newline, found above.
	return d.size, nil
}

// lineStartBack returns the offset after newline number want (counted from
// 1), counting back from end, before which there are after newlines.
func (d *Doc) lineStartBack(want, end, after int64) (int64, error) {
	buf := d.block()
	for to := end; to > 0; {
		from := max(0, to-int64(len(buf)), (to-1)/d.chunkSize*d.chunkSize) // within one chunk
		k, err := d.readAt(buf[:to-from], from)
		if err != nil {
			return 0, err
		}
		if k < int(to-from) {
			return 0, fmt.Errorf("lines: reading bytes %d-%d: %w", from, to, io.ErrUnexpectedEOF)
		}
		b := buf[:k]
		c := int64(bytes.Count(b, []byte{'\n'}))
		if after-c >= want {
			after -= c
			to = from
			continue
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == '\n' {
				if after == want {
					return from + int64(i) + 1, nil
				}
				after--
			}
		}
		to = from
	}
	return 0, fmt.Errorf("lines: newline %d not found before byte %d", want, end)
}

// Line is one line read from a Doc.
type Line struct {
	// Start is the offset of the line's first byte; End the offset just past
	// its newline (or past its last byte when it has none).
	Start, End int64
	// Text holds the line without its newline, at most the cap asked for.
	Text []byte
	// Cut reports that Text holds only the first part of the line.
	Cut bool
}

// Len returns the length of the whole line in bytes, newline included.
func (l Line) Len() int64 { return l.End - l.Start }

// ReadLine reads the line that starts at off, keeping at most max bytes of
// its text. It scans to the line's end to report End, in blocks, without
// holding more than max bytes. At the end of the document it returns io.EOF.
func (d *Doc) ReadLine(off int64, max int) (Line, error) {
	return d.ReadLineBuf(off, max, nil)
}

// ReadLineBuf is ReadLine with the line's text appended to buf[:0], so that
// a caller reading many lines one after another reuses one buffer: the
// Text it returns is buf's array when that has room, and is valid until
// buf is used again.
func (d *Doc) ReadLineBuf(off int64, max int, buf []byte) (Line, error) {
	if off >= d.size {
		return Line{}, io.EOF
	}
	l := Line{Start: off, Text: buf[:0]}
	for pos := off; ; {
		b, err := d.at(pos)
		if err != nil {
			return Line{}, err
		}
		k := len(b)
		if k == 0 {
			l.End = d.size
			return l, nil
		}
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if room := max - len(l.Text); room > 0 {
			take := part
			if len(take) > room {
				take = take[:room]
				l.Cut = true
			}
			l.Text = append(l.Text, take...)
		} else if len(part) > 0 {
			l.Cut = true
		}
		if i >= 0 {
			l.End = pos + int64(i) + 1
			return l, nil
		}
		pos += int64(k)
		if pos >= d.size {
			l.End = d.size
			return l, nil
		}
	}
}

// PrevLineStart returns the offset where the line that ends just before
// end starts: end must be a line start (or Size()). It scans backward in
// blocks.
func (d *Doc) PrevLineStart(end int64) (int64, error) {
	if end <= 0 {
		return 0, io.EOF
	}
	// Skip the newline that ends the previous line.
	pos := end - 1
	var b [1]byte
	if d.holds(pos) {
		b[0] = d.held[pos-d.heldOff]
	} else if _, err := d.readAt(b[:], pos); err != nil {
		return 0, err
	}
	if b[0] != '\n' {
		pos = end
	}
	// Each block read backward stays within one chunk, and is held for the
	// read of the line found in it.
	for pos > 0 {
		buf := d.block()
		from := max(0, pos-int64(len(buf)), d.chunkStart(pos-1))
		k, err := d.readAt(buf[:pos-from], from)
		if err != nil {
			return 0, err
		}
		d.held, d.heldOff = buf[:k], from
		if i := bytes.LastIndexByte(buf[:k], '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		pos = from
	}
	return 0, nil
}

// ReadRange returns the bytes [from, to), which must be small. A range that
// starts before the document is an error, not a panic: callers derive
// offsets from budgets, and a wrong one must not crash them.
func (d *Doc) ReadRange(from, to int64) ([]byte, error) {
	if from < 0 {
		return nil, fmt.Errorf("lines: range %d-%d starts before the document", from, to)
	}
	to = min(to, d.size)
	if from >= to {
		return nil, nil
	}
	p := make([]byte, to-from)
	n, err := d.readAt(p, from)
	return p[:n], err
}
