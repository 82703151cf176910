package bench

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/tokens"
)

// A Meter wraps a strategy and keeps the pages its continuations give, case
// by case, so that [Summarize] can tell how much was read in all, and what
// was found, where following the continuations never showed every needle
// (a Report only counts the tokens read when it did).
type Meter struct {
	Strategy
	mu    sync.Mutex
	pages map[string][]string
}

// Metered returns s wrapped in a Meter.
func Metered(s Strategy) *Meter { return &Meter{Strategy: s, pages: map[string][]string{}} }

// View returns the wrapped strategy's view, with its pages recorded as they
// are read.
func (m *Meter) View(ctx context.Context, c *Case, env *Env) (*View, error) {
	v, err := m.Strategy.View(ctx, c, env)
	if err != nil || v.Pages == nil {
		return v, err
	}
	m.mu.Lock()
	m.pages[c.Name] = nil
	m.mu.Unlock()
	return &View{Text: v.Text, Media: v.Media, Pages: meterPager{m: m, name: c.Name, p: v.Pages}}, nil
}

type meterPager struct {
	m    *Meter
	name string
	p    Pager
}

func (p meterPager) Next(ctx context.Context) (string, bool, error) {
	page, ok, err := p.p.Next(ctx)
	if ok && err == nil {
		p.m.mu.Lock()
		p.m.pages[p.name] = append(p.m.pages[p.name], page)
		p.m.mu.Unlock()
	}
	return page, ok, err
}

// Summary is one strategy's figures over a corpus, the row it gets in the
// side-by-side table.
type Summary struct {
	Strategy string `json:"strategy"`
	Cases    int    `json:"cases"`
	// FirstTokens is the sum of the first views' tokens, MeanFirstTokens
	// their mean.
	FirstTokens     int     `json:"first_tokens"`
	MeanFirstTokens float64 `json:"mean_first_tokens"`
	// Needles, Visible and VisiblePct: the needles visible in first views.
	Needles    int     `json:"needles"`
	Visible    int     `json:"visible"`
	VisiblePct float64 `json:"visible_pct"`
	// VisiblePerKTokens is Visible per 1,000 FirstTokens: evidence per
	// token of first view.
	VisiblePerKTokens float64 `json:"visible_per_1k_tokens"`
	// Found is the needles seen in the first view or in the pages read by
	// following the view's continuations; TokensRead is every token read
	// to get there: first views, and pages until every needle of the case
	// was seen or the continuations ended. FoundPerKTokens is Found per
	// 1,000 TokensRead: evidence per token, re-reads counted.
	Found           int     `json:"found"`
	TokensRead      int     `json:"tokens_read"`
	FoundPerKTokens float64 `json:"found_per_1k_tokens"`
	// Reached is the cases whose needles were all seen, TokensToAll the
	// tokens read for them.
	Reached     int `json:"reached"`
	TokensToAll int `json:"tokens_to_all"`
	// LargerThanRaw counts first views larger than the raw output.
	LargerThanRaw int `json:"larger_than_raw"`
	// LeakBytes counts binary bytes in first views, LeakCases the views
	// with any.
	LeakBytes int `json:"leak_bytes"`
	LeakCases int `json:"leak_cases"`
	// MediaKept of MediaIn media blocks were kept as media.
	MediaIn   int `json:"media_in"`
	MediaKept int `json:"media_kept"`
	// Errors counts cases the strategy failed on.
	Errors int `json:"errors"`
	// Dev and Sealed hold the same figures over each part of the corpus
	// (see [PartOf]), when the summary is over a whole corpus: [Run] fills
	// them in. Sealed is the figure that counts.
	Dev    *Summary `json:"dev,omitempty"`
	Sealed *Summary `json:"sealed,omitempty"`
}

// Summarize sums a report up. m, when not nil, is the Meter the strategy
// ran in; without it, Found and TokensRead cover only the cases whose
// needles were all seen. counter counts the pages of the other cases; nil
// means o200k_base.
func Summarize(r Report, cases []*Case, m *Meter, counter tokens.Counter) Summary {
	if counter == nil {
		counter = tokens.O200k()
	}
	byName := map[string]*Case{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	t := r.Total
	s := Summary{Strategy: r.Strategy, Cases: t.Cases, FirstTokens: t.FirstTokens, MeanFirstTokens: t.MeanFirstTokens,
		Needles: t.Needles, Visible: t.Visible, VisiblePct: t.VisiblePct, Reached: t.Reached, TokensToAll: t.TokensToAll,
		LargerThanRaw: t.LargerThanRaw, LeakBytes: t.LeakBytes, LeakCases: t.LeakCases, MediaIn: t.MediaIn,
		MediaKept: t.MediaKept, Errors: t.Errors}
	for _, cr := range r.Cases {
		if cr.TokensToAll >= 0 {
			s.Found += cr.Needles
			s.TokensRead += cr.TokensToAll
			continue
		}
		s.TokensRead += cr.FirstTokens
		c := byName[cr.Case]
		if c == nil {
			s.Found += cr.Visible
			continue
		}
		var pages []string
		if m != nil {
			m.mu.Lock()
			pages = m.pages[cr.Case]
			m.mu.Unlock()
		}
		for _, p := range pages {
			s.TokensRead += counter.Count(p)
		}
		for _, n := range c.Needles {
			if Visible(c, n, cr.View) || seenIn(c, n, pages) {
				s.Found++
			}
		}
	}
	if s.FirstTokens > 0 {
		s.VisiblePerKTokens = 1000 * float64(s.Visible) / float64(s.FirstTokens)
	}
	if s.TokensRead > 0 {
		s.FoundPerKTokens = 1000 * float64(s.Found) / float64(s.TokensRead)
	}
	return s
}

func seenIn(c *Case, n Needle, pages []string) bool {
	for _, p := range pages {
		if Visible(c, n, p) {
			return true
		}
	}
	return false
}

// WriteSummaries writes the side-by-side table: one row per strategy.
func WriteSummaries(w io.Writer, sums []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "strategy", "first-view tokens", "mean", "needles in first view", "", "per 1k tok", "found, reading on", "tokens read",
		"per 1k tok", "all found", "larger than raw", "binary bytes leaked", "media kept", "errors")
	for _, s := range sums {
		row(tw, s.Strategy, textfmt.Int(int64(s.FirstTokens)), textfmt.Int(int64(s.MeanFirstTokens+0.5)),
			fmt.Sprintf("%d/%d", s.Visible, s.Needles), fmt.Sprintf("%.1f%%", s.VisiblePct), fmt.Sprintf("%.2f", s.VisiblePerKTokens),
			fmt.Sprintf("%d/%d", s.Found, s.Needles), textfmt.Int(int64(s.TokensRead)), fmt.Sprintf("%.2f", s.FoundPerKTokens),
			fmt.Sprintf("%d/%d", s.Reached, s.Cases), textfmt.Int(int64(s.LargerThanRaw)),
			fmt.Sprintf("%s (%d)", textfmt.Int(int64(s.LeakBytes)), s.LeakCases), fmt.Sprintf("%d/%d", s.MediaKept, s.MediaIn),
			textfmt.Int(int64(s.Errors)))
	}
	return tw.Flush()
}

