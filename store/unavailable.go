package store

import (
	"context"
	"errors"
	"io"
)

// ErrUnavailable means the store could not be opened or reached: a Redis
// server that does not answer, a directory that may not be used. Nothing was
// stored, and nothing can be read.
var ErrUnavailable = errors.New("store: unavailable")

// Unavailable stands in for a store that could not be opened, so that a
// program can still show the results it was given: a [Store] that keeps
// nothing and holds nothing, whose every call fails with an error wrapping
// [ErrUnavailable] and the reason the store could not be opened. A Guard
// given one passes small results through as ever and shows each larger one
// by the bounded view of a result it could not store, which names the
// reason.
type Unavailable struct {
	where string
	err   error
}

var _ Store = (*Unavailable)(nil)

// NewUnavailable returns the stand-in for the store named where (a
// directory, a URL without its password) that failed to open with err.
func NewUnavailable(where string, err error) *Unavailable {
	return &Unavailable{where: where, err: UnavailableError(err)}
}

// UnavailableError returns an error that wraps both ErrUnavailable and err,
// the reason a store cannot be used: "the store is unavailable: " and err's
// text.
func UnavailableError(err error) error { return &unavailableError{cause: err} }

// unavailableError is the error of every call of an Unavailable: its text
// names the reason once, short enough for a view.
type unavailableError struct{ cause error }

func (e *unavailableError) Error() string {
	return "the store is unavailable: " + e.cause.Error()
}

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// Err returns the error every call returns: it wraps ErrUnavailable and
// the reason the store could not be opened.
func (u *Unavailable) Err() error { return u.err }

// Path names the store that could not be opened.
func (u *Unavailable) Path() string { return u.where }

// Close does nothing: nothing was opened.
func (u *Unavailable) Close() error { return nil }

// Put reads nothing of r and stores nothing.
func (u *Unavailable) Put(context.Context, io.Reader, Meta) (Info, error) { return Info{}, u.err }

// Open finds nothing.
func (u *Unavailable) Open(context.Context, Ref) (Object, error) { return nil, u.err }

// Stat finds nothing.
func (u *Unavailable) Stat(context.Context, Ref) (Info, error) { return Info{}, u.err }

// List lists nothing.
func (u *Unavailable) List(context.Context) ([]Info, error) { return nil, u.err }

// Delete deletes nothing.
func (u *Unavailable) Delete(context.Context, Ref) error { return u.err }

// GC collects nothing.
func (u *Unavailable) GC(context.Context) (GCStats, error) { return GCStats{}, u.err }
