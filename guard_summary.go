package crumb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"
)

// Summarizer writes LLM summaries of stored results, for [Config]. A
// [*summarize.Summarizer] is one: build it with summarize/openai or
// summarize/anthropic (importing the adapter is what links its SDK).
// Summarize returns an error whenever the summary must not be shown (the
// Guard then shows the projection); the errors it returns must not hold
// text the model wrote, since they reach the view's fallback note.
// Implementations must be safe for concurrent use.
type Summarizer interface {
	// Summarize writes a summary of req, or fails.
	Summarize(ctx context.Context, req summarize.Request) (*summarize.Summary, error)
	// MaxInput is the most tokens of a result the model reads: a result
	// within it is given whole, a larger one as its projection within it.
	MaxInput() int
}

var _ Summarizer = (*summarize.Summarizer)(nil)

// SummaryLegend is the sentence every summary view carries, saying what
// its marks mean.
const SummaryLegend = "[✓ marks only a quote that crumb found, character for character, on the line it names in the exact stored result; every other word below is the model's own, unchecked, and no ✓ says that what the model makes of a quote is true.]"

// summaryInputBytes bounds, per token of MaxInput, the bytes of a result
// that are read to give it whole to the model.
const summaryInputBytes = 8

// summarize replaces a projection by an LLM summary when a Summarizer is
// configured and the result is one to summarize: text (not binary) and
// larger than the threshold (it was projected). The exact result is
// already stored. The model reads the exact result when it is within the
// summarizer's MaxInput tokens, else the result's projection within that
// bound. When the summary fails the projection stands, and the receipt
// says why.
func (g *Guard) summarize(ctx context.Context, res Result, kind Kind, obj store.Object, info store.Info, out project.Output, rc *Receipt) project.Output {
	s := g.cfg.Summarizer
	if s == nil || out.Complete || kind == KindBinary {
		return out
	}
	text, whole, err := g.summaryInput(ctx, res, kind, obj, info, s.MaxInput())
	var sum *summarize.Summary
	if err == nil {
		sum, err = s.Summarize(ctx, summarize.Request{
			Tool: res.Tool, Args: res.Args, Intent: project.IntentOf(res.Args),
			Text: text, Whole: whole, Digest: info.Digest, Source: obj, Size: info.Size,
		})
	}
	r := &SummaryReceipt{}
	switch {
	case whole:
		r.Input = "whole"
	case text != "":
		r.Input = "projected"
	}
	if err == nil {
		latency := sum.Latency.Milliseconds()
		r.Model, r.LatencyMS, r.Attempts, r.InputTokens, r.OutputTokens, r.Cached, r.Facts = sum.Model, &latency, sum.Attempts, sum.InputTokens, sum.OutputTokens, sum.Cached, len(sum.Facts)
		for _, f := range sum.Facts {
			r.Quotes += len(f.Quotes)
		}
		r.Verified = r.Quotes // a quote that is not found fails the summary
	}
	rc.Summary = r
	// The summary shows none of the result's own lines but its quotes: its
	// continuation reads from the start.
	next := &recall.Request{Ref: info.Ref, Rev: info.Digest[:recall.RevLen], Lines: &recall.Span{From: 1}}
	hint := g.cfg.Hint
	if hint == nil {
		hint = recall.CLIHint
	}
	var view string
	if err == nil {
		var ok bool
		if view, ok = renderSummary(info, rc, sum, hint(*next), rc.Budget, g.cfg.Counter.Count); !ok {
			err = fmt.Errorf("the summary does not fit the budget of %d tokens", rc.Budget)
		}
	}
	if err != nil {
		*r = SummaryReceipt{Error: oneLine(err.Error()), Input: r.Input}
		g.cfg.Logger.Warn("crumb: summary failed; showing the projection", "tool", res.Tool, "ref", info.Ref, "err", err)
		if kind == KindMCP {
			return out
		}
		out.Text = "[crumb: no summary (" + r.Error + "); this is the deterministic projection]\n" + out.Text
		return out
	}
	if kind == KindMCP {
		if t, ok := mcpWithText(out.Text, view); ok {
			out.Text = t
			out.Next = next
		}
		return out
	}
	out.Text, out.Next = view, next
	return out
}

