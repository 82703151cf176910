package bench

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// SVGOptions shape the chart [WriteSVG] draws.
type SVGOptions struct {
	// Title is a line under the chart's heading, such as the corpus.
	Title string
	// GoalTokens and GoalPct draw the target region: first views of at
	// most GoalTokens tokens on average that show at least GoalPct percent
	// of the needles. Zero means 2,000 tokens and 95%.
	GoalTokens float64
	GoalPct    float64
}

// Chart geometry, in SVG user units.
const (
	svgW, svgH                            = 760.0, 480.0
	plotL, plotR, plotT, plotB            = 78.0, 730.0, 78.0, 418.0
	svgFont                               = `system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif`
	colCrumb, colBase, colGoal, colInk    = "#d9480f", "#4263eb", "#ebfbee", "#212529"
	colGrid, colMuted, colGoalEdge, colBg = "#e9ecef", "#868e96", "#40c057", "#ffffff"
)

// WriteSVG draws summaries as a chart a person can read at a glance: one
// mark per strategy, its mean first-view tokens across (a log scale) and the
// needles visible in its first views up; crumb's marks stand out, and the
// region of the figures crumb aims for is shaded. The SVG is hand-written,
// self-contained and the same for the same summaries.
func WriteSVG(w io.Writer, sums []Summary, o SVGOptions) error {
	if len(sums) == 0 {
		return fmt.Errorf("bench: no strategies to chart")
	}
	if o.GoalTokens <= 0 {
		o.GoalTokens = 2000
	}
	if o.GoalPct <= 0 {
		o.GoalPct = 95
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range sums {
		v := math.Max(s.MeanFirstTokens, 1)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lo, hi = math.Min(lo, o.GoalTokens), math.Max(hi, o.GoalTokens)
	// Half a decade of room at least on the left, so that the goal region
	// and the leftmost mark are not squeezed against the axis.
	d0, d1 := math.Floor(math.Log10(lo/3)), math.Ceil(math.Log10(hi))
	if d1 <= d0 {
		d1 = d0 + 1
	}
	x := func(v float64) float64 {
		return plotL + (math.Log10(math.Max(v, 1))-d0)/(d1-d0)*(plotR-plotL)
	}
	y := func(pct float64) float64 { return plotB - pct/100*(plotB-plotT) }

	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="%s" font-size="12" role="img" aria-labelledby="t">`+"\n",
		svgW, svgH, svgW, svgH, svgFont)
	p(`<title id="t">Needles visible in the first view against mean first-view tokens, one mark per strategy</title>` + "\n")
	p(`<rect width="100%%" height="100%%" fill="%s"/>`+"\n", colBg)
	p(`<text x="%g" y="24" font-size="17" font-weight="600" fill="%s">Evidence in the first view, and what it costs</text>`+"\n", plotL, colInk)
	if o.Title != "" {
		p(`<text x="%g" y="44" fill="%s">%s</text>`+"\n", plotL, colMuted, xmlText(o.Title))
	}

	// The goal region.
	gx, gy := x(o.GoalTokens), y(o.GoalPct)
	p(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="%s" stroke-dasharray="4 3"/>`+"\n",
		f1(plotL), f1(plotT), f1(gx-plotL), f1(gy-plotT), colGoal, colGoalEdge)
	p(`<rect x="%g" y="55" width="12" height="12" fill="%s" stroke="%s" stroke-dasharray="4 3"/>`+"\n", plotL, colGoal, colGoalEdge)
	p(`<text x="%g" y="65" fill="%s">the goal: at least %s%% of needles in at most %s tokens</text>`+"\n",
		plotL+18, colMuted, trimFloat(o.GoalPct), textfmt.Int(int64(o.GoalTokens)))

	// Grid and axes.
	for pct := 0.0; pct <= 100; pct += 20 {
		p(`<line x1="%g" x2="%g" y1="%s" y2="%s" stroke="%s"/>`+"\n", plotL, plotR, f1(y(pct)), f1(y(pct)), colGrid)
		p(`<text x="%g" y="%s" text-anchor="end" fill="%s">%g%%</text>`+"\n", plotL-8, f1(y(pct)+4), colMuted, pct)
	}
	for d := d0; d <= d1; d++ {
		v := math.Pow(10, d)
		p(`<line x1="%s" x2="%s" y1="%g" y2="%g" stroke="%s"/>`+"\n", f1(x(v)), f1(x(v)), plotT, plotB, colGrid)
		p(`<text x="%s" y="%g" text-anchor="middle" fill="%s">%s</text>`+"\n", f1(x(v)), plotB+18, colMuted, shortInt(v))
		for k := 2.0; k < 10 && d < d1; k++ {
			p(`<line x1="%s" x2="%s" y1="%g" y2="%g" stroke="%s"/>`+"\n", f1(x(k*v)), f1(x(k*v)), plotB, plotB+4, colMuted)
		}
	}
	p(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`+"\n", plotL, plotR, plotB, plotB, colInk)
	p(`<line x1="%g" x2="%g" y1="%g" y2="%g" stroke="%s"/>`+"\n", plotL, plotL, plotT, plotB, colInk)
	p(`<text x="%g" y="%g" text-anchor="middle" fill="%s">mean first-view tokens (o200k_base, log scale) — fewer is better →</text>`+"\n",
		(plotL+plotR)/2, plotB+42, colInk)
	p(`<text transform="translate(22 %g) rotate(-90)" text-anchor="middle" fill="%s">needles visible in the first view — more is better →</text>`+"\n",
		(plotT+plotB)/2, colInk)

	// Marks, then labels placed so that they do not overlap.
	marks := layout(sums, x, y)
	for _, m := range marks {
		col, r := colBase, 5.5
		if m.crumb {
			col, r = colCrumb, 7.0
		}
		p(`<circle cx="%s" cy="%s" r="%g" fill="%s" fill-opacity="0.9" stroke="#fff" stroke-width="1.5"><title>%s: %s mean first-view tokens, %d of %d needles (%.1f%%)</title></circle>`+"\n",
			f1(m.cx), f1(m.cy), r, col, xmlText(m.s.Strategy), textfmt.Int(int64(m.s.MeanFirstTokens+0.5)), m.s.Visible, m.s.Needles, m.s.VisiblePct)
		if m.ly-labelAbove > m.cy+markR || m.ly+labelBelow < m.cy-markR {
			ex := m.lx - 2
			if m.anchor == "end" {
				ex = m.lx + 2
			}
			p(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="0.8"/>`+"\n", f1(m.cx), f1(m.cy), f1(ex), f1(m.ly-4), colMuted)
		}
		weight := "normal"
		if m.crumb {
			weight = "600"
		}
		p(`<text x="%s" y="%s" text-anchor="%s" fill="%s"><tspan font-weight="%s">%s</tspan><tspan dx="5" fill="%s" font-size="11">%s</tspan></text>`+"\n",
			f1(m.lx), f1(m.ly), m.anchor, col, weight, xmlText(m.label), colMuted, xmlText(m.detail))
	}
	p("</svg>\n")
	return b.Flush()
}

