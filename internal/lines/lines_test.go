package lines

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// chunkIndex returns the line index a store records of b in chunks of
// chunk bytes (the newlines before each chunk), and its newlines.
func chunkIndex(b []byte, chunk int) (idx []int64, nl int64) {
	for off := 0; off < len(b); off += chunk {
		idx = append(idx, nl)
		nl += int64(bytes.Count(b[off:min(off+chunk, len(b))], []byte{'\n'}))
	}
	return idx, nl
}

// docs returns a Doc over b both with and without a line index, with a
// small chunk size so the index is exercised.
func docs(b []byte) map[string]*Doc {
	const chunk = 7
	idx, nl := chunkIndex(b, chunk)
	return map[string]*Doc{
		"scan":    New(bytes.NewReader(b), int64(len(b)), nil, nil, 0),
		"indexed": New(bytes.NewReader(b), int64(len(b)), &nl, idx, chunk),
	}
}

func TestLineStartAndLineAt(t *testing.T) {
	for _, text := range []string{"a\nbb\n\nccc\n", "a\nbb\n\nccc", "", "\n", "only"} {
		b := []byte(text)
		split := strings.SplitAfter(text, "\n")
		if len(split) > 0 && split[len(split)-1] == "" {
			split = split[:len(split)-1]
		}
		for name, d := range docs(b) {
			n, err := d.Lines()
			if err != nil || n != int64(len(split)) {
				t.Errorf("%s %q: Lines() = %d, %v; want %d", name, text, n, err, len(split))
			}
			off := int64(0)
			for i, l := range split {
				got, err := d.LineStart(int64(i + 1))
				if err != nil || got != off {
					t.Errorf("%s %q: LineStart(%d) = %d, %v; want %d", name, text, i+1, got, err, off)
				}
				for k := off; k < off+int64(len(l)); k++ {
					if at, _ := d.LineAt(k); at != int64(i+1) {
						t.Errorf("%s %q: LineAt(%d) = %d, want %d", name, text, k, at, i+1)
					}
				}
				rl, err := d.ReadLine(off, 100)
				if err != nil || string(rl.Text) != strings.TrimSuffix(l, "\n") || rl.End != off+int64(len(l)) {
					t.Errorf("%s %q: ReadLine(%d) = %+v, %v", name, text, off, rl, err)
				}
				if i > 0 {
					if ps, err := d.PrevLineStart(off); err != nil || ps != off-int64(len(split[i-1])) {
						t.Errorf("%s %q: PrevLineStart(%d) = %d, %v", name, text, off, ps, err)
					}
				}
				off += int64(len(l))
			}
			if _, err := d.LineStart(n + 2); err == nil {
				t.Errorf("%s %q: LineStart past the end succeeded", name, text)
			}
			if _, err := d.ReadLine(int64(len(b)), 10); err != io.EOF {
				t.Errorf("%s: ReadLine at the end = %v, want io.EOF", name, err)
			}
		}
	}
}

func TestReadLineCapsLongLines(t *testing.T) {
	b := append(bytes.Repeat([]byte("x"), 200000), "\nnext\n"...)
	d := New(bytes.NewReader(b), int64(len(b)), nil, nil, 0)
	l, err := d.ReadLine(0, 10)
	if err != nil || len(l.Text) != 10 || !l.Cut || l.End != 200001 {
		t.Fatalf("ReadLine = len %d cut %v end %d, %v", len(l.Text), l.Cut, l.End, err)
	}
}

func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nb\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ds := docs(b)
		a, _ := ds["scan"].Lines()
		c, _ := ds["indexed"].Lines()
		if a != c {
			t.Fatalf("line counts differ: %d vs %d", a, c)
		}
		for n := int64(1); n <= a; n++ {
			x, err1 := ds["scan"].LineStart(n)
			y, err2 := ds["indexed"].LineStart(n)
			if x != y || err1 != nil || err2 != nil {
				t.Fatal(fmt.Sprint("LineStart differs at ", n, ": ", x, y, err1, err2))
			}
		}
	})
}

