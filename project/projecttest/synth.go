package projecttest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
)

// Synth returns a [project.Source] of about size bytes that is made as it is
// read, never held in memory: head, then as many records as fit, then tail.
// Record i is what record(i, buf) appends to buf; every record must have the
// same length and the same number of newline bytes as record 0 (a
// zero-padded counter keeps a record's length fixed), and a read that meets
// one that does not fails. A Source of 1 GB costs a few hundred bytes, so a
// suite can give a projector an input far larger than memory.
//
// Its Info carries the newline counts a store records (Newlines,
// ChunkNewlines, Lines) and a digest of the parameters rather than of the
// bytes, which would take reading them all.
func Synth(head []byte, record func(i int64, buf []byte) []byte, tail []byte, size int64) project.Source {
	first := record(0, nil)
	if len(first) == 0 {
		panic("projecttest: Synth: record 0 is empty")
	}
	s := &synth{head: head, tail: tail, record: record, width: int64(len(first)), perRecord: int64(bytes.Count(first, []byte{'\n'}))}
	room := size - int64(len(head)) - int64(len(tail))
	s.records = max(room/s.width, 1)
	s.size = int64(len(head)) + s.records*s.width + int64(len(tail))

	h := sha256.New()
	fmt.Fprintf(h, "%d %d %q %q %q %q", s.size, s.records, head, tail, first, record(s.records-1, nil))
	info := store.Info{Digest: hex.EncodeToString(h.Sum(nil)), Size: s.size}
	info.Ref = store.RefOf(info.Digest)
	for off := int64(0); off < s.size; off += store.ChunkSize {
		info.ChunkNewlines = append(info.ChunkNewlines, s.newlinesBefore(off))
	}
	nl := s.newlinesBefore(s.size)
	info.Newlines = &nl
	lines := nl
	if last := s.lastByte(); last != '\n' {
		lines++
	}
	info.Lines = &lines
	s.info = info
	return s
}

type synth struct {
	head, tail []byte
	record     func(int64, []byte) []byte
	width      int64
	perRecord  int64
	records    int64
	size       int64
	info       store.Info
}

func (s *synth) Size() int64      { return s.size }
func (s *synth) Info() store.Info { return s.info }

func (s *synth) bodyEnd() int64 { return int64(len(s.head)) + s.records*s.width }

func (s *synth) lastByte() byte {
	if len(s.tail) > 0 {
		return s.tail[len(s.tail)-1]
	}
	r := s.record(s.records-1, nil)
	return r[len(r)-1]
}

// newlinesBefore counts the newline bytes before offset off.
func (s *synth) newlinesBefore(off int64) int64 {
	hl := int64(len(s.head))
	if off <= hl {
		return int64(bytes.Count(s.head[:off], []byte{'\n'}))
	}
	n := int64(bytes.Count(s.head, []byte{'\n'}))
	if end := s.bodyEnd(); off >= end {
		n += s.records * s.perRecord
		return n + int64(bytes.Count(s.tail[:off-end], []byte{'\n'}))
	}
	i, within := (off-hl)/s.width, (off-hl)%s.width
	n += i * s.perRecord
	return n + int64(bytes.Count(s.record(i, nil)[:within], []byte{'\n'}))
}

// ReadAt makes the bytes [off, off+len(p)). It is safe for concurrent use.
func (s *synth) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("projecttest: read at negative offset %d", off)
	}
	var buf []byte
	n := 0
	for n < len(p) && off < s.size {
		var part []byte
		var at int64
		switch hl, end := int64(len(s.head)), s.bodyEnd(); {
		case off < hl:
			part, at = s.head, off
		case off < end:
			i := (off - hl) / s.width
			buf = s.record(i, buf[:0])
			if int64(len(buf)) != s.width || int64(bytes.Count(buf, []byte{'\n'})) != s.perRecord {
				return n, fmt.Errorf("projecttest: record %d has %d bytes and %d newlines; record 0 has %d and %d", i, len(buf), bytes.Count(buf, []byte{'\n'}), s.width, s.perRecord)
			}
			part, at = buf, (off-hl)%s.width
		default:
			part, at = s.tail, off-end
		}
		k := copy(p[n:], part[at:])
		n += k
		off += int64(k)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Noise appends n bytes to buf that look random and are the same for the
// same seed: the body of a synthetic binary record. It never appends a
// newline byte, so every record of them has none.
func Noise(seed int64, n int, buf []byte) []byte {
	x := uint64(seed)*0x9e3779b97f4a7c15 + 1
	var w [8]byte
	for n > 0 {
		// splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		binary.LittleEndian.PutUint64(w[:], z)
		for _, b := range w[:min(n, 8)] {
			if b == '\n' {
				b = 0
			}
			buf = append(buf, b)
		}
		n -= min(n, 8)
	}
	return buf
}
