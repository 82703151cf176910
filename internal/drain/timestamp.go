package drain

import (
	"encoding/binary"
	"math/bits"
)

// maxTimestampStart is how far into a line a timestamp may start and still
// count as the line's timestamp: far enough for a short prefix such as a
// process id ("1234:M "), a syslog priority ("<13>") or the client address of
// an access log ("127.0.0.1 - - ["), no further.
const maxTimestampStart = 48

// Timestamp finds the timestamp that opens a log line: one that starts at
// most a short prefix into the line. It returns the span [start, end) of the
// timestamp, brackets included when it is bracketed, and ok false when the
// line has none. It recognizes ISO 8601 and its common variants
// ("2024-05-01 12:00:00,123", "2024/05/01 12:00:00"), syslog ("May  1
// 12:00:00"), the day-month-year form of Redis ("01 May 2024 12:00:00.123"),
// the common log format of web servers ("[01/May/2024:12:00:00 +0000]"),
// ctime ("Wed May  1 12:00:00 2024"), glog ("I0501 12:00:00.123456"), a bare
// time of day and epoch seconds or milliseconds, each with an optional
// fraction and zone.
func Timestamp(line []byte) (start, end int, ok bool) {
	opens := true // a timestamp may start at line[i]: the start of a word
	for i, c := range line[:min(len(line), maxTimestampStart)] {
		// A byte other than a digit or a capital is ruled out by
		// timestampAt at once.
		if opens && (c-'0' <= 9 || c-'A' <= 'Z'-'A') {
			if n := timestampAt(line[i:], i == 0); n > 0 {
				s, e := i, i+n
				if s > 0 && line[s-1] == '[' && e < len(line) && line[e] == ']' {
					s, e = s-1, e+1
				}
				return s, e, true
			}
		}
		opens = opensWord[c]
	}
	return 0, 0, false
}

// opensWord holds the bytes after which a timestamp may start.
var opensWord = func() (t [256]bool) {
	for _, c := range []byte(" \t[(<>\"=") {
		t[c] = true
	}
	return t
}()

// shapes are the timestamp layouts tried at the start of a word: 'd' is a
// digit, 'D' a digit or a space, 'M' a month's abbreviation, 'W' a weekday's,
// and any other byte stands for itself.
var shapes = []string{
	"dddd-dd-ddTdd:dd:dd",
	"dddd-dd-dd dd:dd:dd",
	"dddd/dd/dd dd:dd:dd",
	"dddd/dd/ddTdd:dd:dd",
	"dd/M/dddd:dd:dd:dd",
	"dd/M/dddd dd:dd:dd",
	"dd-M-dddd dd:dd:dd",
	"dd M dddd dd:dd:dd",
	"W M Dd dd:dd:dd dddd",
	"W M Dd dd:dd:dd",
	"M Dd dd:dd:dd",
	"M Dd dddd dd:dd:dd",
	"dddd-dd-dd",
}

// lineStartLayouts are tried only at the very start of a line, where they
// are unlikely to be something else.
var lineStartLayouts = []string{
	"dd:dd:dd",
	"Ldddd dd:dd:dd", // glog: I, W, E or F, then month and day
}

// A shape is compiled into the bytes it fixes (separators, which rule out
// most words at once, so they are checked first), the classes of others and
// the names: its positions are fixed, as a name takes three bytes.
type compiledShape struct {
	n     int         // the length a match has
	fixed []shapeByte // positions that must hold one byte
	// The fixed bytes and the digits ('d') again, eight positions to a
	// word as binary.LittleEndian reads them: a match's word x holds
	// x&fixMask == fixVal, and digits where digit has high bits.
	fixMask, fixVal, digit []uint64
	classes                []shapeByte // positions of 'D' and 'L': c holds their tsClass bits
	names                  []shapeByte // positions of a name: c is 'M' or 'W'
	bare                   bool        // a bare date, "dddd-dd-dd"
}

type shapeByte struct {
	at int
	c  byte
}

// tsClass holds the classes of bytes a shape's 'd', 'D' and 'L' stand for,
// as bits.
var tsClass = func() (t [256]byte) {
	for c := '0'; c <= '9'; c++ {
		t[c] = tsDigit
	}
	t[' '] = tsSpace
	for _, c := range "IWEF" {
		t[c] = tsGlog
	}
	return t
}()

const (
	tsDigit = 1 << iota
	tsSpace
	tsGlog // the level letters of glog
)

