package classify

import (
	"bytes"

	"github.com/crumb-dev/crumb/internal/drain"
)

// Tools and pipelines put a prefix on every line of what they print: a line
// number (cat -n, nl, grep -n: "     7\t", "7:"), a counter ("000007 "), a
// bracketed index ("[7] "), a timestamp ("2026-11-29T12:00:01Z ",
// "13:43:02 ", "[2026-11-29 12:00:01] "), a file and line (grep -Hn:
// "logs/app.log:7:"). The classifier reads a line from its first byte, so
// behind such a prefix "panic:", "FAIL" and "ERROR" would read as ordinary
// text: ClassifyLine looks again behind the prefix.

// cmdPrefixRounds bounds how many prefixes in a row are looked through
// ("000007 2026-11-29T12:00:01Z ERROR ...": two).
const cmdPrefixRounds = 4

// ClassifyLine classifies a line (t without its indentation of indent
// bytes) as Classify does; when that finds nothing, it classifies what
// follows the line's prefixes, if it has any. It returns the match and the
// text and indentation the match was made on: t and indent themselves, or
// the text behind the prefixes and its own indentation.
func ClassifyLine(t []byte, indent int) (Match, []byte, int) {
	m := Classify(t, indent)
	if m.Fam != FamNone {
		return m, t, indent
	}
	n := LinePrefix(t)
	if n == 0 {
		return m, t, indent
	}
	rest := t[n:]
	k := Indent(rest)
	if k == len(rest) {
		return m, t, indent
	}
	if pm := Classify(rest[k:], k); pm.Fam != FamNone {
		return pm, rest[k:], k
	}
	return m, t, indent
}

// LinePrefix returns the length of the prefixes t starts with (see the
// comment at the top of the file), 0 when it has none. A prefix ends at its
// separator (a tab, a space, a colon, a closing bracket and the spaces
// after it); only what a prefix leaves is looked at by the next.
func LinePrefix(t []byte) int {
	end := 0
	for r := 0; r < cmdPrefixRounds && end < len(t); r++ {
		n := cmdOnePrefix(t[end:])
		if n == 0 {
			break
		}
		end += n
		for end < len(t) && (t[end] == ' ' || t[end] == '\t') {
			end++
		}
	}
	return end
}

// cmdOnePrefix returns the length of the one prefix t starts with, its
// separator included, or 0.
func cmdOnePrefix(t []byte) int {
	if len(t) < 2 {
		return 0
	}
	switch c := t[0]; {
	case IsDigit(c):
		// A number or a timestamp: digits and the punctuation between
		// them, then a tab, a space, or the colon of grep -n.
		i := cmdNumericToken(t)
		if i >= len(t) {
			return 0
		}
		switch t[i] {
		case '\t', ' ', '|':
			return i + 1
		}
		if t[i-1] == ':' || t[i-1] == '-' && !IsDigit(t[i]) { // "7:text", grep's context "7-text"
			return i
		}
		return 0
	case c == '[' || c >= 'A' && c <= 'Z' && len(t) > 3 && t[3] == ' ':
		// A timestamp of another layout the log miner knows: "[Tue Dec
		// 01 14:31:04.692253 2026] ", "[01/May/2024:12:00:00 +0000] ",
		// "May  1 12:00:00 ".
		if s, e, ok := drain.Timestamp(t); ok && e < len(t) {
			switch {
			case s == 0:
				return e
			case s == 1 && c == '[':
				// The bracket's end, after what the layout leaves
				// out (Apache writes the year after the time).
				if j := bytes.IndexByte(t[e:min(len(t), e+8)], ']'); j >= 0 {
					return e + j + 1
				}
			}
		}
		if c != '[' {
			return 0
		}
		// "[7] ", "[2026-11-29 12:00:01] ", "[ 12.345] " (dmesg)
		i := 1
		for i < len(t) && t[i] == ' ' {
			i++
		}
		digits := false
		for i < len(t) && IsDigit(t[i]) {
			j := cmdNumericToken(t[i:])
			i += j
			digits = true
			if i < len(t) && t[i] == ' ' && i+1 < len(t) && IsDigit(t[i+1]) {
				i++
			}
		}
		if !digits || i >= len(t) || t[i] != ']' {
			return 0
		}
		return i + 1
	case c == '/' || c == '.' || c == '_' || IsLetter(c):
		// "path:7:" (grep -Hn, grep -rn): a path without spaces, a colon,
		// a line number and a colon.
		head := t[:min(len(t), 256)]
		i := bytes.IndexByte(head, ':')
		if i <= 0 || bytes.IndexByte(head[:i], ' ') >= 0 || bytes.IndexByte(head[:i], '\t') >= 0 {
			return 0
		}
		j := i + 1
		for j < len(t) && IsDigit(t[j]) {
			j++
		}
		if j > i+1 && j < len(t) && (t[j] == ':' || t[j] == '-') {
			return j + 1
		}
	}
	return 0
}

// cmdNumericToken returns the length of the number or timestamp t starts
// with: digits and the punctuation that joins them in dates, times and
// counters ("2026-11-29T12:00:01.5Z", "13:43:02", "1.25", "7:").
func cmdNumericToken(t []byte) int {
	i := 0
	for i < len(t) {
		c := t[i]
		switch {
		case IsDigit(c):
		case c == '-' || c == ':' || c == '.' || c == ',' || c == '/' || c == '+':
		case (c == 'T' || c == 'Z') && i > 0 && IsDigit(t[i-1]):
		default:
			return i
		}
		i++
	}
	return i
}
