package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

// ErrNotJSON means a JSON pointer or a jq query was asked of a result that
// is not valid JSON.
var ErrNotJSON = errors.New("recall: result is not valid JSON")

// MaxQueryBytes is the largest result a jq query runs over. jq needs the
// whole document in memory, decoded, which takes several times its size (a
// 260 MB document took 2.1 GB): the limit keeps a query within about
// 100 MB. A larger result is refused with ErrTooLarge; a JSON pointer has
// no such limit (it seeks through the result without decoding it), and its
// selection is a result of its own that a query can read.
const MaxQueryBytes = 8 << 20

// ErrTooLarge means a jq query was asked of a result larger than
// MaxQueryBytes. It wraps ErrBadRequest.
var ErrTooLarge = fmt.Errorf("%w: the result is too large for a jq query", ErrBadRequest)

// MaxSelectionBytes is the largest rendering of a jq query's results that
// is kept.
const MaxSelectionBytes = 256 << 20

// QueryTimeout bounds a jq query when the context has no deadline.
const QueryTimeout = 30 * time.Second

// readSelection answers a JSON pointer or jq request: it evaluates the
// selection, renders it as indented JSON (a string as its raw text), stores
// the rendering as a result of its own and returns its first page by lines.
// The page's continuations are plain line reads of the new result.
func readSelection(ctx context.Context, st store.Store, obj store.Object, req Request, opts Options) (Page, error) {
	var (
		r    io.Reader
		what string
		kind = "json"
		wait func() error
	)
	if req.Pointer != nil {
		f, err := jsonscan.Find(ctx, obj, obj.Size(), *req.Pointer)
		if err != nil {
			return Page{}, selectError(req, err)
		}
		what = "the value at " + pointerName(*req.Pointer) + " (" + valueWord(f) + ", " + textfmt.Size(f.End-f.Start) + ")"
		if f.Kind == jsonscan.String {
			text, err := stringText(obj, f, req.Ref)
			if err != nil {
				return Page{}, err
			}
			r, kind = strings.NewReader(text), "text"
			if sniff.IsBinary([]byte(text[:min(len(text), sniff.Len)])) {
				// Control bytes: show the string as JSON, escaped.
				q, _ := json.Marshal(text)
				r, kind = bytes.NewReader(append(q, '\n')), "json"
				what = strings.Replace(what, "a string, shown as its text", "a string, shown as JSON", 1)
			}
		} else {
			pr, pw := io.Pipe()
			done := make(chan error, 1)
			go func() {
				err := jsonscan.Indent(ctx, pw, obj, f.Start, f.End, f.Whole)
				pw.CloseWithError(err)
				done <- err
			}()
			r, wait = pr, func() error { return <-done }
		}
	} else {
		out, n, strs, err := runQuery(ctx, obj, req)
		if err != nil {
			return Page{}, err
		}
		if n == 0 {
			text := "[crumb read " + string(req.Ref) + ": the jq query gave no results]"
			return Page{Text: text, Tokens: opts.Counter.Count(text)}, nil
		}
		what = "the " + textfmt.Plural(int64(n), "result") + " of the jq query (" + textfmt.Size(int64(len(out))) + ")"
		if strs {
			kind = "text"
		}
		r = bytes.NewReader(out)
	}
	args, _ := json.Marshal(struct {
		Ref     store.Ref `json:"ref"`
		Pointer *string   `json:"pointer,omitempty"`
		Query   string    `json:"jq,omitempty"`
	}{req.Ref, req.Pointer, req.Query})
	info, err := st.Put(ctx, r, store.Meta{Tool: "crumb/select", Kind: kind, Args: args})
	if wait != nil {
		if werr := wait(); werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return Page{}, fmt.Errorf("recall: storing the selection: %w", err)
	}
	sel, err := st.Open(ctx, info.Ref)
	if err != nil {
		return Page{}, fmt.Errorf("recall: reading the selection back: %w", err)
	}
	defer sel.Close()
	head := "[crumb: " + what + " of " + string(req.Ref) + ", stored as " + string(info.Ref) + "; its lines follow]"
	sub := opts
	sub.Budget = max(opts.Budget-opts.Counter.Count(head)-1, MinBudget)
	page, err := ReadObject(ctx, sel, Request{Ref: info.Ref, Rev: Rev(info.Digest), Lines: &Span{From: 1}}, sub)
	if err != nil {
		return Page{}, err
	}
	page.Text = head + "\n" + page.Text
	page.Tokens = opts.pageTokens(page.Text)
	return page, nil
}

func pointerName(p string) string {
	if p == "" {
		return `"" (the whole document)`
	}
	return p
}

func valueWord(f jsonscan.Found) string {
	switch {
	case f.Whole:
		return "the stream of top-level values, as an array"
	case f.Kind == jsonscan.BeginObject:
		return "an object"
	case f.Kind == jsonscan.BeginArray:
		return "an array"
	case f.Kind == jsonscan.String:
		return "a string, shown as its text"
	case f.Kind == jsonscan.Number:
		return "a number"
	case f.Kind == jsonscan.Null:
		return "null"
	}
	return "a boolean"
}

