package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// resultSource is where a tool result is: in the response, in memory, or
// in a spool file as it came from the upstream.
type resultSource struct {
	r          io.ReaderAt
	start, end int64
	// mem is the result when it is in memory.
	mem json.RawMessage
	// orig returns the response as it came, to pass it on unchanged.
	orig func() (*jsonrpc.Response, error)
}

func inMemory(m *jsonrpc.Response) resultSource {
	return resultSource{r: bytes.NewReader(m.Result), end: int64(len(m.Result)), mem: m.Result,
		orig: func() (*jsonrpc.Response, error) { return m, nil }}
}

func fromSpool(sp *spooled) resultSource {
	return resultSource{r: sp, start: sp.result[0], end: sp.result[1], orig: func() (*jsonrpc.Response, error) {
		m, err := sp.message()
		if err != nil {
			return nil, err
		}
		resp, ok := m.(*jsonrpc.Response)
		if !ok {
			return nil, errors.New("a spooled response is not a response")
		}
		return resp, nil
	}}
}

// bytes returns the result, reading it into memory when it is spooled.
func (src resultSource) bytes() ([]byte, error) {
	if src.mem != nil {
		return src.mem, nil
	}
	b := make([]byte, src.end-src.start)
	if n, err := src.r.ReadAt(b, src.start); n < len(b) {
		return nil, fmt.Errorf("reading the result: %w", err)
	}
	return b, nil
}

// project replaces a large tool result by its projection. A result that
// cannot be stored gets the bounded view that says so (see unstored); one
// that cannot be projected into a valid CallToolResult goes to the client
// unchanged, and the log says why.
//
// A result larger than the tool's threshold could ever pass is taken apart
// first (see spill): its long strings go to the store as they are decoded,
// and what the Guard stores and projects is the rest, so that no copy of
// the whole result is ever held in memory. A result the Guard's summarizer
// may read is kept whole: a summary's facts are checked against the exact
// result, which a skeleton is not.
func (s *session) project(ctx context.Context, c *call, id jsonrpc.ID, src resultSource) *jsonrpc.Response {
	size := src.end - src.start
	pass := func() *jsonrpc.Response {
		m, err := src.orig()
		if err != nil {
			s.p.log.Warn("crumb mcp: could not read back a tool result", "tool", c.tool, "err", err)
			return errorResponse(id, "crumb: the upstream's result could not be read back: "+err.Error())
		}
		return m
	}
	if size == 0 {
		return pass()
	}
	schema := s.outputSchema(c.tool)
	if len(schema) == 0 {
		s.listUpstreamTools(ctx)
		schema = s.outputSchema(c.tool)
	}
	_, threshold, exempt := s.p.guard.Limits(c.tool)
	var (
		body  = src.mem
		parts []spilled
		// scBlock is the text block that stands for a structuredContent
		// of many small values, projected apart; "" when there is none.
		scBlock string
		opts    []crumb.Option
	)
	// Unknown (never listed) counts as having one: the safe side.
	outputSchema := len(schema) == 0 || string(schema) != "null"
	if !exempt && size > int64(threshold)*16 && size > s.p.summaryBytes {
		sr, err := s.p.spillAll(ctx, src.r, src.start, src.end, store.Meta{Tool: c.tool, Args: c.args})
		if err != nil {
			if ctx.Err() != nil {
				return pass()
			}
			return s.unstored(ctx, c, id, src, schema, err)
		}
		body, parts = sr.body, sr.parts
		if sr.structured != nil {
			budget, _, _ := s.p.guard.Limits(c.tool)
			if scBlock, err = s.structuredApart(ctx, c, src, *sr.structured, budget, outputSchema); err != nil {
				if ctx.Err() != nil {
					return pass()
				}
				return s.unstored(ctx, c, id, src, schema, err)
			}
			opts = append(opts, crumb.ContextLeft(max(1, budget-s.p.counter.Count(scBlock)-16)))
		}
	}
	if body == nil {
		var err error
		if body, err = src.bytes(); err != nil {
			s.p.log.Warn("crumb mcp: could not read a tool result", "tool", c.tool, "err", err)
			return pass()
		}
	}
	spills, closeSpills, err := s.openSpilled(ctx, parts)
	defer closeSpills()
	if err != nil {
		// Stored a moment ago, and gone (evicted) or unreadable.
		return s.unstored(ctx, c, id, src, schema, err)
	}
	res := crumb.Result{Tool: c.tool, Args: c.args, Kind: crumb.KindMCP, Body: body, OutputSchema: schema, Spilled: spills}
	v, err := s.p.guard.Project(ctx, res, opts...)
	if err != nil {
		if ctx.Err() != nil {
			return pass()
		}
		if len(parts) > 0 {
			// Its parts stored apart could not all be read back.
			return s.unstored(ctx, c, id, src, schema, err)
		}
		s.p.log.Warn("crumb mcp: could not project a tool result; passing it through unchanged", "tool", c.tool, "err", err)
		return pass()
	}
	if v.Receipt.StoreError != "" {
		return s.unstored(ctx, c, id, src, schema, errors.New(v.Receipt.StoreError))
	}
	if v.Receipt.Output == crumb.OutputExact {
		if scBlock == "" {
			return pass()
		}
		// The rest passes whole, and the structuredContent is its view.
		out, err := withStructuredView(body, scBlock, outputSchema)
		if err != nil {
			return s.unstored(ctx, c, id, src, schema, err)
		}
		return &jsonrpc.Response{ID: id, Result: out}
	}
	out, err := callToolResult(v, body, outputSchema)
	// A text view wrapped as a CallToolResult costs more than the text:
	// project again with less room until the whole result fits the budget.
	budget := v.Receipt.Budget
	for i := 0; err == nil && i < 4; i++ {
		n := s.p.counter.Count(string(out))
		if n <= budget {
			break
		}
		room := max(1, budget*budget/n-8*(i+1))
		if v, err = s.p.guard.Project(ctx, res, crumb.ContextLeft(room)); err == nil {
			out, err = callToolResult(v, body, outputSchema)
		}
	}
	if err == nil && scBlock != "" {
		out, err = withStructuredView(out, scBlock, outputSchema)
	}
	if err != nil {
		if ctx.Err() == nil {
			s.p.log.Warn("crumb mcp: could not project a tool result; passing it through unchanged", "tool", c.tool, "bytes", size, "err", err)
		}
		if scBlock != "" {
			// Never whole: it would be held in memory, and flood the
			// context.
			return s.unstored(ctx, c, id, src, schema, err)
		}
		return pass()
	}
	s.p.log.Info("crumb mcp: projected a tool result", "tool", c.tool, "bytes", size, "from_file", src.mem == nil, "stored_apart", len(parts),
		"view_tokens", v.Receipt.ViewTokens, "ref", string(v.Ref), "output", v.Receipt.Output)
	return &jsonrpc.Response{ID: id, Result: out}
}

