package project

import (
	"strings"
	"unicode"

	"github.com/crumb-dev/crumb/tokens"
)

// Counting the tokens of a view while it is fitted to its budget. The JSON
// view tries many renderings of its outline (each level of detail, each
// container expanded or not), and most of their lines are the same from
// one rendering to the next; counting each whole rendering again made
// token counting most of the cost of a view. lineCounter counts each line
// once and adds the counts up, which gives exactly the count of the lines
// joined for the o200k_base tokenizer (see safeBreak), so the view's
// choices are the same as when every rendering was counted whole. With
// another counter, it counts the joined lines as they are.

// lineCounter counts the tokens of lines joined by line breaks,
// remembering the count of each line it has seen.
type lineCounter struct {
	c tokens.Counter
	// split is set when counts add up line by line (o200k_base).
	split bool
	// withBreak and last remember the counts of a line followed by a line
	// break, and of a last line; joined, of several lines that must be
	// counted together.
	withBreak map[string]int
	last      map[string]int
	joined    map[string]int
}

// newLineCounter returns a counter of lines for c.
func newLineCounter(c tokens.Counter) *lineCounter {
	return &lineCounter{c: c, split: c.Name() == tokens.O200k().Name(),
		withBreak: map[string]int{}, last: map[string]int{}, joined: map[string]int{}}
}

// count returns c.Count(strings.Join(lines, "\n")).
func (lc *lineCounter) count(lines []string) int {
	if len(lines) == 0 {
		return 0
	}
	if !lc.split {
		return lc.c.Count(strings.Join(lines, "\n"))
	}
	n := 0
	from := 0 // the first line of the segment being gathered
	for i := range lines {
		end := i == len(lines)-1
		if !end && !safeBreak(lines[i+1]) {
			continue
		}
		switch {
		case from == i && end:
			n += lc.memo(lc.last, lines[i], lines[i])
		case from == i:
			if c, ok := lc.withBreak[lines[i]]; ok {
				n += c
			} else {
				n += lc.memo(lc.withBreak, lines[i], lines[i]+"\n")
			}
		default:
			seg := strings.Join(lines[from:i+1], "\n")
			if !end {
				seg += "\n"
			}
			n += lc.memo(lc.joined, seg, seg)
		}
		from = i + 1
	}
	return n
}

// memo returns the count of text, remembered in m under key.
func (lc *lineCounter) memo(m map[string]int, key, text string) int {
	if c, ok := m[key]; ok {
		return c
	}
	c := lc.c.Count(text)
	m[key] = c
	return c
}

// safeBreak reports whether the tokens of text split at a line break
// followed by line are those of its two sides. o200k_base first cuts text
// into pieces with a regular expression and then encodes each piece apart;
// a piece that holds a line break ends with it unless what follows is more
// line breaks, white space up to a line break, or (after punctuation) a
// slash. So the split is exact when line starts with neither a slash nor a
// carriage return, holds something other than white space, and has no
// carriage return in the white space it starts with.
func safeBreak(line string) bool {
	if line == "" || line[0] == '/' {
		return false
	}
	for _, r := range line {
		switch {
		case r == '\r' || r == '\n':
			return false
		case !unicode.IsSpace(r):
			return true
		}
	}
	return false
}

// count returns the tokens of lines joined by line breaks, as
// v.in.Counter counts them, counting each line once per view.
func (v *jsonView) count(lines ...string) int {
	if v.counter == nil {
		v.counter = newLineCounter(v.in.Counter)
	}
	return v.counter.count(lines)
}
