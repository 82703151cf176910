package drain

import "bytes"

// Wildcard stands for a variable token in a template.
const Wildcard = "<*>"

// Ellipsis stands for the tokens of a line past the most a template keeps.
const Ellipsis = "…"

// maxTokenLen is the longest token kept as it is; longer ones (base64, long
// identifiers, serialized blobs) are variables.
const maxTokenLen = 64

// token is one token of a line after masking: either a variable (masked)
// or literal bytes; pre and post hold punctuation kept around a masked
// core, as in "[<*>]".
type token struct {
	text   []byte // the token as it shows in a template
	masked bool   // the token's core is a variable
}

// tokenizer splits lines into masked tokens, reusing its buffers.
type tokenizer struct {
	toks []token
	buf  []byte
	max  int
	// keep makes it keep the tokens of the lines before (for a Batch):
	// those of the line being split start at first.
	keep  bool
	first int
}

// tokenize splits line into tokens: the timestamp that opens it becomes one
// variable, a JSON object's top-level members become key=value tokens, and
// other text splits at white space. Obvious variables are masked. At most
// t.max tokens are kept; an Ellipsis token stands for the rest.
func (t *tokenizer) tokenize(line []byte) []token {
	s, e, ok := Timestamp(line)
	if !ok {
		e = 0
	}
	return t.tokenizeStamped(line, s, e)
}

// tokenizeStamped is tokenize for a line whose timestamp is known to span
// [s, e); e is 0 when the line has none.
func (t *tokenizer) tokenizeStamped(line []byte, s, e int) []token {
	if t.keep {
		t.first = len(t.toks)
	} else {
		t.toks, t.first = t.toks[:0], 0
		if cap(t.buf) < 2*len(line)+16 {
			t.buf = make([]byte, 0, max(256, 2*len(line)+16))
		}
		t.buf = t.buf[:0]
	}
	if j := jsonStart(line); j >= 0 {
		t.json(line[j:])
	} else if e > 0 {
		// A timestamp that is a value ("time=2024-...") keeps its key.
		ks := s
		if s > 0 && line[s-1] == '=' {
			for ks > 0 && !isSpace(line[ks-1]) {
				ks--
			}
		}
		t.words(line[:ks])
		if ks < s {
			t.addKV(line[ks:s-1], []byte(Wildcard), true)
		} else {
			t.add([]byte(Wildcard), true)
		}
		if j := jsonStart(line[e:]); j >= 0 {
			t.json(line[e+j:])
		} else {
			t.words(line[e:])
		}
	} else {
		t.words(line)
	}
	if len(t.toks)-t.first > t.max {
		t.toks = t.toks[:t.first+t.max-1]
		t.toks = append(t.toks, token{text: []byte(Ellipsis), masked: true})
	}
	return t.toks[t.first:]
}

// jsonStart returns where a JSON object starts if rest is one (after white
// space), else -1.
func jsonStart(rest []byte) int {
	for i, c := range rest {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '{':
			if i+1 < len(rest) && (rest[i+1] == '"' || rest[i+1] == ' ') {
				return i
			}
		}
		return -1
	}
	return -1
}

func (t *tokenizer) full() bool { return len(t.toks)-t.first > t.max }

// add appends a token, copying its text into the buffer.
func (t *tokenizer) add(text []byte, masked bool) {
	if t.full() {
		return
	}
	start := len(t.buf)
	t.buf = append(t.buf, text...)
	t.toks = append(t.toks, token{text: t.buf[start:len(t.buf):len(t.buf)], masked: masked})
}

// words splits b at white space and adds each word, masked.
func (t *tokenizer) words(b []byte) {
	i := 0
	for i < len(b) && !t.full() {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		// One pass finds the word's end and whether it holds a digit: a
		// word without one, short enough to be kept, is no variable (nor
		// is the value of a key=value word without one), and is the most
		// common word of a log.
		j := i
		var classes byte
		for j < len(b) {
			k := byteClass[b[j]]
			if k&classSpace != 0 {
				break
			}
			classes |= k
			j++
		}
		switch {
		case j == i:
		case classes&classDigit == 0 && j-i <= maxTokenLen:
			t.literal(b[i:j])
		default:
			t.word(b[i:j])
		}
		i = j
	}
}

// literal appends a token that is not masked. Its text is w itself, not a
// copy: the line outlives the tokens made of it.
func (t *tokenizer) literal(w []byte) {
	if t.full() {
		return
	}
	t.toks = append(t.toks, token{text: w[:len(w):len(w)]})
}

func isSpace(c byte) bool { return byteClass[c]&classSpace != 0 }