// openSpilled opens the strings of a result stored apart, for the
// projector, and returns the function that closes them; the caller calls
// it whatever the error.
func (s *session) openSpilled(ctx context.Context, parts []spilled) (map[string]project.Spill, func(), error) {
	var objs []store.Object
	closeAll := func() {
		for _, o := range objs {
			o.Close()
		}
	}
	if len(parts) == 0 {
		return nil, closeAll, nil
	}
	out := make(map[string]project.Spill, len(parts))
	for _, p := range parts {
		obj, err := s.p.guard.Store().Open(ctx, p.info.Ref)
		if err != nil {
			return nil, closeAll, fmt.Errorf("opening %s: %w", p.ptr, err)
		}
		objs = append(objs, obj)
		out[p.ptr] = project.Spill{Ref: p.info.Ref, Source: obj, Bytes: p.raw, Tokens: p.tokens}
	}
	return out, closeAll, nil
}

// block is what the proxy reads of a content block.
type block struct {
	Type string `json:"type"`
}

// callToolResult returns the projected CallToolResult of a view. The MCP
// projector writes one as the view's text. When the view is something else
// — the Guard fell back to the text projection — it is wrapped as the text
// of a result that keeps the original's media blocks and isError, unless
// the tool declared an outputSchema that needs structured content.
func callToolResult(v *crumb.View, orig json.RawMessage, outputSchema bool) (json.RawMessage, error) {
	origObj, err := jsonobj.Parse(orig)
	if err != nil {
		return nil, fmt.Errorf("the upstream's result is not a JSON object: %w", err)
	}
	_, origStructured := origObj.Get("structuredContent")
	if obj, err := jsonobj.Parse([]byte(v.Text)); err == nil {
		if err := checkResult(obj); err != nil {
			return nil, fmt.Errorf("the projection is not a valid CallToolResult: %w", err)
		}
		if outputSchema && origStructured && !obj.Has("structuredContent") {
			return nil, errors.New("the projection dropped the structuredContent the tool's outputSchema requires")
		}
		return json.RawMessage(v.Text), nil
	}
	if outputSchema && origStructured {
		return nil, errors.New("the projection is text, and the tool's outputSchema requires structuredContent")
	}
	content := []json.RawMessage{jsonobj.Marshal(textBlock{Type: "text", Text: v.Text})}
	if raw, ok := origObj.Get("content"); ok {
		var blocks []json.RawMessage
		if json.Unmarshal(raw, &blocks) == nil {
			for _, b := range blocks {
				var bl block
				if json.Unmarshal(b, &bl) == nil && (bl.Type == "image" || bl.Type == "audio") {
					content = append(content, b)
				}
			}
		}
	}
	content = append(content, v.Media...)
	out := &jsonobj.Object{}
	arr, _ := jsonobj.AppendArray(json.RawMessage("[]"), content...)
	out.Set("content", arr)
	if isErr, ok := origObj.Get("isError"); ok {
		out.Set("isError", isErr)
	}
	return out.Bytes(), nil
}

