package sections

// The headings of HTML.

import (
	"bytes"
	"html"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/rank"
)

// htmlHeading finds an h1–h6 element or a <dt> term that opens on the
// current line; its text may go on over the next lines.
func (s *Segmenter) htmlHeading(cur *line, next []line) (heading, bool) {
	t := cur.t
	if len(t) == 0 || bytes.IndexByte(t, '<') < 0 {
		return heading{}, false
	}
	s.low = rank.AppendLower(s.low[:0], t)
	low := s.low
	if len(s.skipTag) > 0 {
		if bytes.Contains(low, s.skipTag) {
			s.skipTag = s.skipTag[:0]
		}
		return heading{}, false
	}
	for _, tag := range []string{"<script", "<style"} {
		if i := bytes.Index(low, []byte(tag)); i >= 0 && !bytes.Contains(low[i:], []byte("</"+tag[1:])) {
			s.skipTag = append(s.skipTag[:0], "</"+tag[1:]...)
			return heading{}, false
		}
	}
	at, level, closer := -1, 0, ""
	for i := 0; i+3 < len(low); i++ {
		if low[i] != '<' {
			continue
		}
		if low[i+1] == 'h' && low[i+2] >= '1' && low[i+2] <= '6' && (low[i+3] == '>' || low[i+3] == ' ') {
			at, level, closer = i, int(low[i+2]-'0'), "</h"+string(low[i+2])
			break
		}
		if low[i+1] == 'd' && low[i+2] == 't' && (low[i+3] == '>' || low[i+3] == ' ') {
			at, level, closer = i, 0, "</dt"
			break
		}
	}
	if at < 0 {
		return heading{}, false
	}
	// The element, up to its end tag, over at most the lines held.
	el := append([]byte(nil), t[at:]...)
	span := 1
	for _, l := range next {
		if bytes.Contains(rank.AppendLower(nil, el), []byte(closer)) {
			break
		}
		el = append(append(el, ' '), l.t...)
		span++
	}
	end := bytes.Index(rank.AppendLower(nil, el), []byte(closer))
	if end < 0 {
		return heading{}, false
	}
	el = el[:end]
	if level == 0 && onlyLinks(el) {
		return heading{}, false // an entry of a table of contents
	}
	text := collapse(strings.TrimRight(html.UnescapeString(string(stripTags(nil, el, false))), " \t¶#"))
	if text == "" {
		return heading{}, false
	}
	h := heading{text: text, anchor: anchorOf(el), span: span}
	if level > 0 {
		s.headLevel = level
		h.level = level
		h.names = codeNames(text)
	} else {
		h.level, h.term = s.headLevel+1, true
		h.names = optionNames(text)
	}
	return h, true
}

// onlyLinks reports markup whose text is all inside links: a table of
// contents' entry, not a term.
func onlyLinks(el []byte) bool {
	low := rank.AppendLower(nil, el)
	var rest []byte
	for {
		i := bytes.Index(low, []byte("<a "))
		if i < 0 {
			rest = append(rest, low...)
			break
		}
		rest = append(rest, low[:i]...)
		j := bytes.Index(low[i:], []byte("</a>"))
		if j < 0 {
			break
		}
		if !bytes.Contains(low[i:i+j], []byte("href=")) {
			rest = append(rest, low[i:i+j]...)
		}
		low = low[i+j+4:]
	}
	return len(bytes.TrimSpace(stripTags(nil, rest, false))) == 0 && bytes.Contains(rank.AppendLower(nil, el), []byte("href="))
}

// anchorOf returns the first id or name attribute in an element's markup.
func anchorOf(el []byte) string {
	low := rank.AppendLower(nil, el)
	for _, attr := range []string{` id="`, ` name="`, ` id='`, ` name='`} {
		if i := bytes.Index(low, []byte(attr)); i >= 0 {
			rest := el[i+len(attr):]
			if j := bytes.IndexByte(rest, attr[len(attr)-1]); j > 0 {
				return textfmt.Clip(html.UnescapeString(string(rest[:j])), maxHeading, "…")
			}
		}
	}
	return ""
}

// stripTags appends b without its HTML tags (a tag left open at the end
// is dropped too), each replaced by a space when spaced.
func stripTags(dst, b []byte, spaced bool) []byte {
	in := false
	for _, c := range b {
		switch {
		case c == '<':
			in = true
		case c == '>' && in:
			in = false
			if spaced {
				dst = append(dst, ' ')
			}
		case !in:
			dst = append(dst, c)
		}
	}
	return dst
}

// collapse trims a text and turns each run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
