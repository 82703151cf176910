package view

import (
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// maxPathShown bounds the file name a header shows.
const MaxPathShown = 80

// displayPath cleans a path for a header and keeps its end when it is long.
func DisplayPath(p string) string {
	p = strings.TrimSpace(textfmt.CleanLine([]byte(p)))
	if utf8.RuneCountInString(p) <= MaxPathShown {
		return p
	}
	r := []rune(p)
	return "…" + string(r[len(r)-MaxPathShown+1:])
}

// fileClip cleans s and shortens it to n characters, the last of them "…"
// when it cuts.
func Clip(s string, n int) string {
	s = textfmt.CleanLine([]byte(s))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	at := 0
	for range n - 1 {
		_, w := utf8.DecodeRuneInString(s[at:])
		at += w
	}
	return textfmt.Clip(s, at, "…")
}
