package history

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"
)

// LLM returns a Summarizer that folds turns with a model through s, with
// the summaries' guarantees: facts that quote identifiers, numbers, paths,
// dates or error messages must occur verbatim in the folded messages, and a
// failed, invalid or late summary gives the extractive digest instead.
func LLM(s *summarize.Summarizer) Summarizer { return llm{s} }

type llm struct{ s *summarize.Summarizer }

func (l llm) Summarize(ctx context.Context, req SummaryRequest) (string, error) {
	data := joinArray(req.Messages)
	sum, err := l.s.Summarize(ctx, summarize.Request{
		Tool:   "conversation",
		Intent: "summarize these earlier turns of an agent's conversation so the agent can continue its task",
		Text:   req.Digest + "\n\nThe messages, as JSON:\n" + string(data),
		Digest: "history:" + store.Sum(data),
		Source: bytes.NewReader(data), Size: int64(len(data)),
	})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if o, ok := sum.Fields["overview"].(string); ok {
		b.WriteString(o)
	}
	// The facts are the model's words; only their quotes were found in
	// the folded messages.
	for _, f := range sum.Facts {
		fmt.Fprintf(&b, "\n- %s", f.Text)
		for _, q := range f.Quotes {
			fmt.Fprintf(&b, "\n  ✓ %q", q.Text)
		}
	}
	return strings.TrimSpace(b.String()), nil
}
