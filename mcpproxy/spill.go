package mcpproxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// A large tool result is taken apart before it is projected: every string
// value longer than spillMin is decoded straight from the wire (or the spool
// file) into the store, as a result of its own, and replaced in the result
// by a short note that names it. The rest of the result, its skeleton, is
// small, whatever the size of the strings: it is what the Guard stores as
// the result and projects, with the stored strings as the text of their
// blocks (see project.Spill). A string is stored once, however often the
// result repeats it (structuredContent often repeats the text block), and
// a text block is not stored again by the projector.
const spillMin = 64 << 10

// A "data" or "blob" member (an image, audio or a resource blob, base64)
// is never stored apart: the projector needs it in place to downscale an
// image or to store and describe a blob, and a note in its place would be
// invalid base64 in a block the client shows as media.

// spilled is a string of a result stored apart.
type spilled struct {
	ptr  string // its JSON pointer in the result
	info store.Info
	// raw is the length of its JSON text in the result, quotes included,
	// and tokens the estimate of that text: what the receipt counts in
	// place of the note (see project.Spill).
	raw    int64
	tokens int
}

// storedString is a string of the result stored: the SHA-256 of its raw
// text (between its quotes), what the store said, and the estimate of its
// JSON text.
type storedString struct {
	sum    [sha256.Size]byte
	info   store.Info
	tokens int
}

// frame is an open container of the value being taken apart.
type frame struct {
	obj bool
	key string // the member being read, in an object
	idx int    // the element being read, in an array
}

// pointer is the JSON pointer of the value being read.
func pointer(stack []frame) string {
	var b strings.Builder
	for _, f := range stack {
		b.WriteByte('/')
		if f.obj {
			b.WriteString(jsonscan.EscapeToken(f.key))
		} else {
			b.WriteString(strconv.Itoa(f.idx))
		}
	}
	return b.String()
}

// bigStructured is the size over which a structuredContent made of many
// small values (counted without its long strings, which are stored apart)
// is not held in memory to be projected: it is projected as a JSON result
// of its own, which the JSON projector reads as a stream (see
// spillResult.structured).
const bigStructured = 8 << 20

// spillResult is a result taken apart.
type spillResult struct {
	// body is the result with every long string replaced by a note, and
	// a structuredContent of many small values by null; nil when nothing
	// was taken out.
	body  []byte
	parts []spilled
	// structured is where a structuredContent of many small values is,
	// when there is one: [start, end) of its JSON text.
	structured *[2]int64
}

// spill takes the JSON value r[start:end) apart: it returns the value with
// every long string replaced by a note, and the strings it stored; nil and
// nil for a value with no long string.
func (p *Proxy) spill(ctx context.Context, r io.ReaderAt, start, end int64, meta store.Meta) ([]byte, []spilled, error) {
	sr, err := p.spillAll(ctx, r, start, end, meta)
	return sr.body, sr.parts, err
}

