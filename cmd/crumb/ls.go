package main

import (
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "ls",
		summary: "list stored results",
		usage: `Usage: crumb ls [--json]

Lists the results in the store, most recently used first: ref, kind, size,
lines, time since last use, and the tool that produced it.

Examples:
  crumb ls
  crumb ls --json | jq -r '.[0].ref'`,
		run: runLs,
	})
}

func runLs(e *env, args []string) error {
	c := commands["ls"]
	fs := newFlags(e, c)
	asJSON := fs.Bool("json", false, "print the list as JSON")
	d, err := parseNoArgs(e, c, fs, args)
	if err != nil {
		return err
	}
	defer d.Close()
	infos, err := d.List(e.ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		type item struct {
			Ref     store.Ref         `json:"ref"`
			Kind    string            `json:"kind,omitempty"`
			Tool    string            `json:"tool,omitempty"`
			Size    int64             `json:"size"`
			Lines   *int64            `json:"lines,omitempty"`
			Digest  string            `json:"digest"`
			Created time.Time         `json:"created"`
			Used    time.Time         `json:"used"`
			Attrs   map[string]string `json:"attrs,omitempty"`
		}
		out := make([]item, 0, len(infos))
		for _, in := range infos {
			out = append(out, item{in.Ref, in.Kind, in.Tool, in.Size, lineCount(in), in.Digest, in.Created, in.Used, in.Attrs})
		}
		return writeJSON(e.stdout, out)
	}
	if len(infos) == 0 {
		fmt.Fprintf(e.stdout, "no stored results in %s\n", d.Path())
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tKIND\tSIZE\tLINES\tUSED\tTOOL")
	now := time.Now()
	for _, in := range infos {
		lines := "-"
		if n := lineCount(in); n != nil {
			lines = textfmt.Int(*n)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", in.Ref, orDash(in.Kind), textfmt.Size(in.Size), lines, usedAgo(now, in.Used), orDash(in.Tool))
	}
	return tw.Flush()
}

// lineCount returns the number of lines of a stored result, when known.
func lineCount(in store.Info) *int64 { return in.Lines }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// usedAgo says when a result was last used: "3h ago". A time after now (a
// clock set back, a record written elsewhere) is "in the future", not a
// negative age.
func usedAgo(now, used time.Time) string {
	if used.IsZero() {
		return "-"
	}
	if d := now.Sub(used); d >= 0 {
		return age(d) + " ago"
	}
	return "in the future"
}

// age writes a duration the way ls -l users read it: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	}
}
