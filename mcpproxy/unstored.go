package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/store"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A result the store would not keep (Redis gone, a full disk, a read-only
// store, a result evicted while it was being projected) reaches the client
// as the CLI and crumb serve show such a result: bounded, and saying why it
// was not kept. One no larger than the Guard's HardCap (what may ever enter
// the context whole) is passed as it came, with a first text block that
// says it could not be stored. A larger one becomes the Guard's "could not
// store" view — its first and last lines, as many as the budget holds, the
// reason, and what was not kept — made by a Guard over the same
// configuration whose store refuses every write with the reason, so that
// nothing in the view names a ref that cannot be read. The view is of the
// text the result's content blocks carry (the lines a model reads), or of
// the result's JSON when it has no text; the result is read once, as a
// stream, and never held in memory.

// unstored returns the response that stands for a tool result that could
// not be stored, cause saying why.
func (s *session) unstored(ctx context.Context, c *call, id jsonrpc.ID, src resultSource, schema json.RawMessage, cause error) *jsonrpc.Response {
	size := src.end - src.start
	reason := cause.Error()
	s.p.log.Warn("crumb mcp: could not store a tool result; the client gets a bounded view that says so", "tool", c.tool, "bytes", size, "err", reason)
	hardCap := s.p.gcfg.HardCap
	if hardCap <= 0 {
		hardCap = crumb.DefaultHardCap
	}
	if size <= hardCap {
		if out, ok := s.unstoredWhole(src, reason); ok {
			return &jsonrpc.Response{ID: id, Result: out}
		}
	}
	shape, err := scanShape(ctx, src)
	if err != nil {
		if ctx.Err() != nil {
			return errorResponse(id, "crumb: "+ctx.Err().Error())
		}
		shape = resultShape{} // the view is of the JSON itself
	}
	res := crumb.Result{Tool: c.tool, Args: c.args}
	if len(shape.texts) > 0 {
		res.Reader = shape.textReader(src)
	} else {
		res.Kind, res.Reader = crumb.KindMCP, io.NewSectionReader(src.r, src.start, size)
	}
	cfg := s.p.gcfg
	cfg.Store = refusingStore{cause}
	cfg.Summarizer = nil // a summary names the stored result
	g, err := crumb.New(cfg)
	var v *crumb.View
	if err == nil {
		v, err = g.Project(ctx, res)
	}
	if err != nil {
		if ctx.Err() != nil {
			return errorResponse(id, "crumb: "+ctx.Err().Error())
		}
		s.p.log.Warn("crumb mcp: could not make the view of a result that was not stored", "tool", c.tool, "err", err)
		v = &crumb.View{Text: "[crumb could not store this result (" + reason + ") nor show a part of it (" + err.Error() + "); call the tool again]"}
	}
	text := v.Text
	if v.Receipt.Output == crumb.OutputExact {
		// The text of the content alone fits: it is shown whole.
		text = "[crumb could not store this result (" + reason + "); its text is shown whole]\n" + text
	}
	out := &jsonobj.Object{}
	arr, _ := jsonobj.AppendArray(json.RawMessage("[]"), jsonobj.Marshal(textBlock{Type: "text", Text: text}))
	out.Set("content", arr)
	// Without its structuredContent, a result of a tool that declares an
	// outputSchema is valid only as an error; and it is one, for what the
	// tool returned did not reach the model.
	requiresStructured := shape.structured && (len(schema) == 0 || string(schema) != "null")
	if shape.isError || requiresStructured {
		out.Set("isError", json.RawMessage("true"))
	}
	return &jsonrpc.Response{ID: id, Result: out.Bytes()}
}

// unstoredWhole returns a small result as it came, with a first text block
// that says it could not be stored; ok is false when it is not a
// CallToolResult with a content array.
func (s *session) unstoredWhole(src resultSource, reason string) (json.RawMessage, bool) {
	body, err := src.bytes()
	if err != nil {
		return nil, false
	}
	obj, err := jsonobj.Parse(body)
	if err != nil {
		return nil, false
	}
	raw, ok := obj.Get("content")
	if !ok {
		return nil, false
	}
	var blocks []json.RawMessage
	if json.Unmarshal(raw, &blocks) != nil {
		return nil, false
	}
	note := jsonobj.Marshal(textBlock{Type: "text", Text: "[crumb could not store this result (" + reason + "); it is shown whole]"})
	arr, err := jsonobj.AppendArray(json.RawMessage("[]"), append([]json.RawMessage{note}, blocks...)...)
	if err != nil {
		return nil, false
	}
	obj.Set("content", arr)
	return obj.Bytes(), true
}

