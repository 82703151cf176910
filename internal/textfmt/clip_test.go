package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven byte", 10, "eleven byt…"},
		{"abcé", 4, "abc…"},          // é is bytes 3-4: cut before it
		{"ab€cd", 4, "ab…"},          // € is bytes 2-4
		{"ab€cd", 5, "ab€…"},         // right after it
		{"😀😀", 5, "😀…"},              // four-byte characters
		{"ab\xffcdef", 3, "ab\xff…"}, // not UTF-8: cut where asked
		{"abc", 0, "…"},
	} {
		got := Clip(tc.s, tc.n, "…")
		if got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
		if utf8.ValidString(tc.s) && !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q splits a character", tc.s, tc.n, got)
		}
	}
	// Every cut of a valid text is valid.
	s := strings.Repeat("aé€😀", 8)
	for n := range len(s) + 2 {
		if got := Clip(s, n, "..."); !utf8.ValidString(got) || len(got) > n+3 {
			t.Errorf("Clip(s, %d) = %q", n, got)
		}
	}
}
