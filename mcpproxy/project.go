package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// project replaces a large tool result by its projection. It fails open:
// whenever the result cannot be stored or projected into a valid
// CallToolResult, the upstream's response goes to the client unchanged and
// the log says why.
func (s *session) project(ctx context.Context, c *call, m *jsonrpc.Response) *jsonrpc.Response {
	if m.Error != nil || len(m.Result) == 0 {
		return m
	}
	schema := s.outputSchema(c.tool)
	if len(schema) == 0 {
		s.listUpstreamTools(ctx)
		schema = s.outputSchema(c.tool)
	}
	res := crumb.Result{Tool: c.tool, Args: c.args, Kind: crumb.KindMCP, Body: m.Result, OutputSchema: schema}
	v, err := s.p.guard.Project(ctx, res)
	if err != nil {
		if ctx.Err() == nil {
			s.p.log.Warn("crumb mcp: could not project a tool result; passing it through unchanged", "tool", c.tool, "err", err)
		}
		return m
	}
	if v.Receipt.Output == crumb.OutputExact {
		return m
	}
	if v.Receipt.StoreError != "" {
		s.p.log.Warn("crumb mcp: could not store a tool result; passing it through unchanged", "tool", c.tool, "bytes", len(m.Result), "err", v.Receipt.StoreError)
		return m
	}
	// Unknown (never listed) counts as having one: the safe side.
	outputSchema := len(schema) == 0 || string(schema) != "null"
	out, err := callToolResult(v, m.Result, outputSchema)
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
			out, err = callToolResult(v, m.Result, outputSchema)
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			s.p.log.Warn("crumb mcp: could not project a tool result; passing it through unchanged", "tool", c.tool, "bytes", len(m.Result), "err", err)
		}
		return m
	}
	s.p.log.Info("crumb mcp: projected a tool result", "tool", c.tool, "bytes", len(m.Result),
		"view_tokens", v.Receipt.ViewTokens, "ref", string(v.Ref), "output", v.Receipt.Output)
	return &jsonrpc.Response{ID: m.ID, Result: out}
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
