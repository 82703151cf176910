package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/rank"
)

func commas(n int) string   { return textfmt.Int(int64(n)) }
func sizeText(n int) string { return textfmt.Size(int64(n)) }

func plural(n int, word string) string { return textfmt.Plural(int64(n), word) }

func lineCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// scanLimit bounds how much of a result is looked at for its one line.
const scanLimit = 256 << 10

// viewHead matches the header of a crumb view, whose ref names the result
// the view was made of.
var viewHead = lazyre.New(`^\[crumb [^\]]*?\bref ([0-9a-f]{16})`)

// viewRef returns the ref a crumb view names in its first line, or "".
func viewRef(body []byte) string {
	first, _, _ := bytes.Cut(body[:min(len(body), 4096)], []byte{'\n'})
	if m := viewHead.FindSubmatch(first); m != nil {
		return string(m[1])
	}
	return ""
}

// foundLine is the one line that says what a tool result held: a crumb
// view's header, the first line that reports an error or a problem (by the
// error vocabulary, rank.LineSeverity), else the first line
// with words in it (for JSON, the shape of the document).
func foundLine(body []byte, kind string) string {
	if kind == "json" {
		return jsonShape(body)
	}
	head := body[:min(len(body), scanLimit)]
	first := ""
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte{'\n'})
		s := strings.TrimSpace(textfmt.CleanLine(line))
		if s == "" || strings.Trim(s, "-=*#_~`|+ ") == "" {
			continue
		}
		if strings.HasPrefix(s, "[crumb ") {
			return textfmt.Clip(s, 240, "…")
		}
		if first == "" {
			first = s
		}
		if rank.LineSeverity([]byte(s)) == rank.Error {
			return textfmt.Clip(s, 200, "…")
		}
	}
	return textfmt.Clip(first, 200, "…")
}

// jsonShape describes a JSON document in a few words: its top-level keys or
// its length.
func jsonShape(body []byte) string {
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return ""
	}
	switch b[0] {
	case '{':
		if o, err := parseObject(b); err == nil {
			keys := o.o.Keys()
			return textfmt.Clip(fmt.Sprintf("a JSON object with %d keys: %s", len(keys), strings.Join(keys, ", ")), 200, "…")
		}
	case '[':
		var elems []json.RawMessage
		if json.Unmarshal(b, &elems) == nil {
			if t := contentText(b); t != "" {
				return foundLine([]byte(t), "text")
			}
			return fmt.Sprintf("a JSON array of %d values", len(elems))
		}
	}
	return foundLine(b, "text")
}

// digest is the deterministic extractive summary of messages [first, end):
// one line per user or assistant message (its first words, each tool call it
// made and what the call found), cut to fit room tokens.
func (c *Compactor) digest(t *thread, first, end, room int) string {
	// Where each call's result is; what it found is read only for the
	// lines that fit, so a block of thousands of messages costs little more
	// than one of a few.
	results := map[string]toolResult{}
	for i := first; i < end; i++ {
		for _, r := range t.msgs[i].results {
			results[r.callID] = r
		}
	}
	found := func(id string) (string, bool) {
		r, ok := results[id]
		if !ok {
			return "", false
		}
		body, kind := resultBytes(r.content)
		f := textfmt.Clip(foundLine(body, kind), 140, "…")
		if isBreadcrumb(r.content) {
			f = "(a breadcrumb)"
		}
		if r.isError {
			f = "error: " + f
		}
		return fmt.Sprintf("%s, %s", sizeText(len(body)), f), true
	}
	lines := 0
	for i := first; i < end; i++ {
		if !t.msgs[i].answer {
			lines++
		}
	}
	var b strings.Builder
	used, n := 0, 0
	for i := first; i < end; i++ {
		m := t.msgs[i]
		if m.answer {
			continue
		}
		var l strings.Builder
		l.WriteString("- " + m.role + ":")
		if s := firstWords(contentText(messageText(m, t.format))); s != "" {
			l.WriteString(" " + textfmt.Clip(s, 120, "…"))
		}
		for _, tc := range m.calls {
			fmt.Fprintf(&l, " [called %s %s", tc.name, textfmt.Clip(string(tc.args), 100, "…"))
			if f, ok := found(tc.id); ok {
				l.WriteString(" → " + f)
			}
			l.WriteString("]")
		}
		cost := c.opts.Counter.Count(l.String()) + 1
		if used+cost > room && n > 0 {
			fmt.Fprintf(&b, "\n- … %s: read %s", plural(lines-n, "more message"), map[bool]string{true: "it", false: "them"}[lines-n == 1])
			break
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.String())
		used += cost
		n++
	}
	return b.String()
}

// messageText is the content of a message that is its own text (not tool
// results).
func messageText(m *message, f Format) json.RawMessage {
	if f == Anthropic {
		content := m.obj.get("content")
		if len(content) > 0 && content[0] == '[' {
			parts, err := parseArray(content)
			if err != nil {
				return nil
			}
			var keep []json.RawMessage
			for _, p := range parts {
				if o, err := parseObject(p); err == nil && o.str("type") != "tool_result" {
					keep = append(keep, p)
				}
			}
			return joinArray(keep)
		}
	}
	return m.obj.get("content")
}

// firstWords is the start of a text: its first line, cut to 200 bytes.
func firstWords(s string) string {
	s = strings.TrimSpace(s)
	line, rest, _ := strings.Cut(s, "\n")
	line = strings.TrimSpace(textfmt.CleanLine([]byte(line)))
	if strings.TrimSpace(rest) != "" {
		line += " …"
	}
	return textfmt.Clip(line, 200, "…")
}

// countable returns the text of a message that its tokens are counted on,
// with the data of attachments left out, and the number of attachments.
func countable(raw json.RawMessage) (string, int) {
	if !bytes.Contains(raw, []byte(`"type"`)) || !(bytes.Contains(raw, []byte(`image`)) || bytes.Contains(raw, []byte(`audio`)) ||
		bytes.Contains(raw, []byte(`"file"`)) || bytes.Contains(raw, []byte(`"document"`))) {
		return string(raw), 0
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw), 0
	}
	n := 0
	v = elide(v, &n)
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw), 0
	}
	return string(out), n
}

func elide(v any, n *int) any {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["type"].(string); ok && mediaTypes[t] {
			*n++
			return map[string]any{"type": t}
		}
		for k, e := range x {
			x[k] = elide(e, n)
		}
	case []any:
		for i, e := range x {
			x[i] = elide(e, n)
		}
	}
	return v
}
