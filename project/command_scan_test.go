package project

import (
	"bytes"
	"encoding/binary"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"math/bits"
	"slices"
	"testing"
)

// cmdShapeKeyRef is cmdShapeKey as it was first written, a byte at a time:
// the faster one must give every line the same shape.
func cmdShapeKeyRef(t []byte) uint64 {
	i, digits := 0, false
	for i < len(t) && i < 40 {
		c := t[i]
		switch {
		case c == ' ' || c == '\t':
		case classify.IsDigit(c):
			digits = true
		case c == '[' && !digits && i+1 < len(t) && classify.IsDigit(t[i+1]):
		case digits && (c == '-' || c == ':' || c == '.' || c == ',' || c == '/' || c == 'T' || c == 'Z' || c == '+' || c == ']'):
		default:
			goto done
		}
		i++
	}
done:
	var buf [16]byte
	n := 0
	for end := min(len(t), i+64); i < end && n < len(buf); i++ {
		c := t[i]
		if classify.IsDigit(c) {
			if n > 0 && buf[n-1] == '0' && classify.IsDigit(t[i-1]) {
				continue
			}
			c = '0'
		}
		buf[n] = c
		n++
	}
	w1 := binary.LittleEndian.Uint64(buf[:8])
	w2 := binary.LittleEndian.Uint64(buf[8:])
	h := w1*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(w2*0xC2B2AE3D27D4EB4F, 31) ^ uint64(n)*0x165667B19E3779F9
	return h ^ h>>29
}

var cmdShapeSeeds = []string{
	"", " ", "\t\t", "x", "2024-05-01T12:00:00Z INFO x", "   11 | int x;", "test_a.go:12: msg",
	"day 9: acc-7", "    orders_test.go:456: restocked item 38: 43 units", "[12:00:01] ok",
	"0000000000000000000000000000000000000000000000000000000000000000001",
	"                                              indented past forty",
	"abcdefghijklmno1", "abcdefghijklmnop1", "a1b22c333d4444e55555f666666g7777777h",
	"0a0b0c0d0e0f0g0h0i0j0k0l0m0n0o0p0q", "--- PASS: TestRestockItem065/n=1 (0.00s)",
}

// TestCmdShapeKeySame checks that every line of the command fixtures, and
// lines made to test the edges (indentation past 40 bytes, exactly 16 bytes,
// digits at the 64-byte limit), keep the shape the byte-at-a-time
// cmdShapeKey gave them, and that the scan's cmdShapeKeyAt agrees.
func TestCmdShapeKeySame(t *testing.T) {
	lines := cmdShapeSeeds
	for _, f := range commandFixtures(t) {
		for _, l := range bytes.Split(f.output, []byte("\n")) {
			lines = append(lines, string(l))
		}
	}
	for _, l := range lines {
		b := []byte(l)
		want := cmdShapeKeyRef(b)
		if got := cmdShapeKey(b); got != want {
			t.Fatalf("cmdShapeKey(%q) = %x, want %x", l, got, want)
		}
		if got := cmdShapeKeyAt(b, classify.Indent(b)); got != want {
			t.Fatalf("cmdShapeKeyAt(%q) = %x, want %x", l, got, want)
		}
	}
}

func FuzzCmdShapeKey(f *testing.F) {
	for _, s := range cmdShapeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := cmdShapeKeyAt(b, classify.Indent(b)), cmdShapeKeyRef(b); got != want {
			t.Fatalf("cmdShapeKeyAt(%q) = %x, want %x", b, got, want)
		}
	})
}

// BenchmarkCmdScan8MB runs the command scan alone over the output
// BenchmarkCommandProject8MB projects, to tell its cost from the view's.
func BenchmarkCmdScan8MB(b *testing.B) {
	data := benchOutput(b, 8<<20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newCmdScan("")
		for off := 0; off < len(data); off += 1 << 16 {
			s.Write(data[off:min(len(data), off+1<<16)])
		}
		s.finish()
	}
}

// TestCmdRunAt holds the projector's search for the run that holds a line
// to a plain walk of the runs, on every line of the benchmark's output and
// the lines around it.
func TestCmdRunAt(t *testing.T) {
	var out []byte
	for _, f := range commandFixtures(t) {
		out = append(out, f.output...)
	}
	s := newCmdScan("")
	s.Write(bytes.Repeat(out, 3))
	s.finish()
	p := &cmdProjector{runs: slices.Clone(s.runs)}
	slices.SortFunc(p.runs, func(a, b cmdRun) int { return int(a.first - b.first) })
	if len(p.runs) < 10 {
		t.Fatalf("only %d runs", len(p.runs))
	}
	for no := int64(0); no <= s.lines()+1; no++ {
		var want *cmdRun
		for i := range p.runs {
			if r := &p.runs[i]; r.first <= no && no <= r.last {
				want = r
			}
		}
		if got := p.runAt(no); got != want {
			t.Fatalf("line %d: run %v, want %v", no, got, want)
		}
	}
}
