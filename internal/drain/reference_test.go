package drain

import (
	"slices"
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
