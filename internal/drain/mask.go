package drain

import (
	"bytes"
	"encoding/binary"
)

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
	text []byte // the token as it shows in a template
	// sig is the text's signature (see sigOf), with sigMasked set when
	// the token's core is a variable.
	sig uint64
}

func (t *token) masked() bool { return t.sig&sigMasked != 0 }

// sigMasked is the bit of a signature that marks a variable; the miner
// marks the wildcards of a template by it.
const sigMasked = 1 << 63

// sigOf returns a text's signature: its length (up to 127) in bits 56 to
// 62, and its first seven bytes below. Two texts of up to seven bytes are
// equal when their signatures are; longer ones can be equal only when their
// signatures are (see sameText). The miner compares tokens by them.
func sigOf(b []byte) uint64 {
	var v uint64
	for i := range min(len(b), 7) {
		v |= uint64(b[i]) << (8 * i)
	}
	return v | uint64(min(len(b), 127))<<56
}

// sigIn returns sigOf(b[i:j]).
func sigIn(b []byte, i, j int) uint64 {
	if i+8 <= len(b) && j-i <= 127 {
		return sig8(b, i, j-i)
	}
	return sigOf(b[i:j])
}

// sig8 returns sigOf(b[i:i+n]), reading the eight bytes from b[i] at once:
// b holds them, and n is at most 127.
func sig8(b []byte, i, n int) uint64 {
	return binary.LittleEndian.Uint64(b[i:])&sigMasks[min(uint(n), 7)] | uint64(n)<<56
}

// sigMasks[n] keeps the lowest n bytes of a uint64.
var sigMasks = [8]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1}

// sameText reports whether a token's text, of signature sig, is t, of
// signature tsig; sigMasked is no part of the text.
func sameText(text []byte, sig uint64, t string, tsig uint64) bool {
	return (sig^tsig)<<1 == 0 && (tsig>>56&0x7f < 8 || string(text) == t)
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
	if jsonStart(line) >= 0 {
		return t.tokenizeStamped(line, 0, 0) // a JSON object's time is a member
	}
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
		} else if !t.full() {
			t.toks = append(t.toks, token{text: wildcard, sig: wildcardSig | sigMasked})
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
		t.toks = append(t.toks, token{text: ellipsis, sig: ellipsisSig | sigMasked})
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

// bufToken appends the token whose text the buffer holds from start on.
func (t *tokenizer) bufToken(start int, masked bool) {
	end := len(t.buf)
	sig := sigIn(t.buf[:cap(t.buf)], start, end) // past len: bytes of t's own
	if masked {
		sig |= sigMasked
	}
	t.toks = append(t.toks, token{text: t.buf[start:end:end], sig: sig})
}

// words splits b at white space and adds each word, masked.
func (t *tokenizer) words(b []byte) {
	i := 0
	for i < len(b) && !t.full() {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		// One pass finds the word's end and counts its classes of bytes
		// (see wordCounts): a word without a digit, short enough to be
		// kept, is no variable (nor is the value of a key=value word
		// without one), and is the most common word of a log.
		j := i
		var sum uint64
		for j < len(b) {
			k := wordCounts[b[j]]
			if k&countSpace != 0 {
				break
			}
			sum += k
			j++
		}
		switch {
		case j == i:
		case sum&0xff == 0 && j-i <= maxTokenLen:
			// A literal (the loop checks that t is not full), as
			// literalIn adds it, inlined.
			t.toks = append(t.toks, token{text: b[i:j:j], sig: sigIn(b, i, j)})
		case j-i <= maxCounted:
			t.wordCounted(b, i, j, sum)
		default:
			t.word(b[i:j])
		}
		i = j + 1 // past the space that ended the word, or past b
	}
}

// literal appends a token that is not masked. Its text is w itself, not a
// copy: the line outlives the tokens made of it.
func (t *tokenizer) literal(w []byte) {
	if t.full() {
		return
	}
	t.toks = append(t.toks, token{text: w[:len(w):len(w)], sig: sigOf(w)})
}

// literalIn is literal for the word b[i:j].
func (t *tokenizer) literalIn(b []byte, i, j int) {
	if t.full() {
		return
	}
	t.toks = append(t.toks, token{text: b[i:j:j], sig: sigIn(b, i, j)})
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
	classOpen  // punctuation before a word's core (isOpenPunct)
	classClose // punctuation after it (isClosePunct)
	classIdent // a byte of a key in key=value (keyEnd)
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
		if isOpenPunct(byte(c)) {
			t[c] |= classOpen
		}
		if isClosePunct(byte(c)) {
			t[c] |= classClose
		}
		if b := byte(c); isLetterByte(b) || isDigitByte(b) || b == '_' || b == '.' || b == '-' {
			t[c] |= classIdent
		}
	}
	return t
}()

// classCounts holds, for each byte, 1 in the byte of a uint32 that counts
// its class: digits in the lowest, then hex letters, other letters and
// slashes.
var classCounts = func() (t [256]uint32) {
	for c := range 256 {
		t[c] = uint32(wordCounts[c] & 0xffffffff)
	}
	return t
}()

// wordCounts is classCounts for a whole word: the same four counts in the
// low half of a uint64, then a count of '=' (a key=value word), and
// countSpace for white space, where a word ends. The bytes of punctuation
// around a word's core (see coreSpan) count in none of the four, so the
// counts of a word are those of its core. They are exact for a word of up
// to maxCounted bytes.
var wordCounts = func() (t [256]uint64) {
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
		if k&classSpace != 0 {
			t[c] |= countSpace
		}
	}
	t['='] |= 1 << 32
	return t
}()

const (
	countSpace = 1 << 63
	maxCounted = 255 // the most a byte of a sum of wordCounts counts
)

