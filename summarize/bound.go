package summarize

import (
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