// summaryInput is what the model reads: the exact stored result when it is
// within maxInput tokens, else its projection within maxInput tokens, which
// ranks the result's evidence and names every omission, and, when the
// projection leaves room, a page that reads on from its continuation.
func (g *Guard) summaryInput(ctx context.Context, res Result, kind Kind, obj store.Object, info store.Info, maxInput int) (text string, whole bool, err error) {
	if !info.Truncated && info.Size <= int64(maxInput)*summaryInputBytes {
		b, err := io.ReadAll(io.NewSectionReader(obj, 0, info.Size))
		if err != nil {
			return "", false, fmt.Errorf("reading the result for the summary: %w", err)
		}
		if text := string(b); g.cfg.Counter.Count(text) <= maxInput {
			return text, true, nil
		}
	}
	in := g.input(ctx, res, obj, maxInput)
	in.Ref, in.Digest = info.Ref, info.Digest
	in.Truncated, in.SourceSize = info.Truncated, info.SourceSize
	var scratch Receipt
	out, err := g.project(ctx, kind, in, &scratch)
	if err != nil {
		return "", false, fmt.Errorf("projecting the result for the summary: %w", err)
	}
	// A projector shows what its kind needs, often far less than the
	// bound: the model reads on from the projection's continuation, in
	// order, up to the bound, the page naming what is still left out.
	room := maxInput - g.cfg.Counter.Count(out.Text) - summaryReadOnTokens
	if out.Next == nil || room < maxInput/4 {
		return out.Text, false, nil
	}
	page, err := recall.ReadObject(ctx, obj, *out.Next, recall.Options{Budget: room, Counter: g.cfg.Counter, Hint: g.cfg.Hint, Line: g.lineFunc(ctx)})
	if err != nil {
		return out.Text, false, nil // the projection alone still names every omission
	}
	return out.Text + "\n" + summaryReadOn + "\n" + page.Text, false, nil
}

// summaryReadOn introduces the page that follows a projection in what the
// model reads; summaryReadOnTokens bounds its tokens and the line breaks.
const (
	summaryReadOn       = "[crumb: the projection above is shorter than what you may read; what follows reads on from its first omission, in order]"
	summaryReadOnTokens = 40
)