// spillAll takes the JSON value r[start:end) apart (see spillResult).
func (p *Proxy) spillAll(ctx context.Context, r io.ReaderAt, start, end int64, meta store.Meta) (spillResult, error) {
	st := p.guard.Store()
	s := jsonscan.NewAt(r, start, end)
	s.Single()
	defer s.Close()
	var (
		out    bytes.Buffer
		parts  []spilled
		stack  []frame
		copied = start
		// What was stored, by the length of its raw string: a string
		// repeated is stored once.
		seen = map[int64][]storedString{}
	)
	value := func() {
		if n := len(stack); n > 0 && !stack[n-1].obj {
			stack[n-1].idx++
		}
	}
	// The structuredContent being read: where it starts, and what the
	// skeleton held and had copied when it started.
	var (
		sc            *[2]int64
		scIn          bool
		scStart       int64
		scOut, scPart int
		scCopied      int64
		scSaved       int64 // bytes its stored strings took, less their notes
	)
	fail := func(err error) (spillResult, error) { return spillResult{}, err }
	for {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		t, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(fmt.Errorf("reading the result: %w", err))
		}
		switch t.Kind {
		case jsonscan.BeginObject, jsonscan.BeginArray:
			value()
			if len(stack) == 1 && stack[0].obj && stack[0].key == "structuredContent" && end-start > bigStructured {
				scIn, scStart, scOut, scPart, scCopied, scSaved = true, t.Start, out.Len(), len(parts), copied, 0
			}
			stack = append(stack, frame{obj: t.Kind == jsonscan.BeginObject, idx: -1})
			continue
		case jsonscan.EndObject, jsonscan.EndArray:
			stack = stack[:len(stack)-1]
			if scIn && len(stack) == 1 {
				scIn = false
				if t.End-scStart-scSaved > bigStructured {
					// Many small values: the whole of it is projected
					// apart, and the skeleton holds null in its place.
					out.Truncate(scOut)
					parts = parts[:scPart]
					if _, err := io.Copy(&out, io.NewSectionReader(r, scCopied, scStart-scCopied)); err != nil {
						return fail(fmt.Errorf("reading the result: %w", err))
					}
					out.WriteString("null")
					copied = t.End
					sc = &[2]int64{scStart, t.End}
				}
			}
			continue
		case jsonscan.Key:
			raw, err := s.Bytes(t.Start, t.End, 1<<20)
			if err != nil {
				return fail(err)
			}
			stack[len(stack)-1].key, _ = jsonscan.KeyText(raw, int64(len(raw)) < t.End-t.Start)
			continue
		case jsonscan.String:
		default:
			value()
			continue
		}
		value()
		n := t.End - t.Start
		if k := len(stack); n <= spillMin || k > 0 && stack[k-1].obj && (stack[k-1].key == "data" || stack[k-1].key == "blob") {
			continue
		}
		if scIn && t.End-scStart-scSaved > bigStructured {
			// It is projected apart (see above): its strings are not
			// stored on their own, nor is the skeleton made to grow.
			continue
		}
		// A long string: store it, unless it was stored already. Its
		// SHA-256 is of its raw text, between the quotes.
		text := func() io.Reader { return io.NewSectionReader(r, t.Start+1, max(n-2, 0)) }
		var (
			info store.Info
			cost int // the estimate of its JSON text
		)
		found := false
		if prevs := seen[n]; len(prevs) > 0 {
			h := sha256.New()
			if _, err := io.Copy(h, text()); err != nil {
				return fail(fmt.Errorf("reading the result: %w", err))
			}
			sum := [sha256.Size]byte(h.Sum(nil))
			for _, prev := range prevs {
				if prev.sum == sum {
					info, cost, found = prev.info, prev.tokens, true
					break
				}
			}
		}
		if !found {
			// The text is hashed and estimated as it streams to the
			// store, never read again.
			h := sha256.New()
			est := &tokens.EstimateWriter{}
			est.Write([]byte(`""`))
			m := meta
			m.Kind = string(p.sniffKind(r, t, meta.Tool))
			if info, err = st.Put(ctx, newStringReaderFrom(io.TeeReader(text(), io.MultiWriter(h, est)), 64<<10), m); err != nil {
				return fail(fmt.Errorf("storing a string of the result: %w", err))
			}
			cost = est.Tokens()
			seen[n] = append(seen[n], storedString{[sha256.Size]byte(h.Sum(nil)), info, cost})
		}
		if _, err := io.Copy(&out, io.NewSectionReader(r, copied, t.Start-copied)); err != nil {
			return fail(fmt.Errorf("reading the result: %w", err))
		}
		note := quote(p.spillNote(info))
		out.WriteString(note)
		copied = t.End
		if scIn {
			scSaved += n - int64(len(note))
		}
		parts = append(parts, spilled{ptr: pointer(stack), info: info, raw: n, tokens: cost})
	}
	if len(parts) == 0 && sc == nil {
		return spillResult{}, nil
	}
	if _, err := io.Copy(&out, io.NewSectionReader(r, copied, end-copied)); err != nil {
		return fail(fmt.Errorf("reading the result: %w", err))
	}
	return spillResult{body: out.Bytes(), parts: parts, structured: sc}, nil
}

// sniffKind detects the kind of a string from its first bytes.
func (p *Proxy) sniffKind(r io.ReaderAt, t jsonscan.Token, tool string) project.Kind {
	head := make([]byte, sniff.Len)
	n, _ := io.ReadFull(newStringReader(r, t.Start, min(t.End, t.Start+2+int64(sniff.Len)*2)), head)
	return project.Detect(head[:n], project.Hints{Tool: tool})
}

// spillNote is what stands in a result for a string stored apart.
func (p *Proxy) spillNote(info store.Info) string {
	desc := textfmt.Size(info.Size)
	if info.Lines != nil {
		desc += ", " + textfmt.Plural(*info.Lines, "line")
	}
	return "[crumb: this string (" + desc + ") is stored as ref " + string(info.Ref) + "; read it: " +
		p.hint(recall.Request{Ref: info.Ref, Rev: recall.Rev(info.Digest), Lines: &recall.Span{From: 1}}) + "]"
}

// quote returns s as a JSON string.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
