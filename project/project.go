// Package project turns a stored result into a view: the small first look a
// model gets, within a token budget, cut along the result's own boundaries
// (whole lines, whole paths, whole JSON values), with every omission named
// and followed by the exact read that recovers it.
//
// One [Projector] serves each [Kind]. Projectors read the stored result
// through an [Input] with random access and never hold more than their budget
// in memory, so projecting a 1 GB log costs about what projecting a 1 MB one
// does. The same input and options give a byte-identical view.
//
// A kind's projector registers itself ([Register]) from the init function
// of its package: the directory listing's in project/dir, the binary view's
// in project/binary, and the rest, for now, in this package. A program gets
// a kind by importing its package; package crumb imports them all. A
// projector that finds its input is another kind's content hands it on
// with [Project] (a text that is a listing goes to the dir view), and only
// when that kind is registered ([Registered]). The views share the
// excerpt machinery of project/internal/view and the line classifier of
// project/internal/classify.
package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// Kind names a kind of result; each kind has its own projector.
type Kind string

// The kinds crumb knows.
const (
	KindText    Kind = "text"    // plain text and logs
	KindFile    Kind = "file"    // a file read: source code, configuration, documents
	KindDir     Kind = "dir"     // a directory listing
	KindCommand Kind = "command" // a command's interleaved stdout and stderr
	KindJSON    Kind = "json"    // a JSON document
	KindMCP     Kind = "mcp"     // an MCP CallToolResult
	KindBinary  Kind = "binary"  // anything that is not text
)

// Kinds lists every kind, in a stable order.
var Kinds = []Kind{KindText, KindFile, KindDir, KindCommand, KindJSON, KindMCP, KindBinary}

// ParseKind validates a kind name; "" and "auto" mean "detect it".
func ParseKind(s string) (Kind, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("project: unknown kind %q (want one of text, file, dir, command, json, mcp, binary)", s)
}

// Source is the exact content being projected: a stored object, or an
// in-memory stand-in when storing failed.
type Source interface {
	io.ReaderAt
	Size() int64
	Info() store.Info
}

// Input is what a projector works from.
type Input struct {
	// Source holds the exact result.
	Source Source
	// Ref names the stored result; empty when it could not be stored, in
	// which case omissions are reported as unrecoverable.
	Ref store.Ref
	// Digest is the SHA-256 of the content, lowercase hex.
	Digest string

	// Tool and Args describe the call that produced the result.
	Tool string
	Args json.RawMessage

	// ExitCode, Signal, TimedOut and Duration describe a command's end.
	ExitCode *int
	Signal   string
	TimedOut bool
	Duration time.Duration
	// Command is the command line that ran, for command results.
	Command []string

	// Budget is the most tokens the view may take, all included.
	Budget int
	// Counter counts tokens.
	Counter tokens.Counter
	// Hint renders a continuation for the view.
	Hint recall.Hint
	// Line renders one line of content; it sanitizes and may replace
	// embedded base64 blobs with references.
	Line recall.LineFunc
	// Put stores bytes extracted from the result (a decoded base64 image, an
	// embedded resource) as a result of their own and returns its ref. Nil
	// when there is no store; projectors then describe such bytes without a
	// ref.
	Put func(ctx context.Context, data []byte, meta store.Meta) (store.Ref, error)
	// OutputSchema is the outputSchema an MCP tool declares (from
	// tools/list), for KindMCP results: a JSON Schema object when the tool
	// has one, the JSON literal null when the tool is known to have none,
	// and empty when it is not known. It decides what may be done to a
	// large structuredContent: see the MCP projector.
	OutputSchema json.RawMessage
	// Truncated and SourceSize report that only the first Source.Size()
	// bytes of a SourceSize-byte result were kept.
	Truncated  bool
	SourceSize int64
	// StoreError, when set, says why the result could not be stored.
	StoreError string
	// Spilled holds the long strings of an MCP result that the caller
	// stored apart before projecting it (the MCP proxy, which never holds a
	// large result in memory), by their JSON pointer in the result, such as
	// "/content/0/text": the result holds a short note in their place. The
	// MCP projector reads such a text from its Source, and names its Ref
	// instead of storing it again.
	Spilled map[string]Spill
	// Prescan, when set, has read the first part of this very result as
	// it streamed in (see [Prescan]); the projector carries on from it.
	// Nil means the projector reads everything itself.
	Prescan *Prescan
	// Detected is what the detector of the kind this input was handed to
	// found of its form, when the pipeline chose the kind from the content
	// (the log format for [KindLog]); nil otherwise.
	Detected any

	call *callCache // Args parsed (see Input.Call)
}

