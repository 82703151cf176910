package sections

// The headings of plain text, reStructuredText and Markdown.

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// markdownHeading finds ATX and setext headings outside fenced code.
func (s *Segmenter) markdownHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(s.fence) > 0 {
		if cur.indent < 4 && bytes.HasPrefix(t, s.fence) {
			s.fence = s.fence[:0]
		}
		return heading{}, false
	}
	if cur.indent < 4 && (bytes.HasPrefix(t, []byte("```")) || bytes.HasPrefix(t, []byte("~~~"))) {
		s.fence = append(s.fence[:0], t[:3]...)
		return heading{}, false
	}
	if cur.indent >= 4 || len(t) == 0 {
		return heading{}, false
	}
	if n := atxLevel(t); n > 0 {
		text := strings.TrimSpace(strings.TrimRight(string(t[n:]), "# \t"))
		if text == "" {
			return heading{}, false
		}
		s.headLevel = n
		return heading{text: text, level: n, span: 1, names: codeNames(text)}, true
	}
	if len(next) > 0 && next[0].indent < 4 && !listOrQuote(t) {
		u := next[0].t
		if len(u) > 0 && (allOf(u, '=') || allOf(u, '-') && len(u) >= 2) {
			level := 2
			if u[0] == '=' {
				level = 1
			}
			text := string(t)
			s.headLevel = level
			return heading{text: text, level: level, span: 2, names: codeNames(text)}, true
		}
	}
	return heading{}, false
}

// plainHeading finds the headings of plain text and reStructuredText:
// underlined (and overlined) titles, numbered headings and capitalised
// ones, each standing apart.
func (s *Segmenter) plainHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 || utf8.RuneCount(t) > 100 {
		return heading{}, false
	}
	if _, ok := adornment(t); ok && cur.indent == 0 {
		return heading{}, false
	}
	if len(next) > 0 && next[0].indent == cur.indent {
		if c, ok := adornment(next[0].t); ok && utf8.RuneCount(next[0].t) >= max(3, utf8.RuneCount(t)/2) && !listOrQuote(t) {
			style := string(c)
			if s.prevAdorn == c {
				style += "/"
			}
			level := 0
			for i, a := range s.adorns {
				if a == style {
					level = i + 1
				}
			}
			if level == 0 {
				s.adorns = append(s.adorns, style)
				level = len(s.adorns)
			}
			s.headLevel = level
			text := string(t)
			return heading{text: text, level: level, span: 2, names: codeNames(text)}, true
		}
	}
	if !s.prevBlank {
		return heading{}, false
	}
	nextBlank := len(next) == 0 || next[0].blank()
	if cur.indent <= 4 && nextBlank {
		if depth, title := numbered(t); depth > 0 {
			s.headLevel = depth
			return heading{text: string(t), level: depth, span: 1, names: codeNames(title)}, true
		}
	}
	if capitalised(t) && (nextBlank || next[0].indent > cur.indent) {
		s.headLevel = 1
		return heading{text: string(t), level: 1, span: 1}, true
	}
	return heading{}, false
}

// codeNames returns the name a heading is, when it is one word or a code
// name ("XZ_DEFAULTS"), or names a function or a class by its signature
// ("tempfile.mkstemp(suffix=None)" → mkstemp; "new Worker(filename)" →
// Worker).
func codeNames(text string) []string {
	if i := strings.IndexByte(text, '('); i > 0 {
		j := strings.TrimRight(text[:i], " ")
		k := strings.LastIndexFunc(j, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		if name := j[k+1:]; name != "" && len(j) < 120 {
			return []string{name}
		}
	}
	f := strings.Fields(strings.Trim(text, "`*_ "))
	if len(f) != 1 {
		return nil
	}
	w := strings.Trim(f[0], "`*()[]<>:.,;\"'")
	if i := strings.IndexAny(w, "(=["); i > 0 {
		w = w[:i]
	}
	if w == "" {
		return nil
	}
	return []string{w}
}

// numbered reports a numbered heading ("3.2.1.  Title", "5. Termination.",
// "Section 4. Title", "A. Appendix"): its depth (the numbers' count) and
// its title. A heading is short: at most 12 words.
func numbered(t []byte) (int, string) {
	s := string(t)
	depth := 0
	low := strings.ToLower(s)
	for _, w := range []string{"section ", "article ", "appendix ", "chapter ", "part ", "§"} {
		if strings.HasPrefix(low, w) {
			s = strings.TrimLeft(s[len(w):], " ")
			depth = 1
			break
		}
	}
	i, parts := 0, 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			if parts == 0 && i < len(s) && s[i] >= 'A' && s[i] <= 'Z' && i+1 < len(s) && (s[i+1] == '.' || depth > 0 && s[i+1] == ' ') {
				j = i + 1
			} else {
				break
			}
		}
		if j-i > 3 {
			return 0, ""
		}
		parts++
		i = j
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		break
	}
	if parts == 0 || i >= len(s) {
		return 0, ""
	}
	// A single number or letter needs its dot ("5. Termination"), unless
	// a word such as "Section" introduced it.
	if parts == 1 && depth == 0 && s[i-1] != '.' {
		return 0, ""
	}
	if s[i] != ' ' && s[i] != ')' {
		return 0, ""
	}
	title := strings.TrimLeft(s[i:], " )")
	if title == "" || len(strings.Fields(title)) > 12 || strings.HasSuffix(title, ",") || strings.HasSuffix(title, ";") {
		return 0, ""
	}
	r, _ := utf8.DecodeRuneInString(title)
	if !unicode.IsUpper(r) && r != '"' && r != '\'' && r != '“' {
		return 0, ""
	}
	return parts, title
}

// capitalised reports a short heading in capitals ("TERMS AND
// CONDITIONS", "EXIT STATUS").
func capitalised(t []byte) bool {
	if len(t) > 72 {
		return false
	}
	letters := 0
	for _, r := range string(t) {
		switch {
		case unicode.IsLower(r):
			return false
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r), strings.ContainsRune(" ,/&()-:'.", r):
		default:
			return false
		}
	}
	return letters >= 3
}

// adornChars are the characters that may underline a title.
const adornChars = "=-~^\"'`#*+_:.<>"

// adornment reports a line that underlines or overlines a title: one
// punctuation character repeated, three times or more.
func adornment(t []byte) (byte, bool) {
	if len(t) < 3 || strings.IndexByte(adornChars, t[0]) < 0 {
		return 0, false
	}
	return t[0], allOf(t, t[0])
}

// listOrQuote reports a line that opens a list item, a quote or a table
// row: never a setext title.
func listOrQuote(t []byte) bool {
	return bytes.HasPrefix(t, []byte("- ")) || bytes.HasPrefix(t, []byte("* ")) || bytes.HasPrefix(t, []byte("+ ")) ||
		t[0] == '|' || t[0] == '>'
}

// atxLevel returns the level of an ATX heading line, 0 for another line.
func atxLevel(t []byte) int {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' && t[n] != '\t' {
		return 0
	}
	return n
}

func allOf(t []byte, c byte) bool {
	for _, b := range t {
		if b != c {
			return false
		}
	}
	return true
}
