package main

import (
	"fmt"
	"strconv"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
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

type stats struct {
	Results    int   `json:"results"`
	Bytes      int64 `json:"bytes"`
	Projected  int   `json:"projected"`
	ViewTokens int64 `json:"view_tokens"`
	SavedBytes int64 `json:"saved_bytes"`
	// SavedTokens is the gross figure: the tokens of the projected
	// results less those of their first views.
	SavedTokens int64 `json:"saved_tokens"`
	// Reads and ReadTokens count the pages read back and their tokens.
	Reads      int64 `json:"reads"`
	ReadTokens int64 `json:"read_tokens"`
	// NetSavedTokens is SavedTokens less ReadTokens.
	NetSavedTokens int64  `json:"net_saved_tokens"`
	EstimatedIn    int    `json:"estimated,omitempty"`
	StorePath      string `json:"store"`
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
	s := sumStats(infos)
	s.StorePath, s.Leftovers, s.LeftoverBytes = d.Path(), u.Leftovers, u.LeftoverBytes
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

// sumStats adds up the figures of the stored results.
func sumStats(infos []store.Info) stats {
	var s stats
	for _, in := range infos {
		s.Results++
		s.Bytes += in.Size
		s.Reads += attrInt(in, recall.AttrReads)
		s.ReadTokens += attrInt(in, recall.AttrReadTokens)
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
	s.NetSavedTokens = s.SavedTokens - s.ReadTokens
	return s
}

// attrInt returns a whole-number attribute of a record, 0 when absent or
// malformed (a record is data, and a bad figure must not count).
func attrInt(in store.Info, key string) int64 {
	n, err := strconv.ParseInt(in.Attrs[key], 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
