package sections

// The headings of a rendered man page.

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// manHeading finds the headings of a rendered man page: unindented
// SECTION lines, indented subsections, and the tags of tagged paragraphs
// (options, terms, exit codes), each tag line standing apart with its text
// indented below it or beside it.
func (s *Segmenter) manHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 {
		return heading{}, false
	}
	if cur.indent == 0 {
		if capitalised(t) && !bytes.Contains(t, []byte("   ")) {
			s.headLevel, s.terms = 1, s.terms[:0]
			return heading{text: string(t), level: 1, span: 1}, true
		}
		return heading{}, false
	}
	if !s.prevBlank && !s.prevHeading {
		return heading{}, false
	}
	// An option in a bulleted list ("○   -T#, --threads=#: Compress ..."),
	// as pages converted from Markdown have them.
	if opt, ok := bulletOption(t); ok {
		return s.term(cur.indent, opt, 1), true
	}
	if len(next) == 0 || next[0].blank() {
		return heading{}, false
	}
	if cur.indent <= 4 && next[0].indent > cur.indent && t[0] != '-' && unicode.IsUpper(rune(t[0])) && len(t) <= 60 && !endsSentence(t) {
		s.headLevel, s.terms = 2, s.terms[:0]
		return heading{text: string(t), level: 2, span: 1}, true
	}
	// A run of up to three tag lines at one indentation, then the text,
	// indented more; the last tag line may hold the start of the text,
	// at the column the next line is indented to.
	s.run = append(append(s.run[:0], *cur), next...)
	lines := s.run
	var tags []string
	for k := 1; k < len(lines) && k <= maxTags; k++ {
		tag, after := lines[k-1], lines[k]
		if tag.indent != cur.indent || after.blank() {
			break
		}
		if after.indent > cur.indent {
			t := tagBeside(tag.raw, after.indent)
			if !tagLike(t) {
				break
			}
			h := s.term(cur.indent, strings.Join(append(tags, string(t)), ", "), k)
			if len(t) < len(tag.t) {
				h.beside = strings.TrimSpace(string(tag.t[len(t):]))
			}
			return h, true
		}
		if after.indent != cur.indent || !tagLike(tag.t) {
			break
		}
		tags = append(tags, string(tag.t))
	}
	return heading{}, false
}

// bulletOption returns the option a bulleted line opens with, up to the
// colon that ends it.
func bulletOption(t []byte) (string, bool) {
	r, size := utf8.DecodeRune(t)
	if !strings.ContainsRune("•○◦·*o", r) || size >= len(t) || t[size] != ' ' {
		return "", false
	}
	rest := bytes.TrimLeft(t[size:], " ")
	if len(rest) < 2 || rest[0] != '-' {
		return "", false
	}
	end := bytes.Index(rest, []byte(": "))
	if end < 0 {
		if rest[len(rest)-1] != ':' {
			return "", false
		}
		end = len(rest) - 1
	}
	if end > 100 {
		return "", false
	}
	return string(rest[:end]), true
}

// tagBeside returns the tag of a tag line whose text, when it starts on the
// same line, starts at column c, where the lines below it are indented:
// after two spaces, or after one when the tag is one word ("--best These
// are ...").
func tagBeside(raw []byte, c int) []byte {
	t := bytes.TrimLeft(raw, " ")
	if c < 2 || c >= len(raw) || raw[c-1] != ' ' || raw[c] == ' ' {
		return t
	}
	tag := bytes.TrimSpace(raw[:c])
	if raw[c-2] == ' ' {
		return tag
	}
	if r, _ := utf8.DecodeRune(raw[c:]); bytes.IndexByte(tag, ' ') < 0 && unicode.IsLetter(r) && tag[len(tag)-1] != ',' {
		return tag
	}
	return t
}

// term makes the heading of a term at an indentation: one level under the
// heading it is in and the terms less indented than it.
func (s *Segmenter) term(indent int, text string, span int) heading {
	for len(s.terms) > 0 && s.terms[len(s.terms)-1] >= indent {
		s.terms = s.terms[:len(s.terms)-1]
	}
	level := s.headLevel + 1 + len(s.terms)
	if len(s.terms) < 8 {
		s.terms = append(s.terms, indent)
	}
	return heading{text: text, level: level, term: true, span: span, names: optionNames(text)}
}

// tagLike reports a line that may be a tag: short, and not a sentence's
// end.
func tagLike(t []byte) bool {
	if len(t) == 0 || endsSentence(t) || bytes.Contains(t, []byte("   ")) {
		return false
	}
	if r, _ := utf8.DecodeRune(t); !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-+[<%$@/.", r) ||
		len(t) > 1 && (t[0] == 'o' || t[0] == '*') && t[1] == ' ' {
		return false // a bullet
	}
	if t[0] != '-' && bytes.ContainsAny(t, "'\"") {
		return false // an example
	}
	limit := 60
	if t[0] == '-' || t[0] == '+' {
		limit = 100
	}
	return utf8.RuneCount(t) <= limit
}

// endsSentence reports a line that ends a sentence or opens a list: a tag
// never does.
func endsSentence(t []byte) bool {
	switch t[len(t)-1] {
	case '.', ',', ':', ';':
		return !bytes.HasSuffix(t, []byte("..."))
	}
	return false
}

// optionNames returns the names a term defines: its options without their
// dashes ("-e, --extreme" → e, extreme; "--resolve <host>" → resolve), or,
// with none, its first word when that is a name ("XZ_DEFAULTS").
func optionNames(text string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '|' || r == '\t' }) {
		if f[0] != '-' && f[0] != '+' {
			continue
		}
		name := strings.TrimLeft(f, "-+")
		if i := strings.IndexAny(name, "=[<( "); i >= 0 {
			name = name[:i]
		}
		if name != "" && len(out) < 8 {
			out = append(out, name)
		}
	}
	if len(out) > 0 {
		return out
	}
	return codeNames(text)
}
