package main

import (
	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/recall"
)

func init() {
	register(&command{
		name:    "grep",
		summary: "search a stored result with an RE2 pattern",
		usage: `Usage: crumb grep REF PATTERN [-i] [-C N] [--max N] [--from LINE] [--budget TOKENS] [--json]

Prints the lines of a stored result that match PATTERN, an RE2 regular
expression (Go's regexp syntax), with their line numbers as grep -n does:
"57:match" for a match, "56-context" for a context line, "--" between groups.
Long lines are shortened around the match. A page holds as many matches as
fit the budget and ends with the command that shows the next ones.

Put -- before a pattern that starts with a dash.

Examples:
  crumb grep 1a2b3c4d5e6f7a8b 'FAIL|panic:' -C 2
  crumb grep 1a2b3c4d5e6f7a8b -i 'timeout' --max 20
  crumb grep 1a2b3c4d5e6f7a8b -- '-v flag'`,
		run: runGrep,
	})
}

func runGrep(e *env, args []string) error {
	c := commands["grep"]
	fs := newFlags(e, c)
	ignoreCase := fs.Bool("i", false, "ignore case")
	context := limitFlag(fs, "C", 0, limits.Context, "show `N` lines of context around each match")
	maxMatches := limitFlag(fs, "max", 0, limits.Matches, "stop after `N` matches in all (default: no limit)")
	from := limitFlag[int64](fs, "from", 0, limits.From, "start searching at `LINE`")
	skip := limitFlag(fs, "skip", 0, limits.Skip, "pass over the first `N` matches; with --from, the matches before it (continuations set both)")
	rev := fs.String("rev", "", "fail unless the content's digest starts with `HEX`")
	budget := budgetFlag(fs, crumb.DefaultPageBudget, "most `TOKENS` the page may take")
	asJSON := fs.Bool("json", false, "print {\"page\", \"next\"} as JSON")
	storeDir := storeFlag(fs)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef(c.name, "want REF and PATTERN, got %d arguments", len(pos))
	}
	ref, err := parseRef(pos[0])
	if err != nil {
		return err
	}
	req := recall.Request{Ref: ref, Rev: *rev, Grep: &recall.GrepSpec{
		Pattern: pos[1], IgnoreCase: *ignoreCase, Context: *context, Max: *maxMatches, From: *from, Skip: *skip,
	}}
	if err := req.Validate(); err != nil {
		return usagef(c.name, "%v", err)
	}
	if _, err := recall.Compile(*req.Grep); err != nil {
		return usagef(c.name, "%v", err)
	}
	collectLess(e)
	d, err := openStore(e, *storeDir)
	if err != nil {
		return err
	}
	defer d.Close()
	page, err := recall.Grep(e.ctx, d, req, recall.Options{Budget: *budget, Line: crumb.LineRenderer(e.ctx, d), NoPageTokens: true, Hint: e.hint()})
	if err != nil {
		return err
	}
	return printPage(e, d, ref, page, *asJSON)
}
