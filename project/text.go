package project

import (
	"context"

	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/sections"
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

// headTail fills a layout with a head and a tail excerpt (see
// view.Excerptor.HeadTail) and returns it as the view.
func headTail(e *view.Excerptor, ctx context.Context, l view.Layout) (Output, error) {
	text, next, err := e.HeadTail(ctx, l, headShare)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: text, Next: next, Complete: e.Complete(next)}, nil
}
