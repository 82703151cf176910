package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// readArgs are the arguments of crumb_read.
type readArgs struct {
	Ref   string `json:"ref"`
	Lines *span  `json:"lines,omitempty"`
	Bytes *span  `json:"bytes,omitempty"`
	Rev   string `json:"rev,omitempty"`
}

// searchArgs are the arguments of crumb_search.
type searchArgs struct {
	Ref        string `json:"ref"`
	Pattern    string `json:"pattern"`
	IgnoreCase bool   `json:"ignore_case,omitempty"`
	Context    int    `json:"context,omitempty"`
	Max        int    `json:"max,omitempty"`
	From       int64  `json:"from,omitempty"`
	Skip       int    `json:"skip,omitempty"`
	Rev        string `json:"rev,omitempty"`
}

// queryArgs are the arguments of crumb_query.
type queryArgs struct {
	Ref     string  `json:"ref"`
	JQ      string  `json:"jq,omitempty"`
	Pointer *string `json:"pointer,omitempty"`
	Rev     string  `json:"rev,omitempty"`
}

// span is a range written "A:B"; a model may also write a single number.
type span string

func (s *span) UnmarshalJSON(b []byte) error {
	var str string
	if err := json.Unmarshal(b, &str); err == nil {
		*s = span(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New(`a range is a string "A:B", such as "41:240"`)
	}
	*s = span(n.String())
	return nil
}

// renderHint renders a continuation as a call of crumb's tools, such as
// crumb_read {"ref":"1a2b3c4d5e6f7a8b","lines":"41:240"}, so the model knows
// exactly what to call.
func (p *Proxy) renderHint(r recall.Request) string {
	rev := ""
	if needsRev(r) {
		rev = r.Rev
	}
	var name string
	var args any
	switch {
	case r.Grep != nil:
		g := r.Grep
		name = p.names.Search
		args = searchArgs{Ref: string(r.Ref), Pattern: g.Pattern, IgnoreCase: g.IgnoreCase, Context: g.Context,
			Max: g.Max, From: g.From, Skip: g.Skip, Rev: rev}
	case r.Pointer != nil || r.Query != "":
		name = p.names.Query
		args = queryArgs{Ref: string(r.Ref), JQ: r.Query, Pointer: r.Pointer, Rev: rev}
	default:
		name = p.names.Read
		a := readArgs{Ref: string(r.Ref), Rev: rev}
		if r.Bytes != nil {
			s := span(r.Bytes.String())
			a.Bytes = &s
		} else if r.Lines != nil {
			s := span(r.Lines.String())
			a.Lines = &s
		}
		args = a
	}
	return name + " " + string(jsonobj.Marshal(args))
}

// needsRev reports whether a continuation's revision says more than its ref,
// which is itself the start of the content's digest.
func needsRev(r recall.Request) bool {
	if r.Rev == "" {
		return false
	}
	n := min(len(r.Rev), len(r.Ref))
	return r.Rev[:n] != string(r.Ref)[:n]
}

// toolDef is an MCP tool definition.
type toolDef struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

const readOnly = `{"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`

func (p *Proxy) buildTools() []json.RawMessage {
	ref := `"ref":{"type":"string","description":"The ref of the saved result: 16 hex digits, as the result's header or continuation gives it."}`
	rev := `"rev":{"type":"string","description":"The revision a continuation gives; copy it as it is."}`
	defs := []toolDef{{
		Name:  p.names.Read,
		Title: "Read a saved tool result",
		Description: "Read part of a tool result too large to show whole, which crumb saved: such results end with the exact call of this tool that reads on. " +
			"Give the ref and a line range (\"41:240\") or a byte range; it reads the saved copy and never runs the original tool again.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + ref +
			`,"lines":{"type":"string","description":"Lines A:B, numbered from 1, both ends included; \"A:\" reads to the end."}` +
			`,"bytes":{"type":"string","description":"Bytes A:B, offsets from 0, B excluded."},` + rev +
			`},"required":["ref"],"additionalProperties":false}`),
		Annotations: json.RawMessage(readOnly),
	}, {
		Name:  p.names.Search,
		Title: "Search a saved tool result",
		Description: "Search a tool result that crumb saved for the lines matching a regular expression (RE2 syntax), shown with their line numbers. " +
			"Use it to find something in a result too large to read whole, then read around it with " + p.names.Read + ".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + ref +
			`,"pattern":{"type":"string","description":"An RE2 regular expression matched against each line."}` +
			`,"ignore_case":{"type":"boolean","description":"Match without regard to case."}` +
			`,"context":{"type":"integer","minimum":0,"description":"Lines of context shown before and after each match."}` +
			`,"max":{"type":"integer","minimum":0,"description":"The most matches to show in all."}` +
			`,"from":{"type":"integer","minimum":0,"description":"The line to start searching at."}` +
			`,"skip":{"type":"integer","minimum":0,"description":"Matches already shown; continuations set it."},` + rev +
			`},"required":["ref","pattern"],"additionalProperties":false}`),
		Annotations: json.RawMessage(readOnly),
	}, {
		Name:  p.names.Query,
		Title: "Query a saved JSON tool result",
		Description: "Select from a JSON tool result that crumb saved, with a jq expression (\"jq\": \".items[] | .name\") or a JSON pointer (\"pointer\": \"/items/0\"), instead of reading the whole document. " +
			"Long selections continue with " + p.names.Read + ".",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + ref +
			`,"jq":{"type":"string","description":"A jq expression, such as .items[] | select(.state == \"open\") | .title"}` +
			`,"pointer":{"type":"string","description":"A JSON pointer (RFC 6901), such as /items/0/name; empty selects the whole document."},` + rev +
			`},"required":["ref"],"additionalProperties":false}`),
		Annotations: json.RawMessage(readOnly),
	}}
	out := make([]json.RawMessage, len(defs))
	for i, d := range defs {
		out[i] = jsonobj.Marshal(d)
	}
	return out
}

