// Package history keeps an agent's conversation within a token budget
// without losing any of it.
//
// [Compactor.Compact] takes a thread — an OpenAI chat-completions or an
// Anthropic Messages request body, or just its messages array — and returns
// the same shape, smaller:
//
//   - The task anchor (leading system messages and the first user message)
//     and the most recent turns stay word for word.
//   - Tool results of older turns become breadcrumbs: the tool's name and
//     arguments, what was found (one line), the ref of the exact result in
//     the store and the read that recovers it. Older attachments become a
//     line naming their ref.
//   - When the thread is still over budget, older turns fold, a fixed number
//     of turns at a time, into a running summary placed after the anchor
//     where both APIs take it, so that user and assistant messages still
//     take turns: after the task's text in its own message when an
//     assistant message follows, else in an assistant message of its own.
//     The summary is written by the configured [Summarizer], or else by a
//     deterministic extractive digest. The folded messages are stored
//     exactly, as a JSON array, and the summary names their ref. The blocks
//     merge level by level, a fold step of them into one, so the summary
//     grows by a level each time the thread grows by a factor of the fold
//     step; when it is still over budget it merges further, down to one
//     block.
//   - A thread still over budget after all this is returned as compacted
//     as it gets, with [Result.OverBudget] set; [Result.BudgetNote] says
//     which parts did not fit.
//
// A request body, message or content block that names a key twice is
// refused with [ErrInput]: compaction would read and replace one of the two
// members and pass the other through, and which one a provider's decoder
// takes is not for crumb to guess.
//
// Compaction is a pure function of the thread and the options (and, with a
// summarizer, of the summaries cached in the store), and it only ever
// replaces whole old turns: give it the whole original thread before each
// model call, and a message once compacted keeps the same text in every later
// request, so prompt caches keep hitting. Tool calls and their results stay
// in one turn, so no result is ever left without its call.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// ErrInput means the thread could not be read: not JSON, not a messages
// array or a request body holding one, a message without a role, or a key
// given twice in the body, a message or a content block.
var ErrInput = errors.New("history: bad thread")

// Defaults for a zero Options.
const (
	DefaultRecent         = 6
	DefaultFoldStep       = 8
	DefaultBreadcrumbOver = 200
	DefaultFoldTokens     = 300
	DefaultMediaTokens    = 1600
)

// Options configures a Compactor. The zero value works with the default
// store.
type Options struct {
	// Store keeps the exact tool results and folded messages. Nil opens
	// the default directory store.
	Store store.Store
	// Counter counts tokens. Nil means o200k_base.
	Counter tokens.Counter
	// Format is the shape of the threads; Auto detects it per thread.
	Format Format
	// Budget is the most tokens the compacted messages should take. Zero
	// means no folding: only old tool results become breadcrumbs.
	Budget int
	// Recent is how many of the latest turns stay word for word. A turn is
	// a user or assistant message together with the tool results that
	// answer its calls. Zero means 6.
	Recent int
	// FoldStep is how many turns fold into the summary at a time. Folding
	// in fixed steps keeps every earlier summary block unchanged as the
	// thread grows. Zero means 8.
	FoldStep int
	// BreadcrumbOver is the size, in tokens, above which an old tool
	// result becomes a breadcrumb. Zero means 200; smaller results stay.
	BreadcrumbOver int
	// FoldTokens bounds each block of the running summary. Zero means 300.
	FoldTokens int
	// MediaTokens is what one image or other attachment counts for, in
	// place of the length of its encoded data. Zero means 1,600.
	MediaTokens int
	// Summarizer, when set, writes the summary of folded turns; its
	// answers are cached in the store beside the folded messages, so each
	// block is written once. When it fails, the extractive digest is used
	// and the Result says so. It writes blocks of up to FoldStep² turns
	// (the first two levels); the digest stands for larger merged blocks,
	// whose messages no model should be sent whole.
	Summarizer Summarizer
	// Hint renders the read that recovers a stored result. Nil means the
	// crumb command line ("crumb read REF").
	Hint recall.Hint
}

// Summarizer writes the summary of turns that fold.
type Summarizer interface {
	// Summarize returns a summary of the folded messages in at most
	// req.MaxTokens tokens.
	Summarize(ctx context.Context, req SummaryRequest) (string, error)
}

// SummaryRequest is what a Summarizer is given.
type SummaryRequest struct {
	// Format is the shape of the messages.
	Format Format
	// Messages are the folded messages, exactly as they were in the thread.
	Messages []json.RawMessage
	// Digest is the deterministic extractive digest of the same messages,
	// which is used when the summarizer fails.
	Digest string
	// MaxTokens bounds the summary.
	MaxTokens int
}

