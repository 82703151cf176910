package drain

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
	limit := min(len(line), maxTimestampStart)
	for i := 0; i < limit; i++ {
		if i > 0 && !opensWord[line[i-1]] {
			continue // only at the start of a word
		}
		if n := timestampAt(line[i:], i == 0); n > 0 {
			s, e := i, i+n
			if s > 0 && line[s-1] == '[' && e < len(line) && line[e] == ']' {
				s, e = s-1, e+1
			}
			return s, e, true
		}
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
// most words at once, so they are checked first) and the classes of the
// others: its positions are fixed, as a name takes three bytes.
type compiledShape struct {
	n       int         // the length a match has
	fixed   []shapeByte // positions that must hold one byte
	classes []shapeByte // positions of a class ('d', 'D', 'L', 'M', 'W')
	bare    bool        // a bare date, "dddd-dd-dd"
}

type shapeByte struct {
	at int
	c  byte
}

func compileShape(shape string) compiledShape {
	cs := compiledShape{bare: shape == "dddd-dd-dd"}
	for k := 0; k < len(shape); k++ {
		switch c := shape[k]; c {
		case 'd', 'D', 'L':
			cs.classes = append(cs.classes, shapeByte{cs.n, c})
			cs.n++
		case 'M', 'W':
			cs.classes = append(cs.classes, shapeByte{cs.n, c})
			cs.n += 3
		default:
			cs.fixed = append(cs.fixed, shapeByte{cs.n, c})
			cs.n++
		}
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

// Shapes by the class of their first byte, so that a word is tried only
// against the layouts it could start.
var (
	digitShapes     = compileShapes(shapesStarting("d"))
	monthShapes     = compileShapes(shapesStarting("M"))
	weekdayShapes   = compileShapes(shapesStarting("W"))
	lineStartShapes = compileShapes(lineStartLayouts)
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
	if len(b) < 8 {
		return 0
	}
	var try []compiledShape
	switch c := b[0]; {
	case c >= '0' && c <= '9':
		if !isDigitByte(b[1]) {
			return 0
		}
		try = digitShapes
	case c >= 'A' && c <= 'Z':
		switch {
		case nameAt(b, months[:]):
			try = monthShapes
		case nameAt(b, weekdays[:]):
			try = weekdayShapes
		case !lineStart || !isDigitByte(b[1]):
			return 0
		}
	default:
		return 0
	}
	for i := range try {
		s := &try[i]
		if n := s.match(b); n > 0 {
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
	for i := range lineStartShapes {
		if n := lineStartShapes[i].match(b); n > 0 {
			return n + zoneLen(b[n:])
		}
	}
	if isDigitByte(b[0]) {
		return epochLen(b)
	}
	return 0
}

// nameAt reports whether b starts with one of names (three letters each).
func nameAt(b []byte, names []string) bool {
	for _, n := range names {
		if b[0] == n[0] && b[1] == n[1] && b[2] == n[2] {
			return true
		}
	}
	return false
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var weekdays = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// match returns the length of b's prefix that matches the shape, or 0.
func (s *compiledShape) match(b []byte) int {
	if len(b) < s.n {
		return 0
	}
	for _, f := range s.fixed {
		if b[f.at] != f.c {
			return 0
		}
	}
	for _, k := range s.classes {
		c := b[k.at]
		switch k.c {
		case 'd':
			if c < '0' || c > '9' {
				return 0
			}
		case 'D':
			if c != ' ' && (c < '0' || c > '9') {
				return 0
			}
		case 'L':
			if c != 'I' && c != 'W' && c != 'E' && c != 'F' {
				return 0
			}
		case 'M':
			if !nameIs(b[k.at:k.at+3], months[:]) {
				return 0
			}
		case 'W':
			if !nameIs(b[k.at:k.at+3], weekdays[:]) {
				return 0
			}
		}
	}
	return s.n
}

// nameIs reports whether b, three bytes, is one of names (of three bytes
// each), comparing bytes rather than strings: a string comparison calls
// the runtime for every name.
func nameIs(b []byte, names []string) bool {
	if len(b) != 3 {
		return false
	}
	for _, n := range names {
		if b[0] == n[0] && b[1] == n[1] && b[2] == n[2] {
			return true
		}
	}
	return false
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
