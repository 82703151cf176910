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

// spill takes the JSON value r[start:end) apart: it returns the value with
// every long string replaced by a note, and the strings it stored; nil and
// nil for a value with no long string.
func (p *Proxy) spill(ctx context.Context, r io.ReaderAt, start, end int64, meta store.Meta) ([]byte, []spilled, error) {
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
	for {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		t, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading the result: %w", err)
		}
		switch t.Kind {
		case jsonscan.BeginObject:
			value()
			stack = append(stack, frame{obj: true})
			continue
		case jsonscan.BeginArray:
			value()
			stack = append(stack, frame{idx: -1})
			continue
		case jsonscan.EndObject, jsonscan.EndArray:
			stack = stack[:len(stack)-1]
			continue
		case jsonscan.Key:
			raw, err := s.Bytes(t.Start, t.End, 1<<20)
			if err != nil {
				return nil, nil, err
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
				return nil, nil, fmt.Errorf("reading the result: %w", err)
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
				return nil, nil, fmt.Errorf("storing a string of the result: %w", err)
			}
			cost = est.Tokens()
			seen[n] = append(seen[n], storedString{[sha256.Size]byte(h.Sum(nil)), info, cost})
		}
		if _, err := io.Copy(&out, io.NewSectionReader(r, copied, t.Start-copied)); err != nil {
			return nil, nil, fmt.Errorf("reading the result: %w", err)
		}
		out.WriteString(quote(p.spillNote(info)))
		copied = t.End
		parts = append(parts, spilled{ptr: pointer(stack), info: info, raw: n, tokens: cost})
	}
	if len(parts) == 0 {
		return nil, nil, nil
	}
	if _, err := io.Copy(&out, io.NewSectionReader(r, copied, end-copied)); err != nil {
		return nil, nil, fmt.Errorf("reading the result: %w", err)
	}
	return out.Bytes(), parts, nil
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