// resultShape is what the view of a result not stored needs of it: where
// the text of its content blocks is, and two facts of its top level.
type resultShape struct {
	texts      [][2]int64 // the JSON strings, quotes included
	isError    bool
	structured bool
}

// scanShape finds the text of a result's content blocks (a text block's
// "text", an embedded resource's "text") without reading it.
func scanShape(ctx context.Context, src resultSource) (resultShape, error) {
	var sh resultShape
	sc := jsonscan.NewAt(src.r, src.start, src.end)
	sc.Single()
	defer sc.Close()
	var stack []frame
	value := func() {
		if n := len(stack); n > 0 && !stack[n-1].obj {
			stack[n-1].idx++
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return sh, err
		}
		t, err := sc.Next()
		if errors.Is(err, io.EOF) {
			return sh, nil
		}
		if err != nil {
			return sh, fmt.Errorf("reading the result: %w", err)
		}
		switch t.Kind {
		case jsonscan.BeginObject:
			value()
			stack = append(stack, frame{obj: true})
			if len(stack) == 2 && stack[0].key == "structuredContent" {
				sh.structured = true
			}
		case jsonscan.BeginArray:
			value()
			stack = append(stack, frame{idx: -1})
		case jsonscan.EndObject, jsonscan.EndArray:
			stack = stack[:len(stack)-1]
		case jsonscan.Key:
			raw, err := sc.Bytes(t.Start, t.End, 1<<10)
			if err != nil {
				return sh, fmt.Errorf("reading the result: %w", err)
			}
			stack[len(stack)-1].key, _ = jsonscan.KeyText(raw, int64(len(raw)) < t.End-t.Start)
		case jsonscan.String:
			value()
			if isContentText(stack) {
				sh.texts = append(sh.texts, [2]int64{t.Start, t.End})
			}
		default:
			value()
			if len(stack) == 1 && stack[0].key == "isError" {
				if b, err := sc.Bytes(t.Start, t.End, 8); err == nil && string(b) == "true" {
					sh.isError = true
				}
			}
		}
	}
}

// isContentText reports whether the string being read is the text of a
// content block: /content/N/text or /content/N/resource/text.
func isContentText(stack []frame) bool {
	switch {
	case len(stack) == 3:
	case len(stack) == 4 && stack[2].obj && stack[2].key == "resource":
	default:
		return false
	}
	return stack[0].obj && stack[0].key == "content" && !stack[1].obj &&
		stack[len(stack)-1].obj && stack[len(stack)-1].key == "text"
}

// textReader reads the text of the content blocks, decoded, one after the
// other on lines of their own.
func (sh resultShape) textReader(src resultSource) io.Reader {
	var rs []io.Reader
	for i, t := range sh.texts {
		if i > 0 {
			rs = append(rs, strings.NewReader("\n"))
		}
		rs = append(rs, newStringReader(src.r, t[0], t[1]))
	}
	return io.MultiReader(rs...)
}

// refusingStore is the store of the Guard that makes the view of a result
// not stored: every call fails with the reason the real store gave, so the
// Guard shows what it would show of a result its store refused.
type refusingStore struct{ cause error }

var _ store.Store = refusingStore{}

func (r refusingStore) Put(context.Context, io.Reader, store.Meta) (store.Info, error) {
	return store.Info{}, r.cause
}

func (r refusingStore) Open(context.Context, store.Ref) (store.Object, error) { return nil, r.cause }

func (r refusingStore) Stat(context.Context, store.Ref) (store.Info, error) {
	return store.Info{}, r.cause
}

func (r refusingStore) List(context.Context) ([]store.Info, error) { return nil, r.cause }

func (r refusingStore) Delete(context.Context, store.Ref) error { return r.cause }

func (r refusingStore) GC(context.Context) (store.GCStats, error) { return store.GCStats{}, r.cause }