// Spill is a string of a result stored apart: its ref, its decoded text,
// and what it measured where the result held it, for the receipt to count
// the whole result rather than the note that stands in its place.
type Spill struct {
	Ref    store.Ref
	Source Source
	// Bytes is the length of the string's JSON text in the result, its
	// quotes and escapes included; 0 when not measured (the receipt then
	// counts its decoded text in quotes).
	Bytes int64
	// Tokens is the estimate of that JSON text (tokens.Estimate, as a
	// receipt estimates any large result); 0 when not measured, and the
	// receipt then has no token count.
	Tokens int
}

// Doc returns line-addressed access to the input.
func (in *Input) Doc() *lines.Doc {
	info := in.Source.Info()
	return lines.New(in.Source, in.Source.Size(), info.Newlines, info.ChunkNewlines, store.ChunkSize)
}

// Rev is the revision continuations of this input carry.
func (in *Input) Rev() string { return recall.Rev(in.Digest) }

// ReadHint renders a continuation, or says the rest cannot be read back
// when the result was not stored.
func (in *Input) ReadHint(r recall.Request) string {
	if in.Ref == "" {
		return "not recoverable: the result could not be stored"
	}
	return in.Hint(r)
}

// Output is a projector's view.
type Output struct {
	// Text is what enters the model's context.
	Text string
	// Next is the first continuation: the read that shows what the view
	// omits, from its first part on (for views of excerpts, every omitted
	// range in one read). Nil when nothing was omitted.
	Next *recall.Request
	// Complete reports that the view shows the whole result.
	Complete bool
	// Media holds blocks kept as media (images, audio) for MCP results.
	Media []json.RawMessage
	// ResultTokens is what the whole result costs a model, when the
	// projector counted it (MCPCost); 0 when it did not.
	ResultTokens int
}

// Projector turns an input into a view within its budget.
type Projector interface {
	Project(ctx context.Context, in *Input) (Output, error)
}

// ProjectorFunc adapts a function to the Projector interface.
type ProjectorFunc func(ctx context.Context, in *Input) (Output, error)

// Project calls f.
func (f ProjectorFunc) Project(ctx context.Context, in *Input) (Output, error) { return f(ctx, in) }

var projectors = map[Kind]Projector{}

// Register makes p the projector for kind k. It is meant to be called from
// init functions of this package and of programs that add kinds.
func Register(k Kind, p Projector) { projectors[k] = p }

// Registered reports whether a projector is registered for kind k.
func Registered(k Kind) bool {
	_, ok := projectors[k]
	return ok
}

// For returns the projector for a kind; unknown kinds get the text projector.
func For(k Kind) Projector {
	if p, ok := projectors[k]; ok {
		return p
	}
	return projectors[KindText]
}

// Project runs the projector for kind k over in.
func Project(ctx context.Context, k Kind, in *Input) (Output, error) {
	if in.Counter == nil {
		in.Counter = tokens.O200k()
	}
	if in.Hint == nil {
		in.Hint = recall.CLIHint
	}
	if in.Line == nil {
		in.Line = recall.PlainLine
	}
	// Budgets outside recall's bounds are brought inside them: the sizes
	// projectors derive from a budget must not overflow.
	in.Budget = min(max(in.Budget, recall.MinBudget), recall.MaxBudget)
	if c := in.call; c == nil || !bytes.Equal(c.args, in.Args) {
		in.call = &callCache{args: in.Args, call: ParseCall(in.Args)}
	}
	return For(k).Project(ctx, in)
}

// LinesOf returns the number of lines of an input.
func LinesOf(in *Input) (int64, error) { return in.Doc().Lines() }
