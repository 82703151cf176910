package main

import (
	"fmt"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/internal/wire"
)

func init() {
	register(&command{
		name:    "stats",
		summary: "show how much output crumb kept out of context",
		usage: `Usage: crumb stats [--json]

Sums up the results in the store: how many are kept and their size, how many
were projected, and the bytes and tokens of those results that did not enter
a model's context (the result's size less its view's). Token counts of large
results are estimates; the figures cover the results still stored.`,
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
	u, err := d.Usage(e.ctx)
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
	fmt.Fprintf(e.stdout, "kept out of context: %s, %s tokens%s\n", textfmt.Size(s.SavedBytes), textfmt.Int(s.SavedTokens), est)
	return nil
}
