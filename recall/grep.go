package recall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

// grepBlock bounds the part of a matching line read to show it.
const grepBlock = 1 << 20

// matchWindow is the most bytes of a matching line shown around the match.
const matchWindow = 400

// countLimit bounds how far past a full page a search keeps counting
// matches, so a page of a huge result stays quick.
const countLimit = 64 << 20

// Grep searches a stored result for lines matching the request's pattern and
// returns a page of matches with line numbers, in the manner of grep -n:
// "N:line" for matches, "N-line" for context lines and "--" between groups.
func Grep(ctx context.Context, st store.Store, req Request, opts Options) (Page, error) {
	if req.Grep == nil {
		return Page{}, fmt.Errorf("%w: no search pattern", ErrBadRequest)
	}
	return Read(ctx, st, req, opts)
}

// Compile compiles a search pattern as Grep does.
func Compile(g GrepSpec) (*regexp.Regexp, error) {
	p := g.Pattern
	if g.IgnoreCase {
		p = "(?i)" + p
	}
	re, err := regexp.Compile("(?m)" + p)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern %q is not a valid RE2 expression: %v", ErrBadRequest, textfmt.Clip(g.Pattern, 40, "..."), err)
	}
	return re, nil
}

type match struct {
	line  int64
	start int64 // offset of the line
	end   int64 // offset past the line's newline
}

// scanner finds matching lines in order, from a starting offset. It scans
// the result a chunk at a time, in the buffer the chunk was verified in
// (nothing is copied but a line that crosses into the next chunk), and
// takes line numbers from the result's line index where it has one, so
// that newlines are counted only up to the matches.
type scanner struct {
	doc *lines.Doc
	src io.ReaderAt // the doc's bytes, read ahead for the scan
	re  *regexp.Regexp
	lit *finder // a literal every match holds, or nil
	// whole reports that lit is all of the pattern: a line matches when it
	// holds lit, and the expression need not run.
	whole bool
	pos   int64 // next offset to search, a line start
	line  int64 // line number at pos
	// chunkNL[i] is the number of newlines before chunk i, when known;
	// newlines is the number in all.
	chunkNL  []int64
	newlines int64
	// cur holds chunk curIdx, when src is not a read-ahead.
	cur    []byte
	curIdx int64
	// pending matches found in the current chunk
	queue []match
}

// prefilter sets the scanner to look for the literal of its pattern
// first: the pattern itself when it is a literal (the expression then never
// runs), else the longest literal every match holds.
func (s *scanner) prefilter() {
	if lit, ok := wholeLiteral(s.re); ok {
		f := newFinder(lit)
		s.lit, s.whole = &f, true
	} else if lit := requiredLiteral(s.re); lit != nil {
		f := newFinder(lit)
		s.lit = &f
	}
}

func (s *scanner) next(ctx context.Context) (match, bool, error) {
	for len(s.queue) == 0 {
		if s.pos >= s.doc.Size() {
			return match{}, false, nil
		}
		if err := ctx.Err(); err != nil {
			return match{}, false, err
		}
		if err := s.fill(); err != nil {
			return match{}, false, err
		}
	}
	m := s.queue[0]
	s.queue = s.queue[1:]
	return m, true, nil
}

// newScanner returns a scanner of the object doc reads, from pos, the
// start of line line, reading through src (the object, or a read-ahead of
// it).
func newScanner(doc *lines.Doc, obj store.Object, src io.ReaderAt, re *regexp.Regexp, pos, line int64) *scanner {
	s := &scanner{doc: doc, src: src, re: re, pos: pos, line: line}
	info := obj.Info()
	if info.Newlines != nil && int64(len(info.ChunkNewlines)) == (info.Size+store.ChunkSize-1)/store.ChunkSize {
		s.chunkNL, s.newlines = info.ChunkNewlines, *info.Newlines
	}
	return s
}

