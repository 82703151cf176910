package crumb_test

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/bench"
	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// smallBudget is the budget of a small first view, where the room left for
// the first and last lines after a header and summaries is often smaller
// than one of those lines.
const smallBudget = 600

// cutExcerpt matches what a view's header says of an excerpt that starts or
// ends inside a line: "bytes 0-12 (part of line 1)", "bytes 96-400 (lines
// 2-9)".
var cutExcerpt = regexp.MustCompile(`bytes ([0-9,]+)-([0-9,]+) \((?:part of line|lines) `)

// A view cuts a line only when the line is too long for the budget: a line
// that fits the budget but not the room left beside the rest of the view is
// shown whole or left out whole, and the view continues by lines. Seen at
// --budget 600 on the logs of the corpus (apache, nginx, redis, slog, ...):
// the first line shown as "[Tue Dec 01 …" and the view continued by bytes.
// Every case of the corpus is projected as its own kind at smallBudget.
func TestSmallViewsCutOnlyLinesTooLongForTheBudget(t *testing.T) {
	cases, err := bench.LoadCorpus("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	st := newStore(t)
	g := newGuard(t, crumb.Config{Store: st, Budget: smallBudget})
	ctx := context.Background()
	counter := tokens.O200k()
	for _, c := range cases {
		if c.Kind == crumb.KindBinary {
			continue // no lines to keep whole
		}
		t.Run(c.Name, func(t *testing.T) {
			v, err := g.Project(ctx, corpusResult(c, c.Kind))
			if err != nil {
				t.Fatal(err)
			}
			if v.Next == nil || v.Next.Ref != v.Ref {
				return // nothing omitted, or read from a result of its own
			}
			obj, err := st.Open(ctx, v.Ref)
			if err != nil {
				t.Fatal(err)
			}
			defer obj.Close()
			doc := recall.NewDoc(obj)
			// tooLong reports whether the line holding byte off is too
			// long for the budget: longer than a view of it could read,
			// or costing the budget alone.
			tooLong := func(off int64) bool {
				n, err := doc.LineAt(min(off, doc.Size()-1))
				if err != nil {
					t.Fatal(err)
				}
				start, err := doc.LineStart(n)
				if err != nil {
					t.Fatal(err)
				}
				l, err := doc.ReadLine(start, tokens.MaxBytes(smallBudget))
				if err != nil {
					t.Fatal(err)
				}
				return l.Cut || counter.Count(string(l.Text)) > smallBudget-16
			}
			// atBoundary reports whether off is where a line starts or
			// the end of the result.
			atBoundary := func(off int64) bool {
				if off == 0 || off >= doc.Size() {
					return true
				}
				b, err := doc.ReadRange(off-1, off)
				if err != nil {
					t.Fatal(err)
				}
				return b[0] == '\n'
			}
			header, _, _ := strings.Cut(v.Text, "\n")
			cut := false
			for _, m := range cutExcerpt.FindAllStringSubmatch(header, -1) {
				from, to := parseInt(t, m[1]), parseInt(t, m[2])
				if !atBoundary(from) && !tooLong(from) {
					t.Errorf("the view starts an excerpt inside a line that fits the budget (byte %d): %s", from, header)
				}
				if !atBoundary(to) && !tooLong(to-1) {
					t.Errorf("the view ends an excerpt inside a line that fits the budget (byte %d): %s", to, header)
				}
				cut = true
			}
			if slices.Contains(v.Next.Argv(), "--bytes") && !cut && !hasLineTooLong(t, doc, tooLong) {
				t.Errorf("the view continues by bytes, though every line fits the budget: %q", v.Next.Argv())
			}
		})
	}
}

// corpusResult is the result of corpus case c, as kind k.
func corpusResult(c *bench.Case, k crumb.Kind) crumb.Result {
	res := crumb.Result{Tool: c.Tool, Args: c.Args, Kind: k, Body: c.Output, ExitCode: c.ExitCode, Command: c.Command,
		OutputSchema: c.OutputSchema}
	if res.Body == nil {
		res.Body = []byte{}
	}
	return res
}

// hasLineTooLong reports whether any line of doc is too long, by tooLong.
func hasLineTooLong(t *testing.T, doc *lines.Doc, tooLong func(off int64) bool) bool {
	t.Helper()
	for pos := int64(0); pos < doc.Size(); {
		if tooLong(pos) {
			return true
		}
		l, err := doc.ReadLine(pos, 0)
		if err != nil {
			t.Fatal(err)
		}
		pos = l.End
	}
	return false
}

// parseInt parses a number written with thousands separators.
func parseInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
