package project

import "context"

// A command's output is scanned from its start as it streams in: its first
// cmdSample.head bytes (all of it when it is no longer, else the head its
// sample begins with).

func init() {
	RegisterPrescan(KindCommand, func(c Call) Prescanner { return &cmdPrescan{intent: c.Intent} })
}

// cmdPrescan is the prescan of a command's output.
type cmdPrescan struct {
	intent string
	// Set by Scan, read once it has ended: the scan, which has read
	// [0, at).
	s  *cmdScan
	at int64
}

// Limit is the head a command's sample begins with.
func (c *cmdPrescan) Limit() int64 { return cmdSample.head }

// Scan scans a command's output as its bytes arrive, up to the limit.
func (c *cmdPrescan) Scan(p *Prescan) {
	s := newCmdScan(c.intent)
	for b := range p.Blocks() {
		s.Write(b)
		c.at += int64(len(b))
		p.Recycle(b)
	}
	c.s = s
}

// takeCommand returns the scan of a command's output of size bytes and
// where it stopped, once the prescan has ended, when it read what it could
// of this output: all of it, or its first cmdSample.head bytes (nil
// otherwise). The scan is not finished: it goes on from there. It hands
// over its state once.
func takeCommand(ctx context.Context, p *Prescan, size int64) (*cmdScan, int64) {
	c, ok := p.Scanner().(*cmdPrescan)
	if !ok || !p.Wait(ctx) || c.s == nil || c.at != min(size, c.Limit()) || !p.Take() {
		return nil, 0
	}
	return c.s, c.at
}