// chunk returns chunk idx of the result, verified. Its bytes stay valid
// until the next call for a later chunk.
func (s *scanner) chunk(idx int64) ([]byte, error) {
	size := s.doc.Size()
	n := min(store.ChunkSize, size-idx*store.ChunkSize)
	if a, ok := s.src.(*readAhead); ok {
		if b, err := a.chunkBytes(idx); b != nil || err != nil {
			return b, err
		}
	}
	if s.cur != nil && s.curIdx == idx {
		return s.cur, nil
	}
	if s.cur == nil {
		s.cur = make([]byte, min(store.ChunkSize, size))
	}
	s.cur = s.cur[:n]
	if k, err := s.src.ReadAt(s.cur, idx*store.ChunkSize); err != nil && !(errors.Is(err, io.EOF) && int64(k) == n) {
		s.cur = nil
		return nil, err
	}
	s.curIdx = idx
	return s.cur, nil
}

// fill searches the whole lines from pos to the end of its chunk, or the
// one line that starts at pos and crosses into the next chunk, and queues
// their matches.
func (s *scanner) fill() error {
	idx := s.pos / store.ChunkSize
	buf, err := s.chunk(idx)
	if err != nil {
		return err
	}
	seg := buf[s.pos-idx*store.ChunkSize:]
	nl := bytes.LastIndexByte(seg, '\n')
	if nl < 0 {
		return s.crossing(idx, seg)
	}
	blk := seg[:nl+1]
	// line is the number of the line that starts at blk[off].
	base, line, off := s.pos, s.line, 0
	// Without the literal every match holds, the chunk has no match (a
	// literal pattern is looked for by the loop itself).
	search := s.lit == nil || s.whole || s.lit.index(blk) >= 0
	for search && off < len(blk) {
		var at int
		if s.whole {
			i := s.lit.index(blk[off:])
			if i < 0 {
				break
			}
			at = off + i
		} else {
			loc := s.re.FindIndex(blk[off:])
			if loc == nil {
				break
			}
			at = off + loc[0]
		}
		if at >= len(blk) {
			break // an empty match past the last line
		}
		ls := off + bytes.LastIndexByte(blk[off:at], '\n') + 1
		line += int64(bytes.Count(blk[off:ls], []byte{'\n'}))
		le := at + bytes.IndexByte(blk[at:], '\n') + 1 // blk ends with a newline
		// A match that spans lines counts only if its first line matches
		// on its own, as grep matches line by line; a literal within a
		// line matched it already.
		if s.whole || s.re.Match(blk[ls:le-1]) {
			s.queue = append(s.queue, match{line: line, start: base + int64(ls), end: base + int64(le)})
		}
		line++
		off = le
	}
	s.pos = base + int64(len(blk))
	if s.chunkNL != nil {
		// The newlines before the end of the chunk, which blk ends at the
		// last of.
		s.line = s.newlines + 1
		if idx+1 < int64(len(s.chunkNL)) {
			s.line = s.chunkNL[idx+1] + 1
		}
	} else {
		s.line = line + int64(bytes.Count(blk[off:], []byte{'\n'}))
	}
	return nil
}

// maxCrossing is the most of a line that crosses chunks that is searched:
// a longer line is searched in its first maxCrossing bytes.
const maxCrossing = 4 * grepBlock

// crossing searches the line that starts at pos, whose first part seg
// (the rest of chunk idx) holds no newline: it goes on into the chunks
// after, or is the last line of the result.
func (s *scanner) crossing(idx int64, seg []byte) error {
	size := s.doc.Size()
	text := append([]byte(nil), seg[:min(len(seg), maxCrossing)]...)
	end := min(size, (idx+1)*store.ChunkSize)
	for end < size {
		idx++
		buf, err := s.chunk(idx)
		if err != nil {
			return err
		}
		i := bytes.IndexByte(buf, '\n')
		part := buf
		if i >= 0 {
			part = buf[:i]
		}
		text = append(text, part[:min(len(part), maxCrossing-len(text))]...)
		if i >= 0 {
			end = idx*store.ChunkSize + int64(i) + 1
			break
		}
		end = min(size, (idx+1)*store.ChunkSize)
	}
	if s.matches(text) {
		s.queue = append(s.queue, match{line: s.line, start: s.pos, end: end})
	}
	s.pos, s.line = end, s.line+1
	return nil
}

