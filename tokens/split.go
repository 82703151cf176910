package tokens

import (
	"unicode"
	"unicode/utf8"
)

// o200k_base cuts a text into pieces before encoding each on its own, with
// this expression (tiktoken's), tried in order at each position:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// pieceEnd matches it by hand, backtracking as a backtracking engine does,
// at the speed of a scan. The tests hold it to the expression as the
// tokenizer library runs it.

// Rune classes of the expression.
func isUpperish(r rune) bool { // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

func isLowerish(r rune) bool { // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

func isSpaceRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool {
	return r != '\r' && r != '\n' && r != unmatched && !isLetter(r) && !isNumber(r)
}

// unmatched is the one rune the expression's compiled form takes for none
// of its classes, negated ones included, so that no piece holds it: it is
// skipped, and counts for nothing.
const unmatched = 0x7f

func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// pieceEnd returns where the piece that starts at i of s ends; s is valid
// UTF-8 and i < len(s). It returns i when no piece starts at i.
func pieceEnd(s string, i int) int {
	r, n := decode(s, i)
	if r == unmatched {
		return i
	}
	prefix := isPrefix(r)
	// The two letter alternatives, each with the optional leading rune
	// first, then without it.
	if prefix && i+n < len(s) {
		if e := lettersLowerLast(s, i+n); e >= 0 {
			return contraction(s, e)
		}
	}
	if e := lettersLowerLast(s, i); e >= 0 {
		return contraction(s, e)
	}
	if prefix && i+n < len(s) {
		if e := lettersUpperFirst(s, i+n); e >= 0 {
			return contraction(s, e)
		}
	}
	if e := lettersUpperFirst(s, i); e >= 0 {
		return contraction(s, e)
	}
	// \p{N}{1,3}
	if isNumber(r) {
		j := i + n
		for k := 1; k < 3 && j < len(s); k++ {
			r2, n2 := decode(s, j)
			if !isNumber(r2) {
				break
			}
			j += n2
		}
		return j
	}
	// " ?[^\s\p{L}\p{N}]+[\r\n/]*", the space taken for good.
	j := i
	if s[j] == ' ' {
		j++
	}
	k := j
	for k < len(s) {
		r2, n2 := decode(s, k)
		if isSpaceRune(r2) || isLetter(r2) || isNumber(r2) || r2 == unmatched {
			break
		}
		k += n2
	}
	if k > j {
		for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
			k++
		}
		return k
	}
	// White space from i: through its first line breaks (\s*[\r\n]+, whose
	// compiled form backs off to the first break, not the last); else all
	// of it at the end of the text, or all but its last rune before
	// something else (\s+(?!\S)); else its one rune (\s+).
	w, lastStart, runes := i, i, 0
	for w < len(s) {
		r2, n2 := decode(s, w)
		if !isSpaceRune(r2) {
			break
		}
		if r2 == '\r' || r2 == '\n' {
			for w < len(s) && (s[w] == '\r' || s[w] == '\n') {
				w++
			}
			return w
		}
		lastStart = w
		w += n2
		runes++
	}
	switch {
	case runes == 0:
		return i // matched by nothing
	case w == len(s) || runes == 1:
		return w
	}
	return lastStart
}

// lettersLowerLast matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// from i and returns its end, or -1: the greedy first run, backed off to
// the last rune of it that may start the second, when the second cannot
// start after it.
func lettersLowerLast(s string, i int) int {
	u, lastLower := i, -1
	for u < len(s) {
		r, n := decode(s, u)
		if !isUpperish(r) {
			break
		}
		if isLowerish(r) {
			lastLower = u + n
		}
		u += n
	}
	e := u
	for e < len(s) {
		r, n := decode(s, e)
		if !isLowerish(r) {
			break
		}
		e += n
	}
	if e > u {
		return e
	}
	return lastLower
}

// lettersUpperFirst matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// from i and returns its end, or -1.
func lettersUpperFirst(s string, i int) int {
	u := i
	for u < len(s) {
		r, n := decode(s, u)
		if !isUpperish(r) {
			break
		}
		u += n
	}
	if u == i {
		return -1
	}
	for u < len(s) {
		r, n := decode(s, u)
		if !isLowerish(r) {
			break
		}
		u += n
	}
	return u
}

// contraction extends a piece that ends at e by (?i:'s|'t|'re|'ve|'m|'ll|'d),
// case folded as the expression's engine does ('ſ' is an 's').
func contraction(s string, e int) int {
	if e+1 >= len(s) || s[e] != '\'' {
		return e
	}
	c := s[e+1] | 0x20
	two := e+2 < len(s)
	switch {
	case c == 's' || c == 't' || c == 'm' || c == 'd':
		return e + 2
	case (c == 'r' || c == 'v') && two && s[e+2]|0x20 == 'e':
		return e + 3
	case c == 'l' && two && s[e+2]|0x20 == 'l':
		return e + 3
	case s[e+1] == 0xc5 && two && s[e+2] == 0xbf: // ſ, U+017F
		return e + 3
	}
	return e
}
