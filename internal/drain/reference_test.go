package drain

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The tests here hold the fast paths of the tokenizer and the miner to
// straightforward restatements of the same rules: wherever the two
// disagree on a line, the fast path changed what a template is.

// refTimestamp is Timestamp the plain way: every layout of shapes in
// order, read character by character, at every word start of the line's
// prefix.
func refTimestamp(line []byte) (start, end int, ok bool) {
	for i := 0; i < min(len(line), maxTimestampStart); i++ {
		if i > 0 && !slices.Contains([]byte(" \t[(<>\"="), line[i-1]) {
			continue
		}
		if n := refTimestampAt(line[i:], i == 0); n > 0 {
			s, e := i, i+n
			if s > 0 && line[s-1] == '[' && e < len(line) && line[e] == ']' {
				s, e = s-1, e+1
			}
			return s, e, true
		}
	}
	return 0, 0, false
}

func refTimestampAt(b []byte, lineStart bool) int {
	if len(b) < 8 {
		return 0
	}
	for _, shape := range shapes {
		n := refShape(shape, b)
		if n == 0 {
			continue
		}
		if shape == "dddd-dd-dd" {
			if n < len(b) && b[n] != ' ' && b[n] != '\t' && b[n] != ']' {
				continue
			}
			return n
		}
		return n + zoneLen(b[n:])
	}
	if !lineStart {
		return 0
	}
	for _, shape := range lineStartLayouts {
		if n := refShape(shape, b); n > 0 {
			return n + zoneLen(b[n:])
		}
	}
	if b[0] >= '0' && b[0] <= '9' {
		return epochLen(b)
	}
	return 0
}

// refShape returns the length of b's prefix that matches a layout of
// shapes, or 0.
func refShape(shape string, b []byte) int {
	at := 0
	for _, c := range []byte(shape) {
		width := 1
		if c == 'M' || c == 'W' {
			width = 3
		}
		if at+width > len(b) {
			return 0
		}
		got := b[at : at+width]
		var ok bool
		switch c {
		case 'd':
			ok = got[0] >= '0' && got[0] <= '9'
		case 'D':
			ok = got[0] == ' ' || got[0] >= '0' && got[0] <= '9'
		case 'L':
			ok = slices.Contains([]byte("IWEF"), got[0])
		case 'M':
			ok = slices.Contains(months[:], string(got))
		case 'W':
			ok = slices.Contains(weekdays[:], string(got))
		default:
			ok = got[0] == c
		}
		if !ok {
			return 0
		}
		at += width
	}
	return at
}

// TestNameOf checks the packed names nameOf knows against months and
// weekdays, for every three letters.
func TestNameOf(t *testing.T) {
	letters := []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
	for _, a := range letters {
		for _, b := range letters {
			for _, c := range letters {
				name := string([]byte{a, b, c})
				want := nameNone
				if slices.Contains(months[:], name) {
					want = nameMonth
				} else if slices.Contains(weekdays[:], name) {
					want = nameWeekday
				}
				if got := nameOf([]byte(name)); got != want {
					t.Fatalf("nameOf(%q) = %d, want %d", name, got, want)
				}
			}
		}
	}
}

// TestTimestampReference compares Timestamp with refTimestamp on every
// line of the real logs.
func TestTimestampReference(t *testing.T) {
	for _, l := range fixtureLines(t, 1<<30) {
		checkTimestamp(t, l)
	}
}

func checkTimestamp(t *testing.T, line []byte) {
	t.Helper()
	s, e, ok := Timestamp(line)
	rs, re, rok := refTimestamp(line)
	if s != rs || e != re || ok != rok {
		t.Fatalf("Timestamp(%q) = %d, %d, %v; the reference finds %d, %d, %v", line, s, e, ok, rs, re, rok)
	}
}

// FuzzTimestamp compares Timestamp with refTimestamp on arbitrary lines.
func FuzzTimestamp(f *testing.F) {
	for _, s := range []string{
		"2024-05-01T12:00:00Z INFO ready", "2024-05-01 12:00:00,123 - app", "2024/05/01 12:00:00 [error]",
		"2024/05/01T12:00:00.5+02:00 x", "May  1 12:00:00 host", "Nov 29 2025 09:15:02 x",
		"1234:M 01 May 2024 12:00:00.123 *", `127.0.0.1 - - [01/May/2024:12:00:00 +0000] "GET /"`,
		"[29/Nov/2025 12:00:00] x", "01-Nov-2025 12:00:00 CEST x", "Wed May  1 12:00:00 2024 x",
		"Wed May  1 12:00:00 x", "I0501 12:00:00.123456 42 main.go:10]", "12:00:01.500 DEBUG",
		"1714564800.123 event", "1714564800123Z", "2024-05-01 status", "2024-05-01x", "[2024-05-01]",
		"time=2024-05-01T12:00:00.000Z level=INFO", "Mayday 12:00:00", "12345 is not a time",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkTimestamp(t, line) })
}

// refTok is a token as refTokenize makes it.
type refTok struct {
	text   string
	masked bool
}

