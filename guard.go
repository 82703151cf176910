package crumb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crumb-dev/crumb/internal/blobs"
	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// Defaults for a zero Config.
const (
	DefaultBudget     = 2000
	DefaultPageBudget = recall.DefaultBudget
	DefaultHardCap    = 64 << 10
	DefaultMaxKeep    = 1 << 30
)

// exactCountLimit is the largest result whose tokens a receipt counts with
// the real tokenizer; larger ones are estimated (and say so).
const exactCountLimit = 64 << 10

// Config configures a Guard. The zero value is usable: the default store
// directory, o200k_base, 2,000-token views and pages.
type Config struct {
	// Store keeps results. Nil opens the default directory store
	// (store.DefaultPath: $CRUMB_STORE or the user cache directory); when
	// that cannot be opened (a directory other users may write to, a path
	// that cannot be written), the Guard keeps no results but still
	// projects them: its Store is a store.Unavailable, whose Err says why,
	// and every view of a result it could not keep says so. A caller whose
	// own store fails to open can pass store.NewUnavailable the same way.
	Store store.Store
	// Counter counts tokens. Nil means o200k_base.
	Counter tokens.Counter
	// Budget is the most tokens a first view may take. Zero means 2,000.
	Budget int
	// PageBudget is the most tokens a page read back may take (see
	// Guard.Read), whatever the first view's budget: a small view at
	// 600 tokens is read on in pages of 2,000, not of 600. Zero means
	// 2,000 (DefaultPageBudget).
	PageBudget int
	// Threshold is the most tokens a text result may have and still pass
	// through untouched. Zero means the budget.
	Threshold int
	// HardCap is the most bytes of a result that ever enter the context
	// unchanged when it cannot be stored (a full disk, a read-only store):
	// a result up to this size is shown whole with a warning, a larger one
	// is projected with its omissions marked as lost. Zero means 64 KiB.
	HardCap int64
	// MaxKeep is the most bytes of one result the store keeps; a longer
	// result keeps its first MaxKeep bytes and the view says so. Zero means
	// 1 GiB.
	MaxKeep int64
	// Exempt lists tool names (path.Match globs) whose results are never
	// projected: crumb's own read tools, and tools that already return
	// short summaries.
	Exempt []string
	// Tools sets budgets and thresholds per tool; the first policy whose
	// Match glob matches the tool name applies.
	Tools []ToolPolicy
	// Hint renders a continuation in a view. Nil means the crumb command
	// line ("crumb read REF --lines A:B").
	Hint recall.Hint
	// Summarizer, when set, writes an LLM summary of each projected text
	// result, once the exact result is stored; the model reads the result
	// whole up to its MaxInput tokens, else the result's projection within
	// them. A summary that fails, is invalid, quotes what the result does
	// not hold or addresses the reader gives the projection instead, marked
	// as a fallback. Nil (the default) means no summaries, and links no
	// model SDK.
	Summarizer Summarizer
	// Logger receives warnings (a store that failed, a projector that
	// fell back). Nil discards them.
	Logger *slog.Logger
}

// ToolPolicy overrides the budget and threshold for tools whose names match.
type ToolPolicy struct {
	// Match is a path.Match glob over tool names, such as "github_*".
	Match string
	// Budget and Threshold override the Config's when positive.
	Budget    int
	Threshold int
	// Exempt passes the tool's results through untouched.
	Exempt bool
}

// Guard projects tool results. It is safe for concurrent use.
type Guard struct {
	cfg       Config
	store     store.Store
	ownsStore bool
}

// New returns a Guard with cfg's settings, opening the default store when
// cfg.Store is nil.
func New(cfg Config) (*Guard, error) {
	g := &Guard{cfg: cfg}
	if g.cfg.Counter == nil {
		g.cfg.Counter = tokens.O200k()
	}
	if g.cfg.Budget <= 0 {
		g.cfg.Budget = DefaultBudget
	}
	if g.cfg.Threshold <= 0 {
		g.cfg.Threshold = g.cfg.Budget
	}
	// Sizes derived from budgets (the bytes read to decide on pass-through)
	// must not overflow: no budget exceeds recall.MaxBudget.
	g.cfg.Budget = min(g.cfg.Budget, recall.MaxBudget)
	g.cfg.Threshold = min(g.cfg.Threshold, recall.MaxBudget)
	if g.cfg.PageBudget <= 0 {
		g.cfg.PageBudget = DefaultPageBudget
	}
	g.cfg.PageBudget = min(g.cfg.PageBudget, recall.MaxBudget)
	if g.cfg.HardCap <= 0 {
		g.cfg.HardCap = DefaultHardCap
	}
	if g.cfg.MaxKeep <= 0 {
		g.cfg.MaxKeep = DefaultMaxKeep
	}
	if g.cfg.Hint == nil {
		g.cfg.Hint = recall.CLIHint
	}
	if g.cfg.Logger == nil {
		g.cfg.Logger = slog.New(slog.DiscardHandler)
	}
	for _, glob := range append(append([]string(nil), g.cfg.Exempt...), policyGlobs(g.cfg.Tools)...) {
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("crumb: bad tool pattern %q: %w", glob, err)
		}
	}
	g.store = cfg.Store
	if g.store == nil {
		p, err := store.DefaultPath()
		var d *store.Dir
		if err == nil {
			d, err = store.OpenDir(p, store.DirOptions{Logger: g.cfg.Logger})
		}
		if err != nil {
			// Results still reach the model: small ones unchanged,
			// larger ones by the bounded view of a result that could not
			// be stored, which says why.
			g.cfg.Logger.Warn("crumb: the store cannot be opened; results are not kept", "store", p, "err", err)
			g.store = store.NewUnavailable(p, err)
			return g, nil
		}
		g.store, g.ownsStore = d, true
	}
	return g, nil
}

