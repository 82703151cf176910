package project

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Several files in one text block. A tool that reads several files at once
// (the filesystem server's read_multiple_files, and the like) returns them
// in one text block, each introduced by a line naming its path. When the
// call's arguments list those paths, the block is split into one part per
// file: each is stored apart and projected on its own (with its own path
// among its arguments), and they share the budget like separate blocks, so
// that every file gets its head and its outline instead of the first file
// taking the whole view.

// section is one file of a text block: the lines that introduce it (head),
// its text (body), and what separates it from the next (tail); head, body
// and tail of all the sections, in order, make up the block exactly.
type section struct {
	path             string
	head, body, tail string
}

// splitSections splits a text block into the files it holds: each starts
// at a line that is one of the paths, alone or followed by a colon, the
// paths found in the order listed. Nil unless two or more are found.
func splitSections(text string, paths []string) []section {
	type at struct {
		path       string
		start, end int // the head line, its newline included
	}
	var found []at
	from := 0
	for _, p := range paths {
		i := headLine(text[from:], p)
		if i < 0 {
			continue
		}
		start := from + i
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start + 1
		}
		found = append(found, at{p, start, end})
		from = end
	}
	if len(found) < 2 {
		return nil
	}
	out := make([]section, len(found))
	for i, f := range found {
		next := len(text)
		if i+1 < len(found) {
			next = found[i+1].start
		}
		head := text[f.start:f.end]
		if i == 0 {
			head = text[:f.end] // what comes before the first file goes with its head
		}
		body := text[f.end:next]
		tail := ""
		if i+1 < len(found) {
			body, tail = splitTail(body)
		}
		out[i] = section{path: f.path, head: head, body: body, tail: tail}
	}
	return out
}

// headLine returns the offset of the first line of s that is p, or p and a
// colon, or -1.
func headLine(s, p string) int {
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], p)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(p)
		rest := s[end:]
		rest = strings.TrimPrefix(rest, ":")
		rest = strings.TrimRight(rest[:lineEnd(rest)], " \t\r")
		if (i == 0 || s[i-1] == '\n') && rest == "" {
			return i
		}
		off = i + 1
	}
	return -1
}

func lineEnd(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return i
	}
	return len(s)
}

// splitTail splits the separator off the end of a file's text: the blank
// lines and a line of dashes or equal signs that come before the next file.
func splitTail(body string) (string, string) {
	end := len(body)
	trimmed := strings.TrimRight(body, "\n")
	if i := strings.LastIndexByte(trimmed, '\n'); i >= 0 {
		last := strings.TrimSpace(trimmed[i+1:])
		if len(last) >= 3 && (strings.Trim(last, "-") == "" || strings.Trim(last, "=") == "") {
			trimmed = strings.TrimRight(trimmed[:i], "\n")
		}
	}
	if len(trimmed) < end {
		// Keep the file's own last newline in its body.
		cut := len(trimmed)
		if cut < end && body[cut] == '\n' {
			cut++
		}
		return body[:cut], body[cut:]
	}
	return body, ""
}

// withPath returns the call's arguments with "path" set to p, for the
// projection of one file of several.
func withPath(raw json.RawMessage, p string) json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	m["path"] = json.RawMessage(quoteJSON(p))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return raw
	}
	return bytes.TrimSpace(b.Bytes())
}
