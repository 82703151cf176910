package view

import (
	"context"
	"strings"

	"github.com/crumb-dev/crumb/recall"
)

// HeadTail fills a layout with a head and a tail excerpt, around whatever
// prelude the layout already has, and renders it within the budget; the
// head takes at most headShare of the room (see Ends).
func (e *Excerptor) HeadTail(ctx context.Context, l Layout, headShare float64) (string, *recall.Request, error) {
	room := e.In.Budget - e.Overhead(l, 1)
	for _, p := range l.Prelude {
		room -= e.Cost(p)
	}
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	xs, err := e.Ends(room, headShare)
	if err != nil {
		return "", nil, err
	}
	l.Excerpts = xs
	return e.Fit(l)
}

// Overhead returns the tokens that the header of l and n omission markers
// take at most, with the longest numbers they could hold.
func (e *Excerptor) Overhead(l Layout, n int) int {
	size := e.Doc.Size()
	worst := Gap{From: 0, To: size, Label: "lines " + strings.Repeat("9", e.Width+e.Width/3) + "-" + strings.Repeat("9", e.Width+e.Width/3),
		Req: recall.Request{Ref: e.In.Ref, Rev: e.In.Rev, Lines: &recall.Span{From: e.Total + 1, To: e.Total + 1}}}
	gs := make([]Gap, max(n, 1))
	for i := range gs {
		gs[i] = worst
	}
	fake := l
	x := Excerpt{First: e.Total, Lines: []string{""}, From: size, To: size, CutStart: true}
	fake.Excerpts = []Excerpt{x, x, x}
	total := e.Cost(e.Header(fake, gs))
	for range n {
		total += e.Cost(e.Marker(worst, false))
	}
	if e.In.StoreError != "" {
		total += e.Cost(e.storeNote())
	}
	return total + 4
}

// Complete reports whether a view whose continuation is next shows the whole
// result: nothing is left to read, and the result was stored.
func (e *Excerptor) Complete(next *recall.Request) bool { return next == nil && e.In.StoreError == "" }

// storeNote says that the result could not be stored, for a view to open with.
func (e *Excerptor) storeNote() string {
	return "[crumb could not store this result: " + e.In.StoreError + "; what is omitted here cannot be read back]"
}