// The classes of bytes the tokenizer tells apart, as bits of byteClass: a
// digit, a hex letter (a-f, A-F), another letter (or any byte of a
// multi-byte character), a slash, white space.
const (
	classDigit  = 1 << iota // counted: must stay bit 0
	classHex                // bit 1
	classLetter             // bit 2
	classSlash
	classSpace
)

var byteClass = func() (t [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= '0' && c <= '9':
			t[c] = classDigit
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			t[c] = classHex
		case c|0x20 >= 'a' && c|0x20 <= 'z' || c >= 0x80:
			t[c] = classLetter
		case c == '/':
			t[c] = classSlash
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			t[c] = classSpace
		}
	}
	return t
}()

// classCounts holds, for each byte, 1 in the byte of a uint32 that counts
// its class: digits in the lowest, then hex letters, other letters and
// slashes.
var classCounts = func() (t [256]uint32) {
	for c := range 256 {
		k := byteClass[c]
		if k&classDigit != 0 {
			t[c] |= 1
		}
		if k&classHex != 0 {
			t[c] |= 1 << 8
		}
		if k&classLetter != 0 {
			t[c] |= 1 << 16
		}
		if k&classSlash != 0 {
			t[c] |= 1 << 24
		}
	}
	return t
}()

// word adds one word, masking its core or, for key=value, its value.
func (t *tokenizer) word(w []byte) {
	if k := keyEnd(w); k > 0 {
		pre := w[:k+1]
		v := w[k+1:]
		if len(v) > 0 && variable(core(v)) {
			t.maskedWord(pre, false, v)
			return
		}
		t.literal(w)
		return
	}
	if variable(core(w)) {
		t.maskedWord(nil, false, w)
		return
	}
	t.literal(w)
}

// maskedWord adds key (which may be empty; eq adds "=" after it) and w
// with w's core replaced by the wildcard, keeping the punctuation around it.
func (t *tokenizer) maskedWord(key []byte, eq bool, w []byte) {
	if t.full() {
		return
	}
	a, b := coreSpan(w)
	start := len(t.buf)
	t.buf = append(t.buf, key...)
	if eq {
		t.buf = append(t.buf, '=')
	}
	t.buf = append(t.buf, w[:a]...)
	t.buf = append(t.buf, Wildcard...)
	t.buf = append(t.buf, w[b:]...)
	t.toks = append(t.toks, token{text: t.buf[start:len(t.buf):len(t.buf)], masked: true})
}

// keyEnd returns the index of the '=' of a key=value word whose key is a
// plain identifier, or -1.
func keyEnd(w []byte) int {
	for i, c := range w {
		if c == '=' {
			if i == 0 {
				return -1
			}
			return i
		}
		if !(isLetterByte(c) || isDigitByte(c) || c == '_' || c == '.' || c == '-') {
			return -1
		}
	}
	return -1
}

// coreSpan returns the span of w without the punctuation around it.
func coreSpan(w []byte) (int, int) {
	a, b := 0, len(w)
	for a < b && isOpenPunct(w[a]) {
		a++
	}
	for b > a && isClosePunct(w[b-1]) {
		b--
	}
	return a, b
}

func core(w []byte) []byte {
	a, b := coreSpan(w)
	return w[a:b]
}

func isOpenPunct(c byte) bool {
	return c == '(' || c == '[' || c == '{' || c == '<' || c == '"' || c == '\'' || c == '`'
}

func isClosePunct(c byte) bool {
	return c == ')' || c == ']' || c == '}' || c == '>' || c == '"' || c == '\'' || c == '`' ||
		c == ',' || c == ';' || c == ':' || c == '.' || c == '!' || c == '?'
}

// variable reports whether a token's core is an obvious variable: a number
// (with a unit: "12ms", "3.5s", "40%"), hex, an IP address, a UUID, a time,
// a date, a path or URL with digits in it, or anything longer than 64 bytes.
// Words without digits are not variables, and neither are names that merely
// carry a digit ("utf8", "user42") or a protocol's version ("HTTP/1.1").
func variable(c []byte) bool {
	if len(c) > maxTokenLen {
		return true
	}
	// One sum counts the four classes at once, a byte of the sum each:
	// no count passes maxTokenLen.
	var sum uint32
	for _, ch := range c {
		sum += classCounts[ch]
	}
	digits, hexLetters, letters := int(sum&0xff), int(sum>>8&0xff), int(sum>>16&0xff)
	slash := sum>>24 != 0
	if digits == 0 {
		return false
	}
	if slash {
		return !protocolVersion(c)
	}
	if letters == 0 {
		// Numbers, hex, IPs, UUIDs, times, dates, versions.
		return hexLetters == 0 || digits+hexLetters >= 4 || hasPrefix0x(c)
	}
	if hasPrefix0x(c) {
		return true
	}
	// A number with a short unit: 12ms, 3.5s, 100KB, 40%.
	i := 0
	for i < len(c) && (isDigitByte(c[i]) || c[i] == '.' || c[i] == ',' || c[i] == '-' || c[i] == '+') {
		i++
	}
	if i > 0 && len(c)-i <= 3 && allLetters(c[i:]) {
		return true
	}
	return digits >= letters+hexLetters
}