// selectError turns a pointer's failure into a recall error.
func selectError(req Request, err error) error {
	var nf *jsonscan.NotFoundError
	var se *jsonscan.SyntaxError
	switch {
	case errors.As(err, &nf):
		return fmt.Errorf("%w: %s: %s", ErrOutOfRange, req.Ref, nf.Error())
	case errors.As(err, &se):
		return fmt.Errorf("%w: %s is not valid JSON (%v); read it by lines instead: crumb read %s --lines 1:200", ErrNotJSON, req.Ref, se, req.Ref)
	case strings.Contains(err.Error(), "JSON pointer"):
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return err
}

// stringText decodes the string value at f.
func stringText(obj store.Object, f jsonscan.Found, ref store.Ref) (string, error) {
	if f.End-f.Start > MaxSelectionBytes {
		return "", fmt.Errorf("%w: the string is %s, more than the %s a selection may hold; read it by bytes: crumb read %s --bytes %d:%d",
			ErrBadRequest, textfmt.Size(f.End-f.Start), textfmt.Size(MaxSelectionBytes), ref, f.Start+1, f.End-1)
	}
	raw := make([]byte, f.End-f.Start)
	if n, err := obj.ReadAt(raw, f.Start); n < len(raw) {
		return "", fmt.Errorf("recall: reading the string: %w", err)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		// The scanner lets some broken escapes through; show the raw text.
		return string(raw[1 : len(raw)-1]), nil
	}
	return s, nil
}

// runQuery runs a jq query over the whole result (as one array when it
// holds several top-level values, as jq -s does) and renders its results:
// each as indented JSON, or all as raw lines when every result is a string.
func runQuery(ctx context.Context, obj store.Object, req Request) (out []byte, n int, strs bool, err error) {
	q, err := gojq.Parse(req.Query)
	if err != nil {
		return nil, 0, false, fmt.Errorf("%w: jq %q: %v", ErrBadRequest, req.Query, err)
	}
	code, err := gojq.Compile(q, gojq.WithEnvironLoader(func() []string { return nil }))
	if err != nil {
		return nil, 0, false, fmt.Errorf("%w: jq %q: %v", ErrBadRequest, req.Query, err)
	}
	if obj.Size() > MaxQueryBytes {
		return nil, 0, false, fmt.Errorf("%w: %s holds %s, more than the %s a jq query may read "+
			"(jq holds the whole document in memory, decoded, at several times its size); "+
			"select a part by its JSON pointer first (the selection is stored as a result of its own, which a jq query can read), "+
			"or search the result's lines for a pattern",
			ErrTooLarge, req.Ref, textfmt.Size(obj.Size()), textfmt.Size(MaxQueryBytes))
	}
	input, err := decodeAll(obj)
	if err != nil {
		var se *jsonscan.SyntaxError
		if errors.As(err, &se) {
			return nil, 0, false, fmt.Errorf("%w: %s is not valid JSON (%v); read it by lines instead: crumb read %s --lines 1:200", ErrNotJSON, req.Ref, se, req.Ref)
		}
		return nil, 0, false, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, QueryTimeout)
		defer cancel()
	}
	var results []any
	iter := code.RunWithContext(ctx, input)
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if e, ok := v.(error); ok {
			var halt *gojq.HaltError
			if errors.As(e, &halt) && halt.Value() == nil {
				break
			}
			if ctx.Err() != nil {
				return nil, 0, false, fmt.Errorf("%w: jq: the query did not finish in time (%v)", ErrBadRequest, ctx.Err())
			}
			return nil, 0, false, fmt.Errorf("%w: jq: %v", ErrBadRequest, e)
		}
		results = append(results, v)
	}
	strs = len(results) > 0
	for _, v := range results {
		if _, ok := v.(string); !ok {
			strs = false
		}
	}
	var b bytes.Buffer
	for _, v := range results {
		if s, ok := v.(string); ok && strs {
			b.WriteString(s)
			if !strings.HasSuffix(s, "\n") {
				b.WriteByte('\n')
			}
		} else {
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				return nil, 0, false, fmt.Errorf("recall: rendering a jq result: %w", err)
			}
		}
		if b.Len() > MaxSelectionBytes {
			return nil, 0, false, fmt.Errorf("%w: the query's results exceed %s; narrow it", ErrBadRequest, textfmt.Size(MaxSelectionBytes))
		}
	}
	return b.Bytes(), len(results), strs, nil
}

// decodeAll decodes the whole result for jq: its one value, or the array
// of its top-level values. Numbers keep their precision: integers become
// int or *big.Int, as gojq wants them.
func decodeAll(obj store.Object) (any, error) {
	// Check it with the scanner first, for an error with a byte offset.
	s := jsonscan.New(obj, obj.Size())
	for {
		t, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if t.Kind == jsonscan.BeginObject || t.Kind == jsonscan.BeginArray {
			if _, err := s.Skip(); err != nil {
				return nil, err
			}
		}
	}
	dec := json.NewDecoder(io.NewSectionReader(obj, 0, obj.Size()))
	dec.UseNumber()
	var vals []any
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
		}
		vals = append(vals, numbers(v))
	}
	if s.Values() == 1 && len(vals) == 1 {
		return vals[0], nil
	}
	return vals, nil
}

// numbers converts json.Number values for gojq.
func numbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil && i == int64(int(i)) {
			return int(i)
		}
		if !strings.ContainsAny(string(x), ".eE") {
			if b, ok := new(big.Int).SetString(string(x), 10); ok {
				return b
			}
		}
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	}
	return v
}
