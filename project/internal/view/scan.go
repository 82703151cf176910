package view

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// scanBuffer is the read size of a streaming pass over a result.
const scanBuffer = 64 << 10

// lineScanner streams the lines of a source once, from its start, holding at
// most max bytes of each line (the rest of a longer line is skipped), so a
// pass over a 1 GB result costs a fixed amount of memory.
type LineScanner struct {
	r    *bufio.Reader
	ctx  context.Context
	max  int
	Line int64  // number of the current line, 1-based
	Off  int64  // offset where the current line starts
	next int64  // offset where the next line starts
	Text []byte // the current line without its newline, at most max bytes
	Cut  bool   // the current line is longer than text
	long []byte // holds a line assembled from several buffer reads
	err  error
}

func NewLineScanner(ctx context.Context, src io.ReaderAt, size int64, max int) *LineScanner {
	return &LineScanner{
		r:   bufio.NewReaderSize(io.NewSectionReader(src, 0, size), scanBuffer),
		ctx: ctx,
		max: max,
	}
}

// Scan advances to the next line; it returns false at the end of the source
// or on an error, which Err then reports.
func (s *LineScanner) Scan() bool {
	if s.err != nil {
		return false
	}
	if s.Line&0xfff == 0xfff {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return false
		}
	}
	b, err := s.r.ReadSlice('\n')
	n := int64(len(b))
	s.Cut = false
	if errors.Is(err, bufio.ErrBufferFull) {
		// A long line: keep its first max bytes, skip the rest.
		s.long = append(s.long[:0], b[:min(len(b), s.max)]...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = s.r.ReadSlice('\n')
			n += int64(len(b))
			if room := s.max - len(s.long); room > 0 {
				s.long = append(s.long, b[:min(len(b), room)]...)
			}
		}
		s.Cut = true
		if len(b) > 0 && b[len(b)-1] == '\n' && len(s.long) > 0 && s.long[len(s.long)-1] == '\n' {
			s.long = s.long[:len(s.long)-1]
		}
		b = s.long
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		s.err = err
		return false
	}
	if n == 0 {
		return false
	}
	s.Line++
	s.Off = s.next
	s.next += n
	b = bytes.TrimSuffix(b, []byte{'\n'})
	if len(b) > s.max {
		b, s.Cut = b[:s.max], true
	}
	s.Text = bytes.TrimSuffix(b, []byte{'\r'})
	return true
}

// Err returns the error that stopped the scan, if any.
func (s *LineScanner) Err() error { return s.err }

// numbering describes line numbers a tool put in front of every line of a
// read ("   12\tcode", as cat -n and many read tools write them).
type Numbering struct {
	// on reports that the lines carry numbers.
	On bool
	// first is the number of the first line.
	First int64
}

// numberedSample is how many lines are checked for a numbering.
const numberedSample = 40

// detectNumbering reports whether the first lines of a text all start with
// consecutive line numbers followed by a tab or an arrow.
func DetectNumbering(e *Excerptor) (Numbering, error) {
	var nb Numbering
	pos := int64(0)
	want := int64(-1)
	seen := 0
	for seen < numberedSample && pos < e.Doc.Size() {
		l, err := e.Doc.ReadLine(pos, 64)
		if err != nil {
			return Numbering{}, err
		}
		n, _, ok := LineNumberPrefix(l.Text)
		if !ok || (want >= 0 && n != want) {
			return Numbering{}, nil
		}
		if want < 0 {
			nb.First = n
		}
		want = n + 1
		seen++
		pos = l.End
	}
	// A single numbered line is too little evidence.
	if seen < 2 {
		return Numbering{}, nil
	}
	nb.On = true
	return nb, nil
}

// lineNumberPrefix parses "   12\t" or "    12→" at the start of b and
// returns the number and what follows.
func LineNumberPrefix(b []byte) (int64, []byte, bool) {
	i := 0
	for i < len(b) && b[i] == ' ' {
		i++
	}
	j := i
	var n int64
	for j < len(b) && b[j] >= '0' && b[j] <= '9' && j-i < 12 {
		n = n*10 + int64(b[j]-'0')
		j++
	}
	if j == i {
		return 0, nil, false
	}
	switch {
	case j < len(b) && b[j] == '\t':
		return n, b[j+1:], true
	case bytes.HasPrefix(b[j:], []byte("→")):
		return n, b[j+len("→"):], true
	}
	return 0, nil, false
}

// stripNumber removes a line-number prefix, when there is one.
func StripNumber(b []byte) []byte {
	if _, rest, ok := LineNumberPrefix(b); ok {
		return rest
	}
	return b
}