// Result is a compacted thread and what compaction did.
type Result struct {
	// Body is the compacted thread, in the shape of the input: a request
	// body with its other members unchanged, or a messages array.
	Body json.RawMessage
	// Format is the format the thread was read as.
	Format Format
	// Messages and TokensBefore describe the input; MessagesAfter and
	// TokensAfter the output. Tokens count the messages only.
	Messages, MessagesAfter   int
	TokensBefore, TokensAfter int
	// OldTurns is how many turns (after the anchor) are compacted, as
	// breadcrumbs or folded; the RecentTurns after them are word for word
	// (at least Options.Recent of them, when the thread has as many).
	OldTurns, RecentTurns int
	// FoldedTurns is how many of the OldTurns are folded into the summary;
	// the others are breadcrumbs.
	FoldedTurns int
	// Breadcrumbs is the number of tool results (and attachments) replaced
	// by breadcrumbs.
	Breadcrumbs int
	// Folds describes each block of the running summary, oldest first.
	Folds []Fold
	// Budget is the budget the thread was compacted to; zero means none.
	Budget int
	// TaskTokens, SummaryTokens, OlderTokens and RecentTokens are what the
	// parts of the compacted messages take, and add up to TokensAfter: the
	// task anchor, the summary (what it adds to the task's message, or its
	// own message), the old turns not folded (as breadcrumbs), and the
	// RecentTurns word for word.
	TaskTokens, SummaryTokens, OlderTokens, RecentTokens int
	// OverBudget reports that the compacted messages are still over
	// Budget, with every old turn that can fold folded and the summary at
	// its smallest; BudgetNote says which parts did not fit.
	OverBudget bool
}

// BudgetNote says in one sentence how the compacted thread stands against
// its budget: within it, or over it and by how much, with what each part
// takes and which parts alone are over it. Over budget, the task and the
// recent turns are word for word by contract and the summary is as small as
// it gets (one block, unless fewer blocks could not be made), so the note
// names what the caller can change: a larger budget, fewer --recent turns,
// a shorter task.
func (r *Result) BudgetNote() string {
	if r.Budget == 0 {
		return "no budget"
	}
	if !r.OverBudget {
		return fmt.Sprintf("within budget: %s of %s tokens", commas(r.TokensAfter), commas(r.Budget))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "over budget: %s tokens for a budget of %s (%s over): the task takes %s, the %s kept word for word %s",
		commas(r.TokensAfter), commas(r.Budget), commas(r.TokensAfter-r.Budget), commas(r.TaskTokens),
		plural(r.RecentTurns, "recent turn"), commas(r.RecentTokens))
	if len(r.Folds) > 0 {
		fmt.Fprintf(&b, ", the summary of %s in %s %s", plural(r.Folds[len(r.Folds)-1].Last-r.Folds[0].First+1, "message"),
			plural(len(r.Folds), "block"), commas(r.SummaryTokens))
	}
	if r.OlderTokens > 0 {
		fmt.Fprintf(&b, ", %s as breadcrumbs (fewer than a fold step, so not folded) %s", plural(r.OldTurns-r.FoldedTurns, "older turn"), commas(r.OlderTokens))
	}
	switch {
	case r.TaskTokens > r.Budget:
		b.WriteString("; the task alone is over the budget")
	case r.TaskTokens+r.RecentTokens > r.Budget:
		b.WriteString("; the task and the recent turns alone are over the budget")
	case r.TaskTokens+r.RecentTokens+r.SummaryTokens > r.Budget:
		b.WriteString("; the task, the recent turns and the summary at its smallest are over the budget")
	default:
		b.WriteString("; with the older turns they are over the budget")
	}
	return b.String()
}

// Fold is one block of the running summary.
type Fold struct {
	// First and Last are the indexes (0-based) in the input of the first
	// and last message folded into the block.
	First, Last int
	// Ref holds the folded messages exactly, as a JSON array.
	Ref store.Ref
	// Tokens is what the folded messages took.
	Tokens int
	// Summarized reports that the block was written by the Summarizer;
	// Fallback that the summarizer failed and the digest was used, and Err
	// says why.
	Summarized, Fallback bool
	Err                  string `json:",omitempty"`
}

// Compactor compacts threads. It is safe for concurrent use, and it
// remembers token counts and stored results between calls, so compacting a
// growing thread once per turn costs little more than its new messages.
type Compactor struct {
	opts Options

	// Caches keyed by content (Go's map hashing is far cheaper than a
	// second parse, count or digest), each cleared when it grows past
	// cacheLimit entries.
	mu     sync.Mutex
	msgs   map[Format]map[string]*message // per format, a message's JSON -> the message
	counts map[string]int
	refs   map[string]store.Ref // content -> its ref, once stored or found
	folds  map[string]foldBlock // folded messages' JSON -> their block
	crumbs map[string]crumbedMessage
}

// cacheLimit bounds each of a Compactor's caches: room for every message of
// a thread of tens of thousands (a cache cleared while one compaction runs
// would make it count and parse again what it just did).
const cacheLimit = 1 << 16