// checkResult checks the shape of a CallToolResult: a content array of
// blocks that each name their type.
func checkResult(obj *jsonobj.Object) error {
	raw, ok := obj.Get("content")
	if !ok {
		return errors.New("no content")
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("content is not an array: %w", err)
	}
	for i, b := range blocks {
		var bl block
		if err := json.Unmarshal(b, &bl); err != nil || bl.Type == "" {
			return fmt.Errorf("content block %d has no type", i)
		}
	}
	if raw, ok := obj.Get("structuredContent"); ok {
		var sc map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sc); err != nil {
			return fmt.Errorf("structuredContent is not an object: %w", err)
		}
	}
	return nil
}

// structuredApart stores and projects a structuredContent of many small
// values (r[ext[0]:ext[1]) of the result) as a JSON result of its own,
// read as a stream, within half the budget, and returns the text block
// that stands for it in the result.
func (s *session) structuredApart(ctx context.Context, c *call, src resultSource, ext [2]int64, budget int, required bool) (string, error) {
	v, err := s.p.guard.Project(ctx, crumb.Result{Tool: c.tool, Args: c.args, Kind: crumb.KindJSON,
		Reader: io.NewSectionReader(src.r, ext[0], ext[1]-ext[0])}, crumb.ContextLeft(max(1, budget/2)))
	if err != nil {
		return "", fmt.Errorf("projecting the structuredContent: %w", err)
	}
	if v.Receipt.StoreError != "" {
		return "", errors.New(v.Receipt.StoreError)
	}
	note := "[crumb: the result's structuredContent (" + textfmt.Size(ext[1]-ext[0]) + " of small values) is too large to pass; it is stored as a JSON result of its own, shown below"
	if required {
		note += "; this result is marked as an error because the tool's outputSchema requires the structuredContent it leaves out"
	}
	return note + "]\n" + v.Text, nil
}

// withStructuredView returns a projected CallToolResult with its
// structuredContent (null, where the skeleton held it) left out and the
// text block that stands for it added after its content; marked as an
// error when the tool's outputSchema requires structuredContent, for a
// result without it is valid only as an error.
func withStructuredView(result json.RawMessage, block string, required bool) (json.RawMessage, error) {
	obj, err := jsonobj.Parse(result)
	if err != nil {
		return nil, fmt.Errorf("the projection is not a JSON object: %w", err)
	}
	obj.Delete("structuredContent")
	var content []json.RawMessage
	if raw, ok := obj.Get("content"); ok {
		if err := json.Unmarshal(raw, &content); err != nil {
			return nil, fmt.Errorf("the projection's content is not an array: %w", err)
		}
	}
	arr, err := jsonobj.AppendArray(json.RawMessage("[]"), append(content, jsonobj.Marshal(textBlock{Type: "text", Text: block}))...)
	if err != nil {
		return nil, err
	}
	obj.Set("content", arr)
	if required {
		obj.Set("isError", json.RawMessage("true"))
	}
	return obj.Bytes(), nil
}