func policyGlobs(ps []ToolPolicy) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Match)
	}
	return out
}

// Store returns the store the Guard keeps results in.
func (g *Guard) Store() store.Store { return g.store }

// PageOptions returns the options of a page read back from the Guard's
// store: the page budget (Config.PageBudget, not the view's), the Guard's
// token counter and continuation hint, and the line renderer views use.
// A caller that reads pages itself (recall.Read, recall.ReadObject) passes
// them, so that its pages are those Guard.Read gives.
func (g *Guard) PageOptions(ctx context.Context) recall.Options {
	return recall.Options{Budget: g.cfg.PageBudget, Counter: g.cfg.Counter, Hint: g.cfg.Hint, Line: g.lineFunc(ctx)}
}

// Read returns the page a continuation names (a view's Next, or a page's):
// lines, bytes, a search, a JSON pointer or a jq selection of a stored
// result, within Config.PageBudget tokens, ending with the next read or
// saying the end was reached. Errors are recall's: store.ErrMissing for a
// result expired or evicted, recall.ErrRevision when the content changed,
// recall.ErrOutOfRange, recall.ErrBadRequest, recall.ErrBinary.
func (g *Guard) Read(ctx context.Context, next Continuation) (recall.Page, error) {
	return recall.Read(ctx, g.store, next, g.PageOptions(ctx))
}

// Close releases the store if the Guard opened it.
func (g *Guard) Close() error {
	if c, ok := g.store.(io.Closer); ok && g.ownsStore {
		return c.Close()
	}
	return nil
}

// Result is what a tool returned.
type Result struct {
	// Tool is the tool's name, for per-tool policies and receipts.
	Tool string
	// Args are the tool's arguments, as JSON. A file read's line range or
	// pattern in them centres the view on what was asked for.
	Args json.RawMessage
	// Kind names the kind of result; empty means detect it.
	Kind Kind
	// Body is the output when it is in memory.
	Body []byte
	// Reader is the output as a stream, read to its end, when Body is nil.
	Reader io.Reader

	// ExitCode, Signal, TimedOut, Duration and Command describe how a
	// command ended; a result with an ExitCode is a command's output.
	ExitCode *int
	Signal   string
	TimedOut bool
	Duration time.Duration
	Command  []string
	// Wait, when set, is called once Reader has been read to its end and
	// before the result is projected, to fill in how the command ended
	// (ExitCode, Signal, TimedOut, Duration): a command whose output is
	// streamed only knows that once its output has ended. Project calls it
	// at most once, and not when it fails before the output ends.
	Wait func(*Result)

	// OutputSchema is the outputSchema an MCP tool declares, for KindMCP
	// results: a JSON Schema object, the JSON null when the tool is known to
	// have none, empty when it is not known (see project.Input).
	OutputSchema json.RawMessage
	// Spilled holds the strings of a KindMCP result stored apart before it
	// was projected, by their JSON pointer (see project.Input.Spilled). A
	// result with spilled strings is always projected.
	Spilled map[string]project.Spill
}

// View is what enters the model's context for a result.
type View struct {
	// Text is the view: the result itself when it passed through, or a
	// projection with a header, excerpts and the reads that recover the rest.
	Text string `json:"view"`
	// Media holds content blocks kept as media (images, audio) for models
	// that can see them.
	Media []json.RawMessage `json:"media,omitempty"`
	// Ref names the stored result; empty when the result passed through.
	Ref Ref `json:"ref,omitempty"`
	// Next reads the first part the view omits; nil when nothing was.
	Next *Continuation `json:"next,omitempty"`
	// Receipt tells what happened.
	Receipt Receipt `json:"receipt"`
}

// Receipt holds facts about a projection, never content. A measured zero is
// kept; an unknown figure is absent.
type Receipt struct {
	// Output is "exact", "projected", "summarized" or "fallback".
	Output string `json:"output"`
	// Kind is the kind of the result.
	Kind Kind `json:"kind"`
	// Tool is the tool's name.
	Tool string `json:"tool,omitempty"`
	// Ref names the stored result.
	Ref Ref `json:"ref,omitempty"`
	// Digest is the SHA-256 of the stored result, lowercase hex.
	Digest string `json:"digest,omitempty"`
	// Bytes is the size of the result as the tool returned it: the strings
	// of an MCP result stored apart included (Result.Spilled), however
	// little of it the record under Ref holds.
	Bytes int64 `json:"bytes"`
	// Lines is the number of lines of the result, when counted.
	Lines *int64 `json:"lines,omitempty"`
	// Tokens is the token count of the result and TokensBy how it was
	// counted: a tokenizer's name, or "estimate".
	Tokens   *int   `json:"tokens,omitempty"`
	TokensBy string `json:"tokens_by,omitempty"`
	// ViewBytes and ViewTokens measure the view's text; ViewTokensBy names
	// the tokenizer.
	ViewBytes    int    `json:"view_bytes"`
	ViewTokens   int    `json:"view_tokens"`
	ViewTokensBy string `json:"view_tokens_by"`
	// Budget and Threshold are the limits that applied.
	Budget    int `json:"budget"`
	Threshold int `json:"threshold"`
	// Exempt reports that the tool is exempt from projection.
	Exempt bool `json:"exempt,omitempty"`
	// Stored reports that the exact result is in the store; StoreError says
	// why it is not, when storing was tried and failed.
	Stored     bool   `json:"stored"`
	StoreError string `json:"store_error,omitempty"`
	// Kept is how many bytes the store kept when the result was longer than
	// the most it keeps (Truncated).
	Truncated bool   `json:"truncated,omitempty"`
	Kept      *int64 `json:"kept,omitempty"`
	// ProjectError says why the kind's projector failed, when the view
	// fell back to the plain text projection.
	ProjectError string `json:"project_error,omitempty"`
	// Summary describes the LLM summary, when one was asked for.
	Summary *SummaryReceipt `json:"summary,omitempty"`
}