// matches reports whether one line, without its newline, matches.
func (s *scanner) matches(line []byte) bool {
	if s.lit != nil && s.lit.index(line) < 0 {
		return false
	}
	return s.whole || s.re.Match(line)
}

func grepObject(ctx context.Context, obj store.Object, req Request, opts Options) (Page, error) {
	g := *req.Grep
	re, err := Compile(g)
	if err != nil {
		return Page{}, err
	}
	// A search reads the content as text, as a read of named lines does
	// (see ReadObject): views name searches of whatever they show as lines.
	doc := NewDoc(obj)
	total, err := doc.Lines()
	if err != nil {
		return Page{}, err
	}
	startLine := max(g.From, 1)
	if startLine > total && total > 0 {
		return Page{}, fmt.Errorf("%w: --from %d is past the end: %s has %s", ErrOutOfRange, startLine, req.Ref, textfmt.Plural(total, "line"))
	}
	start, err := doc.LineStart(startLine)
	if err != nil {
		return Page{}, err
	}
	var src io.ReaderAt = obj
	if obj.Size()-start > 2*store.ChunkSize {
		ahead := newReadAhead(obj, obj.Size(), store.ChunkSize)
		defer ahead.close()
		src = ahead
	}
	sc := newScanner(doc, obj, src, re, start, startLine)
	sc.prefilter()
	// From the start, Skip passes over that many matches, so the page's
	// numbers are the matches' own; after the start it counts those before
	// From, which Validate bounds (see GrepSpec.Skip).
	if g.Skip > 0 && g.From <= 1 {
		if err := skipMatches(ctx, sc, req, g, total); err != nil {
			return Page{}, err
		}
	}
	big := int64(1) << 40
	fit := newFitter(opts.Counter, opts.Budget, 4, grepHeader(req, g, 1_000_000, big, false, total, total),
		"[next: "+opts.Hint(Request{Ref: req.Ref, Rev: req.Rev, Grep: &GrepSpec{Pattern: g.Pattern, IgnoreCase: g.IgnoreCase, Context: g.Context, Max: g.Max, From: total, Skip: 1_000_000}})+"]")

	var body strings.Builder
	shown := 0
	lastShown := int64(0) // the last line written, so context is not repeated
	firstShown := int64(0)
	capped := func() bool { return g.Max > 0 && g.Skip+shown >= g.Max }
	// One match of lookahead bounds the after-context of the current one.
	cur, ok, err := sc.next(ctx)
	if err != nil {
		return Page{}, err
	}
	var stoppedAt *match // the first match not shown for lack of room
	for ok && !capped() {
		nxt, more, err := sc.next(ctx)
		if err != nil {
			return Page{}, err
		}
		limit := total
		if more {
			limit = nxt.line - 1
		}
		gr, err := renderGroup(doc, cur, g.Context, lastShown, limit, re, opts)
		if err != nil {
			return Page{}, err
		}
		if !fit.try(gr.text, 0) {
			if shown > 0 {
				c := cur
				stoppedAt = &c
				if more {
					sc.queue = append([]match{nxt}, sc.queue...)
				}
				break
			}
			// One group larger than the page: the match line alone.
			if gr, err = renderGroup(doc, cur, 0, lastShown, cur.line, re, opts); err != nil {
				return Page{}, err
			}
			fit.force(gr.text, 0)
		}
		body.WriteString(gr.text)
		shown++
		if firstShown == 0 {
			firstShown = gr.first
		}
		lastShown = gr.last
		cur, ok = nxt, more
	}
	var next *Request
	if stoppedAt != nil && !capped() {
		ng := g
		ng.From, ng.Skip = stoppedAt.line, g.Skip+shown
		next = &Request{Ref: req.Ref, Rev: req.Rev, Grep: &ng}
	}
	// Count the matches after this page, when that is cheap, so the header
	// can say how many there are in all.
	remaining, counted := 0, true
	if stoppedAt != nil || (capped() && ok) {
		remaining = 1
		limit := sc.pos + countLimit
		for {
			if sc.pos >= limit && len(sc.queue) == 0 {
				counted = sc.pos >= doc.Size()
				break
			}
			_, more, err := sc.next(ctx)
			if err != nil {
				return Page{}, err
			}
			if !more {
				break
			}
			remaining++
		}
	}
	var out strings.Builder
	out.WriteString(grepHeader(req, g, shown, int64(g.Skip+shown+remaining), counted, startLine, total))
	if shown > 0 {
		out.WriteString("; lines " + textfmt.Int(firstShown) + "-" + textfmt.Int(lastShown) + " shown")
	}
	out.WriteString("]\n")
	out.WriteString(body.String())
	switch {
	case next != nil:
		out.WriteString("[next: " + opts.Hint(*next) + "]")
	case capped() && remaining > 0:
		out.WriteString(fmt.Sprintf("[stopped at --max %d matches]", g.Max))
	case shown == 0:
		return Page{Text: strings.TrimSuffix(out.String(), "\n"), Tokens: opts.pageTokens(out.String()), From: start, To: sc.pos}, nil
	default:
		out.WriteString("[no more matches]")
	}
	text := out.String()
	return Page{Text: text, Next: next, Tokens: opts.pageTokens(text), From: start, To: sc.pos}, nil
}

