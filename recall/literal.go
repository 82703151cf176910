package recall

import (
	"bytes"
	"regexp"
	"strings"
)

// finder looks for one literal in text by its rarest byte: bytes.IndexByte
// (SIMD) skips to each place that byte occurs, and only there is the whole
// literal compared. Looking for the literal's first byte instead, as
// bytes.Index does, stops at every "e" or " " of a text when the literal
// starts with one.
type finder struct {
	lit  []byte
	rare int // index in lit of its rarest byte
}

// byteOrder lists bytes from the most common in logs, code and prose to the
// least; bytes not listed count as rarer than all of them.
const byteOrder = " etaoinsrlhdcu0123456789\n.-/:=\"_,pmgfybwv()'TSEAIRONCLPDMkxFBHGU[]{};<>\tjWqzKVYJXQZ+*#&%$@!?|\\^~`"

func newFinder(lit []byte) finder {
	f := finder{lit: lit}
	best := -1
	for i, c := range lit {
		r := strings.IndexByte(byteOrder, c)
		if r < 0 {
			r = len(byteOrder)
		}
		if r > best {
			f.rare, best = i, r
		}
	}
	return f
}

// index returns the offset of the first occurrence of the literal in b, or
// -1.
func (f finder) index(b []byte) int {
	c := f.lit[f.rare]
	for from := f.rare; from < len(b); {
		i := bytes.IndexByte(b[from:], c)
		if i < 0 {
			return -1
		}
		at := from + i - f.rare
		if at+len(f.lit) > len(b) {
			return -1
		}
		if bytes.Equal(b[at:at+len(f.lit)], f.lit) {
			return at
		}
		from += i + 1
	}
	return -1
}

// wholeLiteral returns the text every match of re is exactly, when re is a
// literal that stays within a line, and reports whether it is. A search
// for such a pattern needs no expression: a line matches when it holds the
// literal.
func wholeLiteral(re *regexp.Regexp) ([]byte, bool) {
	lit, complete := re.LiteralPrefix()
	if !complete || lit == "" || strings.IndexByte(lit, '\n') >= 0 {
		return nil, false
	}
	return []byte(lit), true
}
