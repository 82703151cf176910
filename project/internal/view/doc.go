// Package view lays out the views of line-addressed results, for every kind
// that shows a result by excerpts: it cuts runs of whole lines forward and
// backward from an offset within a token budget ([Excerptor.Forward],
// [Excerptor.Backward]), names what they leave out with the read that
// recovers it ([Gap], [Continuation]), and renders a [Layout] (header,
// prelude, excerpts, omission markers) that fits the budget
// ([Excerptor.Fit]). It knows no kind: a projector gives it an [Input].
package view
