package jsonscan

import (
	"bytes"
	"fmt"
)

// Reading the end of a document without its beginning. A JSON string can
// hold no raw line break, so every line break of a valid document lies
// between tokens, and the tokens after one can be read without knowing
// what came before: only how deep they are is unknown. The document ends
// with every container closed, so counting the brackets from that line
// break to the end tells how many containers were open there, and the
// closing brackets left over tell their kinds. ScanTail uses this to find
// the last top-level values of a stream, or the last members or elements
// of the outermost container, in the last bytes of a document.

// TailItem is a value ScanTail found: a top-level value, or a member or an
// element of the outermost container.
type TailItem struct {
	// Key is the member's key, for a member of an object; its Kind is None
	// for an element or a top-level value.
	Key Token
	// Kind is the kind of the value's first token.
	Kind Kind
	// Start and End span the whole value.
	Start, End int64
}

// Tail is what ScanTail found at the end of a document.
type Tail struct {
	// From is where the tokens read begin: the first line start in the
	// bytes given.
	From int64
	// Depth is how many containers were open at From.
	Depth int
	// Outer is the kind of the outermost container open at From
	// (BeginObject or BeginArray), or None when Depth is 0.
	Outer Kind
	// Count is how many items start at or after From.
	Count int64
	// Items are the last items, at most the number asked for, in the order
	// of the document.
	Items []TailItem
}

// TailError says why the end of a document could not be read on its own.
type TailError struct {
	// Offset is the byte offset of the problem.
	Offset int64
	// Msg says what it was.
	Msg string
}

func (e *TailError) Error() string {
	return fmt.Sprintf("jsonscan: reading the end of the document at byte %d: %s", e.Offset, e.Msg)
}

// tailTok is a token of the tail; c is its first byte.
type tailTok struct {
	c          byte
	start, end int
}

// lexTail returns the token of buf that starts at or after p, and where
// the next may start; the token's c is 0 at the end of buf. It checks that
// the token is whole and on one line, and fails (msg) at the first byte
// that no token may start with.
func lexTail(buf []byte, p int) (tok tailTok, next int, msg string) {
	for p < len(buf) {
		c := buf[p]
		switch c {
		case ' ', '\t', '\r', '\n':
			p++
			continue
		case '{', '}', '[', ']', ',', ':':
			return tailTok{c, p, p + 1}, p + 1, ""
		case '"':
			q := p + 1
			if i := bytes.IndexByte(buf[q:], '"'); i >= 0 {
				// Most strings hold neither an escape nor a line break:
				// whole runs are searched at once.
				if s := buf[q : q+i]; bytes.IndexByte(s, '\\') < 0 && bytes.IndexByte(s, '\n') < 0 {
					return tailTok{c, p, q + i + 1}, q + i + 1, ""
				}
			}
			for {
				for q < len(buf) && !stringStop[buf[q]] {
					q++
				}
				if q == len(buf) {
					return tok, p, "a string runs to the end of the document"
				}
				if buf[q] == '\n' {
					return tok, p, "a string holds a line break"
				}
				if buf[q] == '"' {
					break
				}
				// An escape: the byte after the backslash is part of it.
				if q+1 >= len(buf) || buf[q+1] == '\n' {
					return tok, p, "a string ends in a broken escape"
				}
				q += 2
			}
			return tailTok{c, p, q + 1}, q + 1, ""
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			q := p + 1
			for q < len(buf) && (buf[q] >= '0' && buf[q] <= '9' || buf[q] == '.' || buf[q] == 'e' || buf[q] == 'E' || buf[q] == '+' || buf[q] == '-') {
				q++
			}
			return tailTok{c, p, q}, q, ""
		case 't', 'f', 'n':
			lit := "true"
			if c == 'f' {
				lit = "false"
			} else if c == 'n' {
				lit = "null"
			}
			if !bytes.HasPrefix(buf[p:], []byte(lit)) {
				return tok, p, "unexpected " + describe(c)
			}
			return tailTok{c, p, p + len(lit)}, p + len(lit), ""
		default:
			return tok, p, "unexpected " + describe(c)
		}
	}
	return tailTok{start: p, end: p}, p, ""
}

// stringStop holds the bytes that end a run of a string's plain bytes in
// the tail: its closing quote, an escape and a line break, which no string
// may hold.
var stringStop = [256]bool{'"': true, '\\': true, '\n': true}

func isOpen(c byte) bool  { return c == '{' || c == '[' }
func isClose(c byte) bool { return c == '}' || c == ']' }

