package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// How much of a command's output the projector reads. Output up to
// cmdSample.full bytes is scanned whole. Larger output is sampled, so that
// projecting 1 GB reads about as much as projecting 64 MB: its first
// cmdSample.head bytes, its last cmdSample.tail bytes (where failures,
// panics and summaries usually are), and cmdSample.windows windows of
// cmdSample.window bytes spread evenly between. Each window starts at the
// first line that starts in it (at a multiple of cmdSample.align, the
// store's chunk size, so that a window verifies one chunk) and ends with the
// line that straddles its end. The view says that its evidence and counts
// are the sample's and gives the search that covers the rest. Tests make
// these smaller.
var cmdSample = struct {
	full, head, tail, window, align int64
	windows                         int
}{full: 64 << 20, head: 8 << 20, tail: 32 << 20, window: 512 << 10, align: store.ChunkSize, windows: 32}

// cmdFailureGrep finds again, in the whole output, the lines the scan looks
// for first: panics and tracebacks, compiler errors, failed tests, errors
// and failing summaries (see cmdFamilyGrep).
const cmdFailureGrep = `panic|Traceback|fatal|Exception|(?i:error)|:[0-9]+:[0-9]+: |FAIL|failed|✕|✖|●|^E |not ok`

// cmdSpan is a stretch of the output a sampling scan reads: the lines that
// start in [from, to).
type cmdSpan struct{ from, to int64 }

// cmdPlan returns the spans a scan of size bytes reads: the whole output,
// or a sample of it.
func cmdPlan(size int64) (spans []cmdSpan, sampled bool) {
	p := cmdSample
	if size <= p.full {
		return []cmdSpan{{0, size}}, false
	}
	head := min(p.head, size)
	tail := max(size-p.tail, head)
	if a := p.align; a > 0 && tail-tail%a >= head {
		tail -= tail % a
	}
	spans = append(spans, cmdSpan{0, head})
	if p.windows > 0 {
		step := (tail - head) / int64(p.windows+1)
		w := min(p.window, step)
		prev := head
		for k := int64(1); k <= int64(p.windows) && w > 0; k++ {
			a := head + k*step - w/2
			if p.align > 0 {
				a -= a % p.align
			}
			a = max(a, prev)
			b := min(a+w, tail)
			if b <= a {
				continue
			}
			spans = append(spans, cmdSpan{a, b})
			prev = b
		}
	}
	return append(spans, cmdSpan{tail, size}), true
}

// cmdSampled says what a sampling scan read, for the view to say it.
type cmdSampled struct {
	lines, bytes int64 // lines and bytes scanned
	headBytes    int64 // scanned from the start
	headLast     int64 // the last line scanned from the start
	tailBytes    int64 // scanned to the end
	tailFirst    int64 // the first line scanned to the end
	windows      int   // windows scanned between
}

// cmdIndexed reports whether in's source carries the store's line index,
// which a sample needs to number the lines of its windows without reading
// what lies before them.
func cmdIndexed(in *Input) bool {
	info := in.Source.Info()
	size := in.Source.Size()
	return info.Newlines != nil && int64(len(info.ChunkNewlines)) == (size+store.ChunkSize-1)/store.ChunkSize
}

// cmdScanInput scans the output: whole when it is small enough (or has no
// line index), else a sample of it (see cmdSample). The second result is
// nil for a whole scan.
func cmdScanInput(ctx context.Context, in *Input, doc *lines.Doc) (*cmdScan, *cmdSampled, error) {
	spans, sampled := cmdPlan(in.Source.Size())
	// A prescan may have scanned the start already, while the output was
	// being stored: the scan goes on from where it stopped.
	pre, done := takeCommand(ctx, in.Prescan, in.Source.Size())
	if !sampled || !cmdIndexed(in) {
		s, err := cmdScanSource(ctx, in, pre, done)
		return s, nil, err
	}
	if pre == nil {
		pre, done = newCmdScan(in.Call().Intent), 0
	}
	c := &cmdSampler{s: pre, src: in.Source, doc: doc, size: in.Source.Size()}
	c.buf = make([]byte, min(int64(store.ChunkSize), c.size))
	info := &cmdSampled{}
	atLine := true // done, where the last span's reading stopped, is a line start
	for i, sp := range spans {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		from := max(sp.from, done)
		if from >= sp.to && (i > 0 || done == 0) {
			continue
		}
		// The head's span goes on where a prescan stopped (in a line,
		// perhaps): it began at 0.
		first, end, clean, err := c.span(from, sp.to, from == done && atLine)
		if i == 0 {
			first = 0
		}
		if err != nil {
			return nil, nil, fmt.Errorf("project: sampling a command's output: %w", err)
		}
		if first < 0 {
			// No line starts in the span.
			done, atLine = end, false
			continue
		}
		info.bytes += end - first
		switch i {
		case 0:
			info.headBytes = end
			info.headLast = c.s.line - 1
			if c.s.partial {
				info.headLast = c.s.line
			}
		case len(spans) - 1:
			info.tailBytes = end - first
			info.tailFirst = c.firstLine
		default:
			info.windows++
		}
		done, atLine = end, clean
	}
	c.s.finish()
	info.lines = c.s.seen
	return c.s, info, nil
}