// Offsets derived from an overflowed budget once made ReadRange panic.
func TestReadRangeRefusesNegativeOffsets(t *testing.T) {
	d := New(strings.NewReader("a\nb\n"), 4, nil, nil, 0)
	if _, err := d.ReadRange(-9223372036854775000, 3); err == nil {
		t.Error("ReadRange of a negative offset: no error")
	}
	if b, err := d.ReadRange(1, 3); err != nil || string(b) != "\nb" {
		t.Errorf("ReadRange(1, 3) = %q, %v", b, err)
	}
	if l, err := d.ReadLine(0, -1); err != nil || len(l.Text) != 0 || !l.Cut || l.End != 2 {
		t.Errorf("ReadLine with a negative cap = %+v, %v", l, err)
	}
}

// spanReader records the byte ranges read from it.
type spanReader struct {
	r     io.ReaderAt
	reads [][2]int64
}

func (s *spanReader) ReadAt(p []byte, off int64) (int, error) {
	s.reads = append(s.reads, [2]int64{off, off + int64(len(p))})
	return s.r.ReadAt(p, off)
}

// Lines read one after another come from one read while the block holds
// them, and a read for a line near the end of a chunk stops at the chunk's
// end unless the line goes on into the next chunk; so does a read backward.
func TestReadsStayInTheirChunk(t *testing.T) {
	const chunk = 1000
	var b bytes.Buffer
	for i := 0; b.Len() < 5*chunk; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	data := b.Bytes()
	idx, nl := chunkIndex(data, chunk)
	sr := &spanReader{r: bytes.NewReader(data)}
	d := New(sr, int64(len(data)), &nl, idx, chunk)
	d.KnowLines(nl)
	// Lines from the middle of chunk 2 to its end, and one more.
	off := int64(2*chunk + 100)
	off += int64(bytes.IndexByte(data[off:], '\n') + 1)
	for off < 3*chunk {
		l, err := d.ReadLine(off, 100)
		if err != nil {
			t.Fatal(err)
		}
		if want := string(data[off : l.End-1]); string(l.Text) != want {
			t.Fatalf("ReadLine(%d) = %q, want %q", off, l.Text, want)
		}
		off = l.End
	}
	for _, r := range sr.reads {
		if r[0] < 2*chunk || r[1] > 3*chunk+chunk {
			t.Errorf("read %d-%d: outside chunks 2 and 3", r[0], r[1])
		}
		if r[0] < 3*chunk && r[1] > 3*chunk {
			t.Errorf("read %d-%d crosses into chunk 3", r[0], r[1])
		}
	}
	if len(sr.reads) > 3 {
		t.Errorf("%d reads for the lines of part of a chunk: %v", len(sr.reads), sr.reads)
	}
	// Backward from the start of chunk 3, and a line that crosses into it.
	sr.reads = nil
	start, err := d.LineStart(int64(bytes.Count(data[:3*chunk], []byte{'\n'})) + 1)
	if err != nil {
		t.Fatal(err)
	}
	sr.reads = nil
	ps, err := d.PrevLineStart(start)
	if err != nil || ps != int64(bytes.LastIndexByte(data[:start-1], '\n')+1) {
		t.Fatalf("PrevLineStart(%d) = %d, %v", start, ps, err)
	}
	for _, r := range sr.reads {
		if r[0]/chunk != (r[1]-1)/chunk {
			t.Errorf("backward read %d-%d crosses a chunk boundary", r[0], r[1])
		}
	}
	if n, err := d.Lines(); err != nil || n != nl {
		t.Errorf("Lines() = %d, %v; want %d", n, err, nl)
	}
	for _, r := range sr.reads {
		if r[1] == int64(len(data)) && r[0] > int64(len(data))-chunk {
			t.Errorf("Lines read the last chunk (%d-%d) although the line count is known", r[0], r[1])
		}
	}
}

