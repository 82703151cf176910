package drain

import "testing"

// benchLines returns real log lines repeated to about size bytes, and
// their total length.
func benchLines(b *testing.B, size int) ([][]byte, int64) {
	b.Helper()
	base := fixtureLines(b, 1<<30)
	var out [][]byte
	var n int64
	for n < int64(size) {
		for _, l := range base {
			out = append(out, l)
			n += int64(len(l)) + 1
			if n >= int64(size) {
				break
			}
		}
	}
	return out, n
}

// BenchmarkMiner mines about 100 MB of real log lines (the fixtures under
// project/testdata/text, repeated).
func BenchmarkMiner(b *testing.B) {
	lines, n := benchLines(b, 100<<20)
	b.SetBytes(n)
	b.ResetTimer()
	for range b.N {
		m := New(Options{})
		for i, l := range lines {
			m.Add(l, int64(i))
		}
	}
}

// BenchmarkTokenize measures masking and splitting alone.
func BenchmarkTokenize(b *testing.B) {
	lines, n := benchLines(b, 100<<20)
	b.SetBytes(n)
	b.ResetTimer()
	t := tokenizer{max: 64}
	for range b.N {
		for _, l := range lines {
			t.tokenize(l)
		}
	}
}
