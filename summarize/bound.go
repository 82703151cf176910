package summarize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// boundedClient returns a copy of c whose response bodies end in
// ErrTooLarge once they pass limit bytes, so that no answer, however large
// the endpoint makes it, is read whole. The request's context still bounds
// the whole exchange, the body's read included.
func boundedClient(c *http.Client, limit int64) *http.Client {
	cp := *c
	rt := cp.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cp.Transport = limitTransport{rt: rt, limit: limit}
	return &cp
}

type limitTransport struct {
	rt    http.RoundTripper
	limit int64
}

func (t limitTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.limit {
		resp.Body.Close()
		return nil, tooLarge(t.limit)
	}
	resp.Body = &limitBody{rc: resp.Body, left: t.limit, limit: t.limit}
	return resp, nil
}

func tooLarge(limit int64) error { return &TooLargeError{Limit: limit} }

// TooLargeError is the error of an answer larger than its bound; it is
// ErrTooLarge for [errors.Is].
type TooLargeError struct {
	// Limit is the most bytes of an answer that are read.
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%v: more than %d bytes", ErrTooLarge, e.Limit)
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// limitBody reads at most limit bytes of a body and fails on the next.
type limitBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		b.left = -1
		return 0, tooLarge(b.limit)
	}
	b.left -= int64(n)
	return n, err
}

func (b *limitBody) Close() error { return b.rc.Close() }

// EndpointError is what an adapter returns for a call that failed with
// err, status being the HTTP status of an error response (0 for none): an
// answer over its bound stays a *TooLargeError, an error response is
// ErrUnavailable with its status, an ended context ErrTimeout, anything
// else ErrUnavailable. It keeps neither the request (which would carry the
// result) nor the answer nor any key.
func EndpointError(err error, status int) error {
	var tl *TooLargeError
	switch {
	case errors.As(err, &tl):
		return tl
	case status != 0:
		return fmt.Errorf("%w: HTTP %d", ErrUnavailable, status)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}