// word adds one word, masking its core or, for key=value, its value.
func (t *tokenizer) word(w []byte) {
	if k := keyEnd(w); k > 0 {
		t.keyValue(w, k)
		return
	}
	if a, b := coreSpan(w); variable(w[a:b]) {
		t.maskedWord(nil, false, w, a, b)
		return
	}
	t.literal(w)
}

// wordCounted is word for the word line[i:j], of at most maxCounted
// bytes, whose wordCounts add up to sum.
func (t *tokenizer) wordCounted(line []byte, i, j int, sum uint64) {
	w := line[i:j]
	if sum>>32&0xff != 0 {
		if k, keySum := keyEndCounted(w); k > 0 {
			// key=value: the value's counts are the word's less the
			// key's.
			v := w[k+1:]
			if len(v) == 0 {
				t.literalIn(line, i, j)
				return
			}
			if a, b := coreSpan(v); variableCounted(v[a:b], uint32(sum)-keySum) {
				t.maskedWord(nil, false, w, k+1+a, k+1+b)
				return
			}
			t.literalIn(line, i, j)
			return
		}
	}
	a, b := coreSpan(w)
	if !variableCounted(w[a:b], uint32(sum)) {
		t.literalIn(line, i, j)
		return
	}
	if a == 0 && b == len(w) {
		// All of it is the variable: the token is the wildcard alone.
		if !t.full() {
			t.toks = append(t.toks, token{text: wildcard, sig: wildcardSig | sigMasked})
		}
		return
	}
	t.maskedWord(nil, false, w, a, b)
}

// keyValue adds a key=value word whose '=' is w[k].
func (t *tokenizer) keyValue(w []byte, k int) {
	if v := w[k+1:]; len(v) > 0 {
		if a, b := coreSpan(v); variable(v[a:b]) {
			t.maskedWord(w[:k+1], false, v, a, b)
			return
		}
	}
	t.literal(w)
}

// wildcard and ellipsis are the texts of the tokens Wildcard and Ellipsis
// alone; tokens are never written to, so they may all share them.
var (
	wildcard    = []byte(Wildcard)[:len(Wildcard):len(Wildcard)]
	ellipsis    = []byte(Ellipsis)[:len(Ellipsis):len(Ellipsis)]
	wildcardSig = sigOf(wildcard)
	ellipsisSig = sigOf(ellipsis)
)

// maskedWord adds key (which may be empty; eq adds "=" after it) and w
// with w's core, w[a:b] (see coreSpan), replaced by the wildcard, keeping
// the punctuation around it.
func (t *tokenizer) maskedWord(key []byte, eq bool, w []byte, a, b int) {
	if t.full() {
		return
	}
	start := len(t.buf)
	// Most of the parts are empty, and the rest short: appending nothing
	// still costs a call.
	if len(key) > 0 {
		t.buf = append(t.buf, key...)
	}
	if eq {
		t.buf = append(t.buf, '=')
	}
	if a > 0 {
		t.buf = append(t.buf, w[:a]...)
	}
	t.buf = append(t.buf, Wildcard[0], Wildcard[1], Wildcard[2])
	if b < len(w) {
		t.buf = append(t.buf, w[b:]...)
	}
	t.bufToken(start, true)
}

// keyEnd returns the index of the '=' of a key=value word whose key is a
// plain identifier (ASCII letters, digits, '_', '.', '-'), or -1.
func keyEnd(w []byte) int {
	k, _ := keyEndCounted(w)
	return k
}

// keyEndCounted is keyEnd, and returns the sum of the classCounts of the
// key's bytes too.
func keyEndCounted(w []byte) (int, uint32) {
	var sum uint32
	for i, c := range w {
		if c == '=' {
			if i == 0 {
				return -1, 0
			}
			return i, sum
		}
		if byteClass[c]&classIdent == 0 {
			return -1, 0
		}
		sum += classCounts[c]
	}
	return -1, 0
}

// coreSpan returns the span of w without the punctuation around it.
func coreSpan(w []byte) (int, int) {
	a, b := 0, len(w)
	for a < b && byteClass[w[a]]&classOpen != 0 {
		a++
	}
	for b > a && byteClass[w[b-1]]&classClose != 0 {
		b--
	}
	return a, b
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
	var sum uint32
	for _, ch := range c {
		sum += classCounts[ch]
	}
	return variableCounted(c, sum)
}

// variableCounted is variable for a core c whose classCounts add up to sum
// (exactly, one byte of the sum each: c holds at most maxCounted bytes).
func variableCounted(c []byte, sum uint32) bool {
	if len(c) > maxTokenLen {
		return true
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
		t.addKV(key, wildcard, true)
		return
	}
	if maybeTimestamp(val) {
		if _, e, ok := Timestamp(val); ok && e == len(val) {
			t.addKV(key, wildcard, true)
			return
		}
	}
	if !quoted || !hasSpace(val) {
		if a, b := coreSpan(val); variable(val[a:b]) {
			t.maskedWord(key, true, val, a, b)
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
	if a, b := coreSpan(first); variable(first[a:b]) {
		t.maskedWord(key, true, first, a, b)
	} else {
		t.addKV(key, first, false)
	}
	t.words(val[j:])
}

// maybeTimestamp reports whether b may hold a timestamp: one is at least
// probeLimit bytes long and holds a digit.
func maybeTimestamp(b []byte) bool {
	if len(b) < probeLimit {
		return false
	}
	for _, c := range b {
		if isDigitByte(c) {
			return true
		}
	}
	return false
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
	t.bufToken(start, masked)
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
	// Most strings hold no escape: their end is the next quote.
	if q := bytes.IndexByte(b[i+1:], '"'); q >= 0 && bytes.IndexByte(b[i+1:i+1+q], '\\') < 0 {
		return i + 1 + q + 1
	}
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
