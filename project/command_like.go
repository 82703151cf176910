package project

import (
	"bytes"
	"encoding/binary"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// A note on an omitted stretch says what its lines are like: "5,193 lines
// like `2026/11/29 13:43:02 [error] 19924#19924: *2 open() "/tmp/…`". The
// claim is exact: a line is like a sample when, with its indentation and
// the white space at its ends left out, every run of white space read as
// one space and every run of digits as one digit, it starts with the
// sample's first cmdLikeRunes characters and, as the "…" says, goes on (or,
// for a sample without "…", is the sample). cmdLikeKey gives lines alike
// the same key, so that the scan counts them and the note states no more
// than it counted; cmdSampleOf writes the sample as the note shows it.

// cmdLikeRunes is how many characters of a line (white space and digit
// runs counted as one) a sample shows and a note compares, at each of the
// levels a note may speak at: the longer first, the shorter when lines
// differ past it ("npm http fetch GET 200 https://registry.npmjs.org/…").
var cmdLikeRunes = [cmdLikeLevels]int{cmdLikeMaxRunes, 24}

// cmdLikeMaxRunes is the longest comparison, cmdLikeRunes[0].
const cmdLikeMaxRunes = 44

// cmdLikeLevels is the number of lengths a note may compare lines at.
const cmdLikeLevels = 2

// cmdLikeSpan reads the start of a line, b (its first cmdSampleBytes bytes
// at most; cut tells whether the line goes on past them), cleaned for a
// view: it returns where the sample starts and ends in b, whether the line
// goes on after the sample, and the sample's key.
func cmdLikeSpan(b []byte, cut bool, lv int) (from, to int, more bool, key uint64) {
	limit := cmdLikeRunes[lv]
	var norm [(cmdLikeMaxRunes + 1) * utf8.UTFMax]byte
	n, runes := 0, 0
	space, digit := false, false
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	from, to = i, i
	for i < len(b) {
		r, size := rune(b[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		isSpace, isDigit := r == ' ' || r == '\t', '0' <= r && r <= '9'
		switch {
		case isSpace && space, isDigit && digit:
			// the same run goes on
		case runes >= limit && !space:
			// A character past the sample: the line goes on unless
			// only white space is left. (A sample does not end in white
			// space, which its quote would not show.)
			more = cut || len(bytes.TrimRight(b[i:], " \t")) > 0
			return from, to, more, cmdLikeHash(norm[:n], more)
		default:
			runes++
			switch {
			case isSpace:
				norm[n] = ' '
				n++
			case isDigit:
				norm[n] = '0'
				n++
			default:
				n += utf8.EncodeRune(norm[n:], r)
			}
		}
		space, digit = isSpace, isDigit
		i += size
		if !isSpace {
			to = i
		}
	}
	for n > 0 && norm[n-1] == ' ' {
		n--
	}
	return from, to, cut, cmdLikeHash(norm[:n], cut)
}

// cmdLikeHash hashes a sample's normalized text (FNV-1a) and whether the
// line goes on; 0 is never a key.
func cmdLikeHash(norm []byte, more bool) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range norm {
		h ^= uint64(c)
		h *= 1099511628211
	}
	if more {
		h ^= 0xff
		h *= 1099511628211
	}
	return max(h, 1)
}

// cmdLikeClean returns the start of a line as a view shows it: b is its
// first bytes, cut whether it goes on past them. A character cut in two by
// the end of b is left out. It reports false for a line whose cleaning
// depends on what follows b (a carriage return redraws it).
func cmdLikeClean(b []byte, cut bool) ([]byte, bool) {
	if cut {
		// Leave out a character the end of b cuts in two.
		for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
			if c := b[len(b)-k]; c < utf8.RuneSelf {
				break
			} else if utf8.RuneStart(c) {
				if !utf8.FullRune(b[len(b)-k:]) {
					b = b[:len(b)-k]
				}
				break
			}
		}
	}
	clean := true
	for _, c := range b {
		if c < 0x20 && c != '\t' || c >= 0x7f || c == '`' {
			clean = false
			break
		}
	}
	if clean {
		return b, true
	}
	if cut && bytes.IndexByte(b, '\r') >= 0 {
		return nil, false // a carriage return may redraw the line past b
	}
	if cut && bytes.IndexByte(b, 0x1b) >= 0 {
		return nil, false // an escape sequence may go on past b
	}
	return []byte(strings.ReplaceAll(textfmt.CleanLine(b), "`", "'")), true
}

// cmdLikeKey returns the key of a line that starts with t (its first bytes,
// as many as the scan holds): lines alike, in the sense a note states, have
// the same key. It reports false when the line has none.
func cmdLikeKey(t []byte, lv int) (uint64, bool) {
	b, cut := t, false
	if len(b) > cmdSampleBytes {
		b, cut = b[:cmdSampleBytes], true
	}
	return cmdLikeKeyCut(b, cut, lv)
}

// cmdLikeKeys returns cmdLikeKey(t, lv) at every level, in one pass for
// most lines.
func cmdLikeKeys(t []byte) ([cmdLikeLevels]uint64, bool) {
	b, cut := t, false
	if len(b) > cmdSampleBytes {
		b, cut = b[:cmdSampleBytes], true
	}
	return cmdLikeKeysCut(b, cut)
}

// cmdLikeKeysCut is cmdLikeKeys for the first bytes b of a line that goes
// on past them when cut (as Document.ReadLine gives them).
func cmdLikeKeysCut(b []byte, cut bool) ([cmdLikeLevels]uint64, bool) {
	if keys, ok := cmdLikeKeysASCII(b, cut); ok {
		return keys, true
	}
	var keys [cmdLikeLevels]uint64
	c, ok := cmdLikeClean(b, cut)
	if !ok {
		return keys, false
	}
	for lv := range keys {
		_, _, _, keys[lv] = cmdLikeSpan(c, cut, lv)
	}
	return keys, true
}

// cmdLikeKeyCut is cmdLikeKey for the first bytes b of a line that goes on
// past them when cut (as Document.ReadLine gives them).
func cmdLikeKeyCut(b []byte, cut bool, lv int) (uint64, bool) {
	if keys, ok := cmdLikeKeysASCII(b, cut); ok {
		return keys[lv], true
	}
	c, ok := cmdLikeClean(b, cut)
	if !ok {
		return 0, false
	}
	_, _, _, key := cmdLikeSpan(c, cut, lv)
	return key, true
}

// cmdSampleOf writes the start of a line for a note, quoted: b is its first
// bytes (at most cmdSampleBytes), cut whether it goes on past them. It
// returns the line's key too (see cmdLikeKey), and false when the line has
// none.
func cmdSampleOf(b []byte, cut bool, lv int) (string, uint64, bool) {
	c, ok := cmdLikeClean(b, cut)
	if !ok {
		return "", 0, false
	}
	from, to, more, key := cmdLikeSpan(c, cut, lv)
	s := string(c[from:to])
	if more {
		s += "…"
	}
	return "`" + s + "`", key, true
}

// cmdLikeKeysASCII is cmdLikeSpan's key at each level for a line start
// that needs no cleaning (printable ASCII, tabs, no backquote), in one pass
// and without a buffer: most lines. It reports false for any other.
func cmdLikeKeysASCII(b []byte, cut bool) (keys [cmdLikeLevels]uint64, _ bool) {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	// end finishes the key of level lv at b[i:], which the sample leaves
	// out.
	end := func(lv int, h uint64, more bool) {
		if more {
			h ^= 0xff
			h *= prime
		}
		keys[lv] = max(h, 1)
	}
	lv := cmdLikeLevels - 1 // the shortest first
	limit := cmdLikeRunes[lv]
	runes := 0
	space, digit, pending := false, false, false
	for ; i < len(b); i++ {
		c := b[i]
		if c > ' ' && c < 0x7f && c != '`' && (c < '0' || c > '9') && runes < limit {
			// Most bytes: a letter or a punctuation mark, a character of
			// its own inside the sample, as below.
			if pending {
				h ^= ' '
				h *= prime
				pending = false
			}
			runes++
			space, digit = false, false
			h ^= uint64(c)
			h *= prime
			continue
		}
		if c < 0x20 && c != '\t' || c >= 0x7f || c == '`' {
			return keys, false
		}
		isSpace, isDigit := c == ' ' || c == '\t', '0' <= c && c <= '9'
		if isSpace && space || isDigit && digit {
			continue
		}
		for lv >= 0 && runes >= cmdLikeRunes[lv] && !space {
			end(lv, h, cut || !isSpace || len(bytes.TrimRight(b[i:], " \t")) > 0)
			lv--
		}
		if lv < 0 {
			return keys, cmdLikeCleanASCII(b[i:]) // cleaning would change what follows
		}
		limit = cmdLikeRunes[lv]
		runes++
		space, digit = isSpace, isDigit
		if isSpace {
			pending = true
			continue
		}
		if pending {
			h ^= ' '
			h *= prime
			pending = false
		}
		if isDigit {
			c = '0'
		}
		h ^= uint64(c)
		h *= prime
	}
	for ; lv >= 0; lv-- {
		end(lv, h, cut)
	}
	return keys, true
}

// cmdLikeCleanASCII reports whether b needs no cleaning for a view: every
// byte printable ASCII or a tab, and no backquote. It tests 8 bytes at a
// time and reads the bytes one by one only in a word that may hold another.
func cmdLikeCleanASCII(b []byte) bool {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		b = b[8:]
		control := (w - ones*0x20) &^ w & high // a byte below 0x20 (a tab too)
		quote := (w ^ ones*'`' - ones) &^ (w ^ ones*'`') & high
		del := (w + ones | w) & high // a byte of 0x7f or more
		if control|quote|del == 0 {
			continue
		}
		for i := range 8 {
			if c := byte(w >> (8 * i)); c < 0x20 && c != '\t' || c >= 0x7f || c == '`' {
				return false
			}
		}
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' || c >= 0x7f || c == '`' {
			return false
		}
	}
	return true
}
