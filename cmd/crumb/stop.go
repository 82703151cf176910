package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// stopped is the cause of the command's context ending when crumb received
// SIGINT or SIGTERM: the command stops, and crumb exits with 128+N as
// shells expect of a process a signal ended.
type stopped struct{ sig syscall.Signal }

func (s *stopped) Error() string { return "stopped by " + signalName(s.sig) }

// code is the exit status for the signal: 130 for SIGINT, 143 for SIGTERM.
func (s *stopped) code() int { return exitSignalBase + int(s.sig) }

// signalContext returns a context that ends, with a *stopped cause, when
// the process receives SIGINT or SIGTERM. A second one has its default
// effect, ending crumb at once, unless a command handles it itself (crumb
// run passes it on to the command it runs).
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&stopped{sig: s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// cancelReader reads r until ctx ends. A Read that blocks in r (a pipe
// that stays open and quiet) returns ctx's error as soon as ctx ends; the
// blocked read is left to finish into a buffer of the cancelReader's own,
// so the caller's buffer is never written after Read returns.
type cancelReader struct {
	ctx     context.Context
	r       io.Reader
	buf     []byte
	results chan readResult
	err     error
}

type readResult struct {
	n   int
	err error
}

// readerFor wraps e's standard input so that reading it ends with the
// command's context. Regular files never block, so they are read as they
// are.
func readerFor(e *env) io.Reader {
	if f, ok := e.stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return f
		}
	}
	return &cancelReader{ctx: e.ctx, r: e.stdin, results: make(chan readResult, 1)}
}

func (c *cancelReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return 0, err
	}
	// A read left in flight by an earlier call ended that call with ctx's
	// error, and c.err stops every later one; so each read here is for p.
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	go func() {
		n, err := c.r.Read(buf)
		c.results <- readResult{n, err}
	}()
	select {
	case res := <-c.results:
		if res.err != nil {
			c.err = res.err
		}
		return copy(p, buf[:res.n]), res.err
	case <-c.ctx.Done():
		c.err = c.ctx.Err()
		return 0, c.err
	}
}