// WriteSummariesMarkdown writes the side-by-side table as a Markdown table,
// for a README.
func WriteSummariesMarkdown(w io.Writer, sums []Summary) error {
	var b strings.Builder
	b.WriteString("| strategy | first-view tokens (mean) | needles in first view | found, reading on | tokens read | found per 1k tokens read | larger than raw | binary bytes leaked | media kept |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range sums {
		name := "`" + s.Strategy + "`"
		if strings.HasPrefix(s.Strategy, NameCrumb) {
			name = "**" + name + "**"
		}
		fmt.Fprintf(&b, "| %s | %s (%s) | %d/%d (%.1f%%) | %d/%d | %s | %.2f | %d | %s | %d/%d |\n",
			name, textfmt.Int(int64(s.FirstTokens)), textfmt.Int(int64(s.MeanFirstTokens+0.5)), s.Visible, s.Needles, s.VisiblePct,
			s.Found, s.Needles, textfmt.Int(int64(s.TokensRead)), s.FoundPerKTokens, s.LargerThanRaw, textfmt.Int(int64(s.LeakBytes)),
			s.MediaKept, s.MediaIn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCases writes two tables with a row per case and a column per
// strategy: the first view's tokens with the needles it shows, then the
// tokens read until every needle was seen ("never" when following the
// continuations did not show them all). The reports must cover the same
// cases in the same order.
func WriteCases(w io.Writer, reports []Report) error {
	if len(reports) == 0 {
		return nil
	}
	for _, r := range reports[1:] {
		if len(r.Cases) != len(reports[0].Cases) {
			return fmt.Errorf("bench: the %s report does not cover the cases of the %s report", r.Strategy, reports[0].Strategy)
		}
	}
	for i, title := range []string{"first view: tokens, needles seen", "tokens read until every needle was seen"} {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := []string{"case", "raw tok"}
		for _, r := range reports {
			head = append(head, r.Strategy)
		}
		row(tw, head...)
		for k, c := range reports[0].Cases {
			raw := textfmt.Int(int64(c.RawTokens))
			if c.RawEstimated {
				raw = "~" + raw
			}
			cells := []string{c.Case, raw}
			for _, r := range reports {
				cr := r.Cases[k]
				if cr.Case != c.Case {
					return fmt.Errorf("bench: the %s report does not cover the cases of the %s report in order", r.Strategy, reports[0].Strategy)
				}
				cell := textfmt.Int(int64(cr.FirstTokens)) + " " + fmt.Sprintf("%d/%d", cr.Visible, cr.Needles)
				if i == 1 {
					cell = "never"
					if cr.TokensToAll >= 0 {
						cell = textfmt.Int(int64(cr.TokensToAll))
					}
				}
				if cr.Err != "" {
					cell += " (error)"
				}
				cells = append(cells, cell)
			}
			row(tw, cells...)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// partNotes say what each part is for, in the lines that head its table.
var partNotes = map[Part]string{
	PartDev:    "projectors may be tuned on these",
	PartSealed: "not looked at while working: the figure that counts",
}

// WriteParts writes the side-by-side table of each part of the corpus, dev
// then sealed, each under a line that names it with its cases and needles;
// with markdown, as Markdown tables under headings. The summaries must have
// their parts (see [Run]).
func WriteParts(w io.Writer, sums []Summary, markdown bool) error {
	write, head := WriteSummaries, "%s: %d cases, %d needles (%s)\n"
	if markdown {
		write, head = WriteSummariesMarkdown, "#### %s: %d cases, %d needles (%s)\n\n"
	}
	for i, p := range Parts {
		ps := PartSummaries(sums, p)
		if i > 0 {
			fmt.Fprintln(w)
		}
		var cases, needles int
		if len(ps) > 0 {
			cases, needles = ps[0].Cases, ps[0].Needles
		}
		fmt.Fprintf(w, head, p, cases, needles, partNotes[p])
		if err := write(w, ps); err != nil {
			return err
		}
	}
	return nil
}