// SummaryReceipt holds facts about a summary: who wrote it, how long it
// took, what the model read, what the endpoint reported, how many quotes
// were found in the result, or why there is none (Error, which never holds
// the model's text, and the view is the projection).
type SummaryReceipt struct {
	// Input is what the model read: "whole" (the exact result) or
	// "projected" (its projection within the summarizer's MaxInput).
	Input     string   `json:"input,omitempty"`
	Model     string   `json:"model,omitempty"`
	LatencyMS *int64   `json:"latency_ms,omitempty"`
	Attempts  []string `json:"attempts,omitempty"`
	// InputTokens and OutputTokens are as the endpoint reported them; a
	// reported zero is kept, an unreported figure is absent.
	InputTokens  *int64 `json:"input_tokens,omitempty"`
	OutputTokens *int64 `json:"output_tokens,omitempty"`
	Cached       bool   `json:"cached,omitempty"`
	// Facts counts the critical facts, Quotes the quotes they carry, and
	// Verified the quotes found verbatim in the exact result (all of them:
	// a quote not found fails the summary). A fact is the model's words and
	// is never counted as verified.
	Facts    int    `json:"facts"`
	Quotes   int    `json:"quotes"`
	Verified int    `json:"verified"`
	Error    string `json:"error,omitempty"`
}

// Option adjusts one call to Project.
type Option func(*callOptions)

type callOptions struct {
	contextLeft int
}

// ContextLeft tells Project how many tokens are left in the model's context
// window: the budget and the threshold never exceed it.
func ContextLeft(tokens int) Option {
	return func(o *callOptions) { o.contextLeft = tokens }
}

// limits returns the budget, threshold and exemption for a tool.
func (g *Guard) limits(tool string, o callOptions) (budget, threshold int, exempt bool) {
	budget, threshold = g.cfg.Budget, g.cfg.Threshold
	for _, glob := range g.cfg.Exempt {
		if ok, _ := path.Match(glob, tool); ok {
			exempt = true
		}
	}
	for _, p := range g.cfg.Tools {
		if ok, _ := path.Match(p.Match, tool); ok {
			if p.Budget > 0 {
				budget = p.Budget
				if p.Threshold <= 0 && g.cfg.Threshold == g.cfg.Budget {
					threshold = p.Budget
				}
			}
			if p.Threshold > 0 {
				threshold = p.Threshold
			}
			exempt = exempt || p.Exempt
			break
		}
	}
	if o.contextLeft > 0 {
		budget = min(budget, o.contextLeft)
		threshold = min(threshold, o.contextLeft)
	}
	return budget, threshold, exempt
}

// Limits returns the budget and threshold that apply to a tool's results,
// and whether they pass through untouched (exempt).
func (g *Guard) Limits(tool string) (budget, threshold int, exempt bool) {
	return g.limits(tool, callOptions{})
}

// Passes reports whether a text result of size bytes from tool passes
// through untouched whatever it holds, before any token of it is counted:
// the tool is exempt, or the result is no larger than the threshold in
// bytes (every token is at least a byte, so it fits). Project passes such a
// result through as it came; a proxy may forward it at once, neither
// stored nor projected. A larger result may still pass through once
// Project has counted its tokens.
func (g *Guard) Passes(tool string, size int) bool {
	_, threshold, exempt := g.Limits(tool)
	return passes(exempt, threshold, size)
}

// passes is the rule of Passes, on the limits of one call.
func passes(exempt bool, threshold, size int) bool { return exempt || size <= threshold }

