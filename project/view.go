package project

import "github.com/crumb-dev/crumb/project/internal/view"

// newExcerptor returns an excerptor over in.
func newExcerptor(in *Input, numbers bool) (*view.Excerptor, error) {
	return view.New(viewInputOf(in), in.Doc(), numbers)
}

// viewInputOf returns what an excerptor reads of in.
func viewInputOf(in *Input) *view.Input {
	return &view.Input{
		Budget: in.Budget, Counter: in.Counter, Line: in.Line, Hint: in.Hint,
		Ref: in.Ref, Rev: in.Rev(), Truncated: in.Truncated, SourceSize: in.SourceSize, StoreError: in.StoreError,
	}
}
