package project

import (
	"bytes"
	"context"
)

// A text that may be a log has its head mined for templates as it streams
// in: a log up to logSample.ends bytes is read whole, a larger one begins
// its sample there. Only text may be a log, and a log's lines are matched
// against a call's intent by the projector alone: a call with an intent
// has no prescan.

func init() {
	RegisterPrescan(KindText, func(c Call) Prescanner {
		if newLogIntent(c.Intent) != nil {
			return nil
		}
		return &logPrescan{intent: c.Intent}
	})
}

// logPrescan is the prescan of a text that may be a log.
type logPrescan struct {
	intent string
	// Set by Scan, read once it has ended: the scan of the log's head,
	// when the text is a log.
	isLog bool
	f     logFormat
	s     *logScan
	at    int64 // the line start the scan stopped at: it has read [0, at)
}

// Limit is the head, and the end of the line that straddles its end, if it
// is not too long.
func (l *logPrescan) Limit() int64 { return logSample.ends + logSniff }

// Scan scans the head of a log as its bytes arrive.
func (l *logPrescan) Scan(p *Prescan) {
	defer func() {
		if l.s != nil {
			l.s.stopPipe()
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
	add := func(ln []byte, next int64) bool {
		if lineOff >= logSample.ends {
			return false // past the head: the view's sample decides
		}
		l.s.add(ln, lineOff, num)
		num++
		l.at, lineOff = next, next
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
		l.f, l.isLog = logFormatOf(sample, logNumbered(sample))
		if !l.isLog {
			return false
		}
		l.s = newLogScan(l.f, l.intent)
		l.s.startPipe()
		return feed(head)
	}
	for b := range p.Blocks() {
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
		p.Recycle(b)
		if !ok {
			p.Stop()
			return
		}
	}
	// The result has ended, or what the prescan can use of it.
	cut := p.Cut()
	if !started && !start(!cut) {
		return
	}
	if pos > lineOff && !cut {
		// The last line, without a newline.
		add(line, pos)
	}
}

// takeLog returns the state of the prescan's scan and the line start it
// stopped at, once it has stopped, when it read the head of this log (of
// size bytes, in format f); nil otherwise. It hands over its state once.
func takeLog(ctx context.Context, p *Prescan, f logFormat, size int64) (*logScan, int64) {
	l, ok := p.Scanner().(*logPrescan)
	if !ok || !p.Wait(ctx) || !l.isLog || l.s == nil || l.f != f || l.at > size || !p.Take() {
		return nil, 0
	}
	l.s.bytes = l.at // the bytes it scanned, as a scan counts them
	return l.s, l.at
}
