package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// WriteTable writes reports side by side: a row per case (the case, its raw
// tokens, "~" marking an estimate, then for each strategy its first-view tokens, the needles visible
// in it and the tokens read until all were seen), then the totals. The
// reports must cover the same cases in the same order.
func WriteTable(w io.Writer, reports ...Report) error {
	if len(reports) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"case", "raw tok"}
	for _, r := range reports {
		head = append(head, r.Strategy+" view", "seen", "to all")
	}
	row(tw, head...)
	for i, c := range reports[0].Cases {
		raw := textfmt.Int(int64(c.RawTokens))
		if c.RawEstimated {
			raw = "~" + raw
		}
		cells := []string{c.Case, raw}
		for _, r := range reports {
			if i >= len(r.Cases) || r.Cases[i].Case != c.Case {
				return fmt.Errorf("bench: the %s report does not cover the cases of the %s report in order", r.Strategy, reports[0].Strategy)
			}
			cells = append(cells, caseCells(r.Cases[i])...)
		}
		row(tw, cells...)
	}
	totals := [][]string{{"needles visible", ""}, {"mean first view", ""}, {"tokens to all (reached)", ""},
		{"views larger than raw", ""}, {"leaked bytes (cases)", ""}, {"media kept", ""}, {"errors", ""}}
	for _, r := range reports {
		t := r.Total
		totals[0] = append(totals[0], fmt.Sprintf("%d/%d", t.Visible, t.Needles), fmt.Sprintf("%.1f%%", t.VisiblePct), "")
		totals[1] = append(totals[1], fmt.Sprintf("%.0f", t.MeanFirstTokens), "", "")
		totals[2] = append(totals[2], textfmt.Int(int64(t.TokensToAll)), fmt.Sprintf("%d/%d", t.Reached, t.Cases), "")
		totals[3] = append(totals[3], strconv.Itoa(t.LargerThanRaw), "", "")
		totals[4] = append(totals[4], textfmt.Int(int64(t.LeakBytes)), fmt.Sprintf("(%d)", t.LeakCases), "")
		totals[5] = append(totals[5], fmt.Sprintf("%d/%d", t.MediaKept, t.MediaIn), "", "")
		totals[6] = append(totals[6], strconv.Itoa(t.Errors), "", "")
	}
	row(tw, strings.Repeat("-", 8))
	for _, cells := range totals {
		row(tw, cells...)
	}
	return tw.Flush()
}

func caseCells(c CaseReport) []string {
	toAll := "never"
	if c.TokensToAll >= 0 {
		toAll = textfmt.Int(int64(c.TokensToAll))
	}
	if c.Err != "" {
		toAll += " (error)"
	}
	return []string{textfmt.Int(int64(c.FirstTokens)), fmt.Sprintf("%d/%d", c.Visible, c.Needles), toAll}
}

func row(w io.Writer, cells ...string) {
	fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
}

// WriteMissed writes, for each case of a report with needles its first view
// does not show, the case and each missed needle with why it is needed.
func WriteMissed(w io.Writer, r Report) {
	for _, c := range r.Cases {
		if len(c.Missed) == 0 && c.Err == "" {
			continue
		}
		fmt.Fprintf(w, "%s (%d/%d visible, first view %s tokens)\n", c.Case, c.Visible, c.Needles, textfmt.Int(int64(c.FirstTokens)))
		if c.Err != "" {
			fmt.Fprintf(w, "  error: %s\n", c.Err)
		}
		for _, n := range c.Missed {
			fmt.Fprintf(w, "  missed %q: %s\n", clip(n.Text), n.Why)
		}
	}
}