// A line that starts near the end of a chunk is found by counting back from
// the chunk's end, which the line index gives as well as its start: a page
// from the middle of a large result, which often starts just before a chunk
// boundary, then reads one block of the chunk rather than all of it.
func TestLineStartCountsBackNearAChunkEnd(t *testing.T) {
	const chunk = 1 << 20
	var b bytes.Buffer
	for i := 0; b.Len() < 3*chunk; i++ {
		fmt.Fprintf(&b, "line %d of a log that is long enough\n", i)
	}
	data := b.Bytes()
	idx, nl := chunkIndex(data, chunk)
	for _, at := range []int{2*chunk - 1, 2*chunk - 40, 2*chunk - 3*blockSize, chunk + 100, chunk + chunk/2 + 1} {
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		n := int64(bytes.Count(data[:start], []byte{'\n'})) + 1
		sr := &spanReader{r: bytes.NewReader(data)}
		d := New(sr, int64(len(data)), &nl, idx, chunk)
		got, err := d.LineStart(n)
		if err != nil || got != int64(start) {
			t.Fatalf("LineStart(%d) = %d, %v; want %d", n, got, err, start)
		}
		var read int64
		for _, r := range sr.reads {
			read += r[1] - r[0]
			if r[0]/chunk != (r[1]-1)/chunk {
				t.Errorf("LineStart(%d): read %d-%d crosses a chunk boundary", n, r[0], r[1])
			}
		}
		nearer := min(int64(start)%chunk, chunk-int64(start)%chunk)
		if want := nearer + blockSize; read > want {
			t.Errorf("LineStart(%d), %d bytes from its chunk's nearer end: read %d bytes, want at most %d", n, nearer, read, want)
		}
	}
}

// TestLineAtCountsFromTheNearestKnown checks LineAt on offsets in any
// order, with and without a line index and a known line count, against a
// plain count; and that numbering offsets in order, as a view numbers its
// excerpts, reads each chunk about once rather than once per offset.
func TestLineAtCountsFromTheNearestKnown(t *testing.T) {
	const chunk = 1 << 20
	var b bytes.Buffer
	for i := 0; b.Len() < 3*chunk+chunk/3; i++ {
		fmt.Fprintf(&b, "line %d of a build log, long enough to matter\n", i)
	}
	data := b.Bytes()
	idx, nl := chunkIndex(data, chunk)
	size := int64(len(data))
	var inOrder []int64
	for off := int64(0); off < size; off += 37_001 {
		inOrder = append(inOrder, off)
	}
	shuffled := slices.Clone(inOrder)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	shuffled = append(shuffled, 0, size-1, size, chunk, chunk-1, 2*chunk+1)
	for _, c := range []struct {
		name     string
		newlines *int64
		idx      []int64
	}{{"scan", nil, nil}, {"count known", &nl, nil}, {"indexed", &nl, idx}} {
		for order, offs := range map[string][]int64{"in order": inOrder, "shuffled": shuffled} {
			sr := &spanReader{r: bytes.NewReader(data)}
			d := New(sr, size, c.newlines, c.idx, chunk)
			for _, off := range offs {
				want := int64(bytes.Count(data[:off], []byte{'\n'})) + 1
				if got, err := d.LineAt(off); err != nil || got != want {
					t.Fatalf("%s, %s: LineAt(%d) = %d, %v; want %d", c.name, order, off, got, err, want)
				}
			}
			if order != "in order" {
				continue
			}
			var read int64
			for _, r := range sr.reads {
				read += r[1] - r[0]
			}
			if read > size+int64(len(offs))*blockSize {
				t.Errorf("%s: numbering %d offsets in order read %d bytes of %d", c.name, len(offs), read, size)
			}
		}
	}
}