// refTokenize splits a line as the tokenizer does, the plain way: a word
// at a time, counting its bytes' classes with comparisons, copying every
// token, reading every JSON string byte by byte.
func refTokenize(line []byte, maxTokens int) []refTok {
	r := &refTokenizer{max: maxTokens}
	s, e, ok := refTimestamp(line)
	switch {
	case jsonStart(line) >= 0:
		r.json(line[jsonStart(line):])
	case ok:
		ks := s
		if s > 0 && line[s-1] == '=' {
			for ks > 0 && !refSpace(line[ks-1]) {
				ks--
			}
		}
		r.words(line[:ks])
		if ks < s {
			r.add(string(line[ks:s-1])+"="+Wildcard, true)
		} else {
			r.add(Wildcard, true)
		}
		if j := jsonStart(line[e:]); j >= 0 {
			r.json(line[e+j:])
		} else {
			r.words(line[e:])
		}
	default:
		r.words(line)
	}
	if len(r.toks) > r.max {
		r.toks = append(r.toks[:r.max-1], refTok{Ellipsis, true})
	}
	return r.toks
}

type refTokenizer struct {
	toks []refTok
	max  int
}

func (r *refTokenizer) add(text string, masked bool) {
	if len(r.toks) <= r.max {
		r.toks = append(r.toks, refTok{text, masked})
	}
}

func refSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

func refDigit(c byte) bool { return c >= '0' && c <= '9' }
func refHex(c byte) bool   { return c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func refLetter(c byte) bool {
	return !refHex(c) && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80)
}

func (r *refTokenizer) words(b []byte) {
	for _, w := range bytes.FieldsFunc(b, func(c rune) bool { return c < 0x80 && refSpace(byte(c)) }) {
		if len(r.toks) > r.max {
			return
		}
		r.word(w)
	}
}

func (r *refTokenizer) word(w []byte) {
	if k := keyEnd(w); k > 0 {
		if v := w[k+1:]; len(v) > 0 && refVariable(refCore(v)) {
			r.masked(string(w[:k+1]), v)
			return
		}
		r.add(string(w), false)
		return
	}
	if refVariable(refCore(w)) {
		r.masked("", w)
		return
	}
	r.add(string(w), false)
}

// masked adds pre and w with w's core replaced by the wildcard.
func (r *refTokenizer) masked(pre string, w []byte) {
	c := refCore(w)
	a := bytes.Index(w, c)
	if len(c) == 0 {
		a = len(w) - len(bytes.TrimLeftFunc(w, func(c rune) bool { return c < 0x80 && isOpenPunct(byte(c)) }))
	}
	r.add(pre+string(w[:a])+Wildcard+string(w[a+len(c):]), true)
}

func refCore(w []byte) []byte {
	w = bytes.TrimLeftFunc(w, func(c rune) bool { return c < 0x80 && isOpenPunct(byte(c)) })
	for len(w) > 0 && isClosePunct(w[len(w)-1]) {
		w = w[:len(w)-1]
	}
	return w
}

func refVariable(c []byte) bool {
	if len(c) > maxTokenLen {
		return true
	}
	digits, hexLetters, letters, slash := 0, 0, 0, false
	for _, ch := range c {
		switch {
		case refDigit(ch):
			digits++
		case refHex(ch):
			hexLetters++
		case refLetter(ch):
			letters++
		case ch == '/':
			slash = true
		}
	}
	switch {
	case digits == 0:
		return false
	case slash:
		return !protocolVersion(c)
	case letters == 0:
		return hexLetters == 0 || digits+hexLetters >= 4 || hasPrefix0x(c)
	case hasPrefix0x(c):
		return true
	}
	unit := bytes.TrimLeftFunc(c, func(r rune) bool { return r < 0x80 && (refDigit(byte(r)) || strings.ContainsRune(".,-+", r)) })
	if len(unit) < len(c) && len(unit) <= 3 && allLetters(unit) {
		return true
	}
	return digits >= letters+hexLetters
}

func refStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

func (r *refTokenizer) json(b []byte) {
	i := 1
	for len(r.toks) <= r.max {
		i = skipSpaceJSON(b, i)
		switch {
		case i >= len(b):
			return
		case b[i] == '}':
			r.words(b[i+1:])
			return
		case b[i] == ',':
			i++
			continue
		case b[i] != '"':
			r.words(b[i:])
			return
		}
		ke := refStringEnd(b, i)
		if ke < 0 {
			r.words(b[i:])
			return
		}
		key := b[i+1 : ke-1]
		i = skipSpaceJSON(b, ke)
		if i >= len(b) || b[i] != ':' {
			r.words(b[i:])
			return
		}
		i = skipSpaceJSON(b, i+1)
		if i >= len(b) {
			return
		}
		var val []byte
		quoted, nested := false, false
		switch b[i] {
		case '"':
			e := refStringEnd(b, i)
			if e < 0 {
				r.words(b[i:])
				return
			}
			val, quoted, i = b[i+1:e-1], true, e
		case '{', '[':
			e := nestedEnd(b, i)
			val, nested, i = b[i:e], true, e
		default:
			e := i
			for e < len(b) && b[e] != ',' && b[e] != '}' && !refSpace(b[e]) {
				e++
			}
			val, i = b[i:e], e
		}
		r.member(key, val, quoted, nested)
	}
}