func compileShape(shape string) compiledShape {
	cs := compiledShape{bare: shape == "dddd-dd-dd"}
	var digits []int
	for k := 0; k < len(shape); k++ {
		switch c := shape[k]; c {
		case 'd':
			digits = append(digits, cs.n)
			cs.n++
		case 'D':
			cs.classes = append(cs.classes, shapeByte{cs.n, tsDigit | tsSpace})
			cs.n++
		case 'L':
			cs.classes = append(cs.classes, shapeByte{cs.n, tsGlog})
			cs.n++
		case 'M', 'W':
			cs.names = append(cs.names, shapeByte{cs.n, c})
			cs.n += 3
		default:
			cs.fixed = append(cs.fixed, shapeByte{cs.n, c})
			cs.n++
		}
	}
	words := (cs.n + 7) / 8
	cs.fixMask, cs.fixVal, cs.digit = make([]uint64, words), make([]uint64, words), make([]uint64, words)
	for _, f := range cs.fixed {
		cs.fixMask[f.at/8] |= 0xff << (8 * (f.at % 8))
		cs.fixVal[f.at/8] |= uint64(f.c) << (8 * (f.at % 8))
	}
	for _, at := range digits {
		cs.digit[at/8] |= 0x80 << (8 * (at % 8))
	}
	return cs
}

func compileShapes(shapes []string) []compiledShape {
	out := make([]compiledShape, len(shapes))
	for i, s := range shapes {
		out[i] = compileShape(s)
	}
	return out
}

// A shapeSet is a list of shapes tried in order, with a filter that rules
// most of them out at once: for a few positions near the start, the shapes
// that may match each byte there (those that fix no byte at that position,
// and those that fix this one). The first shape that matches is the one
// the list gives, so only the shapes the filter keeps need trying.
type shapeSet struct {
	shapes []compiledShape
	probes []shapeProbe
}

type shapeProbe struct {
	at    int
	allow [256]uint16 // allow[c]: bit i, shape i may hold c at at
}

// probeLimit bounds the positions probed: every timestamp is at least as
// long (timestampAt rules out shorter words), so every probe is in range.
const probeLimit = 8

func newShapeSet(layouts []string) shapeSet {
	set := shapeSet{shapes: compileShapes(layouts)}
	if len(set.shapes) > 16 {
		panic("drain: more than 16 timestamp shapes in a set")
	}
	for at := 0; at < probeLimit; at++ {
		p := shapeProbe{at: at}
		fixes := false
		for i, s := range set.shapes {
			c, ok := s.fixedAt(at)
			fixes = fixes || ok
			for b := range 256 {
				if !ok || byte(b) == c {
					p.allow[b] |= 1 << i
				}
			}
		}
		if fixes {
			set.probes = append(set.probes, p)
		}
	}
	return set
}

// fixedAt returns the byte the shape fixes at position at, if it fixes one.
func (s *compiledShape) fixedAt(at int) (byte, bool) {
	for _, f := range s.fixed {
		if f.at == at {
			return f.c, true
		}
	}
	return 0, false
}

// cands returns the shapes of the set that may match the start of b (at
// least probeLimit bytes long), as bits: bit i for shape i.
func (set *shapeSet) cands(b []byte) uint16 {
	cand := uint16(1)<<len(set.shapes) - 1
	for i := range set.probes {
		p := &set.probes[i]
		cand &= p.allow[b[p.at]]
	}
	return cand
}

// Shapes by the class of their first byte, so that a word is tried only
// against the layouts it could start.
var (
	digitShapes     = newShapeSet(shapesStarting("d"))
	monthShapes     = newShapeSet(shapesStarting("M"))
	weekdayShapes   = newShapeSet(shapesStarting("W"))
	lineStartShapes = newShapeSet(lineStartLayouts)
)

func shapesStarting(c string) []string {
	var out []string
	for _, s := range shapes {
		if s[:1] == c {
			out = append(out, s)
		}
	}
	return out
}

// timestampAt returns the length of the timestamp at the start of b, or 0.
func timestampAt(b []byte, lineStart bool) int {
	if len(b) < probeLimit {
		return 0
	}
	var try *shapeSet
	switch c := b[0]; {
	case c >= '0' && c <= '9':
		if !isDigitByte(b[1]) {
			return 0
		}
		try = &digitShapes
	case c >= 'A' && c <= 'Z':
		switch nameOf(b) {
		case nameMonth:
			try = &monthShapes
		case nameWeekday:
			try = &weekdayShapes
		default:
			if !lineStart || !isDigitByte(b[1]) {
				return 0
			}
		}
	default:
		return 0
	}
	if try != nil {
		for cand := try.cands(b); cand != 0; cand &= cand - 1 {
			s := &try.shapes[bits.TrailingZeros16(cand)]
			n := s.match(b)
			if n == 0 {
				continue
			}
			if s.bare {
				// A bare date, when a word does not go on after it.
				if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != ']' {
					continue
				}
				return n
			}
			return n + zoneLen(b[n:])
		}
	}
	if !lineStart {
		return 0
	}
	for cand := lineStartShapes.cands(b); cand != 0; cand &= cand - 1 {
		if n := lineStartShapes.shapes[bits.TrailingZeros16(cand)].match(b); n > 0 {
			return n + zoneLen(b[n:])
		}
	}
	if isDigitByte(b[0]) {
		return epochLen(b)
	}
	return 0
}

// The kinds of three-letter names nameOf tells apart.
const (
	nameNone = iota
	nameMonth
	nameWeekday
)

