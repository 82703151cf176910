package tokens

// EstimateWriter tallies [Estimate] over text written to it in pieces, as
// it streams past: a caller that copies a long text somewhere (into a
// store) learns its estimate without holding it or reading it again. The
// zero value is ready to use.
type EstimateWriter struct {
	ascii, other int64
	written      bool
}

// Write tallies p; it never fails.
func (w *EstimateWriter) Write(p []byte) (int, error) {
	a, o := classes(p)
	w.ascii, w.other = w.ascii+a, w.other+o
	w.written = w.written || len(p) > 0
	return len(p), nil
}

// Tokens returns Estimate of all that was written, however it was cut.
func (w *EstimateWriter) Tokens() int { return estimateOf(w.ascii, w.other, w.written) }