// mark is a strategy's mark on the chart and where its label goes.
type mark struct {
	s       Summary
	cx, cy  float64 // the mark's centre
	crumb   bool
	lx, ly  float64 // the label's anchor point (its baseline)
	anchor  string  // "start" or "end"
	label   string
	detail  string
	labelW  float64 // the label's estimated width
	labelX0 float64 // the label's left edge
}

// Label boxes: a text line spans from 11 units above its baseline to 3
// below; a mark, 7 units around its centre.
const (
	labelAbove, labelBelow = 11.0, 3.0
	markR                  = 7.0
)

// layout places the marks of sums by the scales x and y, and their labels
// beside them: to the right of the mark, else to its left, else a line
// above or below either way, else moved down until it covers no earlier
// label and no mark; labels never run off the chart.
func layout(sums []Summary, x, y func(float64) float64) []*mark {
	marks := make([]*mark, len(sums))
	for i, s := range sums {
		m := &mark{s: s, cx: x(s.MeanFirstTokens), cy: y(s.VisiblePct), crumb: strings.HasPrefix(s.Strategy, NameCrumb)}
		m.label = s.Strategy
		m.detail = fmt.Sprintf("%s tok, %.1f%%", textfmt.Int(int64(s.MeanFirstTokens+0.5)), s.VisiblePct)
		m.labelW = 7.2*float64(len([]rune(m.label))) + 6.2*float64(len([]rune(m.detail))) + 5
		marks[i] = m
	}
	order := append([]*mark(nil), marks...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].cy < order[j].cy })
	free := func(m *mark, placed []*mark) bool {
		if m.labelX0 < 2 || m.labelX0+m.labelW > svgW-2 {
			return false
		}
		for _, o := range placed {
			if m.overlapsX(o.labelX0, o.labelX0+o.labelW) && m.ly-labelAbove < o.ly+labelBelow && o.ly-labelAbove < m.ly+labelBelow {
				return false
			}
		}
		for _, o := range order {
			if o != m && m.overlapsX(o.cx-markR, o.cx+markR) && o.cy-markR < m.ly+labelBelow && m.ly-labelAbove < o.cy+markR {
				return false
			}
		}
		return true
	}
	for i, m := range order {
		placed := order[:i]
		ok := false
		for _, c := range []struct {
			right bool
			dy    float64
		}{{true, 4}, {false, 4}, {true, -10}, {false, -10}, {true, 18}, {false, 18}} {
			m.place(c.right, m.cy+c.dy)
			if ok = free(m, placed); ok {
				break
			}
		}
		if !ok {
			m.place(m.cx+9+m.labelW <= svgW-2, m.cy+4)
			// It only ever moves down, a line at least each time.
			for n := 0; !free(m, placed) && n < 4*len(order); n++ {
				m.ly += labelAbove + labelBelow + 1
			}
		}
	}
	return marks
}

// place puts m's label to the right or the left of its mark, on the
// baseline ly.
func (m *mark) place(right bool, ly float64) {
	m.ly = ly
	if right {
		m.anchor, m.lx, m.labelX0 = "start", m.cx+9, m.cx+9
	} else {
		m.anchor, m.lx, m.labelX0 = "end", m.cx-9, m.cx-9-m.labelW
	}
}

func (m *mark) overlapsX(x0, x1 float64) bool { return m.labelX0 < x1 && x0 < m.labelX0+m.labelW }

// f1 formats a coordinate with one decimal, without a trailing ".0".
func f1(v float64) string { return trimFloat(math.Round(v*10)/10 + 0) } // + 0 turns -0 into 0

func trimFloat(v float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0")
}

// shortInt writes a power of ten for an axis: 100, 1k, 10k, 1M.
func shortInt(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%gM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%gk", v/1e3)
	}
	return fmt.Sprintf("%g", v)
}

// xmlText escapes text for an SVG text node or attribute.
func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