// Project turns a tool result into the view the model sees. A text result
// within the threshold, and any result of an exempt tool, passes through
// unchanged. A larger one is stored exactly, then projected within the
// budget. Project returns an error only when the result cannot be read or
// the context ends; a store that fails gives a fallback view that says so.
func (g *Guard) Project(ctx context.Context, res Result, opts ...Option) (*View, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	budget, threshold, exempt := g.limits(res.Tool, o)
	rc := Receipt{Tool: res.Tool, Budget: budget, Threshold: threshold, Exempt: exempt, ViewTokensBy: g.cfg.Counter.Name()}

	// Read enough to decide whether the result passes through.
	body, rest, err := g.prefix(res, exempt, threshold)
	if err != nil {
		return nil, err
	}
	if rest == nil {
		res.wait()
	}
	kind := res.Kind
	if kind == "" {
		kind = project.Detect(body[:min(len(body), sniff.Len)], project.Hints{Tool: res.Tool, Command: res.ExitCode != nil || len(res.Command) > 0})
	}
	rc.Kind = kind
	if rest == nil && (exempt || kind != KindBinary) && len(res.Spilled) == 0 {
		text := string(body) // the one copy a pass-through makes
		if passes(exempt, threshold, len(body)) {
			// The receipt's count is an estimate, which keeps
			// pass-through cheap.
			return g.exact(text, rc, tokens.Estimate(text), tokens.EstimateName), nil
		}
		if len(body) <= threshold*16 {
			if n := g.cfg.Counter.Count(text); n <= threshold {
				return g.exact(text, rc, n, g.cfg.Counter.Name()), nil
			}
		}
	}

	// Store the exact result, keeping a head and a tail in memory in case
	// storing fails.
	var r io.Reader = bytes.NewReader(body)
	if rest != nil {
		r = io.MultiReader(r, rest)
	}
	keep := newHeadTail(g.cfg.HardCap)
	meta := store.Meta{Tool: res.Tool, Kind: string(kind), Args: res.Args, Limit: g.cfg.MaxKeep, Attrs: commandAttrs(res)}
	// The projection's first part reads the result in order from the
	// start: it runs beside storing, on the bytes as they stream in.
	pre := project.NewPrescan(kind, res.Args)
	defer pre.Release()
	var tee io.Reader = io.TeeReader(r, keep)
	if pre != nil {
		tee = io.TeeReader(r, io.MultiWriter(keep, pre))
	}
	storeFailed := func(err error) (*View, error) {
		pre.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Read the rest, so the tail of the output is still seen.
		if _, cerr := io.Copy(keep, r); cerr != nil {
			return nil, fmt.Errorf("crumb: reading the result: %w", cerr)
		}
		res.wait()
		g.cfg.Logger.Warn("crumb: storing a result failed", "tool", res.Tool, "err", err)
		return g.fallback(ctx, res, kind, keep, err, rc, budget)
	}
	// A store that can stage makes the result durable while it is being
	// projected; the view is returned only once the result is committed.
	var (
		info   store.Info
		obj    store.Object
		commit = func() (store.Info, error) { return info, nil }
	)
	if sg, ok := g.store.(store.Stager); ok {
		st, err := sg.Stage(ctx, tee, meta)
		if err != nil {
			return storeFailed(err)
		}
		info, obj = st.Info(), st.Object()
		done := make(chan error, 1)
		var committed store.Info
		go func() {
			var err error
			committed, err = st.Commit(ctx)
			done <- err
		}()
		commit = func() (store.Info, error) { return committed, <-done }
	} else {
		var err error
		if info, err = g.store.Put(ctx, tee, meta); err != nil {
			return storeFailed(err)
		}
		if obj, err = g.store.Open(ctx, info.Ref); err != nil {
			g.cfg.Logger.Warn("crumb: reading back a stored result failed", "tool", res.Tool, "ref", info.Ref, "err", err)
			return g.fallback(ctx, res, kind, keep, err, rc, budget)
		}
	}
	defer obj.Close()
	pre.Close() // the result has ended
	ended := res.wait()
	rc.Ref, rc.Digest, rc.Bytes, rc.Stored = info.Ref, info.Digest, info.Size, true
	if info.Truncated {
		rc.Truncated, rc.Bytes = true, info.SourceSize
		kept := info.Size
		rc.Kept = &kept
	}
	g.countResult(&rc, kind, keep)
	if len(res.Spilled) > 0 {
		g.countSpilled(ctx, &rc, obj, info.Size, res.Spilled)
	}
	in := g.input(ctx, res, obj, budget)
	in.Ref, in.Digest = info.Ref, info.Digest
	in.Truncated, in.SourceSize = info.Truncated, info.SourceSize
	if !info.Truncated {
		in.Prescan = pre // it saw what the store holds
	}
	out, perr := g.project(ctx, kind, in, &rc)
	if _, err := commit(); err != nil {
		// Nothing that omits material may be shown of a result that is
		// not stored.
		rc.Ref, rc.Digest, rc.Stored = "", "", false
		return storeFailed(err)
	}
	if perr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The store lost the result while its view was built (Redis
		// evicted it under maxmemory, a connection dropped): the result is
		// not kept, and its view comes from the bytes in memory, as when
		// storing fails.
		g.cfg.Logger.Warn("crumb: reading back a stored result failed while its view was built", "tool", res.Tool, "ref", info.Ref, "err", perr)
		rc.Ref, rc.Digest, rc.Stored = "", "", false
		return storeFailed(lostWhileProjecting(perr))
	}
	if out.ResultTokens > 0 && !info.Truncated {
		n := out.ResultTokens
		rc.Tokens, rc.TokensBy = &n, g.cfg.Counter.Name()
	}
	out = g.summarize(ctx, res, kind, obj, info, out, &rc)
	if v := g.wholeIfSmaller(kind, res, keep, out, &rc); v != nil {
		return v, nil
	}
	if ended && commandAttrs(res) != nil {
		// The command's end was not known when the result was stored.
		if a, ok := g.store.(store.Annotator); ok {
			if err := a.Annotate(ctx, info.Ref, commandAttrs(res)); err != nil {
				g.cfg.Logger.Warn("crumb: recording how a command ended", "ref", info.Ref, "err", err)
			}
		}
	}
	return g.finish(ctx, in, out, rc)
}

// wait calls res.Wait, once, now that the output has ended, and reports
// whether it did.
func (res *Result) wait() bool {
	w := res.Wait
	if w == nil {
		return false
	}
	res.Wait = nil
	w(res)
	return true
}

// prefix reads the result's first bytes: all of it when it is in memory or
// small, and enough of a stream to know it is larger than the threshold.
// rest is nil when body holds the whole result.
func (g *Guard) prefix(res Result, exempt bool, threshold int) (body []byte, rest io.Reader, err error) {
	if res.Body != nil || res.Reader == nil {
		return res.Body, nil, nil
	}
	if exempt {
		b, err := io.ReadAll(res.Reader)
		if err != nil {
			return nil, nil, fmt.Errorf("crumb: reading the result: %w", err)
		}
		return b, nil, nil
	}
	limit := int64(max(threshold*16, sniff.Len)) + 1
	b, err := io.ReadAll(io.LimitReader(res.Reader, limit))
	if err != nil {
		return nil, nil, fmt.Errorf("crumb: reading the result: %w", err)
	}
	if int64(len(b)) < limit {
		return b, nil, nil
	}
	return b, res.Reader, nil
}

// wholeIfSmaller returns the result itself, untouched, when its view would
// cost as many tokens as the whole result or more: no view is larger than
// what it stands for. It applies to a text result counted exactly and held
// whole in memory (the MCP projector makes the same choice for results that
// hold media, see project.MCPCost); the result stays stored, and the
// receipt keeps its ref. The view's count is kept in rc, for finish not to
// count it again.
func (g *Guard) wholeIfSmaller(kind Kind, res Result, keep *headTail, out project.Output, rc *Receipt) *View {
	if kind == KindBinary || len(out.Media) > 0 || len(res.Spilled) > 0 || rc.Summary != nil ||
		rc.Tokens == nil || rc.TokensBy != g.cfg.Counter.Name() || !keep.complete() {
		return nil
	}
	if rc.ViewTokens, _ = g.exactTokens(kind, []byte(out.Text), math.MaxInt); rc.ViewTokens < *rc.Tokens {
		return nil
	}
	v := g.exact(string(keep.bytes()), *rc, *rc.Tokens, rc.TokensBy)
	v.Ref = rc.Ref
	return v
}

