package project

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
)

// A Prescan does the first part of a projection while the result is still
// streaming in, on a goroutine of its own, so that it runs on one core while
// the store writes and hashes on another: the part that reads the result in
// order from its start. What that part is belongs to the result's kind,
// which registers it (RegisterPrescan): the template mining of a log's
// head, the scan of a command's output from its start, the pass over a
// JSON document's head (see log_prescan.go, command_prescan.go and
// json_prescan.go).
//
// The view never depends on how far a prescan got or on how its bytes were
// cut: the projector takes over the scan's state where the prescan stopped
// and goes on as its own scan would have. A prescan that guessed wrong — it
// tells a log's format from the head alone, the projector from the head and
// the tail — or that saw other bytes than the store kept is not used. It is
// given only what it can use (the head and a little more), so it never
// holds storing up past that, and memory stays at prescanQueue blocks of
// 256 KiB: Write waits while the goroutine is that far behind.
//
// Create one with [NewPrescan], give it the result's bytes in order with
// Write, call Close once they have ended (or storing failed), hand it to
// the projector as Input.Prescan, and call Release once the projection is
// done. One writer and one projector may use it at once.
type Prescan struct {
	scanner Prescanner
	blocks  chan []byte
	free    chan []byte
	stopped atomic.Bool   // the goroutine wants no more bytes
	limit   int64         // the most bytes it can use
	sent    int64         // the bytes Write sent it
	cut     atomic.Bool   // the result went on past limit
	done    chan struct{} // closed when the goroutine has ended
	closeMu sync.Mutex
	closed  bool
	quit    chan struct{} // closed by Release
	release sync.Once
	taken   atomic.Bool
}

// A Prescanner is a kind's part of a prescan: the scan of the first bytes
// of a result, which its projector takes over (see Prescan.Take).
type Prescanner interface {
	// Limit is how many of the result's first bytes the scan can use;
	// the prescan is given no more.
	Limit() int64
	// Scan runs on the prescan's goroutine. It reads the bytes from
	// p.Blocks, in order, gives each block back with p.Recycle, and calls
	// p.Stop when it wants no more; it returns when the blocks end or it
	// has stopped.
	Scan(p *Prescan)
}

// prescanners holds the function that makes the scanner of each kind
// that has one.
var prescanners = map[Kind]func(Call) Prescanner{}

// RegisterPrescan makes start the prescan of kind k: it returns the
// scanner for a call, or nil when the projection of what that call
// returns has nothing to do while the result streams in. It is meant to be
// called from init functions, as Register is.
func RegisterPrescan(k Kind, start func(Call) Prescanner) { prescanners[k] = start }

// prescanBlock is the size of the copies a Prescan keeps of what it is
// given, and prescanQueue how many may wait for the goroutine: as many as
// hold a log's head (logSample.ends), so that storing need not wait for the
// mining of what it has already written.
const (
	prescanBlock = 256 << 10
	prescanQueue = 32
)

// NewPrescan returns a prescan for a result of this kind and call, its
// goroutine started, or nil when the kind's projection has nothing to do
// while the result streams in (see RegisterPrescan). A nil *Prescan is
// valid and does nothing.
func NewPrescan(kind Kind, args json.RawMessage) *Prescan {
	start := prescanners[kind]
	if start == nil {
		return nil
	}
	sc := start(ParseCall(args))
	if sc == nil {
		return nil
	}
	p := &Prescan{scanner: sc, limit: sc.Limit(), blocks: make(chan []byte, prescanQueue),
		free: make(chan []byte, prescanQueue+1), done: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		defer close(p.done)
		sc.Scan(p)
	}()
	return p
}

// Scanner returns the prescan's scanner; nil for a nil prescan. Its
// projector asserts it to its own type, then waits for it (Wait) or hands
// it what it waits for, and takes it over (Take).
func (p *Prescan) Scanner() Prescanner {
	if p == nil {
		return nil
	}
	return p.scanner
}

// Blocks returns the blocks of the result's bytes the prescan was given,
// in order, for the scanner; it is closed when the result has ended or no
// more will come (Close).
func (p *Prescan) Blocks() <-chan []byte { return p.blocks }

// Quit returns a channel closed once no projector will take the prescan
// over (Release), for a scanner that waits for one.
func (p *Prescan) Quit() <-chan struct{} { return p.quit }

// Cut reports that the result went on past the scanner's Limit.
func (p *Prescan) Cut() bool { return p.cut.Load() }

// Sent returns how many bytes the prescan was given, at most its Limit.
func (p *Prescan) Sent() int64 {
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	return p.sent
}

// Take reports whether the caller takes the scanner over: true once, for
// the first caller.
func (p *Prescan) Take() bool { return p.taken.CompareAndSwap(false, true) }

// Stop tells Write that no more bytes are wanted, and takes what it sends
// until Close; the scanner calls it when it wants no more.
func (p *Prescan) Stop() {
	p.stopped.Store(true)
	for b := range p.blocks {
		p.Recycle(b)
	}
}

// Wait closes the prescan and waits for its scanner to end; it reports
// false for a nil prescan or when ctx ends first.
func (p *Prescan) Wait(ctx context.Context) bool {
	if p == nil {
		return false
	}
	p.Close()
	select {
	case <-p.done:
		return true
	case <-ctx.Done():
		return false
	}
}

// Write gives the prescan the next bytes of the result. It copies them and
// returns at once, unless the goroutine is prescanQueue blocks behind; it
// never fails.
func (p *Prescan) Write(b []byte) (int, error) {
	if p == nil {
		return len(b), nil
	}
	n := len(b)
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if p.closed || p.stopped.Load() {
		return n, nil
	}
	if rest := p.limit - p.sent; int64(len(b)) > rest {
		// Past what it can use: the goroutine must not hold storing up.
		b = b[:max(0, rest)]
		p.cut.Store(true)
	}
	p.sent += int64(len(b))
	for len(b) > 0 && !p.stopped.Load() {
		var buf []byte
		select {
		case buf = <-p.free:
		default:
			buf = make([]byte, 0, prescanBlock)
		}
		k := min(len(b), cap(buf))
		buf = append(buf[:0], b[:k]...)
		b = b[k:]
		// The goroutine always takes what is sent, scanning or not, so
		// this waits at most for it to scan a block.
		p.blocks <- buf
	}
	return n, nil
}

// Recycle gives a block back for Write to fill again.
func (p *Prescan) Recycle(b []byte) {
	select {
	case p.free <- b[:0]:
	default:
	}
}

// Close says the result has ended, or that no more of it will come. It may
// be called more than once, and does not wait for the goroutine.
func (p *Prescan) Close() {
	if p == nil {
		return
	}
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	if !p.closed {
		p.closed = true
		close(p.blocks)
	}
}

// Release says that no projector will take the prescan over: it closes
// it, and a scanner that waits for the stored result (see Quit) ends. Call it once the projection is done; it may be called more than
// once.
func (p *Prescan) Release() {
	if p == nil {
		return
	}
	p.Close()
	p.release.Do(func() { close(p.quit) })
}
