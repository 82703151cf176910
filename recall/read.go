package recall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// DefaultBudget is the token budget of a page when none is given.
const DefaultBudget = 2000

// MinBudget is the smallest budget a page is built for; smaller budgets are
// raised to it so that every page can show its header, some content and the
// next read.
const MinBudget = 100

// MaxBudget is the largest budget a page or a view may ask for: more than
// any model's context holds, and small enough that the sizes derived from a
// budget (the bytes of a line read for a page) cannot overflow. It is the
// budget of the one table every surface checks (internal/limits).
const MaxBudget = limits.MaxBudget

// Options shape a page.
type Options struct {
	// Budget is the most tokens the page may take, header and footer
	// included. Zero means DefaultBudget.
	Budget int
	// Counter counts tokens; nil means o200k_base.
	Counter tokens.Counter
	// Hint renders the next read; nil means CLIHint.
	Hint Hint
	// Numbers prefixes each line with its line number.
	Numbers bool
	// Line renders one line of content for the page; nil means PlainLine.
	// The Guard and the MCP proxy use it to replace embedded base64 blobs
	// with references.
	Line LineFunc
	// NoPageTokens leaves Page.Tokens at zero, for a caller that does not
	// report it: a page that plainly fits its budget is then built without
	// running the counter at all.
	NoPageTokens bool
}

// pageTokens returns Page.Tokens of a page with text.
func (o Options) pageTokens(text string) int {
	if o.NoPageTokens {
		return 0
	}
	return o.Counter.Count(text)
}

// LineFunc renders one line of a result for a view. fragment reports that
// line is only a part of a longer line, cut at either end.
type LineFunc func(line []byte, fragment bool) string

// PlainLine renders a line with textfmt.CleanLine: no control bytes, no
// escape sequences, valid UTF-8.
func PlainLine(line []byte, _ bool) string { return textfmt.CleanLine(line) }

// Validate checks the options a caller chose: a budget of 0 (the default)
// or from 1 to MaxBudget tokens; budgets under MinBudget are raised to it.
func (o Options) Validate() error {
	return ValidateBudget(o.Budget)
}

