package project

import (
	"context"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/topk"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
)

// rankedDef is a definition with its rank in one outline.
type rankedDef struct {
	d    *srcDef
	rank int
}

// lessImportant orders definitions for dropping: a lower rank first; among
// equals, the order of their places with the bits reversed, so that the ones
// kept are spread evenly over the file (places 0, 4, 2, 6, 1, 5, 3, 7 for
// eight) instead of crowding at its start.
func lessImportant(a, b rankedDef) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	ra, rb := bits.Reverse32(uint32(a.d.ord)), bits.Reverse32(uint32(b.d.ord))
	if ra != rb {
		return ra > rb
	}
	return a.d.line > b.d.line
}

// outline is the index of the definitions in the lines a view omits.
type outline struct {
	keep  []rankedDef // the most important offered, a topk heap by lessImportant
	limit int
	total int // definitions in the omitted lines, listed or not
}

func (o *outline) offer(d rankedDef) {
	o.total++
	topk.Keep(&o.keep, o.limit, d, lessImportant)
}

// minEntryTokens is the least an outline entry costs; it bounds how many
// definitions are worth keeping for a room.
const minEntryTokens = 4

// outlineFor collects the definitions outside the shown lines and renders
// the most important of them within room tokens. It returns the lines and
// their cost.
//
// boost, when set, raises the rank of definitions related to what the view
// centres on.
func outlineFor(e *view.Excerptor, ctx context.Context, f *defFinder, shown view.LineSpans, room int, boost func(*srcDef) int) ([]string, int, error) {
	if f == nil || f.lang == nil || room <= 0 {
		return nil, 0, nil
	}
	o := &outline{limit: min(room/minEntryTokens+1, 4096)}
	err := f.each(ctx, func(d *srcDef) {
		if !shown.Has(d.line) {
			r := rankedDef{d, d.score}
			if boost != nil {
				r.rank += boost(d)
			}
			o.offer(r)
		}
	})
	if err != nil {
		return nil, 0, err
	}
	if o.total == 0 {
		return nil, 0, nil
	}
	return renderOutline(e, o, f.lang, f.grepPattern(), room)
}

// renderOutline lists the most important definitions that fit in room
// tokens, in line order, under a line that says what is listed and how to
// read one, and how to list those left out.
func renderOutline(e *view.Excerptor, o *outline, lg *srcLang, grep string, room int) ([]string, int, error) {
	cands := append([]rankedDef(nil), o.keep...)
	sort.Slice(cands, func(i, j int) bool { return lessImportant(cands[j], cands[i]) })
	var maxLine int64
	for _, r := range cands {
		maxLine = max(maxLine, r.d.line)
	}
	width := len(strconv.FormatInt(maxLine, 10))
	entry := func(d *srcDef) string {
		if d.printed != "" {
			return d.printed
		}
		num := strconv.FormatInt(d.line, 10)
		return "  " + strings.Repeat(" ", width-len(num)) + num + " " + strings.Repeat("  ", min(d.depth, 3)) + d.text
	}
	// The heading, with the largest numbers it could hold.
	worst := &srcDef{line: maxLine, end: e.Total}
	if len(cands) > 0 {
		worst.printed = cands[0].d.printed
	}
	used := e.Cost(outlineHeading(e, lg, grep, o.total, o.total, worst, o.total > 1))
	var chosen []*srcDef
	for _, r := range cands {
		d := r.d
		c := e.Cost(entry(d))
		if used+c > room {
			break
		}
		used += c
		chosen = append(chosen, d)
	}
	if len(chosen) == 0 {
		return nil, 0, nil
	}
	first := chosen[0]
	sort.Slice(chosen, func(i, j int) bool { return chosen[i].line < chosen[j].line })
	out := []string{outlineHeading(e, lg, grep, len(chosen), o.total, first, len(chosen) < o.total)}
	cost := e.Cost(out[0])
	for _, d := range chosen {
		s := entry(d)
		out = append(out, s)
		cost += e.Cost(s)
	}
	return out, cost, nil
}

// outlineHeading says what an outline lists: n of total definitions, how to
// read one (ex) and, when some are left out, how to list them all.
func outlineHeading(e *view.Excerptor, lg *srcLang, grep string, n, total int, ex *srcDef, partial bool) string {
	what := "definitions"
	if lg.closing == closeHeading {
		what = "headings"
	}
	var b strings.Builder
	b.WriteString("[outline of the omitted lines")
	if ex.printed != "" {
		b.WriteString(", as the tool printed them")
	}
	b.WriteString(": ")
	if n < total {
		b.WriteString(strconv.Itoa(n) + " of " + strconv.Itoa(total) + " " + what + ", the least important left out")
	} else {
		b.WriteString(strconv.Itoa(total) + " " + what)
	}
	if e.In.Ref != "" {
		span := recall.Span{From: ex.line, To: max(ex.end, ex.line)}
		b.WriteString("; read one")
		if ex.printed != "" {
			b.WriteString(" (stored lines)")
		}
		b.WriteString(": " + e.In.Hint(recall.Request{Ref: e.In.Ref, Rev: e.In.Rev, Lines: &span}))
		if partial {
			b.WriteString("; list them all: " + e.In.Hint(recall.Request{Ref: e.In.Ref, Rev: e.In.Rev, Grep: &recall.GrepSpec{Pattern: grep}}))
		}
	}
	b.WriteString("]")
	return b.String()
}