// skipMatches passes over the first g.Skip matches of a search from the
// start. A skip that leaves no match to show is an error wrapping
// ErrOutOfRange that says how many matches there are.
func skipMatches(ctx context.Context, sc *scanner, req Request, g GrepSpec, lines int64) error {
	n := 0
	for ; n < g.Skip; n++ {
		_, ok, err := sc.next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
	}
	if n == g.Skip && len(sc.queue) == 0 {
		// Look for one more match, keeping it for the page.
		m, ok, err := sc.next(ctx)
		if err != nil {
			return err
		}
		if ok {
			sc.queue = append(sc.queue, m)
			return nil
		}
	} else if n == g.Skip {
		return nil
	}
	count := "no matches"
	switch {
	case n == 1:
		count = "only 1 match"
	case n > 1:
		count = "only " + textfmt.Int(int64(n)) + " matches"
	}
	return fmt.Errorf("%w: --skip %s is past the last match: %s has %s of %q in %s",
		ErrOutOfRange, textfmt.Int(int64(g.Skip)), req.Ref, count, g.Pattern, textfmt.Plural(lines, "line"))
}

// grepHeader opens a search page; the caller closes its bracket.
func grepHeader(req Request, g GrepSpec, shown int, total int64, counted bool, from, lines int64) string {
	var b strings.Builder
	b.WriteString("[crumb grep ")
	b.WriteString(string(req.Ref))
	b.WriteString(" ")
	b.WriteString(fmt.Sprintf("%q", g.Pattern))
	if g.IgnoreCase {
		b.WriteString(" (ignoring case)")
	}
	b.WriteString(": ")
	if shown == 0 {
		b.WriteString("no matches in lines " + textfmt.Int(from) + "-" + textfmt.Int(max(from, lines)) + " of " + textfmt.Int(lines))
		return b.String()
	}
	b.WriteString(fmt.Sprintf("matches %s-%s of ", textfmt.Int(int64(g.Skip+1)), textfmt.Int(int64(g.Skip+shown))))
	if !counted {
		b.WriteString("at least ")
	}
	b.WriteString(textfmt.Int(total))
	return b.String()
}

type group struct {
	text        string
	first, last int64
}

