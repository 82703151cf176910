package main

import (
	"fmt"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/internal/wire"
)

func init() {
	register(&command{
		name:    "stats",
		summary: "show how much output crumb kept out of context, net of what was read back",
		usage: `Usage: crumb stats [--json]

Sums up the results in the store: how many are kept and their size, how many
were projected, and the tokens those results kept out of a model's context:

  kept out (gross)  each projected result's tokens less its first view's
  read back         the tokens of every page, search and query read back
                    since (crumb read, crumb grep, and the MCP proxy's
                    crumb_read, crumb_search and crumb_query)
  net               gross less read back: what stayed out of context

Token counts of large results are estimates; the figures cover the results
still stored. Leftovers, files that hold no readable result (interrupted
writes, damaged results), are counted apart until 'crumb gc' removes them. Writing a result out with 'crumb read REF --all' is not
counted as read back: its bytes go where they are sent, not into a view.

Examples:
  crumb stats
  crumb stats --json | jq .net_saved_tokens`,
		run: runStats,
	})
}

func runStats(e *env, args []string) error {
	c := commands["stats"]
	fs := newFlags(e, c)
	asJSON := fs.Bool("json", false, "print the figures as JSON")
	d, err := parseNoArgs(e, c, fs, args)
	if err != nil {
		return err
	}
	defer d.Close()
	infos, err := d.List(e.ctx)
	if err != nil {
		return err
	}
	u, err := storeUsage(e, d)
	if err != nil {
		return err
	}
	s := wire.Stats{StorePath: d.Path(), Leftovers: u.Leftovers, LeftoverBytes: u.LeftoverBytes}
	s.Add(infos)
	if *asJSON {
		return writeJSON(e.stdout, s)
	}
	fmt.Fprintf(e.stdout, "store:               %s\n", s.StorePath)
	fmt.Fprintf(e.stdout, "results kept:        %s (%s)\n", textfmt.Int(int64(s.Results)), textfmt.Size(s.Bytes))
	if s.Leftovers > 0 {
		fmt.Fprintf(e.stdout, "leftovers:           %s (%s), counted against the size cap until 'crumb gc' removes them\n",
			textfmt.Plural(int64(s.Leftovers), "file"), textfmt.Size(s.LeftoverBytes))
	}
	fmt.Fprintf(e.stdout, "projected:           %s (their views: %s tokens)\n", textfmt.Int(int64(s.Projected)), textfmt.Int(s.ViewTokens))
	est := ""
	if s.EstimatedIn > 0 {
		est = fmt.Sprintf(" (estimated for %s)", textfmt.Plural(int64(s.EstimatedIn), "large result"))
	}
	fmt.Fprintf(e.stdout, "kept out (gross):    %s, %s tokens%s\n", textfmt.Size(s.SavedBytes), textfmt.Int(s.SavedTokens), est)
	fmt.Fprintf(e.stdout, "read back:           %s, %s tokens\n", textfmt.Plural(s.Reads, "page"), textfmt.Int(s.ReadTokens))
	fmt.Fprintf(e.stdout, "kept out (net):      %s tokens\n", textfmt.Int(s.NetSavedTokens))
	return nil
}
