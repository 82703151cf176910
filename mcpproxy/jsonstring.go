package mcpproxy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// stringReader decodes a JSON string as it is read, so that a string of
// 100 MB reaches the store without being held in memory. It decodes as
// encoding/json does: escapes resolved, a surrogate pair joined, and each
// byte of invalid UTF-8 or lone surrogate made U+FFFD.
type stringReader struct {
	br    *bufio.Reader // the string's text, between its quotes
	buf   []byte        // decoded bytes; buf[off:] not yet read
	off   int
	carry []byte // the start of a rune cut by the end of a window
	err   error
}

// newStringReader returns a reader of the JSON string whose text, quotes
// included, is r[start:end).
func newStringReader(r io.ReaderAt, start, end int64) *stringReader {
	return newStringReaderSize(r, start, end, 64<<10)
}

func newStringReaderSize(r io.ReaderAt, start, end int64, size int) *stringReader {
	return newStringReaderFrom(io.NewSectionReader(r, start+1, max(end-start-2, 0)), size)
}

// newStringReaderFrom returns a reader of the JSON string whose text,
// without its quotes, r reads, through a window of size bytes.
func newStringReaderFrom(r io.Reader, size int) *stringReader {
	return &stringReader{br: bufio.NewReaderSize(r, size)}
}

var errBadString = errors.New("malformed JSON string")

// Read fills p as far as the string goes: a text with an escape every
// line decodes in runs of a line, and the store should not see a write of
// each.
func (d *stringReader) Read(p []byte) (int, error) {
	if d.off > 0 {
		// What the last Read left: to the front, so that buf stays the
		// size of one read and a run.
		d.buf, d.off = append(d.buf[:0], d.buf[d.off:]...), 0
	}
	for len(d.buf)-d.off < len(p) && d.err == nil {
		d.fill()
	}
	n := copy(p, d.buf[d.off:])
	d.off += n
	if n == 0 {
		return 0, d.err
	}
	return n, nil
}

// fill decodes the next run of text up to and including one escape, and
// appends it to buf.
func (d *stringReader) fill() {
	chunk, err := d.br.ReadSlice('\\')
	esc := err == nil
	if esc {
		chunk = chunk[:len(chunk)-1]
	}
	d.text(chunk, errors.Is(err, bufio.ErrBufferFull))
	if esc {
		if e := d.escape(); e != nil {
			d.err = e
		}
	}
	switch {
	case err == nil || errors.Is(err, bufio.ErrBufferFull):
	case errors.Is(err, io.EOF):
		d.text(nil, false)
		if d.err == nil {
			d.err = io.EOF
		}
	default:
		d.err = fmt.Errorf("reading a JSON string: %w", err)
	}
}

// text appends a run of unescaped text; more reports that the run was cut
// by the end of a window and goes on.
func (d *stringReader) text(run []byte, more bool) {
	data := run
	if len(d.carry) > 0 {
		data = append(d.carry, run...)
		d.carry = nil
	}
	if utf8.Valid(data) {
		d.buf = append(d.buf, data...)
		return
	}
	for len(data) > 0 {
		if more && !utf8.FullRune(data) {
			d.carry = append([]byte(nil), data...)
			return
		}
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size == 1 {
			d.buf = utf8.AppendRune(d.buf, unicode.ReplacementChar)
		} else {
			d.buf = append(d.buf, data[:size]...)
		}
		data = data[size:]
	}
}

// escape decodes the escape after a backslash.
func (d *stringReader) escape() error {
	d.text(nil, false) // a rune cut by a backslash is invalid
	c, err := d.br.ReadByte()
	if err != nil {
		return errBadString
	}
	switch c {
	case '"', '\\', '/':
		d.buf = append(d.buf, c)
	case 'b':
		d.buf = append(d.buf, '\b')
	case 'f':
		d.buf = append(d.buf, '\f')
	case 'n':
		d.buf = append(d.buf, '\n')
	case 'r':
		d.buf = append(d.buf, '\r')
	case 't':
		d.buf = append(d.buf, '\t')
	case 'u':
		r, ok := d.hex4()
		if !ok {
			return errBadString
		}
		if utf16.IsSurrogate(r) {
			if next, err := d.br.Peek(6); err == nil && next[0] == '\\' && next[1] == 'u' {
				if r2, ok := hex4(next[2:]); ok {
					if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
						d.br.Discard(6)
						d.buf = utf8.AppendRune(d.buf, dec)
						return nil
					}
				}
			}
			r = unicode.ReplacementChar
		}
		d.buf = utf8.AppendRune(d.buf, r)
	default:
		return errBadString
	}
	return nil
}

func (d *stringReader) hex4() (rune, bool) {
	b, err := d.br.Peek(4)
	if err != nil {
		return 0, false
	}
	r, ok := hex4(b)
	d.br.Discard(4)
	return r, ok
}

func hex4(b []byte) (rune, bool) {
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
