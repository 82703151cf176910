package main

import (
	"fmt"
	"io"

	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/textfmt"
)

func init() {
	register(&command{
		name:    "compact",
		summary: "keep an agent's conversation within a token budget, losing nothing",
		usage: `Usage: crumb compact [--format openai|anthropic] --budget TOKENS [flags] < THREAD > COMPACTED

Reads a conversation on stdin — an OpenAI chat-completions or Anthropic
Messages request body, or just its "messages" array — and writes the same
shape, smaller, on stdout:

  - the task (leading system messages and the first user message) and the
    latest --recent turns stay word for word;
  - tool results of older turns become breadcrumbs: the call, what it found,
    the ref of the exact result and the crumb read that recovers it (naming
    this crumb as views do: "crumb" when PATH finds it, else its path);
  - while the thread is over --budget, older turns fold, --fold-step turns at
    a time, into a running summary after the task (in the task's message, or
    an assistant message of its own before a user turn, so that user and
    assistant messages still take turns), whose blocks name the ref
    that holds the folded messages exactly; the blocks merge level by level
    (--fold-step of them into one), and further when the budget asks, down
    to a single block.

The thread must name each key once in its request body, messages and
content blocks: a key given twice is an error (which of the two a
provider reads is not crumb's to guess).

Exit status: 0 when the output is within --budget (or there is none); 3
when it is written in full but is still over --budget, because the task
and the latest --recent turns (word for word by contract) and the smallest
summary do not fit: stderr then says what each part takes and which parts
alone are over it; 1 on an error, with nothing written; 2 on a usage
mistake.

Give it the whole original thread before every model call: the output is a
pure function of the thread, and it changes only in steps, so a message once
compacted keeps the same text in later requests (prompt caches keep hitting).
A tool call and its result are never separated.

Examples:
  crumb compact --budget 20000 < request.json > compacted.json
  jq .messages thread.json | crumb compact --format anthropic --budget 50000 --stats
  crumb read REF --pointer /3        # message 4 of a folded block, exactly`,
		run: runCompact,
	})
}

func runCompact(e *env, args []string) error {
	c := commands["compact"]
	fs := newFlags(e, c)
	format := fs.String("format", "auto", "the thread's shape: `openai`, anthropic or auto")
	budget := limitFlag(fs, "budget", 0, limits.CompactBudget, "the most `TOKENS` the compacted messages should take (0: only turn old tool results into breadcrumbs)")
	recent := limitFlag(fs, "recent", history.DefaultRecent, limits.Recent, "how many of the latest `TURNS` stay word for word")
	step := limitFlag(fs, "fold-step", history.DefaultFoldStep, limits.FoldStep, "how many `TURNS` fold into the summary at a time")
	over := limitFlag(fs, "breadcrumb-over", history.DefaultBreadcrumbOver, limits.BreadcrumbOver, "old tool results above this many `TOKENS` become breadcrumbs")
	stats := fs.Bool("stats", false, "print what was done on stderr")
	d, err := parseNoArgs(e, c, fs, args)
	if err != nil {
		return err
	}
	defer d.Close()
	f, err := history.ParseFormat(*format)
	if err != nil {
		return usagef(c.name, "%v", err)
	}
	in, err := io.ReadAll(io.LimitReader(e.stdin, maxThread+1))
	if err != nil {
		return fmt.Errorf("read the thread: %w", err)
	}
	if len(in) > maxThread {
		return fmt.Errorf("the thread is over %s: compact it in parts or store large tool results with crumb project first", textfmt.Size(maxThread))
	}
	comp, err := history.New(history.Options{Store: d, Format: f, Budget: *budget, Recent: *recent, FoldStep: *step, BreadcrumbOver: *over, Hint: e.hint()})
	if err != nil {
		return err
	}
	res, err := comp.Compact(e.ctx, in)
	if err != nil {
		return withHint(err, "give a request body with \"messages\", or the messages array, as JSON on stdin")
	}
	startGC(e, d)
	if _, err := e.stdout.Write(append(res.Body, '\n')); err != nil {
		return err
	}
	if *stats {
		fmt.Fprintf(e.stderr, "crumb compact: %s (%s): %s, %s -> %s, %s; %s, %s folded into %s\n",
			res.Format, map[bool]string{true: "over budget", false: "within budget"}[res.OverBudget],
			textfmt.Plural(int64(res.Messages), "message"), textfmt.Plural(int64(res.TokensBefore), "token"),
			textfmt.Plural(int64(res.MessagesAfter), "message"), textfmt.Plural(int64(res.TokensAfter), "token"),
			textfmt.Plural(int64(res.Breadcrumbs), "breadcrumb"), textfmt.Plural(int64(foldedMessages(res)), "message"), textfmt.Plural(int64(len(res.Folds)), "summary block"))
	}
	if res.OverBudget {
		fmt.Fprintf(e.stderr, "crumb compact: %s\n", res.BudgetNote())
		return &exitError{code: exitOverBudget}
	}
	return nil
}

// exitOverBudget is compact's exit status when the thread it wrote is still
// over its budget.
const exitOverBudget = 3

// maxThread is the largest thread compact reads: request bodies are bounded
// by the providers far below it.
const maxThread = 256 << 20

func foldedMessages(res *history.Result) int {
	n := 0
	for _, f := range res.Folds {
		n += f.Last - f.First + 1
	}
	return n
}
