package project

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
)

// A Prescan does the first part of a projection while the result is still
// streaming in, on a goroutine of its own, so that it runs on one core while
// the store writes and hashes on another: the part that reads the result in
// order from its start: the template mining of a log's head (a log up to
// logSample.ends bytes is read whole, a larger one begins its sample there),
// the scan of a command's output up to cmdSample.head bytes (all of it when
// it is no longer, else the head its sample begins with), and the pass over
// a JSON document's first jsonSample.head bytes (see prescan_json.go).
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
	intent  string // the intent of the call's arguments
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

	// The pass of a JSON document (see prescan_json.go).
	json *jsonPrescan

	// Set by the goroutine, read once done is closed: the scan of a
	// command's output, which has read [0, at).
	cmd *cmdScan

	// Set by the goroutine, read once done is closed: the scan of the
	// log's head, when the text is a log.
	isLog bool
	f     logFormat
	s     *logScan
	at    int64 // the line start the scan stopped at: it has read [0, at)
	taken atomic.Bool
}

// prescanBlock is the size of the copies a Prescan keeps of what it is
// given, and prescanQueue how many may wait for the goroutine: as many as
// hold a log's head (logSample.ends), so that storing need not wait for the
// mining of what it has already written.
const (
	prescanBlock = 256 << 10
	prescanQueue = 32
)

// NewPrescan returns a prescan for a result of this kind and call, or nil
// when its projection has nothing to do while the result streams in: only
// text may be a log, a log's lines are matched against a call's intent by
// the projector alone, and a command's output is scanned from its start.
// A nil *Prescan is valid and does nothing.
func NewPrescan(kind Kind, args json.RawMessage) *Prescan {
	switch {
	case kind == KindJSON:
		return newJSONPrescan(args)
	case kind == KindCommand:
		p := newPrescan(args, cmdSample.head)
		go func() {
			defer close(p.done)
			p.runCommand()
		}()
		return p
	case kind != KindText || newLogIntent(ParseCall(args).Intent) != nil:
		return nil
	}
	// The head, and the end of the line that straddles its end, if it is
	// not too long.
	p := newPrescan(args, logSample.ends+logSniff)
	go func() {
		defer close(p.done)
		p.runLog()
	}()
	return p
}

// newPrescan returns a prescan that can use the first limit bytes, whose
// goroutine is yet to start.
func newPrescan(args json.RawMessage, limit int64) *Prescan {
	return &Prescan{intent: ParseCall(args).Intent, limit: limit, blocks: make(chan []byte, prescanQueue),
		free: make(chan []byte, prescanQueue+1), done: make(chan struct{}), quit: make(chan struct{})}
}

// runCommand scans a command's output as its bytes arrive, up to the limit.
func (p *Prescan) runCommand() {
	s := newCmdScan(p.intent)
	for b := range p.blocks {
		s.Write(b)
		p.at += int64(len(b))
		p.recycle(b)
	}
	p.cmd = s
}

// stop tells Write that no more bytes are wanted, and takes what it sends
// until Close.
func (p *Prescan) stop() {
	p.stopped.Store(true)
	for b := range p.blocks {
		p.recycle(b)
	}
}

// wait closes the prescan and waits for its goroutine to end; it reports
// false for a nil prescan or when ctx ends first.
func (p *Prescan) wait(ctx context.Context) bool {
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

// recycle gives a block back for Write to fill again.
func (p *Prescan) recycle(b []byte) {
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
// it, and a goroutine that waits for the stored result (see takeJSON)
// ends. Call it once the projection is done; it may be called more than
// once.
func (p *Prescan) Release() {
	if p == nil {
		return
	}
	p.Close()
	p.release.Do(func() { close(p.quit) })
}

// runLog scans the head of a log as its bytes arrive.
func (p *Prescan) runLog() {
	defer func() {
		if p.s != nil {
			p.s.stopPipe()
		}
	}()
	var (
		head    []byte // the first logSniff bytes, to tell the format from
		line    []byte // the line being assembled: its first logLineCap bytes
		lineOff int64  // where it starts
		pos     int64  // bytes seen
		num     int64  = 1
		started bool
	)
	// add takes the complete line that starts at lineOff, and reports
	// whether the scan goes on.
	add := func(l []byte, next int64) bool {
		if lineOff >= logSample.ends {
			return false // past the head: the view's sample decides
		}
		p.s.add(l, lineOff, num)
		num++
		p.at, lineOff = next, next
		return true
	}
	// feed scans b, which follows what was seen.
	feed := func(b []byte) bool {
		for len(b) > 0 {
			j := bytes.IndexByte(b, '\n')
			if j < 0 {
				if room := logLineCap - len(line); room > 0 {
					line = append(line, b[:min(len(b), room)]...)
				}
				pos += int64(len(b))
				return true
			}
			if room := logLineCap - len(line); room > 0 {
				line = append(line, b[:min(j, room)]...)
			}
			pos += int64(j) + 1
			if !add(line, pos) {
				return false
			}
			line = line[:0]
			b = b[j+1:]
		}
		return true
	}
	start := func(ended bool) bool {
		started = true
		sample := bytes.Split(head, []byte{'\n'})
		if !ended && len(sample) > 1 {
			sample = sample[:len(sample)-1] // a cut last line
		}
		p.f, p.isLog = logFormatOf(sample, logNumbered(sample))
		if !p.isLog {
			return false
		}
		p.s = newLogScan(p.f, p.intent)
		p.s.startPipe()
		return feed(head)
	}
	for b := range p.blocks {
		ok := true
		if !started {
			k := min(len(b), logSniff-len(head))
			head = append(head, b[:k]...)
			if len(head) == logSniff {
				ok = start(false) && feed(b[k:])
			}
		} else {
			ok = feed(b)
		}
		p.recycle(b)
		if !ok {
			p.stop()
			return
		}
	}
	// The result has ended, or what the prescan can use of it.
	cut := p.cut.Load()
	if !started && !start(!cut) {
		return
	}
	if pos > lineOff && !cut {
		// The last line, without a newline.
		add(line, pos)
	}
}

// take returns the state of the prescan's scan and the line start it
// stopped at, once it has stopped, when it read the head of this log (of
// size bytes, in format f); nil otherwise. It hands over its state once.
func (p *Prescan) take(ctx context.Context, f logFormat, size int64) (*logScan, int64) {
	if !p.wait(ctx) || !p.isLog || p.s == nil || p.f != f || p.at > size || !p.taken.CompareAndSwap(false, true) {
		return nil, 0
	}
	p.s.bytes = p.at // the bytes it scanned, as a scan counts them
	return p.s, p.at
}

// takeCommand returns the scan of a command's output of size bytes and
// where it stopped, once the prescan has ended, when it read what it could
// of this output: all of it, or its first cmdSample.head bytes (nil
// otherwise). The scan is not finished: it goes on from there. It hands
// over its state once.
func (p *Prescan) takeCommand(ctx context.Context, size int64) (*cmdScan, int64) {
	if !p.wait(ctx) || p.cmd == nil || p.at != min(size, p.limit) || !p.taken.CompareAndSwap(false, true) {
		return nil, 0
	}
	return p.cmd, p.at
}