// cmdSampler reads the spans of a sample into a scan.
type cmdSampler struct {
	s         *cmdScan
	src       io.ReaderAt
	doc       *lines.Doc
	size      int64
	buf       []byte
	firstLine int64 // the number of the first line the last span scanned
}

// read returns the bytes at [pos, min(to, pos+len(buf))).
func (c *cmdSampler) read(pos, to int64) ([]byte, error) {
	n := min(int64(len(c.buf)), to-pos, c.size-pos)
	k, err := c.src.ReadAt(c.buf[:n], pos)
	if err != nil && !(errors.Is(err, io.EOF) && int64(k) == n) {
		return nil, fmt.Errorf("reading byte %d: %w", pos, err)
	}
	if k == 0 {
		return nil, fmt.Errorf("reading byte %d: no progress", pos)
	}
	return c.buf[:k], nil
}

// span scans the lines that start in [from, to), then the rest of the line
// that straddles to (at most cmdSample.window bytes more of it). When
// atLine, from is the start of the line the scan reads next; else the span
// starts at the first line that starts after from. It returns where the
// first line scanned starts (-1 when none starts in the span), where the
// reading stopped, and whether that is a line start.
func (c *cmdSampler) span(from, to int64, atLine bool) (first, end int64, clean bool, err error) {
	pos := from
	first = from
	c.firstLine = c.s.line
	if !atLine {
		first = -1
		for pos < to {
			b, err := c.read(pos, to)
			if err != nil {
				return 0, 0, false, err
			}
			if j := bytes.IndexByte(b, '\n'); j >= 0 {
				first = pos + int64(j) + 1
				num, err := c.doc.LineAt(first)
				if err != nil {
					return 0, 0, false, err
				}
				c.s.jump(first, num)
				c.firstLine = num
				c.s.Write(b[j+1:])
				pos += int64(len(b))
				break
			}
			pos += int64(len(b))
		}
		if first < 0 {
			return -1, pos, false, nil
		}
	}
	for pos < to {
		b, err := c.read(pos, to)
		if err != nil {
			return 0, 0, false, err
		}
		c.s.Write(b)
		pos += int64(len(b))
	}
	// Finish the line that straddles to, unless it is very long.
	limit := min(c.size, pos+cmdSample.window)
	for c.s.partial && pos < limit {
		b, err := c.read(pos, limit)
		if err != nil {
			return 0, 0, false, err
		}
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			b = b[:j+1]
		}
		c.s.Write(b)
		pos += int64(len(b))
	}
	return first, pos, !c.s.partial, nil
}

// sampleFact is the header's word that the view rests on a sample.
func (p *cmdProjector) sampleFact() string {
	return "scanned a " + textfmt.Size(p.sample.bytes) + " sample"
}

// sampleNote says what the sample holds, and the search that covers the
// rest of the output. Under cmdReserveFrom tokens it says less; under
// cmdCompactBelow it is "" and the header's fact alone says it.
func (p *cmdProjector) sampleNote() string {
	sm := p.sample
	req := recall.Request{Ref: p.in.Ref, Rev: p.in.Rev(), Grep: &recall.GrepSpec{Pattern: cmdFailureGrep}}
	switch {
	case p.in.Budget < cmdCompactBelow:
		return ""
	case p.in.Budget < cmdReserveFrom:
		return fmt.Sprintf("[sampled: failures were looked for in %s of the %s only (the first, the last and %s between); search all: %s]",
			textfmt.Int(sm.lines), textfmt.Plural(p.total, "line"), textfmt.Plural(int64(sm.windows), "window"), p.in.ReadHint(req))
	}
	var parts []string
	if sm.headBytes > 0 {
		parts = append(parts, fmt.Sprintf("the first %s (lines 1-%s)", textfmt.Size(sm.headBytes), textfmt.Int(sm.headLast)))
	}
	if sm.tailBytes > 0 {
		parts = append(parts, fmt.Sprintf("the last %s (lines %s-%s)", textfmt.Size(sm.tailBytes), textfmt.Int(sm.tailFirst), textfmt.Int(p.total)))
	}
	if sm.windows > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s between", textfmt.Plural(int64(sm.windows), "window"), textfmt.Size(cmdSample.window)))
	}
	what := strings.Join(parts, ", ")
	if k := strings.LastIndex(what, ", "); k >= 0 {
		what = what[:k] + " and " + what[k+2:]
	}
	return fmt.Sprintf("[sampled: errors, failures and summaries were looked for in a sample of %s of the %s (%s of %s): %s; "+
		"the rest was not searched. Search all of it: %s]",
		textfmt.Int(sm.lines), textfmt.Plural(p.total, "line"), textfmt.Size(sm.bytes), textfmt.Size(p.size), what, p.in.ReadHint(req))
}