// exactTokens counts a result's or a view's tokens exactly, as a model is
// charged for them: for KindMCP, a CallToolResult's text without its media
// payloads and its images by their size (project.MCPCost). ok is false when
// the text to count is over limit bytes.
func (g *Guard) exactTokens(kind Kind, text []byte, limit int) (n int, ok bool) {
	if kind == KindMCP && (len(text) <= limit || bytes.Contains(text, []byte(`"data"`)) || bytes.Contains(text, []byte(`"blob"`))) {
		if c, ok := project.MCPCostOf(text); ok {
			if len(c.Text) > limit {
				return 0, false
			}
			return g.cfg.Counter.Count(c.Text) + c.Images, true
		}
	}
	if len(text) > limit {
		return 0, false
	}
	return g.cfg.Counter.Count(string(text)), true
}

// exact returns the view of a result that passes through untouched, text,
// with n tokens counted by the named method.
func (g *Guard) exact(text string, rc Receipt, n int, by string) *View {
	rc.Output = OutputExact
	rc.Bytes = int64(len(text))
	rc.ViewBytes = len(text)
	rc.ViewTokens, rc.ViewTokensBy = n, by
	rc.Tokens, rc.TokensBy = &n, by
	return &View{Text: text, Receipt: rc}
}

// countResult records the result's token count: exact for a small result
// (for KindMCP, one whose text without media payloads is small), estimated
// from what was seen for a large one.
func (g *Guard) countResult(rc *Receipt, kind Kind, keep *headTail) {
	if keep.complete() {
		if n, ok := g.exactTokens(kind, keep.bytes(), exactCountLimit); ok {
			rc.Tokens, rc.TokensBy = &n, g.cfg.Counter.Name()
			return
		}
	}
	// Scale the estimate of the bytes seen to the whole size.
	sample := string(keep.head) + string(keep.tailBytes())
	if len(sample) == 0 {
		return
	}
	n := int(float64(tokens.Estimate(sample)) * float64(rc.Bytes) / float64(len(sample)))
	rc.Tokens, rc.TokensBy = &n, tokens.EstimateName
}

// countSpilled makes the receipt of a result whose long strings were
// stored apart (Result.Spilled) count the whole result as the tool returned
// it, not the skeleton that was stored in its place: each note that stands
// for a string gives way to the string's JSON text, in bytes and in tokens
// (project.Spill). Such strings are long, beyond what a receipt counts
// exactly (exactCountLimit), so the count becomes an estimate, as it is for
// the same result unspilled; a string whose tokens were not measured leaves
// the count unknown rather than short.
func (g *Guard) countSpilled(ctx context.Context, rc *Receipt, skel io.ReaderAt, size int64, spilled map[string]project.Spill) {
	count := tokens.Estimate // as the skeleton was counted
	if rc.TokensBy == g.cfg.Counter.Name() {
		count = g.cfg.Counter.Count
	}
	known := rc.Tokens != nil
	var n int
	if known {
		n = *rc.Tokens
	}
	for ptr, sp := range spilled {
		var note []byte
		if f, err := jsonscan.Find(ctx, skel, size, ptr); err == nil && f.Kind == jsonscan.String {
			note = make([]byte, f.End-f.Start)
			if _, err := skel.ReadAt(note, f.Start); err != nil {
				note = nil
			}
		}
		raw := sp.Bytes
		if raw <= 0 {
			raw = sp.Source.Size() + 2 // the decoded text in quotes: the least it took
		}
		rc.Bytes += raw - int64(len(note))
		if sp.Tokens <= 0 {
			known = false
			continue
		}
		n += sp.Tokens - count(string(note))
	}
	if !known {
		rc.Tokens, rc.TokensBy = nil, ""
		return
	}
	rc.Tokens, rc.TokensBy = &n, tokens.EstimateName
}

