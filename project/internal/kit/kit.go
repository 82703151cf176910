// Package kit joins a kind's package to the view machinery every kind
// shares (package view): the excerptor over a [project.Input], and the
// [project.Output] of a rendered view.
package kit

import (
	"context"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
)

// NewExcerptor returns an excerptor over in; numbers prefixes the lines it
// shows with their numbers.
func NewExcerptor(in *project.Input, numbers bool) (*view.Excerptor, error) {
	return view.New(ViewInput(in), in.Doc(), numbers)
}

// ViewInput returns what an excerptor reads of in.
func ViewInput(in *project.Input) *view.Input {
	return &view.Input{
		Budget: in.Budget, Counter: in.Counter, Line: in.Line, Hint: in.Hint,
		Ref: in.Ref, Rev: in.Rev(), Truncated: in.Truncated, SourceSize: in.SourceSize, StoreError: in.StoreError,
	}
}

// Output returns a view rendered by e, whose continuation is next.
func Output(e *view.Excerptor, text string, next *recall.Request) project.Output {
	return project.Output{Text: text, Next: next, Complete: e.Complete(next)}
}

// HeadTail shows whole lines from the head and the tail of the result
// around what l already holds (see view.Excerptor.HeadTail).
func HeadTail(ctx context.Context, e *view.Excerptor, l view.Layout, headShare float64) (project.Output, error) {
	text, next, err := e.HeadTail(ctx, l, headShare)
	if err != nil {
		return project.Output{}, err
	}
	return Output(e, text, next), nil
}
