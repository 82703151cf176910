package mcpproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
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
	// Blob asks for the bytes as an embedded resource blob, as the pages
	// of a binary result continue.
	Blob bool `json:"blob,omitempty"`
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
		// Every range the continuation lists ("10:14,19:44"), not only
		// the first.
		if r.Bytes != nil {
			s := span(recall.FormatRanges(r.Ranges()))
			a.Bytes = &s
		} else if r.Lines != nil {
			s := span(recall.FormatRanges(r.Ranges()))
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

// intProp is the JSON schema of a whole-number argument, preceded by a
// comma: its range is the one every surface checks (internal/limits).
func intProp(name string, lim limits.Limit, description string) string {
	desc, _ := json.Marshal(description) // a string always marshals
	return fmt.Sprintf(`,%q:{"type":"integer","minimum":%d,"maximum":%d,"description":%s}`, name, lim.Min, lim.Max, desc)
}

func (p *Proxy) buildTools() []json.RawMessage {
	ref := `"ref":{"type":"string","description":"The ref of the saved result: 16 hex digits, as the result's header or continuation gives it."}`
	rev := `"rev":{"type":"string","description":"The revision a continuation gives; copy it as it is."}`
	defs := []toolDef{{
		Name:  p.names.Read,
		Title: "Read a saved tool result",
		Description: "Read part of a tool result too large to show whole, which crumb saved: such results end with the exact call of this tool that reads on. " +
			"Give the ref and a line range (\"41:240\") or a byte range; it reads the saved copy and never runs the original tool again. " +
			"A binary result (called with its ref alone) comes back as an image, or as base64 blobs in pages.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` + ref +
			`,"lines":{"type":"string","description":"Lines A:B, numbered from 1, both ends included; \"A:\" reads to the end; several ranges in order, comma-separated (\"10:14,19:44\"), as a continuation gives them."}` +
			`,"bytes":{"type":"string","description":"Bytes A:B, offsets from 0, B excluded; several ranges comma-separated."},` + rev +
			`,"blob":{"type":"boolean","description":"Return the bytes as an embedded resource blob (base64), as the pages of a binary result continue."}` +
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
			intProp("context", limits.Context, "Lines of context shown before and after each match.") +
			intProp("max", limits.Matches, "The most matches to show in all.") +
			intProp("from", limits.From, "The line to start searching at.") +
			intProp("skip", limits.Skip, "Matches to pass over from the start; with \"from\", the matches before that line, which earlier pages showed (continuations set both).") + "," + rev +
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

// textBlock is a text content block.
type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// ownResult is a CallToolResult of crumb's tools.
type ownResult struct {
	Content []json.RawMessage `json:"content"`
	IsError bool              `json:"isError,omitempty"`
}

func textContent(s string) json.RawMessage { return jsonobj.Marshal(textBlock{Type: "text", Text: s}) }

// answerOwn answers a call of one of crumb's tools. Bad arguments and reads
// that fail are tool errors the model can read and act on, not protocol
// errors.
func (s *session) answerOwn(ctx context.Context, id jsonrpc.ID, name string, args json.RawMessage) *jsonrpc.Response {
	content, err := s.p.callOwn(ctx, name, args)
	res := ownResult{Content: content}
	if err != nil {
		text := name + ": " + err.Error()
		if h := errorHint(err, s.p.names); h != "" {
			text += "\n" + h
		}
		res = ownResult{Content: []json.RawMessage{textContent(text)}, IsError: true}
	}
	return &jsonrpc.Response{ID: id, Result: jsonobj.Marshal(res)}
}

// callOwn runs one of crumb's tools and returns the content blocks of its
// answer: a page of text, or, for a binary result, its bytes as an image
// block or as an embedded resource blob, after a line that says what they
// are and how to read on.
func (p *Proxy) callOwn(ctx context.Context, name string, args json.RawMessage) ([]json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	req, err := p.parseOwn(name, args)
	if err != nil {
		return nil, err
	}
	st := p.guard.Store()
	// Pages take the Guard's page budget, not the view's.
	opts := p.guard.PageOptions(ctx)
	read := req.Grep == nil && req.Pointer == nil && req.Query == ""
	// recall reads a named range as text whatever it holds (views name
	// such reads for what they show as lines); a byte range of binary
	// content comes back here as blobs, as its pages continue.
	if read && name == p.names.Read && (wantsBlob(args) || req.Bytes != nil && binaryContent(ctx, st, req)) {
		return p.readBinary(ctx, st, req)
	}
	page, err := recall.Read(ctx, st, req, opts)
	if read && errors.Is(err, recall.ErrBinary) {
		return p.readBinary(ctx, st, req)
	}
	if err != nil {
		return nil, p.toolError(req, err)
	}
	// What is read back counts against the savings crumb stats reports.
	if err := recall.Charge(ctx, st, req.Ref, page.Tokens); err != nil {
		p.log.Warn("crumb mcp: counting a page read back", "ref", string(req.Ref), "err", err)
	}
	return []json.RawMessage{textContent(page.Text)}, nil
}

// binaryContent reports whether the result a request names sniffs as
// binary; false when it cannot be opened (the read says why).
func binaryContent(ctx context.Context, st store.Store, req recall.Request) bool {
	obj, err := recall.Open(ctx, st, req)
	if err != nil {
		return false
	}
	defer obj.Close()
	head := make([]byte, min(obj.Size(), sniff.Len))
	n, _ := obj.ReadAt(head, 0)
	return sniff.IsBinary(head[:n])
}

// wantsBlob reports whether crumb_read's arguments ask for a blob.
func wantsBlob(args json.RawMessage) bool {
	var a struct {
		Blob bool `json:"blob"`
	}
	return json.Unmarshal(args, &a) == nil && a.Blob
}

// BlobPageBytes is the most bytes of a binary result one call of crumb_read
// returns as an embedded resource blob; a larger result (or range) comes in
// pages, each naming the call that reads the next.
const BlobPageBytes = 64 << 10

// readBinary returns a stored result, or the byte range req names, as
// content blocks: a whole image (or audio clip) a model can take as one
// block; anything else as an embedded resource blob of at most
// BlobPageBytes, in pages, whose continuations ask for blobs again. A line
// of text first says what it is and what to call next. A line range is
// read from the start: binary content has no lines.
func (p *Proxy) readBinary(ctx context.Context, st store.Store, req recall.Request) ([]json.RawMessage, error) {
	obj, err := recall.Open(ctx, st, req)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	size := obj.Size()
	from, end := int64(0), size
	if req.Bytes != nil {
		from = req.Bytes.From
		if req.Bytes.To != 0 && req.Bytes.To < end {
			end = req.Bytes.To
		}
		if from >= size && size > 0 {
			return nil, fmt.Errorf("%w: byte %d is past the end: %s holds %s bytes (offsets 0:%d)", recall.ErrOutOfRange, from, req.Ref, textfmt.Int(size), size)
		}
	}
	head := make([]byte, min(size, sniff.Len))
	if _, err := obj.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("mcpproxy: reading %s: %w", req.Ref, err)
	}
	mime := sniff.MIME(head)
	rev := recall.Rev(obj.Info().Digest)
	what := string(req.Ref) + ": " + sniff.Describe(head) + ", " + textfmt.Size(size)
	if from == 0 && end == size {
		if b, desc := mediaBlock(obj, mime, size); b != nil {
			return []json.RawMessage{textContent("[crumb read " + what + "; " + desc + ", whole]"), b}, nil
		}
		if strings.HasPrefix(mime, "image/") {
			what += ", larger than a model takes as an image"
		}
	}
	stop := min(end, from+BlobPageBytes)
	data := make([]byte, stop-from)
	if n, err := obj.ReadAt(data, from); n < len(data) {
		return nil, fmt.Errorf("mcpproxy: reading %s: %w", req.Ref, err)
	}
	uri := "crumb:" + string(req.Ref)
	if from > 0 || stop < size {
		uri += "#bytes=" + strconv.FormatInt(from, 10) + ":" + strconv.FormatInt(stop, 10)
	}
	blob := jsonobj.Marshal(struct {
		Type     string `json:"type"`
		Resource any    `json:"resource"`
	}{"resource", struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType"`
		Blob     string `json:"blob"`
	}{uri, mime, base64.StdEncoding.EncodeToString(data)}})
	text := "[crumb read " + what + "; bytes " + strconv.FormatInt(from, 10) + ":" + strconv.FormatInt(stop, 10) + " follow as a blob (base64)"
	switch {
	case stop < end:
		next := span(strconv.FormatInt(stop, 10) + ":")
		if end < size {
			next += span(strconv.FormatInt(end, 10))
		}
		a := readArgs{Ref: string(req.Ref), Bytes: &next, Blob: true}
		if needsRev(recall.Request{Ref: req.Ref, Rev: rev}) {
			a.Rev = rev
		}
		text += "; next: " + p.names.Read + " " + string(jsonobj.Marshal(a)) + "]"
	case end < size:
		text += "; the end of the range asked for]"
	default:
		text += "; the end of the result]"
	}
	return []json.RawMessage{textContent(text), blob}, nil
}

// mediaBlock returns an image or audio block of a whole binary result that
// a model can take as one block, and a few words on it; nil for anything
// else, or an image beyond the limits a model takes.
func mediaBlock(obj store.Object, mime string, size int64) (json.RawMessage, string) {
	kind, _, _ := strings.Cut(mime, "/")
	if kind != "image" && kind != "audio" || size > project.MaxImageBytes {
		return nil, ""
	}
	data := make([]byte, size)
	if n, _ := obj.ReadAt(data, 0); int64(n) < size {
		return nil, ""
	}
	desc := "an " + kind + " block"
	if kind == "image" {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || max(cfg.Width, cfg.Height) > project.MaxImageSide {
			return nil, ""
		}
		desc = fmt.Sprintf("an image block, %dx%d", cfg.Width, cfg.Height)
	}
	return jsonobj.Marshal(struct {
		Type     string `json:"type"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}{kind, base64.StdEncoding.EncodeToString(data), mime}), desc
}

// cliRead finds the crumb commands that recall's messages name.
var cliRead = lazyre.New(`(?:[^\s;()]*/)?crumb (read [^\s;()]+(?: --(?:lines|bytes|pointer|jq|rev) [^\s;()]+)*)`)

// cliRange finds the bare ranges recall's messages suggest, such as
// "(read --lines 1:40)".
var cliRange = lazyre.New(`\bread (--lines|--bytes) ([0-9]+:[0-9]*)`)

// toolError rewrites the commands a read's error suggests as calls of
// crumb's tools: a model behind MCP has no command line.
func (p *Proxy) toolError(req recall.Request, err error) error {
	msg := err.Error()
	out := cliRead.ReplaceAllStringFunc(msg, func(m string) string {
		sub := cliRead.FindStringSubmatch(m)
		r, perr := recall.ParseArgv(strings.Fields(sub[1]))
		if perr != nil {
			return m
		}
		return p.hint(r)
	})
	out = cliRange.ReplaceAllStringFunc(out, func(m string) string {
		sub := cliRange.FindStringSubmatch(m)
		sp, perr := recall.ParseSpan(sub[2])
		if perr != nil {
			return m
		}
		r := recall.Request{Ref: req.Ref, Rev: req.Rev}
		if sub[1] == "--lines" {
			r.Lines = &sp
		} else {
			r.Bytes = &sp
		}
		return p.hint(r)
	})
	out = strings.ReplaceAll(out, "with --pointer first", "with "+p.names.Query+" and a \"pointer\" first")
	for _, flag := range []string{"from", "skip", "max"} {
		out = strings.ReplaceAll(out, "--"+flag+" ", `"`+flag+`" `)
	}
	if out == msg {
		return err
	}
	return &toolErr{msg: out, err: err}
}

// toolErr is an error whose message is rewritten for MCP; it still wraps
// the original, so errors.Is sees its sentinel.
type toolErr struct {
	msg string
	err error
}

func (e *toolErr) Error() string { return e.msg }
func (e *toolErr) Unwrap() error { return e.err }

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
		if a.Lines != nil && *a.Lines != "" && a.Bytes != nil && *a.Bytes != "" {
			return req, fmt.Errorf("%w: give \"lines\" or \"bytes\", not both", recall.ErrBadRequest)
		}
		for _, r := range []struct {
			name  string
			s     *span
			bytes bool
		}{{"lines", a.Lines, false}, {"bytes", a.Bytes, true}} {
			if r.s == nil || *r.s == "" {
				continue
			}
			rs, err := recall.ParseRanges(string(*r.s))
			if err != nil {
				return req, fmt.Errorf("%q: %w", r.name, err)
			}
			req.SetRanges(r.bytes, rs)
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
	if err := checkBounds(req); err != nil {
		return req, err
	}
	return req, req.Validate()
}

// checkBounds checks the numbers of a request against the limits every
// surface takes (internal/limits), before anything adds them up.
func checkBounds(r recall.Request) error {
	for _, sp := range []struct {
		name string
		sp   *recall.Span
	}{{"lines", r.Lines}, {"bytes", r.Bytes}} {
		if sp.sp == nil {
			continue
		}
		for _, v := range []int64{sp.sp.From, sp.sp.To} {
			if err := limits.Position.Check(v); err != nil {
				return fmt.Errorf("%w: %q %s: %w; no stored result is that large", recall.ErrBadRequest, sp.name, sp.sp, err)
			}
		}
	}
	if g := r.Grep; g != nil {
		for _, n := range []struct {
			name string
			v    int64
			lim  limits.Limit
		}{{"context", int64(g.Context), limits.Context}, {"max", int64(g.Max), limits.Matches}, {"from", g.From, limits.From}, {"skip", int64(g.Skip), limits.Skip}} {
			if err := n.lim.Check(n.v); err != nil {
				return fmt.Errorf("%w: %q: %w", recall.ErrBadRequest, n.name, err)
			}
		}
	}
	return nil
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
		return "The saved result is binary: call " + n.Read + " with its ref alone (or a \"bytes\" range) for its bytes."
	}
	return ""
}