func (r *refTokenizer) member(key, val []byte, quoted, nested bool) {
	isSpace := func(c rune) bool { return c < 0x80 && refSpace(byte(c)) }
	k := string(key)
	if bytes.ContainsFunc(key, isSpace) {
		// Spaces become '_' (and bytes that are no UTF-8, U+FFFD).
		k = string(bytes.Map(func(c rune) rune {
			if isSpace(c) {
				return '_'
			}
			return c
		}, key))
	}
	spaced := bytes.ContainsFunc(val, isSpace)
	if nested || len(val) > maxTokenLen && !(quoted && spaced) {
		r.add(k+"="+Wildcard, true)
		return
	}
	if _, e, ok := refTimestamp(val); ok && e == len(val) {
		r.add(k+"="+Wildcard, true)
		return
	}
	first, rest := val, []byte(nil)
	if quoted && spaced {
		j := bytes.IndexFunc(val, isSpace)
		first, rest = val[:j], val[j:]
	}
	if refVariable(refCore(first)) {
		r.masked(k+"=", first)
	} else {
		r.add(k+"="+string(first), false)
	}
	if rest != nil {
		r.words(rest)
	}
}

// checkTokenize compares the tokenizer's tokens for a line with
// refTokenize's, and each token's signature with its text.
func checkTokenize(t *testing.T, line []byte, maxTokens int) {
	t.Helper()
	tk := tokenizer{max: maxTokens}
	got := tk.tokenize(line)
	want := refTokenize(line, maxTokens)
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = string(got[i].text) == want[i].text && got[i].masked() == want[i].masked
		if s := sigOf(got[i].text); got[i].sig&^sigMasked != s {
			t.Fatalf("line %q, token %q: signature %x, want %x", line, got[i].text, got[i].sig&^sigMasked, s)
		}
	}
	// The miner compares tokens by sameText: it must tell them apart as
	// their texts do.
	for i := range min(len(got), 8) {
		for j := range i {
			a, b := got[i], got[j]
			if sameText(a.text, a.sig, string(b.text), b.sig) != bytes.Equal(a.text, b.text) {
				t.Fatalf("line %q: sameText(%q, %q) is wrong", line, a.text, b.text)
			}
		}
	}
	if !same {
		var g []refTok
		for _, tok := range got {
			g = append(g, refTok{string(tok.text), tok.masked()})
		}
		t.Fatalf("line %q:\n got %v\nwant %v", line, g, want)
	}
}

// TestTokenizeReference compares the tokenizer with refTokenize on every
// line of the real logs.
func TestTokenizeReference(t *testing.T) {
	for _, l := range fixtureLines(t, 1<<30) {
		checkTokenize(t, l, 64)
	}
}

// FuzzTokenize compares the tokenizer with refTokenize on arbitrary lines,
// and sameText with a comparison of the texts.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"2024-05-01T12:00:00Z INFO served /api in 12ms", "conn from 10.0.0.1:5432 id=0x7f3a uuid 123e4567-e89b-12d3-a456-426614174000",
		`"GET /users/42 HTTP/1.1" 404 153`, "pid [1234] took 3.5s, 40% done.", "user42 utf8 sha deadbeefcafe1234",
		"count=12 level=WARN path=/var/lib/x", "time=2024-05-01T12:00:00.000Z level=INFO msg=hi",
		`{"time":"2024-05-01T12:00:00Z","level":"INFO","msg":"walked dir","files":12,"attrs":{"a":1}}`,
		`{"level":"error","msg":"open /data/7/x: no such file", "a b":"x\"y 2024-05-01 12:00:00"}`,
		`2024-05-01 12:00:00 {"k": "v"} tail`, "((((12))))", "[<*>] <*> … x=", "\xff\xfe 12:00:00 \u00e9t\u00e9 42",
		strings.Repeat("a1", 70) + " " + strings.Repeat("=", 300) + "1", "a b c d e f g h i j k",
	} {
		f.Add([]byte(s), []byte("2024-05-01 12:00:00 ERROR boom 42"))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkTokenize(t, a, 64)
		checkTokenize(t, a, 5)
		if got := sameText(a, sigOf(a), string(b), sigOf(b)); got != bytes.Equal(a, b) {
			t.Fatalf("sameText(%q, %q) = %v", a, b, got)
		}
	})
}

// TestDigitBits checks digitBits for every two bytes side by side, in
// every position of a uint64: a carry from one byte into the next would
// show.
func TestDigitBits(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			var x uint64
			for k := range 8 {
				c := uint64(a)
				if k%2 == 1 {
					c = uint64(b)
				}
				x |= c << (8 * k)
			}
			got := digitBits(x)
			for k := range 8 {
				c := byte(x >> (8 * k))
				want := uint64(0)
				if c >= '0' && c <= '9' {
					want = 0x80
				}
				if g := got >> (8 * k) & 0xff; g != want {
					t.Fatalf("digitBits(%#x): byte %d (%#x) gives %#x, want %#x", x, k, c, g, want)
				}
			}
		}
	}
}
