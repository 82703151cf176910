// Package textfmt holds the small text helpers every view shares: making a
// line safe to show a model, and writing numbers and sizes the same way
// everywhere so views stay byte-identical for the same input.
package textfmt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Int writes n with thousands separators: 1234567 → "1,234,567".
func Int(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		// Not Int(-n): -n of the smallest int64 is itself.
		return "-" + group(s[1:])
	}
	return group(s)
}

// group puts thousands separators into a string of decimal digits.
func group(s string) string {
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	b.WriteString(s[:pre])
	for i := pre; i < len(s); i += 3 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Size writes a byte count for people: "512 B", "12.3 KB", "51.2 MB", "1.1 GB"
// (decimal units, one decimal place).
func Size(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + " KB"
	case n < 1000_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + " MB"
	default:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + " GB"
	}
}

// Plural returns "1 line" or "3 lines".
func Plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Int(n) + " " + word + "s"
}

// CleanLine makes one line of tool output safe and cheap to show a model.
// It drops a trailing carriage return, keeps only what follows the last
// carriage return inside the line (what a terminal would show after a
// progress bar redraws), removes ANSI escape sequences, shows other control
// bytes in caret notation (^@, ^H, ...) and replaces invalid UTF-8 with
// U+FFFD. Tabs are kept. The line must not contain a newline.
func CleanLine(line []byte) string {
	line = trimCR(line)
	if i := lastIndexByte(line, '\r'); i >= 0 {
		// A redraw: keep the final state, unless the redraw left nothing.
		if rest := line[i+1:]; len(rest) > 0 {
			line = rest
		}
	}
	clean := true
	for _, c := range line {
		if c < 0x20 && c != '\t' || c == 0x7f || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return string(line)
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == 0x1b:
			i = skipEscape(line, i)
			continue
		case c == '\t':
			b.WriteByte(c)
		case c < 0x20:
			b.WriteByte('^')
			b.WriteByte(c + '@')
		case c == 0x7f:
			b.WriteString("^?")
		case c < utf8.RuneSelf:
			b.WriteByte(c)
		default:
			r, size := utf8.DecodeRune(line[i:])
			if r == utf8.RuneError && size <= 1 {
				b.WriteRune(utf8.RuneError)
				i++
				continue
			}
			if r >= 0x80 && r < 0xa0 { // C1 controls
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(line[i : i+size])
			}
			i += size
			continue
		}
		i++
	}
	return b.String()
}

func trimCR(line []byte) []byte {
	for len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	return line
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// skipEscape returns the index just past the escape sequence that starts at
// line[i] (an ESC byte): CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \)
// or a two-byte escape.
func skipEscape(line []byte, i int) int {
	j := i + 1
	if j >= len(line) {
		return j
	}
	switch line[j] {
	case '[':
		j++
		for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
			j++
		}
		return min(j+1, len(line))
	case ']':
		j++
		for j < len(line) {
			if line[j] == 0x07 {
				return j + 1
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 2
			}
			j++
		}
		return j
	default:
		return j + 1
	}
}

// CutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func CutUTF8(s []byte, n int) []byte { return s[:cutAt(s, n)] }

// Clip shortens s to at most n bytes and appends mark ("…", "...") when it
// cut anything; it cuts before a character, never inside one (bytes that
// are not UTF-8 anyway are cut where n says). Every shortened text crumb
// writes, a heading in a view or a value quoted back in an error, is cut by
// Clip.
func Clip(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return s[:cutAt(s, n)] + mark
}

// ClipStart keeps the last n bytes of s at most, with mark ("…") before
// them when it cut anything; like Clip, it cuts before a character, never
// inside one (bytes that are not UTF-8 anyway are cut where n says).
func ClipStart(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return mark + s[startAt(s, n):]
}

// startAt is where ClipStart cuts s to keep at most its last n bytes.
func startAt(s string, n int) int {
	if n <= 0 {
		return len(s)
	}
	i := len(s) - n
	j := i
	for ; j < len(s) && j < i+utf8.UTFMax; j++ {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	if j == len(s) {
		return j // the last n bytes are all inside one character
	}
	return i // not UTF-8 anyway; cut where asked
}

// cutAt is where CutUTF8 and Clip cut s for a limit of n bytes.
func cutAt[T string | []byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	if n <= 0 {
		return 0
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	if !utf8.RuneStart(s[i]) {
		return n // not UTF-8 anyway; cut where asked
	}
	return i
}
