package main

import (
	"fmt"
	"strconv"

	"github.com/crumb-dev/crumb/internal/textfmt"
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

type stats struct {
	Results     int    `json:"results"`
	Bytes       int64  `json:"bytes"`
	Projected   int    `json:"projected"`
	ViewTokens  int64  `json:"view_tokens"`
	SavedBytes  int64  `json:"saved_bytes"`
	SavedTokens int64  `json:"saved_tokens"`
	EstimatedIn int    `json:"estimated,omitempty"`
	StorePath   string `json:"store"`
	// Leftovers are files that hold no readable result (interrupted or
	// running writes, expired or damaged results) but take space.
	Leftovers     int   `json:"leftovers"`
	LeftoverBytes int64 `json:"leftover_bytes"`
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
	s := stats{StorePath: d.Path(), Leftovers: u.Leftovers, LeftoverBytes: u.LeftoverBytes}
	for _, in := range infos {
		s.Results++
		s.Bytes += in.Size
		vt, err1 := strconv.ParseInt(in.Attrs["view_tokens"], 10, 64)
		vb, err2 := strconv.ParseInt(in.Attrs["view_bytes"], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s.Projected++
		s.ViewTokens += vt
		s.SavedBytes += max(0, in.Size-vb)
		if t, err := strconv.ParseInt(in.Attrs["tokens"], 10, 64); err == nil {
			s.SavedTokens += max(0, t-vt)
			if in.Attrs["tokens_by"] == "estimate" {
				s.EstimatedIn++
			}
		}
	}
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
