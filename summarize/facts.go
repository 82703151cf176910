package summarize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/crumb-dev/crumb/internal/lazyre"
)

// quotedText matches text a fact puts in quotes: "…", '…', `…` or “…”.
var quotedText = lazyre.New("\"([^\"]{2,})\"|`([^`]{2,})`|“([^”]{2,})”|(?:^|\\s)'([^']{2,})'(?:\\s|[.,;:]|$)")

// quoted returns what a fact quotes that must occur verbatim in the
// result: text in quotes (error messages, values), and the words that are
// numbers, dates, paths or identifiers.
func quoted(fact string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	rest := fact
	for _, m := range quotedText.FindAllStringSubmatch(fact, -1) {
		for _, g := range m[1:] {
			if g != "" {
				add(g)
			}
		}
		rest = strings.Replace(rest, m[0], " ", 1)
	}
	for _, w := range strings.Fields(rest) {
		w = strings.TrimRight(strings.TrimLeft(w, "([{<"), ".,;:!?)]}>")
		if checkable(w) {
			add(w)
		}
	}
	return out
}

// checkable reports whether a word is a number, a date, a path or an
// identifier: something a summary must not change.
func checkable(w string) bool {
	if len(w) < 1 {
		return false
	}
	digits, letters, upperInside := false, false, false
	for i, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits = true
		case unicode.IsLetter(r):
			letters = true
			if i > 0 && unicode.IsUpper(r) {
				upperInside = true
			}
		}
	}
	switch {
	case digits:
		return true // 42, 1,998, v1.2.3, 2026-11-29, 0x1f, 12ms, line:42
	case strings.ContainsAny(w, `/\_`) || strings.Contains(w, "::") || strings.HasSuffix(w, "()"):
		return letters
	case upperInside && letters && !isAllUpper(w):
		return true // camelCase, TestParseRef
	case strings.Count(w, ".") >= 1 && !strings.HasSuffix(w, ".") && letters:
		return true // pkg.Func, main.go
	}
	return false
}

func isAllUpper(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// verifyWindow is how much of the result is searched at a time.
const verifyWindow = 1 << 20

// verify marks each fact whose quotes all occur in the result as verified,
// and fails with ErrUnverified when a fact quotes something the result does
// not contain. It reads the result in windows, so memory stays bounded.
func verify(facts []Fact, src io.ReaderAt, size int64) error {
	need := map[string]bool{}
	longest := 0
	for _, f := range facts {
		for _, q := range f.Quoted {
			need[q] = false
			longest = max(longest, len(q))
		}
	}
	if len(need) == 0 {
		return nil
	}
	if src == nil {
		return fmt.Errorf("%w: no result to check the facts against", ErrUnverified)
	}
	buf := make([]byte, verifyWindow+longest)
	missing := len(need)
	for off := int64(0); off < size && missing > 0; off += verifyWindow {
		n, err := src.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("summarize: reading the result to check facts: %w", err)
		}
		win := buf[:n]
		for q, found := range need {
			if !found && bytes.Contains(win, []byte(q)) {
				need[q] = true
				missing--
			}
		}
	}
	for i := range facts {
		ok := len(facts[i].Quoted) > 0
		for _, q := range facts[i].Quoted {
			if !need[q] {
				return fmt.Errorf("%w: %q quotes %q", ErrUnverified, facts[i].Text, q)
			}
		}
		facts[i].Verified = ok
	}
	return nil
}
