package recall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

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

func (o Options) withDefaults() Options {
	if o.Budget <= 0 {
		o.Budget = DefaultBudget
	}
	o.Budget = max(o.Budget, MinBudget)
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
	// From and To are the byte offsets of the content shown, To exclusive.
	From int64 `json:"from"`
	To   int64 `json:"to"`
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
// index the store recorded when there is one.
func NewDoc(obj store.Object) *lines.Doc {
	info := obj.Info()
	return lines.New(obj, obj.Size(), info.Newlines, info.ChunkNewlines, store.ChunkSize)
}

// Read returns a page of a stored result: the lines or bytes the request
// names, as many whole lines as fit the budget, or a search (see Grep). The
// page ends with the next read, or says the end was reached.
func Read(ctx context.Context, st store.Store, req Request, opts Options) (Page, error) {
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
	opts = opts.withDefaults()
	if req.Grep != nil {
		return grepObject(ctx, obj, req, opts)
	}
	if req.Pointer != nil || req.Query != "" {
		return Page{}, fmt.Errorf("%w: JSON pointer and jq reads need the store: use Read", ErrBadRequest)
	}
	doc := NewDoc(obj)
	if isBinary(obj) {
		info := obj.Info()
		return Page{}, fmt.Errorf("%w: %s holds %s of %s; it has no lines to show. Write the exact bytes to a file with: crumb read %s --all > FILE",
			ErrBinary, req.Ref, textfmt.Size(info.Size), sniff.Describe(headOf(obj)), req.Ref)
	}
	from, end, err := resolve(doc, req)
	if err != nil {
		return Page{}, err
	}
	w := pageWriter{doc: doc, opts: opts, req: req}
	return w.page(ctx, from, end)
}

// resolve turns the request's range into byte offsets [from, end).
func resolve(doc *lines.Doc, req Request) (from, end int64, err error) {
	size := doc.Size()
	switch {
	case req.Bytes != nil:
		from, end = req.Bytes.From, req.Bytes.To
		if end == 0 || end > size {
			end = size
		}
		if from >= size && !(from == 0 && size == 0) {
			return 0, 0, fmt.Errorf("%w: byte %d is past the end: %s holds %s bytes (offsets 0:%d)", ErrOutOfRange, from, req.Ref, textfmt.Int(size), size)
		}
		return from, end, nil
	default:
		span := Span{From: 1}
		if req.Lines != nil {
			span = *req.Lines
		}
		total, err := doc.Lines()
		if err != nil {
			return 0, 0, err
		}
		if span.From > total && !(span.From == 1 && total == 0) {
			return 0, 0, fmt.Errorf("%w: line %d is past the end: %s has %s (read --lines 1:%d)", ErrOutOfRange, span.From, req.Ref, textfmt.Plural(total, "line"), total)
		}
		if from, err = doc.LineStart(span.From); err != nil {
			return 0, 0, err
		}
		end = size
		if span.To != 0 && span.To < total {
			if end, err = doc.LineStart(span.To + 1); err != nil {
				return 0, 0, err
			}
		}
		return from, end, nil
	}
}

// pageWriter builds one page of lines from [from, end).
type pageWriter struct {
	doc  *lines.Doc
	opts Options
	req  Request
}

func (w *pageWriter) page(ctx context.Context, from, end int64) (Page, error) {
	total, err := w.doc.Lines()
	if err != nil {
		return Page{}, err
	}
	firstLine, err := w.doc.LineAt(from)
	if err != nil {
		return Page{}, err
	}
	// Reserve room for the header and the footer at their longest.
	fit := newFitter(w.opts.Counter, w.opts.Budget, 4, w.header(firstLine, total, total, from, end, end),
		w.footer(&Request{Ref: w.req.Ref, Rev: w.req.Rev, Bytes: &Span{From: end, To: end + 1}}, end))
	width := len(textfmt.Int(total))

	var body strings.Builder
	shown := false
	pos := from
	line := firstLine
	cut := false
	maxLine := w.opts.Budget * 16 // bytes; a line can't take fewer than ~1 token per 16 bytes
	for pos < end {
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		l, err := w.doc.ReadLine(pos, maxLine)
		if err != nil {
			return Page{}, err
		}
		if l.End > end { // a byte range that ends inside a line
			l.End = end
			if n := int(end - l.Start); n < len(l.Text) {
				l.Text = l.Text[:n]
			}
			l.Cut = false
		}
		text := w.render(l.Text, line, width, false)
		if !l.Cut && fit.try(text, 1) {
			body.WriteString(text)
			body.WriteByte('\n')
			shown = true
			pos = l.End
			line++
			continue
		}
		if shown {
			break
		}
		// The first line does not fit: show as much of it as fits and
		// continue by bytes from there.
		k := w.fitPrefix(l.Text, line, width, fit.room())
		body.WriteString(w.render(l.Text[:k], line, width, true))
		body.WriteString(" …\n")
		pos = l.Start + int64(k)
		cut = true
		break
	}
	var next *Request
	if pos < end {
		next = &Request{Ref: w.req.Ref, Rev: w.req.Rev}
		lastLine, err := w.doc.LineAt(end - 1)
		if err != nil {
			return Page{}, err
		}
		if w.req.Bytes != nil || cut {
			next.Bytes = &Span{From: pos, To: end}
		} else {
			next.Lines = &Span{From: line, To: lastLine}
		}
	}
	shownLast := line - 1
	if cut {
		shownLast = line
	}
	var out strings.Builder
	out.WriteString(w.header(firstLine, shownLast, total, from, pos, end))
	out.WriteByte('\n')
	out.WriteString(body.String())
	out.WriteString(w.footer(next, end))
	text := out.String()
	return Page{Text: text, Next: next, Tokens: w.opts.pageTokens(text), From: from, To: pos}, nil
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

func (w *pageWriter) header(first, last, total, from, to, end int64) string {
	var b strings.Builder
	b.WriteString("[crumb read ")
	b.WriteString(string(w.req.Ref))
	b.WriteString(": ")
	if to <= from {
		b.WriteString("nothing to show")
	} else if first == last {
		b.WriteString("line " + textfmt.Int(first))
	} else {
		b.WriteString("lines " + textfmt.Int(first) + "-" + textfmt.Int(last))
	}
	b.WriteString(" of " + textfmt.Int(total))
	b.WriteString("; bytes " + textfmt.Int(from) + "-" + textfmt.Int(to) + " of " + textfmt.Int(w.doc.Size()) + "]")
	return b.String()
}

func (w *pageWriter) footer(next *Request, end int64) string {
	if next != nil {
		return "[next: " + w.opts.Hint(*next) + "]"
	}
	if end < w.doc.Size() {
		return "[end of the range asked for]"
	}
	return "[end of result]"
}

// isBinary reports whether an object holds binary content, by its recorded
// kind or by sniffing its first bytes.
func isBinary(obj store.Object) bool {
	if obj.Info().Kind == "binary" {
		return true
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