// textResult is a CallToolResult of one text block.
type textResult struct {
	Content []textBlock `json:"content"`
	IsError bool        `json:"isError,omitempty"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// answerOwn answers a call of one of crumb's tools. Bad arguments and reads
// that fail are tool errors the model can read and act on, not protocol
// errors.
func (s *session) answerOwn(ctx context.Context, id jsonrpc.ID, name string, args json.RawMessage) *jsonrpc.Response {
	text, err := s.p.callOwn(ctx, name, args)
	res := textResult{Content: []textBlock{{Type: "text", Text: text}}}
	if err != nil {
		res = textResult{Content: []textBlock{{Type: "text", Text: name + ": " + err.Error()}}, IsError: true}
		if h := errorHint(err, s.p.names); h != "" {
			res.Content[0].Text += "\n" + h
		}
	}
	return &jsonrpc.Response{ID: id, Result: jsonobj.Marshal(res)}
}

// callOwn runs one of crumb's tools and returns the page it shows.
func (p *Proxy) callOwn(ctx context.Context, name string, args json.RawMessage) (string, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	req, err := p.parseOwn(name, args)
	if err != nil {
		return "", err
	}
	st := p.guard.Store()
	opts := recall.Options{Budget: p.budget, Hint: p.hint, Line: crumb.LineRenderer(ctx, st)}
	page, err := recall.Read(ctx, st, req, opts)
	if err != nil {
		return "", err
	}
	// What is read back counts against the savings crumb stats reports.
	if err := recall.Charge(ctx, st, req.Ref, page.Tokens); err != nil {
		p.log.Warn("crumb mcp: counting a page read back", "ref", string(req.Ref), "err", err)
	}
	return page.Text, nil
}

// parseOwn turns the arguments of one of crumb's tools into a read request.
func (p *Proxy) parseOwn(name string, args json.RawMessage) (recall.Request, error) {
	strict := func(v any) error {
		dec := json.NewDecoder(strings.NewReader(string(args)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("%w: arguments: %v", recall.ErrBadRequest, err)
		}
		return nil
	}
	var req recall.Request
	switch name {
	case p.names.Read:
		var a readArgs
		if err := strict(&a); err != nil {
			return req, err
		}
		req = recall.Request{Ref: store.Ref(a.Ref), Rev: a.Rev}
		if a.Lines != nil && *a.Lines != "" {
			sp, err := recall.ParseSpan(string(*a.Lines))
			if err != nil {
				return req, err
			}
			req.Lines = &sp
		}
		if a.Bytes != nil && *a.Bytes != "" {
			sp, err := recall.ParseSpan(string(*a.Bytes))
			if err != nil {
				return req, err
			}
			req.Bytes = &sp
		}
	case p.names.Search:
		var a searchArgs
		if err := strict(&a); err != nil {
			return req, err
		}
		g := recall.GrepSpec{Pattern: a.Pattern, IgnoreCase: a.IgnoreCase, Context: a.Context, Max: a.Max, From: a.From, Skip: a.Skip}
		req = recall.Request{Ref: store.Ref(a.Ref), Rev: a.Rev, Grep: &g}
		if g.Pattern != "" {
			if _, err := recall.Compile(g); err != nil {
				return req, err
			}
		}
	case p.names.Query:
		var a queryArgs
		if err := strict(&a); err != nil {
			return req, err
		}
		if a.JQ == "" && a.Pointer == nil {
			return req, fmt.Errorf("%w: give \"jq\" (a jq expression) or \"pointer\" (a JSON pointer)", recall.ErrBadRequest)
		}
		req = recall.Request{Ref: store.Ref(a.Ref), Rev: a.Rev, Query: a.JQ, Pointer: a.Pointer}
	default:
		return req, fmt.Errorf("%w: unknown tool %q", recall.ErrBadRequest, name)
	}
	if req.Ref == "" {
		return req, fmt.Errorf("%w: \"ref\" is required: the 16 hex digits the result's header names", recall.ErrBadRequest)
	}
	ref, err := store.ParseRef(string(req.Ref))
	if err != nil {
		return req, err
	}
	req.Ref = ref
	return req, req.Validate()
}

// errorHint says what the model can do after a failed read.
func errorHint(err error, n Names) string {
	switch {
	case errors.Is(err, store.ErrMissing):
		return "The saved result expired or was evicted: call the original tool again for a fresh copy."
	case errors.Is(err, store.ErrBroken):
		return "The saved copy is damaged: call the original tool again for a fresh copy."
	case errors.Is(err, store.ErrBadRef):
		return "A ref is the 16 hex digits a result's header names, such as \"ref 1a2b3c4d5e6f7a8b\"."
	case errors.Is(err, recall.ErrOutOfRange):
		return "Ask for a range inside the result; the header of its first page gives its size."
	case errors.Is(err, recall.ErrRevision):
		return "The saved content changed; start again from its newest view."
	case errors.Is(err, recall.ErrBinary):
		return "The saved result is binary: it has no text to show."
	}
	return ""
}