func hasPrefix0x(c []byte) bool { return len(c) > 2 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X') }

func allLetters(b []byte) bool {
	for _, c := range b {
		if !isLetterByte(c) && c != '%' {
			return false
		}
	}
	return true
}

// protocolVersion reports whether c is a name, a slash and a version, as in
// "HTTP/1.1".
func protocolVersion(c []byte) bool {
	i := 0
	for i < len(c) && isLetterByte(c[i]) {
		i++
	}
	if i == 0 || i >= len(c) || c[i] != '/' {
		return false
	}
	for _, ch := range c[i+1:] {
		if !isDigitByte(ch) && ch != '.' {
			return false
		}
	}
	return i+1 < len(c)
}

// json adds the top-level members of the JSON object that starts b as
// key=value tokens; a string value with spaces adds its later words as
// tokens of their own, and a nested object or array is a variable. It falls
// back to plain words where the object does not parse.
func (t *tokenizer) json(b []byte) {
	i := 1 // past '{'
	for !t.full() {
		i = skipSpaceJSON(b, i)
		if i >= len(b) {
			return
		}
		if b[i] == '}' {
			if rest := b[i+1:]; len(rest) > 0 {
				t.words(rest)
			}
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '"' {
			t.words(b[i:])
			return
		}
		ke := stringEnd(b, i)
		if ke < 0 {
			t.words(b[i:])
			return
		}
		key := b[i+1 : ke-1]
		i = skipSpaceJSON(b, ke)
		if i >= len(b) || b[i] != ':' {
			t.words(b[i:])
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
			e := stringEnd(b, i)
			if e < 0 {
				t.words(b[i:])
				return
			}
			val, quoted, i = b[i+1:e-1], true, e
		case '{', '[':
			e := nestedEnd(b, i)
			val, nested, i = b[i:e], true, e
		default:
			e := i
			for e < len(b) && b[e] != ',' && b[e] != '}' && !isSpace(b[e]) {
				e++
			}
			val, i = b[i:e], e
		}
		t.member(key, val, quoted, nested)
	}
}

// member adds one key and value of a JSON object.
func (t *tokenizer) member(key, val []byte, quoted, nested bool) {
	if t.full() {
		return
	}
	if hasSpace(key) {
		// Tokens hold no white space.
		key = bytes.Map(func(r rune) rune {
			if r < 0x80 && isSpace(byte(r)) {
				return '_'
			}
			return r
		}, key)
	}
	if nested || len(val) > maxTokenLen && !(quoted && hasSpace(val)) {
		t.addKV(key, []byte(Wildcard), true)
		return
	}
	if _, e, ok := Timestamp(val); ok && e == len(val) {
		t.addKV(key, []byte(Wildcard), true)
		return
	}
	if !quoted || !hasSpace(val) {
		if variable(core(val)) {
			t.maskedWord(key, true, val)
			return
		}
		t.addKV(key, val, false)
		return
	}
	// A message: its first word goes with the key, the rest are words.
	j := 0
	for j < len(val) && !isSpace(val[j]) {
		j++
	}
	first := val[:j]
	if variable(core(first)) {
		t.maskedWord(key, true, first)
	} else {
		t.addKV(key, first, false)
	}
	t.words(val[j:])
}

// addKV adds the token key=val.
func (t *tokenizer) addKV(key, val []byte, masked bool) {
	if t.full() {
		return
	}
	start := len(t.buf)
	t.buf = append(t.buf, key...)
	t.buf = append(t.buf, '=')
	t.buf = append(t.buf, val...)
	t.toks = append(t.toks, token{text: t.buf[start:len(t.buf):len(t.buf)], masked: masked})
}

func hasSpace(b []byte) bool {
	for _, c := range b {
		if isSpace(c) {
			return true
		}
	}
	return false
}

func skipSpaceJSON(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the JSON string that starts at
// b[i] (a quote), or -1 when it does not end.
func stringEnd(b []byte, i int) int {
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

// nestedEnd returns the index just past the object or array that starts at
// b[i], or len(b) when it does not end.
func nestedEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			e := stringEnd(b, j)
			if e < 0 {
				return len(b)
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(b)
}