func commandAttrs(res Result) map[string]string {
	a := map[string]string{}
	if res.ExitCode != nil {
		a["exit_code"] = strconv.Itoa(*res.ExitCode)
	}
	if res.Signal != "" {
		a["signal"] = res.Signal
	}
	if res.TimedOut {
		a["timed_out"] = "true"
	}
	if res.Duration > 0 {
		a["duration_ms"] = strconv.FormatInt(res.Duration.Milliseconds(), 10)
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

// input builds a projector's input over a source.
func (g *Guard) input(ctx context.Context, res Result, src project.Source, budget int) *project.Input {
	return &project.Input{
		Source:   src,
		Tool:     res.Tool,
		Args:     res.Args,
		ExitCode: res.ExitCode,
		Signal:   res.Signal,
		TimedOut: res.TimedOut,
		Duration: res.Duration,
		Command:  res.Command,
		Budget:   budget,
		Counter:  g.cfg.Counter,
		Hint:     g.cfg.Hint,
		Line:     g.lineFunc(ctx),
		Put:      g.put,

		OutputSchema: res.OutputSchema,
		Spilled:      res.Spilled,
	}
}

// put stores bytes a projector extracted from a result.
func (g *Guard) put(ctx context.Context, data []byte, meta store.Meta) (store.Ref, error) {
	info, err := g.store.Put(ctx, bytes.NewReader(data), meta)
	if err != nil {
		return "", err
	}
	return info.Ref, nil
}

func (g *Guard) lineFunc(ctx context.Context) recall.LineFunc { return LineRenderer(ctx, g.store) }

// LineRenderer returns the renderer that views and pages use for lines of
// content: clean text (no escape sequences or control bytes, valid UTF-8),
// with base64 blobs and data: URLs stored in st and replaced by a reference
// that names their type and size.
func LineRenderer(ctx context.Context, st store.Store) recall.LineFunc {
	put := func(data []byte) (string, error) {
		info, err := st.Put(ctx, bytes.NewReader(data), store.Meta{Tool: "crumb/blob", Kind: string(KindBinary)})
		if err != nil {
			return "", err
		}
		return "ref " + string(info.Ref), nil
	}
	return func(line []byte, fragment bool) string {
		s, _ := blobs.Replace(textfmt.CleanLine(line), put, fragment)
		return s
	}
}

// finish runs the kind's projector, falling back to the text projector if it
// fails, and completes the receipt.
// project runs the kind's projector, falling back to the text projector if
// it fails (and saying so in the receipt).
//
// A read of the result that fails (Redis evicted a part of it, a connection
// dropped, a chunk is broken) fails the projection, whatever the projector
// made of it: no other projector is tried on a result that can no longer be
// read whole, since its view would name reads that cannot be served; the
// caller shows the bytes in memory instead.
func (g *Guard) project(ctx context.Context, kind Kind, in *project.Input, rc *Receipt) (project.Output, error) {
	// Every source the projector reads is watched: the result, and the
	// strings of an MCP result stored apart, which the store can lose
	// (evict) as well.
	watch := &readWatch{Source: in.Source}
	in.Source = watch
	defer func() { in.Source = watch.Source }()
	spilled := in.Spilled
	if len(spilled) > 0 {
		in.Spilled = make(map[string]project.Spill, len(spilled))
		for ptr, sp := range spilled {
			sp.Source = &readWatch{Source: sp.Source, shared: watch}
			in.Spilled[ptr] = sp
		}
		defer func() { in.Spilled = spilled }()
	}
	out, err := project.Project(ctx, kind, in)
	if rerr := watch.failed(); rerr != nil {
		return project.Output{}, fmt.Errorf("crumb: reading the %s result for its view: %w", kind, rerr)
	}
	if err != nil && ctx.Err() == nil && kind != KindText && kind != KindBinary {
		g.cfg.Logger.Warn("crumb: projector failed; using the text projection", "kind", kind, "err", err)
		rc.ProjectError = err.Error()
		out, err = project.Project(ctx, KindText, in)
	}
	if err != nil {
		if ctx.Err() != nil {
			return project.Output{}, ctx.Err()
		}
		return project.Output{}, fmt.Errorf("crumb: projecting a %s result: %w", kind, err)
	}
	return out, nil
}

// readWatch is a Source that keeps the first error a read of it returned,
// other than the io.EOF that ends it. Projectors may read from several
// goroutines.
type readWatch struct {
	project.Source
	// shared, when set, is the watch that keeps the error instead.
	shared *readWatch
	mu     sync.Mutex
	err    error
}

// ReadAt reads from the source and keeps its first error.
func (w *readWatch) ReadAt(p []byte, off int64) (int, error) {
	n, err := w.Source.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		if w.shared != nil {
			w = w.shared
		}
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	return n, err
}

// failed returns the first error a read returned, or nil.
func (w *readWatch) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// finish completes the receipt of a projected view and records the view's
// size with the stored result.
func (g *Guard) finish(ctx context.Context, in *project.Input, out project.Output, rc Receipt) (*View, error) {
	switch {
	case rc.StoreError != "" || rc.ProjectError != "" || (rc.Summary != nil && rc.Summary.Error != ""):
		rc.Output = OutputFallback
	case rc.Summary != nil:
		rc.Output = OutputSummarized
	default:
		rc.Output = OutputProjected
	}
	rc.ViewBytes = len(out.Text)
	if rc.ViewTokens == 0 { // not counted yet (see wholeIfSmaller)
		rc.ViewTokens, _ = g.exactTokens(rc.Kind, []byte(out.Text), math.MaxInt)
	}
	if n, err := project.LinesOf(in); err == nil {
		rc.Lines = &n
	}
	v := &View{Text: out.Text, Media: out.Media, Next: out.Next, Receipt: rc}
	if rc.Stored {
		v.Ref = rc.Ref
	}
	if a, ok := g.store.(store.Annotator); ok && rc.Stored {
		attrs := map[string]string{"view_tokens": strconv.Itoa(rc.ViewTokens), "view_bytes": strconv.Itoa(rc.ViewBytes)}
		if rc.Bytes != in.Source.Size() {
			// The result was larger than what was stored of it: cut at
			// the limit, or its long strings stored apart.
			attrs["bytes"] = strconv.FormatInt(rc.Bytes, 10)
		}
		if rc.Tokens != nil {
			attrs["tokens"] = strconv.Itoa(*rc.Tokens)
			attrs["tokens_by"] = rc.TokensBy
		}
		if err := a.Annotate(ctx, rc.Ref, attrs); err != nil {
			g.cfg.Logger.Warn("crumb: recording view size", "ref", rc.Ref, "err", err)
		}
	}
	return v, nil
}

// fallback builds the view when the result could not be stored: the whole
// result with a warning when it is small enough, else a projection of what
// was kept in memory with its omissions marked as lost.
func (g *Guard) fallback(ctx context.Context, res Result, kind Kind, keep *headTail, cause error, rc Receipt, budget int) (*View, error) {
	rc.StoreError = errorText(cause)
	rc.Bytes = keep.total
	if keep.complete() && kind != KindBinary {
		rc.Output = OutputFallback
		text := "[crumb could not store this result (" + rc.StoreError + "); it is shown whole]\n" + string(keep.bytes())
		rc.ViewBytes, rc.ViewTokens = len(text), g.cfg.Counter.Count(text)
		return &View{Text: text, Receipt: rc}, nil
	}
	if !keep.complete() && kind != KindBinary {
		return g.lostView(ctx, res, kind, keep, rc, budget), nil
	}
	src := keep.source()
	in := g.input(ctx, res, src, budget)
	in.StoreError = rc.StoreError
	in.Digest = src.Info().Digest
	if !keep.complete() {
		in.Truncated, in.SourceSize = true, keep.total
	}
	out, err := g.project(ctx, kind, in, &rc)
	if err != nil {
		return nil, err
	}
	return g.finish(ctx, in, out, rc)
}

// lostView is the view of a text result that could not be stored and was
// too large to keep whole in memory: its first and last lines, as many as
// the budget holds, numbered as they were in the stream. It says only what is
// known: the bytes and lines seen while streaming, which lines are shown and
// which were not kept. A projector would number the kept bytes as if they
// were the whole result, and could not tell the lines it shows from the
// middle that was lost.
func (g *Guard) lostView(ctx context.Context, res Result, kind Kind, keep *headTail, rc Receipt, budget int) *View {
	line := g.lineFunc(ctx)
	count := func(s string) int { return g.cfg.Counter.Count(s) + 1 }
	// Whole lines only: the head's last line and the tail's first one
	// may have been cut where keeping stopped and started.
	head := keep.head[:bytes.LastIndexByte(keep.head, '\n')+1]
	tail := keep.tailBytes()
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	} else {
		tail = nil // all of it the end of a line whose start was lost
	}
	headLines := bytes.SplitAfter(head, []byte{'\n'})
	headLines = headLines[:len(headLines)-1] // after the last newline: nothing
	tailLines := bytes.SplitAfter(tail, []byte{'\n'})
	if len(tailLines[len(tailLines)-1]) == 0 {
		tailLines = tailLines[:len(tailLines)-1]
	}
	if len(headLines) == 0 && len(keep.head) > 0 || len(tailLines) == 0 && len(bytes.TrimSuffix(keep.tailBytes(), []byte{'\n'})) > 0 {
		return g.lostLongLines(ctx, res, kind, keep, rc, budget, headLines, tailLines)
	}
	total := keep.lines()
	tailFirst := total - int64(len(tailLines)) + 1 // the number of tailLines[0]

	facts := ""
	if res.ExitCode != nil {
		facts = "exit status " + strconv.Itoa(*res.ExitCode) + ", "
	}
	header := func(h, t int) string {
		shown := "nothing"
		switch {
		case h > 0 && t > 0:
			shown = "lines 1-" + textfmt.Int(int64(h)) + " and " + textfmt.Int(tailFirst+int64(len(tailLines)-t)) + "-" + textfmt.Int(total)
		case h > 0:
			shown = "lines 1-" + textfmt.Int(int64(h))
		case t > 0:
			shown = "lines " + textfmt.Int(tailFirst+int64(len(tailLines)-t)) + "-" + textfmt.Int(total)
		}
		return fmt.Sprintf("[crumb %s: %sseen while streaming: %s, %s; could not store this result (%s), and only its start and end were kept in memory: shown: %s; the lines between were not kept and cannot be read back]",
			kind, facts, textfmt.Plural(total, "line"), textfmt.Size(keep.total), rc.StoreError, shown)
	}
	room := budget - g.cfg.Counter.Count(header(len(headLines), len(tailLines))) - 4
	marker := func(h, t int) string {
		from, to := int64(h)+1, tailFirst+int64(len(tailLines)-t)-1
		return "[… lines " + textfmt.Int(from) + "-" + textfmt.Int(to) + " not kept …]"
	}
	room -= count(marker(0, 0))
	// The end of a result usually says how it ended: give it the larger
	// share, and the head what the tail does not use.
	used := 0
	tailText, _ := fitLines(tailLines, true, &used, room*2/3, line, count)
	headText, _ := fitLines(headLines, false, &used, room, line, count)
	var b strings.Builder
	b.WriteString(header(len(headText), len(tailText)))
	for _, s := range headText {
		b.WriteString("\n" + s)
	}
	b.WriteString("\n" + marker(len(headText), len(tailText)))
	for i := len(tailText) - 1; i >= 0; i-- {
		b.WriteString("\n" + tailText[i])
	}
	text := b.String()
	rc.Output = OutputFallback
	rc.Lines = &total
	rc.ViewBytes, rc.ViewTokens = len(text), g.cfg.Counter.Count(text)
	return &View{Text: text, Receipt: rc}
}

// lostLongLines is lostView's view when a line is longer than what was kept
// of it at one end: the kept head holds no end of the first line, or the
// kept tail no start of the last one (a one-line JSON document, minified
// code, a long line of text). What was kept of such a line is shown cut by
// bytes, between characters, and marked "…" where it was cut; whole lines
// kept at the other end are shown as lostView shows them. The end gets the
// larger share of the budget, the start what the end does not use.
func (g *Guard) lostLongLines(ctx context.Context, res Result, kind Kind, keep *headTail, rc Receipt, budget int, headLines, tailLines [][]byte) *View {
	line := g.lineFunc(ctx)
	count := func(s string) int { return g.cfg.Counter.Count(s) + 1 }
	total := keep.lines()
	var start, end []byte // the kept start of line 1, the kept end of the last line
	if len(headLines) == 0 {
		start = keep.head
	}
	if len(tailLines) == 0 {
		end = bytes.TrimSuffix(keep.tailBytes(), []byte{'\n'})
	}
	tailFirst := total - int64(len(tailLines)) + 1 // the number of tailLines[0]

	// What is shown of each end: whole lines (h, t of them), or a part
	// of a line (hb, tb bytes of it).
	shown := func(h, hb, t, tb int) string {
		var parts []string
		switch {
		case h > 0:
			parts = append(parts, "lines 1-"+textfmt.Int(int64(h)))
		case hb > 0 && tb > 0 && total == 1:
			return "the first " + textfmt.Plural(int64(hb), "byte") + " and the last " + textfmt.Plural(int64(tb), "byte") + " of line 1"
		case hb > 0:
			parts = append(parts, "the first "+textfmt.Plural(int64(hb), "byte")+" of line 1")
		}
		switch {
		case t > 0:
			parts = append(parts, "lines "+textfmt.Int(tailFirst+int64(len(tailLines)-t))+"-"+textfmt.Int(total))
		case tb > 0:
			parts = append(parts, "the last "+textfmt.Plural(int64(tb), "byte")+" of line "+textfmt.Int(total))
		}
		if len(parts) == 0 {
			return "nothing"
		}
		return strings.Join(parts, " and ")
	}
	facts := ""
	if res.ExitCode != nil {
		facts = "exit status " + strconv.Itoa(*res.ExitCode) + ", "
	}
	header := func(shown string) string {
		return fmt.Sprintf("[crumb %s: %sseen while streaming: %s, %s; could not store this result (%s), and only its start and end were kept in memory: shown: %s; the bytes between were not kept and cannot be read back]",
			kind, facts, textfmt.Plural(total, "line"), textfmt.Size(keep.total), rc.StoreError, shown)
	}
	marker := func(between int64) string { return "[… " + textfmt.Plural(between, "byte") + " not shown …]" }
	// fit returns the most of a part of a line that room holds, rendered
	// and marked where it was cut, and the bytes of it shown.
	fit := func(part []byte, room int, fromEnd bool) (string, int) {
		render := func(n int) (string, int) {
			if fromEnd {
				p := textfmt.ClipStart(string(part), n, "")
				return "…" + line([]byte(p), true), len(p)
			}
			p := textfmt.CutUTF8(part, n)
			return line(p, true) + "…", len(p)
		}
		lo, hi := 0, min(len(part), tokens.MaxBytes(max(room, 0)))
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if s, _ := render(mid); count(s) <= room {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		if lo == 0 {
			return "", 0
		}
		return render(lo)
	}
	// The header and the marker with their longest numbers.
	room := budget - count(header(shown(len(headLines), len(start), len(tailLines), len(end)))) - count(marker(keep.total)) - 4
	for range 3 { // a header shorter than its estimate leaves room; one longer takes it
		var tailFrag, headFrag string
		used, hb, tb := 0, 0, 0
		shownBytes := int64(0)
		if end != nil {
			tailFrag, tb = fit(end, room*2/3, true)
			used += count(tailFrag)
			shownBytes += int64(tb)
		}
		tailText, tn := fitLines(tailLines, true, &used, room*2/3, line, count)
		shownBytes += tn
		if start != nil {
			headFrag, hb = fit(start, room-used, false)
			used += count(headFrag)
			shownBytes += int64(hb)
		}
		headText, hn := fitLines(headLines, false, &used, room, line, count)
		shownBytes += hn
		var b strings.Builder
		b.WriteString(header(shown(len(headText), hb, len(tailText), tb)))
		if headFrag != "" {
			b.WriteString("\n" + headFrag)
		}
		for _, s := range headText {
			b.WriteString("\n" + s)
		}
		b.WriteString("\n" + marker(keep.total-shownBytes))
		if tailFrag != "" {
			b.WriteString("\n" + tailFrag)
		}
		for i := len(tailText) - 1; i >= 0; i-- {
			b.WriteString("\n" + tailText[i])
		}
		text := b.String()
		n := g.cfg.Counter.Count(text)
		if n > budget && room > 0 {
			room -= n - budget
			continue
		}
		rc.Output = OutputFallback
		rc.Lines = &total
		rc.ViewBytes, rc.ViewTokens = len(text), n
		return &View{Text: text, Receipt: rc}
	}
	// Nothing of the lines fits beside the header.
	text := header("nothing")
	rc.Output = OutputFallback
	rc.Lines = &total
	rc.ViewBytes, rc.ViewTokens = len(text), g.cfg.Counter.Count(text)
	return &View{Text: text, Receipt: rc}
}

// fitLines renders lines, from the last when fromEnd, for as long as their
// cost, added to *used, stays within limit; it returns them in the order
// taken and the bytes of the lines they render.
func fitLines(lines [][]byte, fromEnd bool, used *int, limit int, line recall.LineFunc, count func(string) int) ([]string, int64) {
	var out []string
	var n int64
	for k := range lines {
		l := lines[k]
		if fromEnd {
			l = lines[len(lines)-1-k]
		}
		s := line(bytes.TrimSuffix(l, []byte{'\n'}), false)
		if *used+count(s) > limit {
			break
		}
		out = append(out, s)
		*used += count(s)
		n += int64(len(l))
	}
	return out, n
}

// errorText shortens an error for a view: its message, without the chain of
// contexts a log would want. A store that could not be opened is named with
// its whole reason, which is what its reader must act on.
func errorText(err error) string {
	var pe interface{ Unwrap() error }
	msg := err.Error()
	if errors.Is(err, store.ErrUnavailable) {
		return msg
	}
	for errors.As(err, &pe) {
		inner := pe.Unwrap()
		if inner == nil {
			break
		}
		err = inner
	}
	if root := err.Error(); root != "" && len(msg) > 200 {
		return root
	}
	return msg
}

// lostError is the reason a result read as stored is not kept after all: a
// read of it failed while its view was built (Redis evicted it, the
// connection dropped, the projector failed on it). Its text is short, for the
// view (the log gets the read's own error); it wraps nothing, for no
// caller gets it as an error.
type lostError struct{ err error }

func (e *lostError) Error() string {
	return "it could not be read back while its view was built: " + errorText(e.err)
}

// lostWhileProjecting wraps the error of a projection whose reads of the
// stored result failed.
func lostWhileProjecting(err error) error { return &lostError{err: err} }
