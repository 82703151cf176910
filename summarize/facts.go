package summarize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"

	"github.com/crumb-dev/crumb/internal/lazyre"
)

// quotedText matches text a fact puts in quotes: "…", '…', `…` or “…”.
var quotedText = lazyre.New("\"([^\"]{2,})\"|`([^`]{2,})`|“([^”]{2,})”|(?:^|\\s)'([^']{2,})'(?:\\s|[.,;:]|$)")

// named returns what a fact's own words name that must occur verbatim in
// the result, for the identifier check: text in quotes (error messages,
// values), and the words that are numbers, dates, paths or identifiers.
func named(fact string) []string {
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

// verify locates every quote of every fact in the result (the quote check)
// and finds every word a fact names (the identifier check). A quote or a
// name the result does not hold fails with ErrUnverified, saying which
// fact and which check, never the text. It reads the result in windows,
// counting lines as it goes, so memory stays bounded.
func verify(ctx context.Context, facts []Fact, src io.ReaderAt, size int64) error {
	type target struct {
		line, end int64
		found     bool
	}
	need := map[string]*target{}
	longest := 0
	for _, f := range facts {
		for _, q := range f.Quotes {
			need[q.Text] = &target{}
			longest = max(longest, len(q.Text))
		}
		for _, n := range f.Named {
			need[n] = &target{}
			longest = max(longest, len(n))
		}
	}
	if len(need) == 0 {
		return nil
	}
	if src == nil {
		return fmt.Errorf("%w: there is no result to check the facts against", ErrUnverified)
	}
	// In a fixed order, so that the same answer always fails the same way.
	keys := make([]string, 0, len(need))
	for k := range need {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf := make([]byte, verifyWindow+longest)
	missing := len(need)
	var lines int64 // newlines before off
	for off := int64(0); off < size && missing > 0; off += verifyWindow {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := src.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("summarize: reading the result to check facts: %w", err)
		}
		win := buf[:n]
		for _, k := range keys {
			t := need[k]
			if t.found {
				continue
			}
			i := bytes.Index(win, []byte(k))
			if i < 0 || int64(i) >= verifyWindow && off+verifyWindow < size {
				continue // found in the overlap: the next window finds it
			}
			t.found = true
			t.line = lines + int64(bytes.Count(win[:i], []byte{'\n'})) + 1
			t.end = t.line + int64(strings.Count(k, "\n"))
			missing--
		}
		lines += int64(bytes.Count(win[:min(n, verifyWindow)], []byte{'\n'}))
	}
	for i := range facts {
		for j, q := range facts[i].Quotes {
			t := need[q.Text]
			if !t.found {
				return fmt.Errorf("%w: the quote check: quote %d of critical fact %d is not in the result", ErrUnverified, j+1, i+1)
			}
			facts[i].Quotes[j].Line, facts[i].Quotes[j].EndLine = t.line, t.end
		}
		for _, n := range facts[i].Named {
			if !need[n].found {
				return fmt.Errorf("%w: the identifier check: critical fact %d names a number, path or identifier the result does not hold", ErrUnverified, i+1)
			}
		}
	}
	return nil
}

// Patterns of text that addresses the reader or an agent rather than
// describing a result: attempts to override instructions, role markers,
// words to an AI, and commands to act now.
var addressPatterns = []struct {
	what string
	re   *lazyre.Regexp
}{
	{"(it tells the reader to ignore its instructions)", lazyre.New(`(?i)\b(ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|guidelines|directions|directives)\b`)},
	{"(it speaks of instructions to the reader)", lazyre.New(`(?i)\b(previous|prior|above|earlier|new|updated|hidden|secret|real)\s+(instructions|directives)\b`)},
	{"(it speaks in a role, as a system prompt would)", lazyre.New(`(?i)\bsystem\s*(prompt|message|override|notice|instruction)|<\|im_start\|>|\[/?INST\]|</?(system|assistant)>|(?m)^\W*(system|assistant|developer)\s*:`)},
	{"(it speaks in a role, as a system prompt would)", lazyre.New(`\bSYSTEM\s*[:>\]]`)},
	{"(it speaks to an AI)", lazyre.New(`(?i)\b(you are now|as an ai\b|dear (ai|agent|assistant|model)|note to (the |any )?(ai|agent|assistant|model|llm)s?\b|(ai|llm) (agents?|assistants?)\s*[,:])`)},
	{"(it tells an agent to act)", lazyre.New(`(?i)(^|[.!?;:,]\s*|\b(now|then|and|so|please)\s+)(push|force-push|delete|remove|rm|deploy|merge|drop|wipe|erase|run|execute|exec|curl|wget|install|approve|grant|send|upload|commit|revert|reset|disable|kill|shutdown|reboot)\b[^.\n]{0,60}\b(now|immediately|right away|at once|without (asking|review|checking)|to (main|master|prod|production|origin))\b`)},
	{"(it tells an agent to act)", lazyre.New(`(?i)\bgit\s+push\b[^\n]{0,40}(--force|\bmain\b|\bmaster\b)|\brm\s+-rf\s+/|\|\s*(ba)?sh\b`)},
}

// addressing walks a summary and reports the first string that addresses
// the reader or an agent: where it is ("the overview", "critical fact 2")
// and what it does, never the text itself.
func addressing(obj map[string]any) (where, what string) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		label := "the field " + fmt.Sprintf("%q", k)
		switch k {
		case "overview":
			label = "the overview"
		case "omitted":
			label = "the note of what is omitted"
		}
		if k == "critical_facts" {
			if list, ok := obj[k].([]any); ok {
				for i, f := range list {
					if w := addressesIn(f); w != "" {
						return fmt.Sprintf("critical fact %d", i+1), w
					}
				}
				continue
			}
		}
		if w := addressesIn(obj[k]); w != "" {
			return label, w
		}
	}
	return "", ""
}

// addressesIn reports what the first string inside v that addresses the
// reader does, or "".
func addressesIn(v any) string {
	switch v := v.(type) {
	case string:
		for _, p := range addressPatterns {
			if p.re.MatchString(v) {
				return p.what
			}
		}
	case []any:
		for _, x := range v {
			if w := addressesIn(x); w != "" {
				return w
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if w := addressesIn(v[k]); w != "" {
				return w
			}
		}
	}
	return ""
}