// renderSummary writes a summary view within budget tokens: a header with
// the ref, the model and what it read; the legend; then the summary's
// fields, each labelled as the model's words (overview, critical facts
// with the quotes crumb located, what it omits, then any other field the
// schema has, in name order); then the read that shows the exact result.
// The model's text is cut, and then its last facts left out, as far as the
// budget needs, each cut marked. ok is false when not even the header and
// the legend fit.
func renderSummary(info store.Info, rc *Receipt, sum *summarize.Summary, next string, budget int, count func(string) int) (string, bool) {
	keys := make([]string, 0, len(sum.Fields))
	longest := 0
	for k, v := range sum.Fields {
		keys = append(keys, k)
		longest = max(longest, len(fieldText(v)))
	}
	for _, f := range sum.Facts {
		longest = max(longest, len(f.Text))
		for _, q := range f.Quotes {
			longest = max(longest, len(q.Text))
		}
	}
	order := map[string]int{"overview": 0, "critical_facts": 1, "omitted": 3}
	sort.Slice(keys, func(i, j int) bool {
		oi, iok := order[keys[i]]
		oj, jok := order[keys[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return keys[i] < keys[j]
	})
	read := "the whole result"
	if rc.Summary.Input != "whole" {
		read = "a projection of it"
	}
	var head strings.Builder
	fmt.Fprintf(&head, "[crumb summary of a result (%s): ref %s, %s", rc.Kind, info.Ref, textfmt.Size(info.Size))
	if rc.Lines != nil {
		fmt.Fprintf(&head, ", %s", textfmt.Plural(*rc.Lines, "line"))
	}
	fmt.Fprintf(&head, "; written by the model %s, which read %s; %s quoted from the result, each found on the line named; the exact result: %s]\n%s\n",
		modelText(sum.Model, 200), read, textfmt.Plural(int64(rc.Summary.Quotes), "passage"), next, SummaryLegend)
	build := func(limit, facts int) string {
		var b strings.Builder
		b.WriteString(head.String())
		for _, k := range keys {
			if k == "critical_facts" {
				if len(sum.Facts) == 0 {
					continue
				}
				b.WriteString("the model's critical facts, each with the quotes it rests on:\n")
				for i, f := range sum.Facts[:facts] {
					fmt.Fprintf(&b, "  %d. %s\n", i+1, modelText(f.Text, limit))
					for _, q := range f.Quotes {
						b.WriteString("     " + quoteLine(q, limit) + "\n")
					}
				}
				if left := len(sum.Facts) - facts; left > 0 {
					fmt.Fprintf(&b, "  [… %s not shown, to keep within the budget]\n", textfmt.Plural(int64(left), "more critical fact"))
				}
				continue
			}
			s := fieldText(sum.Fields[k])
			if strings.TrimSpace(s) == "" {
				continue
			}
			label := "the model's " + strings.ReplaceAll(k, "_", " ")
			if k == "omitted" {
				label = "the model's note of what it leaves out"
			}
			fmt.Fprintf(&b, "%s: %s\n", modelText(label, 200), modelText(s, limit))
		}
		b.WriteString("[next: " + next + "]")
		return b.String()
	}
	limit, facts := min(longest, budget*16), len(sum.Facts)
	for {
		text := build(limit, facts)
		if count(text) <= budget {
			return text, true
		}
		switch {
		case limit > 80:
			limit = limit * 2 / 3
		case facts > 0:
			facts = facts * 2 / 3
		default:
			return "", false
		}
	}
}

// fieldText is a summary field as text: a string as it is, anything else
// as its JSON.
func fieldText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// modelText shows text a model wrote on one line, at most limit bytes of
// it (the cut marked), so that it cannot pass for crumb's own lines or
// marks: line breaks and control bytes become spaces or caret notation,
// and a check mark becomes "[tick]".
func modelText(s string, limit int) string {
	cut := ""
	if len(s) > limit {
		kept := textfmt.CutUTF8([]byte(s), limit)
		cut = fmt.Sprintf(" […%s more of the model's text not shown]", textfmt.Size(int64(len(s)-len(kept))))
		s = string(kept)
	}
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "✓", "[tick]", "✔", "[tick]").Replace(s)
	return textfmt.CleanLine([]byte(s)) + cut
}

// quoteLine shows a located quote: ✓, the line (or lines) it is on, and
// the quote in Go's quoted form, at most limit bytes of it (a cut quote is
// still verbatim; the cut is marked outside the quotes).
func quoteLine(q summarize.Quote, limit int) string {
	where := fmt.Sprintf("L%d", q.Line)
	if q.EndLine > q.Line {
		where = fmt.Sprintf("L%d-%d", q.Line, q.EndLine)
	}
	text, cut := q.Text, ""
	if len(text) > limit {
		text = string(textfmt.CutUTF8([]byte(text), limit))
		cut = fmt.Sprintf("… (%s more of the quote not shown)", textfmt.Size(int64(len(q.Text)-len(text))))
	}
	return fmt.Sprintf("✓ %s: %q%s", where, text, cut)
}

// mcpWithText replaces the text blocks of a projected CallToolResult by one
// text block, keeping its other blocks (images, resources) and members.
func mcpWithText(result, text string) (string, bool) {
	var r map[string]json.RawMessage
	if json.Unmarshal([]byte(result), &r) != nil {
		return "", false
	}
	var blocks []json.RawMessage
	if json.Unmarshal(r["content"], &blocks) != nil {
		return "", false
	}
	tb, _ := json.Marshal(map[string]string{"type": "text", "text": text})
	keep := []json.RawMessage{tb}
	for _, b := range blocks {
		var t struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(b, &t) == nil && t.Type != "text" {
			keep = append(keep, b)
		}
	}
	r["content"], _ = json.Marshal(keep)
	outb, err := json.Marshal(r)
	if err != nil {
		return "", false
	}
	return string(outb), true
}

// oneLine puts an error's lines (one a model of the ladder) on one line, at
// most 400 bytes of them.
func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
	if len(s) > 400 {
		s = string(textfmt.CutUTF8([]byte(s), 400)) + "…"
	}
	return s
}