// ScanTail reads the end of a document: buf holds its bytes from base to
// its very end. It starts at the first line start in buf and returns the
// items that start after it at the given level: 0 for the top-level values
// of a stream, 1 for the members or elements of the outermost container,
// which must then be open at that line start and end where the document
// ends (but for white space). It keeps the last keep items. An error (a
// *TailError) means that the bytes cannot be read so: there is no line
// break in buf, a line holds what is not JSON, or the brackets do not
// close as a valid document's would.
func ScanTail(buf []byte, base int64, level, keep int) (*Tail, error) {
	fail := func(p int, format string, args ...any) (*Tail, error) {
		return nil, &TailError{Offset: base + int64(p), Msg: fmt.Sprintf(format, args...)}
	}
	if level < 0 || level > 1 {
		return fail(0, "level %d: the level is 0 or 1", level)
	}
	nl := bytes.IndexByte(buf, '\n')
	if nl < 0 {
		return fail(0, "no line break to start at")
	}
	// Depth relative to the line start: where the document ends, every
	// container is closed, so the depth there is the deepest the tokens go
	// below the start. The kinds of the containers open at the start,
	// outermost first, are those of the closing brackets left over, last
	// first; the outermost one's is the last.
	d, low := 0, 0
	var stack []byte // containers opened here
	var outer byte   // the last closing bracket left over
	for p := nl + 1; ; {
		t, next, msg := lexTail(buf, p)
		if msg != "" {
			return fail(next, "%s", msg)
		}
		if t.c == 0 {
			break
		}
		p = next
		switch {
		case isOpen(t.c):
			d++
			stack = append(stack, t.c)
		case isClose(t.c):
			d--
			low = min(low, d)
			if len(stack) > 0 {
				open := stack[len(stack)-1]
				if open == '{' && t.c != '}' || open == '[' && t.c != ']' {
					return fail(t.start, "%s closes %s", describe(t.c), openName(open))
				}
				stack = stack[:len(stack)-1]
			} else {
				outer = t.c
			}
		}
	}
	if d != low {
		return fail(len(buf), "containers are left open at the end")
	}
	depth := -d
	tail := &Tail{From: base + int64(nl+1), Depth: depth}
	if level == 1 && depth == 0 {
		return fail(nl+1, "the outermost container ends before this line")
	}
	switch outer {
	case '}':
		tail.Outer = BeginObject
	case ']':
		tail.Outer = BeginArray
	}
	if err := tail.items(buf, nl+1, base, level, keep); err != nil {
		return nil, err
	}
	return tail, nil
}

// items finds the items at level, checking the grammar between them.
func (tail *Tail) items(buf []byte, from int, base int64, level, keep int) error {
	fail := func(p int, format string, args ...any) error {
		return &TailError{Offset: base + int64(p), Msg: fmt.Sprintf(format, args...)}
	}
	// The kind of the container at the level: the outermost one for level
	// 1; none (a stream) for level 0.
	inObject := level == 1 && tail.Outer == BeginObject
	// What the level expects next; the start is unknown until a token at
	// the level says.
	const (
		unknown = iota
		value   // a value (or a key, in an object)
		colon   // ':' after a key
		member  // a member's value after ':'
		after   // ',' or the end, after a value
	)
	state := unknown
	abs := tail.Depth
	var cur *TailItem // the item being read
	var key Token
	closed := false // the outermost container closed (level 1)
	var peek tailTok
	t, p, _ := lexTail(buf, from)
	for ; t.c != 0; t = peek {
		var next int
		peek, next, _ = lexTail(buf, p) // lexed whole before: no error
		p = next
		if closed {
			return fail(t.start, "more follows the end of the outermost container")
		}
		if abs > level {
			// Inside an item (or one that began before the start).
			if isOpen(t.c) {
				abs++
			} else if isClose(t.c) {
				abs--
				if abs == level {
					if cur != nil {
						cur.End = base + int64(t.end)
						tail.add(*cur, keep)
						cur = nil
					}
					state = after
					if level == 0 {
						state = value
					}
				}
			}
			continue
		}
		// At the level.
		switch {
		case isClose(t.c):
			if level == 0 {
				return fail(t.start, "unexpected %s between top-level values", describe(t.c))
			}
			if state == value || state == colon || state == member {
				return fail(t.start, "unexpected %s", describe(t.c))
			}
			abs--
			closed = true
			continue
		case t.c == ',':
			if level == 0 || state == value || state == colon || state == member {
				return fail(t.start, "unexpected ','")
			}
			state = value
			continue
		case t.c == ':':
			if !inObject || state != colon && state != unknown {
				return fail(t.start, "unexpected ':'")
			}
			state = member
			continue
		}
		// A value, or a key.
		if state == after || state == colon {
			return fail(t.start, "a value where %s was expected", map[int]string{after: "',' or the end", colon: "':'"}[state])
		}
		if inObject && state != member {
			// A key: the next token must be ':'.
			if t.c != '"' || peek.c != ':' {
				if state == unknown {
					// The value of a member whose key came before the
					// start: not an item.
					state = member
				} else {
					return fail(t.start, "expected a key")
				}
			} else {
				key = Token{Kind: Key, Start: base + int64(t.start), End: base + int64(t.end)}
				state = colon
				continue
			}
		}
		item := TailItem{Kind: tailKind(t.c), Start: base + int64(t.start), End: base + int64(t.end)}
		counted := !inObject || key.Kind == Key
		if inObject {
			item.Key = key
			key = Token{}
		}
		if isOpen(t.c) {
			abs++
			if counted {
				tail.Count++
				cur = &item
			}
			continue
		}
		if counted {
			tail.Count++
			tail.add(item, keep)
		}
		state = after
		if level == 0 {
			state = value
		}
	}
	if level == 1 && !closed {
		return fail(len(buf), "the outermost container does not end")
	}
	if state == colon || state == member {
		return fail(len(buf), "the document ends inside a member")
	}
	return nil
}

// add keeps an item, dropping the oldest past keep.
func (tail *Tail) add(it TailItem, keep int) {
	if keep <= 0 {
		return
	}
	if len(tail.Items) == keep {
		copy(tail.Items, tail.Items[1:])
		tail.Items = tail.Items[:keep-1]
	}
	tail.Items = append(tail.Items, it)
}

func tailKind(c byte) Kind {
	switch c {
	case '{':
		return BeginObject
	case '[':
		return BeginArray
	case '"':
		return String
	case 't':
		return True
	case 'f':
		return False
	case 'n':
		return Null
	}
	return Number
}
