package project

import (
	"context"
	"strings"

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
	s, err := sniffDoc(e.doc)
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
		if out, ok, err := documentView(ctx, e, layout{title: "text"}, df, intent, false, headShare); err != nil || ok && in.Counter.Count(out.Text) <= in.Budget {
			return out, err
		}
	}
	return e.headTail(ctx, layout{title: "text"})
}

// headTail fills a layout with a head and a tail excerpt, around whatever
// prelude the layout already has, and renders it within the budget.
func (e *excerptor) headTail(ctx context.Context, l layout) (Output, error) {
	room := e.in.Budget - e.overhead(l, 1)
	for _, p := range l.prelude {
		room -= e.cost(p)
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	xs, err := e.ends(room, headShare)
	if err != nil {
		return Output{}, err
	}
	l.excerpts = xs
	text, next, err := e.fit(l)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: text, Next: next, Complete: next == nil && e.in.StoreError == ""}, nil
}

// overhead returns the tokens that the header of l and n omission markers
// take at most, with the longest numbers they could hold.
func (e *excerptor) overhead(l layout, n int) int {
	size := e.doc.Size()
	worst := gap{from: 0, to: size, label: "lines " + strings.Repeat("9", e.width+e.width/3) + "-" + strings.Repeat("9", e.width+e.width/3),
		req: recall.Request{Ref: e.in.Ref, Rev: e.in.Rev(), Lines: &recall.Span{From: e.total + 1, To: e.total + 1}}}
	gs := make([]gap, max(n, 1))
	for i := range gs {
		gs[i] = worst
	}
	fake := l
	x := excerpt{first: e.total, lines: []string{""}, from: size, to: size, cutStart: true}
	fake.excerpts = []excerpt{x, x, x}
	total := e.cost(e.header(fake, gs))
	for range n {
		total += e.cost(e.marker(worst, false))
	}
	if e.in.StoreError != "" {
		total += e.cost("[crumb could not store this result: " + e.in.StoreError + "; what is omitted here cannot be read back]")
	}
	return total + 4
}
