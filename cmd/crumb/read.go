package main

import (
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func init() {
	register(&command{
		name:    "read",
		summary: "read a page of a stored result, or all of it",
		usage: `Usage: crumb read REF [--lines A:B | --bytes A:B | --pointer /JSON/POINTER | --jq EXPR] [--budget TOKENS] [--json]
       crumb read REF --all > FILE

Prints a page of a stored result within the budget: whole lines, a header
that says which lines and bytes are shown, and a last line with the exact
command that reads on ("[next: crumb read REF --lines 241:900]"), or
"[end of the range asked for]" ("[end of the ranges asked for]" for several)
when the page showed all of what was asked for, or "[end of result]". A page
of several ranges marks what lies between them with a line of its own, such
as "[… lines 5-3,776 not asked for …]": strip those to join the ranges'
text. Following those commands reads the whole result with no gap and no
overlap. --budget is the page's size: 2,000 tokens unless given, whatever
the budget of the view that named the read.

Ranges: lines are numbered from 1 and both ends are included (41:240, or 41
for that line alone); bytes are offsets from 0 with the end excluded (0:4096).
An open end (41:) reads to the end of the result. Every range ends after it
starts (a line range may end where it starts); an end of 0 is refused, never
read as an open end. Several ranges, in order and apart, are separated by
commas (--lines 10:14,19:44,73:): a view that omits several stretches
continues with all of them, and each page's next read carries the ranges
still unread, so following it from the view reads everything the view left
out, once each. --all writes the exact stored bytes and nothing else.

--pointer selects one value of a JSON result by its JSON pointer (RFC 6901:
/items/3/name, with ~1 for / and ~0 for ~ in keys); --jq selects with a jq
expression (gojq; a result of several top-level values is one array to it,
as with jq -s). The selection is shown as indented JSON, a string as its
text; it is stored as a result of its own, and the page's next read
continues by lines of that result.

Examples:
  crumb read 1a2b3c4d5e6f7a8b
  crumb read 1a2b3c4d5e6f7a8b --lines 41:240 -n
  crumb read 1a2b3c4d5e6f7a8b --lines 10:14,19:44,73:
  crumb read 1a2b3c4d5e6f7a8b --bytes 1000:2000 --json
  crumb read 1a2b3c4d5e6f7a8b --pointer /items/3
  crumb read 1a2b3c4d5e6f7a8b --jq '.items[] | select(.status == "failed")'
  crumb read 1a2b3c4d5e6f7a8b --all | sha256sum`,
		run: runRead,
	})
}

// collectLess lets a page read or a search, which lives for milliseconds
// and keeps a few megabytes live (a chunk, a page, the result's record),
// finish before the garbage collector first runs: at the default GOGC it
// runs once, at a 4 MB heap, and costs more than the memory it gives back.
// A jq query, which decodes its whole result, keeps the default; so does a
// GOGC set in the environment.
func collectLess(e *env) {
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

func runRead(e *env, args []string) error {
	c := commands["read"]
	fs := newFlags(e, c)
	linesArg := fs.String("lines", "", "read lines `A:B[,C:D...]` (1-based, inclusive)")
	bytesArg := fs.String("bytes", "", "read bytes `A:B[,C:D...]` (0-based offsets, end excluded)")
	pointerArg := fs.String("pointer", "", "select the value at a JSON `POINTER` (RFC 6901) of a JSON result")
	jqArg := fs.String("jq", "", "select with a jq `EXPR` from a JSON result")
	rev := fs.String("rev", "", "fail unless the content's digest starts with `HEX` (continuations carry it)")
	all := fs.Bool("all", false, "write the exact stored bytes and nothing else")
	budget := budgetFlag(fs, crumb.DefaultPageBudget, "most `TOKENS` the page may take")
	numbers := fs.Bool("n", false, "number the lines")
	asJSON := fs.Bool("json", false, "print {\"page\", \"next\"} as JSON")
	storeDir := storeFlag(fs)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(c.name, "want exactly one REF, got %d arguments", len(pos))
	}
	ref, err := parseRef(pos[0])
	if err != nil {
		return err
	}
	req := recall.Request{Ref: ref, Rev: *rev}
	if *linesArg != "" && *bytesArg != "" {
		return usagef(c.name, "give --lines or --bytes, not both")
	}
	for _, f := range []struct {
		name, arg string
	}{{"lines", *linesArg}, {"bytes", *bytesArg}} {
		if f.arg == "" {
			continue
		}
		rs, err := recall.ParseRanges(f.arg)
		if err != nil {
			return usagef(c.name, "--%s: %v", f.name, err)
		}
		req.SetRanges(f.name == "bytes", rs)
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "pointer" {
			p := *pointerArg
			req.Pointer = &p
		}
	})
	req.Query = *jqArg
	if *all && (req.Lines != nil || req.Bytes != nil || req.Pointer != nil || req.Query != "" || *asJSON) {
		return usagef(c.name, "--all writes the whole result; it does not combine with --lines, --bytes, --pointer, --jq or --json")
	}
	if err := req.Validate(); err != nil {
		return usagef(c.name, "%v", err)
	}
	if req.Query == "" {
		collectLess(e)
	}
	d, err := openStore(e, *storeDir)
	if err != nil {
		return err
	}
	defer d.Close()
	if *all {
		obj, err := recall.Open(e.ctx, d, req)
		if err != nil {
			return err
		}
		defer obj.Close()
		if _, err := store.Copy(e.ctx, obj, e.stdout); err != nil {
			return fmt.Errorf("writing %s: %w", ref, err)
		}
		return nil
	}
	page, err := recall.Read(e.ctx, d, req, recall.Options{Budget: *budget, Numbers: *numbers, Line: crumb.LineRenderer(e.ctx, d), NoPageTokens: true, Hint: e.hint()})
	if err != nil {
		return err
	}
	return printPage(e, d, ref, page, *asJSON)
}

// printPage prints a page of a read or a search of ref, as text or JSON,
// and charges it against the result's savings (crumb stats): what is read
// back was not kept out of context after all.
func printPage(e *env, st store.Store, ref store.Ref, p recall.Page, asJSON bool) error {
	var err error
	if asJSON {
		err = writeJSON(e.stdout, wire.PageOf(p, nil))
	} else {
		err = writeText(e.stdout, p.Text)
	}
	if err != nil {
		return err
	}
	n := p.Tokens
	if n == 0 && p.Text != "" {
		n = tokens.O200k().Count(p.Text) // a page built without its count
	}
	if cerr := recall.Charge(e.ctx, st, ref, n); cerr != nil {
		fmt.Fprintf(e.stderr, "crumb: warning: %v\n", cerr)
	}
	return nil
}
