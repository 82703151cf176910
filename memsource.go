package crumb

import (
	"bytes"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

// headTail keeps the first and the last bytes of a stream, at most max in
// all, so that a result whose storing failed can still be shown: whole when
// it fits, else by its two ends.
type headTail struct {
	max   int64
	head  []byte
	ring  []byte // the last bytes after head, as a ring once full
	start int    // where the oldest byte of a full ring is
	full  bool
	total int64
	// newlines counts every '\n' written, kept or not, and last is the
	// last byte written: together they give the number of lines of the
	// whole stream.
	newlines int64
	last     byte
}

func newHeadTail(max int64) *headTail {
	return &headTail{max: max}
}

// Write keeps what it must of p. It never fails.
func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if n > 0 {
		h.newlines += int64(bytes.Count(p, []byte{'\n'}))
		h.last = p[n-1]
	}
	half := int(h.max / 2)
	if room := half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	ringCap := int(h.max) - half
	for len(p) > 0 {
		if !h.full {
			k := min(ringCap-len(h.ring), len(p))
			h.ring = append(h.ring, p[:k]...)
			p = p[k:]
			if len(h.ring) == ringCap {
				h.full = true
			}
			continue
		}
		if len(p) >= ringCap {
			copy(h.ring, p[len(p)-ringCap:])
			h.start = 0
			break
		}
		k := copy(h.ring[h.start:], p)
		p = p[k:]
		h.start = (h.start + k) % ringCap
		if len(p) > 0 {
			k = copy(h.ring, p)
			h.start = k % ringCap
			p = p[k:]
		}
	}
	return n, nil
}

// lines returns the number of lines of the whole stream, as wc -l counts
// them plus a last line without a newline.
func (h *headTail) lines() int64 {
	if h.total > 0 && h.last != '\n' {
		return h.newlines + 1
	}
	return h.newlines
}

// complete reports that nothing was dropped.
func (h *headTail) complete() bool { return h.total <= h.max }

// tailBytes returns the kept bytes after the head, oldest first.
func (h *headTail) tailBytes() []byte {
	if !h.full || h.start == 0 {
		return h.ring
	}
	out := make([]byte, 0, len(h.ring))
	out = append(out, h.ring[h.start:]...)
	return append(out, h.ring[:h.start]...)
}

// bytes returns the whole result when complete, else its head, a line that
// says how much was dropped, and its tail.
func (h *headTail) bytes() []byte {
	var b bytes.Buffer
	b.Write(h.head)
	if !h.complete() {
		lost := h.total - int64(len(h.head)) - int64(len(h.ring))
		b.WriteString("\n[… " + textfmt.Int(lost) + " bytes in the middle were not kept …]\n")
	}
	b.Write(h.tailBytes())
	return b.Bytes()
}

// source returns the kept bytes as a projector's source.
func (h *headTail) source() *memSource {
	b := h.bytes()
	return &memSource{r: bytes.NewReader(b), info: store.Info{Digest: store.Sum(b), Size: int64(len(b))}}
}

// memSource is an in-memory stand-in for a stored object.
type memSource struct {
	r    *bytes.Reader
	info store.Info
}

func (m *memSource) ReadAt(p []byte, off int64) (int, error) { return m.r.ReadAt(p, off) }
func (m *memSource) Size() int64                             { return m.r.Size() }
func (m *memSource) Info() store.Info                        { return m.info }