// cached looks key up in m, computing and remembering it when absent.
func cached[V any](c *Compactor, m map[string]V, key string, make func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := make()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if len(m) >= cacheLimit {
		clear(m)
	}
	m[key] = v
	c.mu.Unlock()
	return v, nil
}

// peek looks key up in m without copying it.
func peek[V any](c *Compactor, m map[string]V, key []byte) (V, bool) {
	c.mu.Lock()
	v, ok := m[string(key)]
	c.mu.Unlock()
	return v, ok
}

// messages is the cache of messages parsed in format f.
func (c *Compactor) messages(f Format) map[string]*message {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.msgs[f]
	if m == nil {
		m = map[string]*message{}
		c.msgs[f] = m
	}
	return m
}

// New returns a Compactor for opts.
func New(opts Options) (*Compactor, error) {
	if opts.Store == nil {
		path, err := store.DefaultPath()
		if err != nil {
			return nil, fmt.Errorf("history: default store: %w", err)
		}
		st, err := store.OpenDir(path, store.DirOptions{})
		if err != nil {
			return nil, fmt.Errorf("history: open store: %w", err)
		}
		opts.Store = st
	}
	if opts.Counter == nil {
		opts.Counter = tokens.O200k()
	}
	if opts.Budget < 0 {
		return nil, fmt.Errorf("history: budget %d: want 0 (no folding) or more", opts.Budget)
	}
	for _, v := range []struct {
		p   *int
		def int
		n   string
	}{
		{&opts.Recent, DefaultRecent, "recent"}, {&opts.FoldStep, DefaultFoldStep, "fold step"},
		{&opts.BreadcrumbOver, DefaultBreadcrumbOver, "breadcrumb size"}, {&opts.FoldTokens, DefaultFoldTokens, "fold tokens"},
		{&opts.MediaTokens, DefaultMediaTokens, "media tokens"},
	} {
		if *v.p < 0 {
			return nil, fmt.Errorf("history: %s %d: want a positive number (0 for the default)", v.n, *v.p)
		}
		if *v.p == 0 {
			*v.p = v.def
		}
	}
	if opts.Hint == nil {
		opts.Hint = recall.CLIHint
	}
	return &Compactor{opts: opts, msgs: map[Format]map[string]*message{}, counts: map[string]int{}, refs: map[string]store.Ref{}, folds: map[string]foldBlock{}, crumbs: map[string]crumbedMessage{}}, nil
}

// Compact compacts a thread with a Compactor made for opts; use a
// Compactor to compact the same thread turn after turn.
func Compact(ctx context.Context, thread []byte, opts Options) (*Result, error) {
	c, err := New(opts)
	if err != nil {
		return nil, err
	}
	return c.Compact(ctx, thread)
}

// count counts the tokens of one message, with each attachment counted as
// MediaTokens.
func (c *Compactor) count(raw json.RawMessage) int {
	if n, ok := peek(c, c.counts, raw); ok {
		return n
	}
	n, _ := cached(c, c.counts, string(raw), func() (int, error) {
		text, media := countable(raw)
		return c.opts.Counter.Count(text) + media*c.opts.MediaTokens + messageOverhead, nil
	})
	return n
}

// tokensOf counts the tokens of a text.
func (c *Compactor) tokensOf(b []byte) int {
	if len(b) < 512 {
		return c.opts.Counter.Count(string(b))
	}
	n, _ := cached(c, c.counts, "text:"+string(b), func() (int, error) { return c.opts.Counter.Count(string(b)), nil })
	return n
}

// messageOverhead is what a message costs beyond its JSON text in the
// providers' own accounting (role markers and separators).
const messageOverhead = 4

// put stores b exactly and returns its ref. Content already in the store is
// not written again (which would also replace the facts kept with it, such
// as a cached summary); opening it counts as a use, so what a live thread
// refers to does not expire.
func (c *Compactor) put(ctx context.Context, b []byte, meta store.Meta) (store.Ref, error) {
	c.mu.Lock()
	ref, known := c.refs[string(b)]
	c.mu.Unlock()
	if known {
		if _, err := c.opts.Store.Stat(ctx, ref); err == nil {
			return ref, nil
		}
		c.mu.Lock()
		delete(c.refs, string(b))
		c.mu.Unlock()
	}
	return cached(c, c.refs, string(b), func() (store.Ref, error) {
		ref := store.RefOf(store.Sum(b))
		if obj, err := c.opts.Store.Open(ctx, ref); err == nil {
			obj.Close()
			return ref, nil
		}
		info, err := c.opts.Store.Put(ctx, bytes.NewReader(b), meta)
		if err != nil {
			return "", fmt.Errorf("history: store: %w", err)
		}
		return info.Ref, nil
	})
}
