package project

import (
	"context"
	"strings"

	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/sections"
	"github.com/crumb-dev/crumb/recall"
)

func init() {
	Register(KindText, ProjectorFunc(projectText))
}

// headShare is the part of the room for excerpts that the head of a text
// may take; the tail gets the rest, and more when the head is short, since
// the end of a log or an output is where its outcome usually is.
const headShare = 0.4

// projectText shows a text by what it is (see projectSniffedText): a test
// run or a compiler's output as a command's, a log as a log, JSON as JSON,
// source code as a file, a listing as a directory; any other text by whole
// lines from its head and, weighted more, from its tail, with the omitted
// middle named in the header and where it sits.
func projectText(ctx context.Context, in *Input) (Output, error) {
	// A test report in plain text's clothes (go test -json, ...) is shown decoded.
	if out, ok, err := projectTestReport(ctx, in, KindText); ok || err != nil {
		return out, err
	}
	e, err := newExcerptor(in, false)
	if err != nil {
		return Output{}, err
	}
	s, err := sniffDoc(e.Doc)
	if err != nil {
		return Output{}, err
	}
	if out, ok, err := projectSniffedText(ctx, in, s); ok {
		return out, err
	}
	// A document is shown by its sections (document.go), the call may
	// name the file it is; other text read for an intent, by the blocks
	// of lines that best match it.
	df, ok, err := sniffDocument(e, in.Call().Path)
	if err != nil {
		return Output{}, err
	}
	intent := in.Call().Intent
	if !ok && intent != "" {
		df, ok = sections.Blocks, true
	}
	if ok {
		if out, ok, err := documentView(ctx, e, view.Layout{Title: "text"}, df, intent, false, headShare); err != nil || ok && in.Counter.Count(out.Text) <= in.Budget {
			return out, err
		}
	}
	return headTail(e, ctx, view.Layout{Title: "text"})
}

// headTail fills a layout with a head and a tail excerpt, around whatever
// prelude the layout already has, and renders it within the budget.
func headTail(e *view.Excerptor, ctx context.Context, l view.Layout) (Output, error) {
	room := e.In.Budget - overhead(e, l, 1)
	for _, p := range l.Prelude {
		room -= e.Cost(p)
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	xs, err := e.Ends(room, headShare)
	if err != nil {
		return Output{}, err
	}
	l.Excerpts = xs
	text, next, err := e.Fit(l)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: text, Next: next, Complete: next == nil && e.In.StoreError == ""}, nil
}

// overhead returns the tokens that the header of l and n omission markers
// take at most, with the longest numbers they could hold.
func overhead(e *view.Excerptor, l view.Layout, n int) int {
	size := e.Doc.Size()
	worst := view.Gap{From: 0, To: size, Label: "lines " + strings.Repeat("9", e.Width+e.Width/3) + "-" + strings.Repeat("9", e.Width+e.Width/3),
		Req: recall.Request{Ref: e.In.Ref, Rev: e.In.Rev, Lines: &recall.Span{From: e.Total + 1, To: e.Total + 1}}}
	gs := make([]view.Gap, max(n, 1))
	for i := range gs {
		gs[i] = worst
	}
	fake := l
	x := view.Excerpt{First: e.Total, Lines: []string{""}, From: size, To: size, CutStart: true}
	fake.Excerpts = []view.Excerpt{x, x, x}
	total := e.Cost(e.Header(fake, gs))
	for range n {
		total += e.Cost(e.Marker(worst, false))
	}
	if e.In.StoreError != "" {
		total += e.Cost("[crumb could not store this result: " + e.In.StoreError + "; what is omitted here cannot be read back]")
	}
	return total + 4
}