// digitBits returns the high bit of each of the eight bytes of x that is a
// digit. No carry crosses from a byte to the next: each sum adds less than
// 0x80 to seven bits.
func digitBits(x uint64) uint64 {
	const low7, high1, ones = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080, 0x0101010101010101
	l := x & low7
	// l+(0x80-c) has its high bit set when l >= c.
	return (l + ones*(0x80-'0')) &^ (l + ones*(0x80-'9'-1)) &^ x & high1
}

// nameOf tells whether b starts with a month's or a weekday's abbreviation,
// as in months and weekdays: b holds at least three bytes.
func nameOf(b []byte) int {
	// The names packed as nameOf packs b, in constants: the switch
	// compiles to a binary search (TestNameOf checks them against months
	// and weekdays).
	switch uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 {
	case 'J' | 'a'<<8 | 'n'<<16, 'F' | 'e'<<8 | 'b'<<16, 'M' | 'a'<<8 | 'r'<<16, 'A' | 'p'<<8 | 'r'<<16, 'M' | 'a'<<8 | 'y'<<16, 'J' | 'u'<<8 | 'n'<<16,
		'J' | 'u'<<8 | 'l'<<16, 'A' | 'u'<<8 | 'g'<<16, 'S' | 'e'<<8 | 'p'<<16, 'O' | 'c'<<8 | 't'<<16, 'N' | 'o'<<8 | 'v'<<16, 'D' | 'e'<<8 | 'c'<<16:
		return nameMonth
	case 'M' | 'o'<<8 | 'n'<<16, 'T' | 'u'<<8 | 'e'<<16, 'W' | 'e'<<8 | 'd'<<16, 'T' | 'h'<<8 | 'u'<<16,
		'F' | 'r'<<8 | 'i'<<16, 'S' | 'a'<<8 | 't'<<16, 'S' | 'u'<<8 | 'n'<<16:
		return nameWeekday
	}
	return nameNone
}

// months and weekdays are the names nameOf knows.
var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var weekdays = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// match returns the length of b's prefix that matches the shape, or 0.
func (s *compiledShape) match(b []byte) int {
	if len(b) < s.n {
		return 0
	}
	for k := range s.digit {
		var x uint64
		if w := b[8*k:]; len(w) >= 8 {
			x = binary.LittleEndian.Uint64(w)
		} else {
			for i, c := range w {
				x |= uint64(c) << (8 * i)
			}
		}
		if x&s.fixMask[k] != s.fixVal[k] || digitBits(x)&s.digit[k] != s.digit[k] {
			return 0
		}
	}
	for _, k := range s.classes {
		if tsClass[b[k.at]]&k.c == 0 {
			return 0
		}
	}
	for _, k := range s.names {
		want := nameMonth
		if k.c == 'W' {
			want = nameWeekday
		}
		if nameOf(b[k.at:]) != want {
			return 0
		}
	}
	return s.n
}

// zones are the zone names accepted after a timestamp.
var zones = [...]string{"UTC", "GMT", "CET", "CEST", "EET", "EEST", "WET", "BST", "IST", "JST", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT"}

// zoneLen returns the length of the fraction, zone and year that may follow
// a timestamp's seconds: ".123456", ",123", "Z", "+02:00", " +0000",
// " UTC".
func zoneLen(b []byte) int {
	i := 0
	if i+1 < len(b) && (b[i] == '.' || b[i] == ',') && isDigitByte(b[i+1]) {
		i++
		for i < len(b) && isDigitByte(b[i]) {
			i++
		}
	}
	if i < len(b) && b[i] == 'Z' && (i+1 == len(b) || !isLetterByte(b[i+1])) {
		return i + 1
	}
	j := i
	if j < len(b) && b[j] == ' ' {
		j++
	}
	if j < len(b) && (b[j] == '+' || b[j] == '-') {
		k := j + 1
		n := 0
		for k < len(b) && n < 4 && (isDigitByte(b[k]) || (b[k] == ':' && n == 2)) {
			if b[k] != ':' {
				n++
			}
			k++
		}
		if n == 4 || n == 2 {
			return k
		}
	}
	if i+3 < len(b) && b[i] == ' ' && b[i+1] >= 'A' && b[i+1] <= 'Z' && b[i+3] >= 'A' && b[i+3] <= 'Z' {
		for _, z := range zones {
			if e := i + 1 + len(z); e <= len(b) && string(b[i+1:e]) == z && (e == len(b) || !isLetterByte(b[e])) {
				return e
			}
		}
	}
	return i
}

// epochLen returns the length of epoch seconds (10 digits, from 2001 to
// 2033) or milliseconds (13 digits) with an optional fraction, or 0.
func epochLen(b []byte) int {
	n := 0
	for n < len(b) && isDigitByte(b[n]) {
		n++
	}
	if (n != 10 && n != 13) || b[0] != '1' {
		return 0
	}
	if n < len(b) && isLetterByte(b[n]) {
		return 0
	}
	return n + zoneLen(b[n:])
}

func isDigitByte(c byte) bool  { return c >= '0' && c <= '9' }
func isLetterByte(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
