// Package sections finds the sections of a document by their headings, in
// one streaming pass over its lines: the h1–h6 headings and <dt> terms of
// HTML, the ATX and setext headings of Markdown, the underlined titles of
// reStructuredText, the SECTION lines and the option and term entries of a
// rendered man page, and the numbered and capitalised headings of plain
// text (RFCs, licences, specifications). Each section has its heading, its
// level and its first and last lines.
//
// Given an intent, the same pass ranks the sections through package rank:
// the heading is a section's name, its first lines its head, the rest its
// body, and a term or option named exactly by the intent ("--resolve",
// "brief") outranks a section that only mentions its words.
//
// The segmenter holds a few lines of lookahead and a bounded number of
// sections, so that segmenting a document of any size costs a fixed amount
// of memory.
package sections

import (
	"bytes"
	"path"
	"strings"

	"github.com/crumb-dev/crumb/internal/sniff"
)

// Format is the markup a document is written in, which says how its
// headings look.
type Format uint8

// The formats.
const (
	// Plain is plain text: underlined titles, numbered headings ("3.2.1.
	// Title", "5. Termination.", "Section 4") and capitalised headings.
	// reStructuredText is read as Plain: its titles are underlined.
	Plain Format = iota
	// Markdown adds ATX headings ("## Title") and skips fenced code.
	Markdown
	// HTML headings are h1–h6 elements; <dt> terms are entries under them.
	HTML
	// Man is a rendered manual page (man -P cat): unindented SECTION lines,
	// indented subsections and the indented tags of option and term
	// entries.
	Man
	// Blocks is text without headings, read as blocks of lines: each run
	// of lines between blank lines (at most MaxBlock lines) is a section
	// whose first line stands for its heading. Detect never returns it.
	Blocks
	// Git is the output of git log and git show: each commit ("commit
	// <sha>" and its header lines) is a section, and each file's changes
	// in it ("diff --git a/x b/x") one under it (see IsGit). Detect never
	// returns it: a diff read as a file keeps its regions by path.
	Git
)

// String names the format for a view's header.
func (f Format) String() string {
	switch f {
	case Markdown:
		return "Markdown"
	case HTML:
		return "HTML"
	case Man:
		return "man page"
	case Git:
		return "git"
	}
	return "text"
}

// Grep returns an RE2 pattern that finds the format's headings line by
// line, for a read that lists those a view leaves out.
func (f Format) Grep() string {
	switch f {
	case Markdown:
		return `^#{1,6} `
	case HTML:
		return `(?i)<(h[1-6]|dt)[ >]`
	case Man:
		return `^[A-Z][A-Z0-9 ,/&()-]+$|^ {1,12}--?[A-Za-z0-9]`
	case Blocks:
		return `^\S`
	case Git:
		return `^(commit [0-9a-f]{7,}|diff --git )`
	}
	return `^ {0,4}((\d+\.)+\d*|[A-Z]\.|(?i:section|article|appendix) [0-9A-Z]+)\.? +[A-Z]|^ *[A-Z][A-Z0-9 ,/&()-]+$`
}

// Detect tells a document's format from its file name, when there is one,
// and its first bytes. It reports false for text that is none of the
// formats' documents (source code, logs, data), which has no sections to
// find. HTML and Markdown without a name that says so are told by their
// content (package sniff); plain text counts as a document only when its
// name says so (a .txt, .rst or licence file).
func Detect(name string, head []byte) (Format, bool) {
	base := strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/")))
	if isMan(head) {
		return Man, true
	}
	switch path.Ext(base) {
	case ".yaml", ".yml", ".json", ".toml", ".ini", ".cfg", ".conf", ".xml", ".csv", ".log", ".lock", ".sum", ".mod", ".sh", ".env":
		// Data and configuration: a "#" line is a comment.
		return Plain, false
	case ".html", ".htm", ".xhtml":
		return HTML, true
	case ".md", ".markdown", ".mdx":
		return Markdown, true
	case ".rst", ".txt", ".text", ".adoc":
		return Plain, true
	}
	form := sniff.TextOf(head, nil).Form
	if form == sniff.HTML {
		return HTML, true
	}
	if ext := strings.TrimPrefix(path.Ext(base), "."); name != "" && strings.Trim(ext, "0123456789") == "" && licenceName(base) {
		return Plain, true
	}
	if form == sniff.Markdown {
		return Markdown, true
	}
	return Plain, false
}

// licenceName reports the names licences and similar prose files go by.
func licenceName(base string) bool {
	for _, p := range []string{"license", "licence", "copying", "notice", "readme", "gpl", "lgpl", "mpl", "apache", "bsd", "gfdl", "artistic", "cc0"} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// isMan reports a rendered manual page: its first non-blank line is the
// page's header, "NAME(SECTION)  title  NAME(SECTION)", and a NAME section
// follows.
func isMan(head []byte) bool {
	rest := bytes.TrimLeft(head, "\n")
	i := bytes.IndexByte(rest, '\n')
	if i < 0 {
		return false
	}
	first := bytes.TrimSpace(rest[:i])
	f := bytes.Fields(first)
	if len(f) < 2 {
		return false
	}
	a, b := f[0], f[len(f)-1]
	if !bytes.Equal(a, b) || bytes.IndexByte(a, '(') <= 0 || a[len(a)-1] != ')' {
		return false
	}
	return bytes.Contains(rest[i:min(len(rest), i+400)], []byte("\nNAME\n")) || bytes.Contains(rest[i:min(len(rest), i+400)], []byte("\nNOM\n"))
}

// Section is one section of a document.
type Section struct {
	// Heading is the heading's text, without markup; for a term, its tag
	// ("-e, --extreme", "--resolve <[+]host:port:addr>").
	Heading string
	// Anchor is an HTML heading's id or name, when it has one.
	Anchor string
	// Names are the names a term defines, without their dashes ("e",
	// "extreme"): an intent word equal to one names the term exactly.
	Names []string
	// Level is the heading's depth, 1 for the top; a term is one deeper
	// than the heading it is under.
	Level int
	// Term marks an entry of a list of terms or options (a man page's
	// tagged paragraph, an HTML <dt>) rather than a heading.
	Term bool
	// Line is the heading's first line, Body the first line after the
	// heading (its underline, or the rest of a multi-line tag, excluded).
	Line, Body int64
	// Match is the line of the section's own text that holds most of the
	// intent (0 without an intent, or when no line of its text holds any).
	Match int64
	// End is the last line of the section's own text, before the next
	// heading; Last the last line of the section with its subsections,
	// before the next heading of its level or higher.
	End, Last int64
}
