package crumb

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"
)

// summarize replaces a projection by an LLM summary when a Summarizer is
// configured and the result is one to summarize: text (not binary), larger
// than the threshold (it was projected) and no larger than the
// summarizer's maximum input. The exact result is already stored. When the
// summary fails the projection stands, and the receipt says why.
func (g *Guard) summarize(ctx context.Context, res Result, kind Kind, obj store.Object, info store.Info, out project.Output, rc *Receipt) project.Output {
	s := g.cfg.Summarizer
	if s == nil || out.Complete || kind == KindBinary || rc.Tokens == nil || *rc.Tokens > s.MaxInput() {
		return out
	}
	sum, err := s.Summarize(ctx, summarize.Request{
		Tool: res.Tool, Args: res.Args, Intent: project.IntentOf(res.Args),
		View: out.Text, Digest: info.Digest, Source: obj, Size: info.Size,
	})
	if err != nil {
		rc.Summary = &SummaryReceipt{Error: err.Error()}
		g.cfg.Logger.Warn("crumb: summary failed; showing the projection", "tool", res.Tool, "ref", info.Ref, "err", err)
		note := "[crumb: no summary (" + firstLine(err.Error()) + "); this is the deterministic projection]\n"
		if kind == KindMCP {
			return out
		}
		out.Text = note + out.Text
		return out
	}
	latency := sum.Latency.Milliseconds()
	r := &SummaryReceipt{Model: sum.Model, LatencyMS: &latency, Attempts: sum.Attempts, InputTokens: sum.InputTokens, OutputTokens: sum.OutputTokens, Cached: sum.Cached, Facts: len(sum.Facts)}
	for _, f := range sum.Facts {
		if f.Verified {
			r.Verified++
		}
	}
	rc.Summary = r
	// The summary shows none of the result's own lines: its continuation
	// reads from the start.
	next := &recall.Request{Ref: info.Ref, Rev: info.Digest[:recall.RevLen], Lines: &recall.Span{From: 1}}
	hint := g.cfg.Hint
	if hint == nil {
		hint = recall.CLIHint
	}
	text := renderSummary(res.Tool, info, rc, sum, hint(*next))
	if kind == KindMCP {
		if t, ok := mcpWithText(out.Text, text); ok {
			out.Text = t
			out.Next = next
		}
		return out
	}
	out.Text, out.Next = text, next
	return out
}

// renderSummary writes a summary view: a header with the ref, the model and
// the fact check, then the summary's fields (overview, critical facts with
// ✓ for the verified ones, what it omits, then any other field the schema
// has, in name order), then the read that shows the exact result.
func renderSummary(tool string, info store.Info, rc *Receipt, sum *summarize.Summary, next string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[crumb summary of a result (%s): ref %s, %s", rc.Kind, info.Ref, textfmt.Size(info.Size))
	if rc.Lines != nil {
		fmt.Fprintf(&b, ", %s", textfmt.Plural(*rc.Lines, "line"))
	}
	fmt.Fprintf(&b, "; written by %s; %d of %d critical facts checked verbatim against the exact result; the exact result: %s]\n", sum.Model, rc.Summary.Verified, len(sum.Facts), next)
	keys := make([]string, 0, len(sum.Fields))
	for k := range sum.Fields {
		keys = append(keys, k)
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
	for _, k := range keys {
		if k == "critical_facts" {
			if len(sum.Facts) == 0 {
				continue
			}
			b.WriteString("critical facts:\n")
			for _, f := range sum.Facts {
				fmt.Fprintf(&b, "  %s %s\n", f.Mark(), f.Text)
			}
			continue
		}
		v := sum.Fields[k]
		var s string
		switch x := v.(type) {
		case string:
			s = x
		default:
			raw, _ := json.Marshal(x)
			s = string(raw)
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		fmt.Fprintf(&b, "%s: %s\n", strings.ReplaceAll(k, "_", " "), s)
	}
	b.WriteString("[next: " + next + "]")
	return b.String()
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

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}