// renderGroup renders a match with up to context lines around it: before
// it, none already shown (up to lastShown); after it, none past limit (the
// line before the next match, which shows its own). A gap from the previous
// group is marked with "--".
func renderGroup(doc *lines.Doc, m match, context int, lastShown, limit int64, re *regexp.Regexp, opts Options) (group, error) {
	var b strings.Builder
	first := max(m.line-int64(context), lastShown+1, 1)
	if lastShown > 0 && first > lastShown+1 {
		b.WriteString("--\n")
	}
	var before []lines.Line
	pos := m.start
	for ln := m.line - 1; ln >= first; ln-- {
		ps, err := doc.PrevLineStart(pos)
		if err != nil {
			break
		}
		l, err := doc.ReadLine(ps, matchWindow)
		if err != nil {
			return group{}, err
		}
		before = append(before, l)
		pos = ps
	}
	for i := len(before) - 1; i >= 0; i-- {
		writeGrepLine(&b, m.line-int64(i)-1, '-', before[i].Text, before[i].Cut, nil, opts)
	}
	ml, err := doc.ReadLine(m.start, 4*matchWindow+grepBlock)
	if err != nil {
		return group{}, err
	}
	writeGrepLine(&b, m.line, ':', ml.Text, ml.Cut, re, opts)
	last := m.line
	pos = ml.End
	for i := 0; i < context && pos < doc.Size() && last < limit; i++ {
		l, err := doc.ReadLine(pos, matchWindow)
		if err != nil {
			return group{}, err
		}
		last++
		writeGrepLine(&b, last, '-', l.Text, l.Cut, nil, opts)
		pos = l.End
	}
	return group{text: b.String(), first: m.line - int64(len(before)), last: last}, nil
}

// writeGrepLine writes one line of grep output. A long line is shortened to
// a window around its match, marked with "…".
func writeGrepLine(b *strings.Builder, n int64, sep byte, text []byte, cut bool, re *regexp.Regexp, opts Options) {
	// Plain numbers, as grep -n writes them.
	b.WriteString(strconv.FormatInt(n, 10))
	b.WriteByte(sep)
	if len(text) > matchWindow {
		lo, hi := 0, matchWindow
		if re != nil {
			if loc := re.FindIndex(text); loc != nil {
				lo = max(0, loc[0]-matchWindow/4)
				hi = min(len(text), lo+matchWindow)
			}
		}
		if lo > 0 {
			b.WriteString("…")
		}
		seg := text[lo:hi]
		// Keep whole UTF-8 characters at both ends.
		for len(seg) > 0 && seg[0]&0xc0 == 0x80 {
			seg = seg[1:]
		}
		seg = textfmt.CutUTF8(seg, len(seg))
		b.WriteString(opts.Line(seg, true))
		if hi < len(text) || cut {
			b.WriteString("…")
		}
	} else {
		b.WriteString(opts.Line(text, cut))
		if cut {
			b.WriteString("…")
		}
	}
	b.WriteByte('\n')
}

// minLiteral is the shortest literal worth looking for before running the
// expression.
const minLiteral = 3

// requiredLiteral returns the longest literal that every match of re
// holds, case for case, or nil if there is none of minLiteral bytes. A
// block without it holds no match, and bytes.Contains says so at memory
// speed.
func requiredLiteral(re *regexp.Regexp) []byte {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return nil
	}
	lit := required(t.Simplify())
	if len(lit) < minLiteral {
		return nil
	}
	return []byte(lit)
}

// required returns the longest literal every match of t holds.
func required(t *syntax.Regexp) string {
	literal := func(t *syntax.Regexp) (string, bool) {
		// U+FFFD also matches invalid UTF-8, which holds no such bytes.
		if t.Op == syntax.OpLiteral && t.Flags&syntax.FoldCase == 0 && !slices.Contains(t.Rune, utf8.RuneError) {
			return string(t.Rune), true
		}
		return "", false
	}
	switch t.Op {
	case syntax.OpLiteral:
		s, _ := literal(t)
		return s
	case syntax.OpCapture, syntax.OpPlus:
		return required(t.Sub[0])
	case syntax.OpRepeat:
		if t.Min >= 1 {
			return required(t.Sub[0])
		}
	case syntax.OpConcat:
		best, run := "", ""
		for _, sub := range t.Sub {
			if s, ok := literal(sub); ok {
				run += s
			} else {
				run = ""
				if s := required(sub); len(s) > len(best) {
					best = s
				}
			}
			if len(run) > len(best) {
				best = run
			}
		}
		return best
	}
	return ""
}
