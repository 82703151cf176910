// Package jsonscan reads JSON as a stream of tokens straight from bytes,
// without decoding it: a byte-level scanner that skips strings with
// bytes.IndexByte, tracks nesting, checks the grammar and reports each
// token's byte offsets. It reads its input through an io.ReaderAt in fixed
// windows, so scanning a 1 GB document costs one window of memory plus the
// nesting stack, and the caller decodes only the few tokens it wants.
//
// A document may hold several top-level values one after another (JSON
// Lines, or the concatenated objects `go list -json` prints): the scanner
// reads them all and counts them.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"sync"
)

// Kind is the kind of a token.
type Kind uint8

// Token kinds.
const (
	None        Kind = iota
	BeginObject      // {
	EndObject        // }
	BeginArray       // [
	EndArray         // ]
	Key              // a string naming an object member
	String           // a string value
	Number
	True
	False
	Null
)

var kindNames = [...]string{"none", "{", "}", "[", "]", "key", "string", "number", "true", "false", "null"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Token is one token: its kind and the byte offsets it spans, End exclusive.
// A string's span includes its quotes.
type Token struct {
	Kind       Kind
	Start, End int64
}

// WindowSize is how many bytes the scanner reads at a time; it matches the
// store's chunk size so that each read verifies one chunk.
const WindowSize = 1 << 20

// testWindow is the window size scanners use; tests make it small to cross
// window boundaries often.
var testWindow int64 = WindowSize

// MaxDepth is the deepest nesting the scanner accepts.
const MaxDepth = 10000

// SyntaxError is a place where the input stops being JSON.
type SyntaxError struct {
	// Offset is the byte offset of the error.
	Offset int64
	// Msg says what was wrong.
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Scanner states: what the grammar expects next.
const (
	stTop      uint8 = iota // a top-level value, or the end
	stValue                 // a value (after ':' or ',' in an array)
	stArrFirst              // a value or ']' (after '[')
	stObjFirst              // a key or '}' (after '{')
	stKey                   // a key (after ',' in an object)
	stColon                 // ':' (after a key)
	stAfter                 // ',' or the container's end (after a value)
)

// Scanner tokenizes JSON read through an io.ReaderAt. It is not safe for
// concurrent use.
type Scanner struct {
	r     io.ReaderAt
	limit int64 // scan [start, limit)

	buf  []byte // window storage
	win  []byte // the bytes read: buf[:n]
	base int64  // offset of win[0]
	pos  int    // next byte in win

	stack  []byte // open containers, '{' or '['
	state  uint8
	values int64 // top-level values completed
	err    error
	eof    bool
	single bool // stop after one top-level value
	cut    bool // the limit cuts a longer document (see Cut)

	winSize int64 // WindowSize, smaller in tests

	// more, when set, is asked before each window (see Stream).
	more func(next, want int64) (limit int64, cut bool)

	// Read-ahead (see Prefetch).
	prefetch bool
	ahead    chan window
	free     chan []byte
	stop     chan struct{}
	done     chan struct{}
	mu       *sync.Mutex // serializes reads of r while reading ahead
}

// window is a window read ahead.
type window struct {
	buf []byte
	off int64
	err error
}

// New returns a scanner over the first size bytes of r.
func New(r io.ReaderAt, size int64) *Scanner {
	return NewAt(r, 0, size)
}

// NewAt returns a scanner over bytes [start, end) of r, which must begin at
// a value (optionally after white space).
func NewAt(r io.ReaderAt, start, end int64) *Scanner {
	return &Scanner{r: r, limit: end, base: start, winSize: testWindow}
}

// Prefetch makes the scanner read the next window in a goroutine of its
// own while it scans the current one, so that reading (and a store's
// verifying) overlaps scanning. All reads of the underlying reader are then
// serialized. Call it before the first Next; Close stops the goroutine.
func (s *Scanner) Prefetch() { s.prefetch = s.limit-s.base > 2*s.winSize }

// Stream makes the scanner read a document that is still arriving. Before
// it reads each window it calls more with the window's offset and the end
// of the bytes it would read (next+WindowSize): more waits until those can
// be read, or until fewer will ever be, and returns the scan's limit and
// whether the limit cuts a longer document (see Cut), both of which may
// change from call to call as more of the document is known. Call it
// before the first Next, instead of Prefetch.
func (s *Scanner) Stream(more func(next, want int64) (limit int64, cut bool)) { s.more = more }

// SetReader makes the scanner read through r from now on; r must hold the
// same bytes as the reader it replaces. It must not be called while the
// scanner reads ahead (see Prefetch).
func (s *Scanner) SetReader(r io.ReaderAt) { s.r = r }

// Close stops the read-ahead goroutine, if there is one. The scanner must
// not be used after.
func (s *Scanner) Close() {
	if s.stop != nil {
		close(s.stop)
		<-s.done
		s.stop = nil
	}
}

// readAt reads from the underlying reader, serialized with the read-ahead.
func (s *Scanner) readAt(p []byte, off int64) (int, error) {
	if s.mu != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return s.r.ReadAt(p, off)
}

// span returns the length of the window that starts at off.
func (s *Scanner) span(off int64) int64 {
	n := s.winSize
	if a := off % s.winSize; a != 0 {
		n = s.winSize - a
	}
	return min(n, s.limit-off)
}

// fillAhead takes the next window from the read-ahead goroutine.
func (s *Scanner) fillAhead(next int64) bool {
	if s.ahead == nil {
		s.mu = &sync.Mutex{}
		s.ahead = make(chan window, 1)
		s.free = make(chan []byte, 3)
		s.stop = make(chan struct{})
		s.done = make(chan struct{})
		for range 3 {
			s.free <- make([]byte, s.winSize)
		}
		go s.readAhead(next)
	}
	if s.buf != nil {
		s.free <- s.buf[:cap(s.buf)]
		s.buf = nil
	}
	w, ok := <-s.ahead
	if !ok {
		return false
	}
	if w.err != nil {
		s.err = w.err
		return false
	}
	if w.off != next {
		s.err = fmt.Errorf("jsonscan: read ahead at byte %d, wanted %d", w.off, next)
		return false
	}
	s.buf = w.buf
	s.base = next
	s.win = w.buf
	s.pos = 0
	if next == 0 && bytes.HasPrefix(s.win, []byte("\xEF\xBB\xBF")) {
		s.pos = 3 // a UTF-8 byte order mark
	}
	return true
}

// readAhead reads windows in order from off until the limit or Close.
func (s *Scanner) readAhead(off int64) {
	defer close(s.done)
	defer close(s.ahead)
	for off < s.limit {
		var buf []byte
		select {
		case buf = <-s.free:
		case <-s.stop:
			return
		}
		n := s.span(off)
		m, err := s.readAt(buf[:n], off)
		w := window{buf: buf[:n], off: off}
		if int64(m) < n {
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("jsonscan: input ends at byte %d, before the %d bytes expected", off+int64(m), s.limit)
			}
			w.err = err
		}
		select {
		case s.ahead <- w:
		case <-s.stop:
			return
		}
		if w.err != nil {
			return
		}
		off += n
	}
}

// ErrCut is what a scanner returns, in the place of io.EOF or of a syntax
// error caused by the input's end, when it reaches the limit of a scan
// that Cut marked as the first part of a longer document.
var ErrCut = errors.New("jsonscan: the scan reached the end of the part it reads")

// Cut tells the scanner that its limit cuts a longer document: reaching it
// ends the scan with ErrCut, whatever is open then, rather than with
// io.EOF or a syntax error, and a number or a string that reaches the limit
// is not returned, since it may go on. Depth and the state of the open
// containers stay as they were before the token that was cut.
func (s *Scanner) Cut() { s.cut = true }

// Single makes the scanner stop after one top-level value: Next returns
// io.EOF after it even when more bytes follow.
func (s *Scanner) Single() { s.single = true }

// Values returns how many top-level values were completed so far.
func (s *Scanner) Values() int64 { return s.values }

// Depth returns the number of containers open.
func (s *Scanner) Depth() int { return len(s.stack) }

// Offset returns the offset of the next byte to scan.
func (s *Scanner) Offset() int64 { return s.base + int64(s.pos) }

// InObject reports whether the innermost open container is an object.
func (s *Scanner) InObject() bool { return len(s.stack) > 0 && s.stack[len(s.stack)-1] == '{' }

// fill reads the next window; it reports false at the end of the input or
// on an error (kept in s.err).
func (s *Scanner) fill() bool {
	next := s.base + int64(len(s.win))
	if s.more != nil && s.err == nil && !(s.single && s.values > 0) {
		s.limit, s.cut = s.more(next, next+s.winSize)
	}
	if next >= s.limit || s.err != nil {
		if s.cut && s.err == nil {
			s.err = ErrCut
		}
		return false
	}
	if s.prefetch {
		return s.fillAhead(next)
	}
	if s.buf == nil {
		// A window ends on a multiple of WindowSize, so reads line up with
		// the store's chunks.
		s.buf = make([]byte, min(s.winSize, max(s.limit-next, 64)))
	}
	n := int64(len(s.buf))
	if a := next % s.winSize; a != 0 && a+n > s.winSize && n == s.winSize {
		n = s.winSize - a
	}
	n = min(n, s.limit-next)
	m, err := s.readAt(s.buf[:n], next)
	if int64(m) < n {
		if err == nil || errors.Is(err, io.EOF) {
			err = fmt.Errorf("jsonscan: input ends at byte %d, before the %d bytes expected", next+int64(m), s.limit)
		}
		s.err = err
		return false
	}
	s.base = next
	s.win = s.buf[:n]
	s.pos = 0
	if next == 0 && bytes.HasPrefix(s.win, []byte("\xEF\xBB\xBF")) {
		s.pos = 3 // a UTF-8 byte order mark
	}
	return true
}

func (s *Scanner) syntax(off int64, format string, args ...any) error {
	if s.err == nil {
		s.err = &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	return s.err
}

// describe names the byte c for an error message.
func describe(c byte) string {
	switch {
	case c >= 0x20 && c < 0x7f:
		return fmt.Sprintf("%q", rune(c))
	default:
		return fmt.Sprintf("byte 0x%02x", c)
	}
}

func (s *Scanner) expected() string {
	switch s.state {
	case stTop, stValue:
		return "a value"
	case stArrFirst:
		return "a value or ']'"
	case stObjFirst:
		return "a string key or '}'"
	case stKey:
		return "a string key"
	case stColon:
		return "':' after the key"
	default:
		if s.InObject() {
			return "',' or '}'"
		}
		return "',' or ']'"
	}
}

// Next returns the next token. At the end of the input it returns io.EOF,
// or a *SyntaxError when the input ends inside a value or holds no value;
// a read error of the underlying reader is returned as it is.
func (s *Scanner) Next() (Token, error) {
	if s.err != nil {
		return Token{}, s.err
	}
	for {
		if s.pos >= len(s.win) {
			if !s.fill() {
				return s.atEnd()
			}
			continue
		}
		win := s.win
		pos := s.pos
		// Skip white space in a tight loop: indentation is much of a
		// pretty-printed document.
		c := win[pos]
		for c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			pos++
			if pos == len(win) {
				break
			}
			c = win[pos]
		}
		s.pos = pos
		if pos == len(win) {
			continue
		}
		off := s.base + int64(pos)
		switch c {
		case '{', '[':
			if !s.valueOK() {
				return Token{}, s.syntax(off, "unexpected %s, expected %s", describe(c), s.expected())
			}
			if len(s.stack) >= MaxDepth {
				return Token{}, s.syntax(off, "nesting deeper than %d", MaxDepth)
			}
			s.stack = append(s.stack, c)
			s.pos++
			if c == '{' {
				s.state = stObjFirst
				return Token{Kind: BeginObject, Start: off, End: off + 1}, nil
			}
			s.state = stArrFirst
			return Token{Kind: BeginArray, Start: off, End: off + 1}, nil
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			ok := len(s.stack) > 0 && s.stack[len(s.stack)-1] == open &&
				(s.state == stAfter || (c == '}' && s.state == stObjFirst) || (c == ']' && s.state == stArrFirst))
			if !ok {
				return Token{}, s.syntax(off, "unexpected %s, expected %s", describe(c), s.expected())
			}
			s.stack = s.stack[:len(s.stack)-1]
			s.pos++
			s.afterValue()
			if c == '}' {
				return Token{Kind: EndObject, Start: off, End: off + 1}, nil
			}
			return Token{Kind: EndArray, Start: off, End: off + 1}, nil
		case ':':
			if s.state != stColon {
				return Token{}, s.syntax(off, "unexpected ':', expected %s", s.expected())
			}
			s.state = stValue
			s.pos++
		case ',':
			if s.state != stAfter || len(s.stack) == 0 {
				return Token{}, s.syntax(off, "unexpected ',', expected %s", s.expected())
			}
			if s.stack[len(s.stack)-1] == '{' {
				s.state = stKey
			} else {
				s.state = stValue
			}
			s.pos++
		case '"':
			kind := String
			switch s.state {
			case stObjFirst, stKey:
				kind = Key
			default:
				if !s.valueOK() {
					return Token{}, s.syntax(off, "unexpected string, expected %s", s.expected())
				}
			}
			end, err := s.skipString()
			if err != nil {
				return Token{}, err
			}
			if kind == Key {
				s.state = stColon
			} else {
				s.afterValue()
			}
			return Token{Kind: kind, Start: off, End: end}, nil
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			if !s.valueOK() {
				return Token{}, s.syntax(off, "unexpected number, expected %s", s.expected())
			}
			end, err := s.skipNumber()
			if err != nil {
				return Token{}, err
			}
			s.afterValue()
			return Token{Kind: Number, Start: off, End: end}, nil
		case 't', 'f', 'n':
			if !s.valueOK() {
				return Token{}, s.syntax(off, "unexpected %s, expected %s", describe(c), s.expected())
			}
			lit, kind := "true", True
			if c == 'f' {
				lit, kind = "false", False
			} else if c == 'n' {
				lit, kind = "null", Null
			}
			if err := s.literal(lit); err != nil {
				return Token{}, err
			}
			s.afterValue()
			return Token{Kind: kind, Start: off, End: off + int64(len(lit))}, nil
		default:
			return Token{}, s.syntax(off, "unexpected %s, expected %s", describe(c), s.expected())
		}
	}
}

// valueOK reports whether a value may start here.
func (s *Scanner) valueOK() bool {
	switch s.state {
	case stValue, stArrFirst:
		return true
	case stTop:
		return !(s.single && s.values > 0)
	}
	return false
}

func (s *Scanner) afterValue() {
	if len(s.stack) == 0 {
		s.values++
		s.state = stTop
		if s.single {
			// Nothing more is read.
			s.limit = s.base + int64(s.pos)
			s.win = s.win[:s.pos]
		}
		return
	}
	s.state = stAfter
}

func (s *Scanner) atEnd() (Token, error) {
	if s.err != nil {
		return Token{}, s.err
	}
	end := s.base + int64(len(s.win))
	if len(s.stack) > 0 {
		return Token{}, s.syntax(end, "the input ends inside %s (%d open), expected %s", openName(s.stack[len(s.stack)-1]), len(s.stack), s.expected())
	}
	if s.values == 0 {
		return Token{}, s.syntax(end, "no JSON value")
	}
	s.eof = true
	return Token{}, io.EOF
}

func openName(c byte) string {
	if c == '{' {
		return "an object"
	}
	return "an array"
}

// skipString moves past a string whose opening quote is at s.pos and
// returns the offset just past its closing quote. Escapes are honoured but
// not checked; control bytes inside the string are accepted. It looks at
// eight bytes at a time for a quote or a backslash.
func (s *Scanner) skipString() (int64, error) {
	start := s.base + int64(s.pos)
	p := s.pos + 1
	esc := false // the next byte is escaped (a backslash ended the last window)
	for {
		win := s.win
		if esc && p < len(win) {
			p++
			esc = false
		}
		for p < len(win) {
			if p+8 <= len(win) {
				x := binary.LittleEndian.Uint64(win[p:])
				q := x ^ 0x2222222222222222 // '"' bytes become zero
				b := x ^ 0x5c5c5c5c5c5c5c5c // '\\' bytes become zero
				m := ((q - 0x0101010101010101) &^ q) | ((b - 0x0101010101010101) &^ b)
				m &= 0x8080808080808080
				if m == 0 {
					p += 8
					continue
				}
				// The lowest flagged byte is the first quote or backslash.
				p += bits.TrailingZeros64(m) / 8
			}
			c := win[p]
			if c == '"' {
				s.pos = p + 1
				return s.base + int64(p) + 1, nil
			}
			if c == '\\' {
				if p+1 == len(win) {
					esc = true
				}
				p++
			}
			p++
		}
		s.pos = len(s.win)
		if !s.fill() {
			if s.err != nil {
				return 0, s.err
			}
			return 0, s.syntax(start, "unterminated string")
		}
		p = s.pos
	}
}

// number grammar states
const (
	nStart  = iota // before the optional '-'
	nMinus         // after '-'
	nZero          // after a leading 0
	nInt           // in the integer digits
	nDot           // after '.'
	nFrac          // in the fraction digits
	nExp           // after 'e'
	nExpSgn        // after the exponent's sign
	nExpDig        // in the exponent digits
)

// skipNumber moves past a number that starts at s.pos, checking its
// grammar, and returns the offset just past it.
func (s *Scanner) skipNumber() (int64, error) {
	start := s.base + int64(s.pos)
	st := nStart
	for {
		win := s.win
		p := s.pos
		for ; p < len(win); p++ {
			c := win[p]
			switch st {
			case nStart:
				if c == '-' {
					st = nMinus
				} else if c == '0' {
					st = nZero
				} else {
					st = nInt
				}
				continue
			case nMinus:
				if c == '0' {
					st = nZero
					continue
				}
				if c >= '1' && c <= '9' {
					st = nInt
					continue
				}
				s.pos = p
				return 0, s.syntax(s.base+int64(p), "in a number: expected a digit after '-', got %s", describe(c))
			case nInt:
				// The common case: a run of digits.
				for c >= '0' && c <= '9' {
					p++
					if p == len(win) {
						break
					}
					c = win[p]
				}
				if p == len(win) {
					p--
					continue
				}
				fallthrough
			case nZero:
				switch c {
				case '.':
					st = nDot
					continue
				case 'e', 'E':
					st = nExp
					continue
				}
				if c >= '0' && c <= '9' {
					s.pos = p
					return 0, s.syntax(s.base+int64(p), "in a number: a leading zero is followed by a digit")
				}
				s.pos = p
				return s.end(start, p)
			case nDot:
				if c >= '0' && c <= '9' {
					st = nFrac
					continue
				}
				s.pos = p
				return 0, s.syntax(s.base+int64(p), "in a number: expected a digit after '.', got %s", describe(c))
			case nFrac:
				if c >= '0' && c <= '9' {
					continue
				}
				if c == 'e' || c == 'E' {
					st = nExp
					continue
				}
				s.pos = p
				return s.end(start, p)
			case nExp:
				if c == '+' || c == '-' {
					st = nExpSgn
					continue
				}
				fallthrough
			case nExpSgn:
				if c >= '0' && c <= '9' {
					st = nExpDig
					continue
				}
				s.pos = p
				return 0, s.syntax(s.base+int64(p), "in a number: expected a digit in the exponent, got %s", describe(c))
			case nExpDig:
				if c >= '0' && c <= '9' {
					continue
				}
				s.pos = p
				return s.end(start, p)
			}
		}
		s.pos = len(win)
		if !s.fill() {
			if s.err != nil {
				return 0, s.err
			}
			switch st {
			case nZero, nInt, nFrac, nExpDig:
				return s.base + int64(len(s.win)), nil
			}
			return 0, s.syntax(s.base+int64(len(s.win)), "the input ends inside a number")
		}
	}
}

// end checks that a scalar ending at win[p] is followed by a delimiter and
// returns its end offset.
func (s *Scanner) end(start int64, p int) (int64, error) {
	c := s.win[p]
	switch c {
	case ' ', '\t', '\n', '\r', ',', ']', '}', ':':
		return s.base + int64(p), nil
	case '{', '[', '"':
		if s.state == stTop || (len(s.stack) == 0) {
			// Top-level values may follow each other directly.
			return s.base + int64(p), nil
		}
	}
	return 0, s.syntax(s.base+int64(p), "unexpected %s after the value that starts at byte %d", describe(c), start)
}

// literal moves past lit, which must come next.
func (s *Scanner) literal(lit string) error {
	start := s.base + int64(s.pos)
	for i := 0; i < len(lit); i++ {
		if s.pos >= len(s.win) && !s.fill() {
			if s.err != nil {
				return s.err
			}
			return s.syntax(s.base+int64(len(s.win)), "the input ends inside %q", lit)
		}
		if s.win[s.pos] != lit[i] {
			return s.syntax(s.base+int64(s.pos), "unexpected %s in what should be %q (it starts at byte %d)", describe(s.win[s.pos]), lit, start)
		}
		s.pos++
	}
	return nil
}

// Skip moves past the rest of the container whose Begin token was just
// returned, and returns the offset just past its end. At any other place
// it moves past nothing and returns the current offset. It checks the
// grammar as Next does, in a loop of its own that returns no tokens.
func (s *Scanner) Skip() (int64, error) {
	depth := len(s.stack)
	if depth == 0 || s.err != nil {
		return s.Offset(), s.err
	}
	for {
		if s.pos >= len(s.win) {
			if !s.fill() {
				if _, err := s.atEnd(); err != nil && err != io.EOF {
					return 0, err
				}
				return 0, s.syntax(s.Offset(), "the input ends inside a container")
			}
			continue
		}
		win, pos, state := s.win, s.pos, s.state
	window:
		for pos < len(win) {
			c := win[pos]
			switch c {
			case ' ', '\n', '\t', '\r':
				pos++
				continue
			case '"':
				switch state {
				case stObjFirst, stKey:
					state = stColon
				case stValue, stArrFirst:
					state = stAfter
				default:
					break window
				}
				// The string's end, eight bytes at a time, when it is in
				// this window; skipString handles the rest.
				p := pos + 1
				for p+8 <= len(win) {
					x := binary.LittleEndian.Uint64(win[p:])
					q := x ^ 0x2222222222222222
					b := x ^ 0x5c5c5c5c5c5c5c5c
					m := (((q - 0x0101010101010101) &^ q) | ((b - 0x0101010101010101) &^ b)) & 0x8080808080808080
					if m == 0 {
						p += 8
						continue
					}
					p += bits.TrailingZeros64(m) / 8
					if win[p] == '"' {
						pos = p + 1
						continue window
					}
					p += 2 // an escape
				}
				s.pos = pos
				if _, err := s.skipString(); err != nil {
					return 0, err
				}
				win, pos = s.win, s.pos
				continue
			case ',':
				if state != stAfter {
					break window
				}
				if s.stack[len(s.stack)-1] == '{' {
					state = stKey
				} else {
					state = stValue
				}
				pos++
				continue
			case ':':
				if state != stColon {
					break window
				}
				state = stValue
				pos++
				continue
			case '{', '[':
				if state != stValue && state != stArrFirst || len(s.stack) >= MaxDepth {
					break window
				}
				s.stack = append(s.stack, c)
				if c == '{' {
					state = stObjFirst
				} else {
					state = stArrFirst
				}
				pos++
				continue
			case '}', ']':
				open := byte('{')
				if c == ']' {
					open = '['
				}
				if s.stack[len(s.stack)-1] != open || !(state == stAfter || c == '}' && state == stObjFirst || c == ']' && state == stArrFirst) {
					break window
				}
				s.stack = s.stack[:len(s.stack)-1]
				pos++
				if len(s.stack) < depth {
					s.pos = pos
					s.afterValue()
					return s.base + int64(pos), nil
				}
				state = stAfter
				continue
			}
			// A number, a literal, or an error: Next reads one token.
			break
		}
		s.pos, s.state = pos, state
		if pos < len(win) {
			t, err := s.Next()
			if err != nil {
				if err == io.EOF {
					err = s.syntax(s.Offset(), "the input ends inside a container")
				}
				return 0, err
			}
			if (t.Kind == EndObject || t.Kind == EndArray) && len(s.stack) < depth {
				return t.End, nil
			}
		}
	}
}

// Bytes returns the bytes of [start, end), from the current window when it
// holds them and else read from the input; at most max bytes are returned.
// The slice may point into the window and is valid until the next call.
func (s *Scanner) Bytes(start, end int64, max int) ([]byte, error) {
	if end-start > int64(max) {
		end = start + int64(max)
	}
	if start >= s.base && end <= s.base+int64(len(s.win)) {
		return s.win[start-s.base : end-s.base], nil
	}
	b := make([]byte, end-start)
	n, err := s.readAt(b, start)
	if n < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("jsonscan: reading bytes %d-%d: %w", start, end, err)
	}
	return b, nil
}