// ValidateBudget checks a token budget as Options.Validate does. The command
// line and the MCP tools call it on the budgets they are given.
func ValidateBudget(n int) error {
	if n != 0 && limits.Budget.Check(int64(n)) != nil {
		return fmt.Errorf("%w: a budget of %s tokens: want %s; 0 means the default, %s", ErrBadRequest, textfmt.Int(int64(n)), limits.Budget.Range(), textfmt.Int(DefaultBudget))
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	o.Budget = min(max(o.Budget, MinBudget), MaxBudget)
	if o.Counter == nil {
		o.Counter = tokens.O200k()
	}
	if o.Hint == nil {
		o.Hint = CLIHint
	}
	if o.Line == nil {
		o.Line = PlainLine
	}
	return o
}

// Page is one page of a read or a search.
type Page struct {
	// Text is what the model sees: a header line, the content, and a last
	// line that gives the next read or says the end was reached.
	Text string `json:"page"`
	// Next reads what follows; nil at the end.
	Next *Request `json:"next,omitempty"`
	// Tokens is the o200k_base (or the Counter's) token count of Text;
	// zero with Options.NoPageTokens.
	Tokens int `json:"tokens"`
	// From and To are the byte offsets of the content shown, To exclusive:
	// from the first byte shown to the last.
	From int64 `json:"from"`
	To   int64 `json:"to"`
	// Shown lists the byte ranges the page shows, each To exclusive, in
	// order: one for a read of one range, more when a page reads on into
	// the next range of a read of several. Nil for a search.
	Shown []Span `json:"-"`
}

// Open opens the stored result a request names and checks its revision.
func Open(ctx context.Context, st store.Store, req Request) (store.Object, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	obj, err := st.Open(ctx, req.Ref)
	if err != nil {
		return nil, err
	}
	if req.Rev != "" && !strings.HasPrefix(obj.Info().Digest, req.Rev) {
		obj.Close()
		return nil, fmt.Errorf("%w: %s holds revision %s, the continuation is for %s; read it again from its first page", ErrRevision, req.Ref, obj.Info().Digest[:RevLen], req.Rev)
	}
	return obj, nil
}

// Rev returns the revision a continuation of content with the given digest
// carries.
func Rev(digest string) string {
	if len(digest) > RevLen {
		return digest[:RevLen]
	}
	return digest
}

// NewDoc returns line-addressed access to a stored object, using the line
// index the store recorded when there is one: with it, a page in the middle
// of a large result reads only the chunks its lines lie in.
func NewDoc(obj store.Object) *lines.Doc {
	info := obj.Info()
	d := lines.New(obj, obj.Size(), info.Newlines, info.ChunkNewlines, store.ChunkSize)
	if info.Lines != nil {
		d.KnowLines(*info.Lines)
	}
	return d
}

// Read returns a page of a stored result: the lines or bytes the request
// names, as many whole lines as fit the budget, or a search (see Grep). The
// page ends with the next read, or says the end was reached.
func Read(ctx context.Context, st store.Store, req Request, opts Options) (Page, error) {
	if err := opts.Validate(); err != nil {
		return Page{}, err
	}
	obj, err := Open(ctx, st, req)
	if err != nil {
		return Page{}, err
	}
	defer obj.Close()
	if req.Pointer != nil || req.Query != "" {
		return readSelection(ctx, st, obj, req, opts.withDefaults())
	}
	return ReadObject(ctx, obj, req, opts)
}

// ReadObject is Read over an object already open.
func ReadObject(ctx context.Context, obj store.Object, req Request, opts Options) (Page, error) {
	if err := req.Validate(); err != nil {
		return Page{}, err
	}
	if err := opts.Validate(); err != nil {
		return Page{}, err
	}
	opts = opts.withDefaults()
	if req.Grep != nil {
		return grepObject(ctx, obj, req, opts)
	}
	if req.Pointer != nil || req.Query != "" {
		return Page{}, fmt.Errorf("%w: JSON pointer and jq reads need the store: use Read", ErrBadRequest)
	}
	doc := NewDoc(obj)
	// A read that names its lines or bytes reads them as text, whatever
	// the content looks like: views name such reads for whatever they show
	// as lines, and every line is rendered clean. Only a read that names
	// nothing, the first page of a result, refuses content that is binary,
	// and only when its view did too (see readsAsBinary).
	if req.Lines == nil && req.Bytes == nil && readsAsBinary(obj) {
		info := obj.Info()
		return Page{}, fmt.Errorf("%w: %s holds %s of %s; it has no lines to show. Write the exact bytes to a file with: crumb read %s --all > FILE",
			ErrBinary, req.Ref, textfmt.Size(info.Size), sniff.Describe(headOf(obj)), req.Ref)
	}
	spans, err := resolve(doc, req)
	if err != nil {
		return Page{}, err
	}
	w := pageWriter{doc: doc, opts: opts, req: req, spans: spans, bytes: req.Bytes != nil}
	return w.page(ctx)
}

// byteRange is a range of bytes [from, end) of a result.
type byteRange struct{ from, end int64 }

// resolve returns the request's ranges, lines from 1 to the end when it
// names none, after checking that each starts inside the result. Ranges are
// turned into byte offsets only when a page reaches them (see
// pageWriter.start): a read of many ranges costs what a read of one does.
func resolve(doc *lines.Doc, req Request) ([]Span, error) {
	size := doc.Size()
	if req.Bytes != nil {
		spans := req.Ranges()
		for _, s := range spans {
			if s.From >= size && !(s.From == 0 && size == 0) {
				return nil, fmt.Errorf("%w: byte %d is past the end: %s holds %s bytes (offsets 0:%d)", ErrOutOfRange, s.From, req.Ref, textfmt.Int(size), size)
			}
		}
		return spans, nil
	}
	spans := []Span{{From: 1}}
	if req.Lines != nil {
		spans = req.Ranges()
	}
	total, err := doc.Lines()
	if err != nil {
		return nil, err
	}
	for _, s := range spans {
		if s.From > total && !(s.From == 1 && total == 0) {
			return nil, fmt.Errorf("%w: line %d is past the end: %s has %s (read --lines 1:%d)", ErrOutOfRange, s.From, req.Ref, textfmt.Plural(total, "line"), total)
		}
	}
	return spans, nil
}

// pageWriter builds one page of lines from a request's ranges.
type pageWriter struct {
	doc   *lines.Doc
	opts  Options
	req   Request
	spans []Span // the ranges to read, checked by resolve
	// bytes reports that the page's next read counts bytes: the request
	// did, or a line was cut.
	bytes bool
}

// byteRange returns the bytes range i of the request covers.
func (w *pageWriter) byteRange(i int) (byteRange, error) {
	s, size := w.spans[i], w.doc.Size()
	if w.req.Bytes != nil {
		end := s.To
		if end == 0 || end > size {
			end = size
		}
		return byteRange{s.From, end}, nil
	}
	from, err := w.doc.LineStart(s.From)
	if err != nil {
		return byteRange{}, err
	}
	end, err := w.lineRangeEnd(i)
	return byteRange{from, end}, err
}

// lineRangeEnd returns the offset just past line range i.
func (w *pageWriter) lineRangeEnd(i int) (int64, error) {
	last, err := w.lastLine(i)
	if err != nil {
		return 0, err
	}
	total, err := w.doc.Lines()
	if err != nil || last >= total {
		return w.doc.Size(), err
	}
	return w.doc.LineStart(last + 1)
}

// lastLine returns the last line of line range i.
func (w *pageWriter) lastLine(i int) (int64, error) {
	total, err := w.doc.Lines()
	if err != nil {
		return 0, err
	}
	if s := w.spans[i]; s.To != 0 && s.To < total {
		return s.To, nil
	}
	return total, nil
}

// cursor is where a page is in range i: the offset pos, which starts line.
// A range of lines ends after its last line, found by number, so that a
// page never looks for the offset of a range's end (often in another
// chunk of the result); a range of bytes ends at end.
type cursor struct {
	i         int
	pos, line int64
	lastLine  int64 // for lines
	end       int64 // for bytes
}

// start returns the cursor at the start of range i.
func (w *pageWriter) start(i int) (cursor, error) {
	c := cursor{i: i}
	if w.req.Bytes != nil {
		r, err := w.byteRange(i)
		if err != nil {
			return c, err
		}
		c.pos, c.end = r.from, r.end
		c.line, err = w.doc.LineAt(c.pos)
		return c, err
	}
	var err error
	c.line = w.spans[i].From
	if c.pos, err = w.doc.LineStart(c.line); err != nil {
		return c, err
	}
	c.lastLine, err = w.lastLine(i)
	return c, err
}

// more reports whether the cursor is inside its range.
func (w *pageWriter) more(c cursor) bool {
	if w.req.Bytes != nil {
		return c.pos < c.end
	}
	return c.line <= c.lastLine && c.pos < w.doc.Size()
}

// shownPart is a stretch of one range that a page shows.
type shownPart struct {
	from, to    int64 // bytes, to exclusive
	first, last int64 // lines
}

func (w *pageWriter) page(ctx context.Context) (Page, error) {
	total, err := w.doc.Lines()
	if err != nil {
		return Page{}, err
	}
	// Reserve room for the header and the footer at their longest: every
	// range shown, and every range still to read, in lines, or in bytes
	// for a read of bytes. A read of lines turns into one of bytes only when
	// it cuts a line, which then has that much less room (cutRoom).
	size := w.doc.Size()
	all := make([]shownPart, len(w.spans))
	inLines, inBytes := make([]Span, len(w.spans)), make([]Span, len(w.spans))
	for i := range w.spans {
		all[i] = shownPart{from: size, to: size, first: total, last: total + 1}
		inLines[i], inBytes[i] = Span{From: total, To: total + 1}, Span{From: size, To: size + 1}
	}
	footer := func(bytes bool, spans []Span) string {
		r := Request{Ref: w.req.Ref, Rev: w.req.Rev}
		r.SetRanges(bytes, spans)
		return w.footer(&r)
	}
	longest := footer(w.bytes, inLines)
	if w.bytes {
		longest = footer(true, inBytes)
	}
	fit := newFitter(w.opts.Counter, w.opts.Budget, 4, w.header(all, total), longest)
	// cutRoom is the room for a line cut in a read of lines, whose next
	// read then counts bytes; counted only then.
	cutRoom := func() int {
		return fit.room() - max(0, w.opts.Counter.Count(footer(true, inBytes))-w.opts.Counter.Count(longest))
	}
	width := len(textfmt.Int(total))

	var body strings.Builder
	used := false // something is on the page
	var shown []shownPart
	maxLine := w.opts.Budget * 16 // bytes; a line can't take fewer than ~1 token per 16 bytes
	c, err := w.start(0)
	if err != nil {
		return Page{}, err
	}
	startPos := c.pos
	full := false
	for c.i < len(w.spans) && !full {
		if !w.more(c) {
			if c.i+1 == len(w.spans) {
				c.i++
				break
			}
			if c, err = w.start(c.i + 1); err != nil {
				return Page{}, err
			}
			continue
		}
		// What lies between this range and the last one shown is named
		// before the range's first line, if that line fits.
		gap := ""
		if len(shown) > 0 {
			if gap, err = w.skipped(shown[len(shown)-1].to, c.pos); err != nil {
				return Page{}, err
			}
			gap += "\n"
		}
		part := shownPart{from: c.pos, to: c.pos, first: c.line, last: c.line - 1}
		for w.more(c) {
			if err := ctx.Err(); err != nil {
				return Page{}, err
			}
			l, err := w.doc.ReadLine(c.pos, maxLine)
			if err != nil {
				return Page{}, err
			}
			if w.req.Bytes != nil && l.End > c.end { // a byte range that ends inside a line
				l.End = c.end
				if n := int(c.end - l.Start); n < len(l.Text) {
					l.Text = l.Text[:n]
				}
				l.Cut = false
			}
			text := w.render(l.Text, c.line, width, false)
			if !l.Cut && fit.try(gap+text, 1) {
				body.WriteString(gap)
				gap = ""
				body.WriteString(text)
				body.WriteByte('\n')
				used = true
				c.pos = l.End
				part.to, part.last = c.pos, c.line
				c.line++
				continue
			}
			full = true
			if used {
				break
			}
			// The first line does not fit: show as much of it as fits and
			// continue by bytes from there.
			k := w.fitPrefix(l.Text, c.line, width, cutRoom())
			body.WriteString(w.render(l.Text[:k], c.line, width, true))
			body.WriteString(" …\n")
			c.pos = l.Start + int64(k)
			part.to, part.last = c.pos, c.line
			w.bytes = true
			break
		}
		if part.to > part.from {
			shown = append(shown, part)
		}
	}
	next, err := w.next(c)
	if err != nil {
		return Page{}, err
	}
	var out strings.Builder
	out.WriteString(w.header(shown, total))
	out.WriteByte('\n')
	out.WriteString(body.String())
	out.WriteString(w.footer(next))
	text := out.String()
	p := Page{Text: text, Next: next, Tokens: w.opts.pageTokens(text), From: startPos, To: startPos}
	for _, s := range shown {
		p.Shown = append(p.Shown, Span{From: s.from, To: s.to})
	}
	if len(shown) > 0 {
		p.From, p.To = shown[0].from, shown[len(shown)-1].to
	}
	return p, nil
}

// skipped names the stretch [from, to) between two ranges of a page, which
// the read was not asked for.
func (w *pageWriter) skipped(from, to int64) (string, error) {
	if w.bytes {
		return "[… bytes " + textfmt.Int(from) + "-" + textfmt.Int(to) + " not asked for …]", nil
	}
	a, err := w.doc.LineAt(from)
	if err != nil {
		return "", err
	}
	b, err := w.doc.LineAt(to - 1)
	if err != nil {
		return "", err
	}
	if a == b {
		return "[… line " + textfmt.Int(a) + " not asked for …]", nil
	}
	return "[… lines " + textfmt.Int(a) + "-" + textfmt.Int(b) + " not asked for …]", nil
}

// next returns the read of what the page leaves unread: the rest of the
// cursor's range, and the ranges after it. It counts lines unless the
// request counted bytes or a line was cut.
func (w *pageWriter) next(c cursor) (*Request, error) {
	var spans []Span
	if c.i < len(w.spans) && w.more(c) {
		switch {
		case w.req.Bytes != nil:
			spans = append(spans, Span{From: c.pos, To: c.end})
		case w.bytes:
			// A cut line: the rest of the range, by bytes.
			end, err := w.lineRangeEnd(c.i)
			if err != nil {
				return nil, err
			}
			spans = append(spans, Span{From: c.pos, To: end})
		default:
			spans = append(spans, Span{From: c.line, To: c.lastLine})
		}
	}
	for i := c.i + 1; i < len(w.spans); i++ {
		s := w.spans[i]
		if w.bytes && w.req.Bytes == nil {
			// A cut line turned a read of lines into one of bytes.
			b, err := w.byteRange(i)
			if err != nil {
				return nil, err
			}
			s = Span{From: b.from, To: b.end}
		}
		spans = append(spans, s)
	}
	if len(spans) == 0 {
		return nil, nil
	}
	next := &Request{Ref: w.req.Ref, Rev: w.req.Rev}
	next.SetRanges(w.bytes, spans)
	return next, nil
}

func (w *pageWriter) render(b []byte, line int64, width int, fragment bool) string {
	s := w.opts.Line(b, fragment)
	if !w.opts.Numbers {
		return s
	}
	num := textfmt.Int(line)
	return strings.Repeat(" ", max(0, width-len(num))) + num + "\t" + s
}

// fitPrefix returns the length of the longest prefix of b that fits in room
// tokens once rendered; at least one character, so the page advances.
func (w *pageWriter) fitPrefix(b []byte, line int64, width int, room int) int {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		k := len(textfmt.CutUTF8(b, mid))
		if w.opts.Counter.Count(w.render(b[:k], line, width, true))+2 <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	k := len(textfmt.CutUTF8(b, lo))
	if k == 0 && len(b) > 0 {
		k = 1
		for k < len(b) && k < 4 && b[k]&0xc0 == 0x80 {
			k++
		}
	}
	return k
}

func (w *pageWriter) header(shown []shownPart, total int64) string {
	var b strings.Builder
	b.WriteString("[crumb read ")
	b.WriteString(string(w.req.Ref))
	b.WriteString(": ")
	switch {
	case len(shown) == 0:
		b.WriteString("nothing to show")
	case len(shown) == 1 && shown[0].first == shown[0].last:
		b.WriteString("line ")
	default:
		b.WriteString("lines ")
	}
	for i, s := range shown {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(textfmt.Int(s.first))
		if s.first != s.last {
			b.WriteString("-" + textfmt.Int(s.last))
		}
	}
	b.WriteString(" of " + textfmt.Int(total))
	b.WriteString("; bytes ")
	if len(shown) == 0 {
		b.WriteString("0-0")
	}
	for i, s := range shown {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(textfmt.Int(s.from) + "-" + textfmt.Int(s.to))
	}
	b.WriteString(" of " + textfmt.Int(w.doc.Size()) + "]")
	return b.String()
}

func (w *pageWriter) footer(next *Request) string {
	last := w.spans[len(w.spans)-1]
	toEnd := last.To == 0 || last.To >= w.doc.Size()
	if w.req.Bytes == nil {
		total, err := w.doc.Lines()
		toEnd = last.To == 0 || err == nil && last.To >= total
	}
	switch {
	case next != nil:
		return "[next: " + w.opts.Hint(*next) + "]"
	case toEnd:
		return "[end of result]"
	case len(w.spans) > 1:
		return "[end of the ranges asked for]"
	}
	return "[end of the range asked for]"
}

// readsAsBinary reports whether a read that names nothing refuses an object
// as binary: its first bytes sniff as binary, and it was not stored as a
// kind whose view shows lines. A view of a command's output, a text, a file
// read or any kind but binary shows whatever the bytes are as clean lines,
// so the first page of such a result shows lines too: the view and the read
// give one answer. Left to crumb (no kind recorded, or binary), content
// that sniffs as binary gets the binary view, and the read refuses it the
// same way. Content that sniffs as text reads as lines whatever kind it was
// stored as, so storing the same bytes again as binary never breaks the
// reads an earlier view named.
func readsAsBinary(obj store.Object) bool {
	if k := obj.Info().Kind; k != "" && k != "binary" {
		return false
	}
	return sniff.IsBinary(headOf(obj))
}

func headOf(obj store.Object) []byte {
	buf := make([]byte, min(obj.Size(), sniff.Len))
	n, err := obj.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return buf[:n]
}
