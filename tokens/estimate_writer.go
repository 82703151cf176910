package tokens

import "unicode/utf8"

// EstimateWriter tallies [Estimate] over text written to it in pieces, as
// it streams past: a caller that copies a long text somewhere (into a
// store) learns its estimate without holding it or reading it again. The
// zero value is ready to use.
type EstimateWriter struct {
	ascii, other int64
}

// Write tallies p; it never fails.
func (w *EstimateWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		switch {
		case c < utf8.RuneSelf:
			w.ascii++
		case utf8.RuneStart(c):
			w.other++
		}
	}
	return len(p), nil
}

// Tokens returns Estimate of all that was written, which it equals for
// valid UTF-8 (invalid bytes in the middle of a rune count as part of it).
func (w *EstimateWriter) Tokens() int {
	if w.ascii == 0 && w.other == 0 {
		return 0
	}
	return int((w.ascii+3)/4 + w.other)
}
