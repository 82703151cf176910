package main

import (
	"errors"
	"fmt"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "gc",
		summary: "remove expired results and evict down to the size cap",
		usage: `Usage: crumb gc [--quiet] [--json]

Removes results not used for the store's time to live (24 hours unless its
settings file says otherwise), then the least recently used ones until the
store fits its size cap (1 GiB unless its settings file says otherwise), and
leftovers of interrupted writes. The settings file, settings.json in the
store directory, is written by 'crumb mcp' from its configuration, so every
process sharing the store keeps results alike. Other crumb commands start gc
in the background when it is due, so running it by hand is rarely needed.
Only one collection runs at a time, and gc never creates a store.

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
	storeDir := storeFlag(fs)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	d, err := openStoreWith(e, *storeDir, store.DirOptions{ManualGC: true, NoCreate: true})
	if errors.Is(err, store.ErrNoStore) {
		if !*quiet {
			fmt.Fprintf(e.stdout, "no store here (%v); nothing to collect\n", err)
		}
		return nil
	}
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
	fmt.Fprintf(e.stdout, "removed %s expired and %s evicted, and %s (%s freed); kept %s (%s)\n",
		textfmt.Plural(int64(st.Expired), "result"), textfmt.Plural(int64(st.Evicted), "result"),
		textfmt.Plural(int64(st.Leftovers), "leftover file"), textfmt.Size(st.BytesFreed),
		textfmt.Plural(int64(st.ResultsKept), "result"), textfmt.Size(st.BytesKept))
	return nil
}
