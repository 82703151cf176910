package main

import (
	"fmt"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

func init() {
	register(&command{
		name:    "gc",
		summary: "remove expired results and evict down to the size cap",
		usage: `Usage: crumb gc [--quiet] [--json]

Removes results not used for 24 hours, then the least recently used ones
until the store fits its size cap (1 GiB), and leftovers of interrupted
writes. Other crumb commands start it in the background when it is due, so
running it by hand is rarely needed. Only one collection runs at a time.

Examples:
  crumb gc
  crumb gc --json | jq .bytes_freed
  crumb gc --store /tmp/crumb-store --quiet`,
		run: runGC,
	})
}

func runGC(e *env, args []string) error {
	c := commands["gc"]
	fs := newFlags(e, c)
	quiet := fs.Bool("quiet", false, "print nothing")
	asJSON := fs.Bool("json", false, "print what was done as JSON")
	d, err := parseNoArgs(e, c, fs, args)
	if err != nil {
		return err
	}
	defer d.Close()
	st, err := d.GC(e.ctx)
	if err != nil {
		return err
	}
	switch {
	case *quiet:
		return nil
	case *asJSON:
		return writeJSON(e.stdout, st)
	case st.Skipped:
		fmt.Fprintln(e.stdout, "another process is collecting this store; nothing done")
		return nil
	}
	fmt.Fprintf(e.stdout, "removed %s expired and %s evicted (%s freed); kept %s (%s)\n",
		textfmt.Plural(int64(st.Expired), "result"), textfmt.Plural(int64(st.Evicted), "result"), textfmt.Size(st.BytesFreed),
		textfmt.Plural(int64(st.ResultsKept), "result"), textfmt.Size(st.BytesKept))
	return nil
}
