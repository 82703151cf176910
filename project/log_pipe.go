package project

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/project/internal/classify"
)

// logPipe does a log scan's costly work on each line — classifying it and
// splitting it into the miner's tokens — on worker goroutines, a batch of
// lines at a time, while one goroutine adds the lines to the scan in their
// order: the scan ends in the same state as when it adds them one by one,
// sooner when there are cores to spare. The scan's state belongs to the
// pipe from startPipe to stopPipe.
type logPipe struct {
	s         *logScan
	cur       *logBatch
	resetNext bool           // the next line starts a span: no record goes on into it
	work      chan *logBatch // to the workers
	order     chan *logBatch // to the adder, in the order of the lines
	free      chan *logBatch
	made      int           // batches made
	added     chan struct{} // closed when the adder has added every line
	workers   sync.WaitGroup
}

// logBatch is a run of lines on their way through a pipe.
type logBatch struct {
	text  []byte // the lines' bytes, one after another
	lines []logBatchLine
	toks  *drain.Batch
	ready chan struct{} // closed once the lines are classified and split
}

type logBatchLine struct {
	start, end int // the line in text, without a '\r' at its end
	off, num   int64
	endRecord  bool // the scan's record ends before this line
	ll         classify.LogLine
}

// Bounds of a pipe: the lines and bytes of a batch, and the batches in
// flight (their memory is about a megabyte each, tokens included).
const (
	logBatchLines = 1024
	logBatchBytes = 128 << 10
	logPipeDepth  = 4
)

// logPipeMin is the least a scan reads for its lines to go through a pipe:
// for less, the goroutines cost more than they save. Tests change it.
var logPipeMin int64 = 1 << 20

// startPipe sends the lines the scan is given through a pipe, until
// stopPipe.
func (s *logScan) startPipe() {
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	p := &logPipe{s: s, work: make(chan *logBatch, logPipeDepth), order: make(chan *logBatch, logPipeDepth),
		free: make(chan *logBatch, logPipeDepth+2), added: make(chan struct{})}
	p.cur = p.batch()
	for range workers {
		p.workers.Add(1)
		go func() {
			defer p.workers.Done()
			for b := range p.work {
				b.split(s.f)
			}
		}()
	}
	go func() {
		defer close(p.added)
		for b := range p.order {
			<-b.ready
			for i := range b.lines {
				l := &b.lines[i]
				if l.endRecord {
					s.haveRecord = false
				}
				s.addClassified(b.text[l.start:l.end], l.ll, l.off, l.num, b.toks, i)
			}
			b.text, b.lines = b.text[:0], b.lines[:0]
			p.free <- b
		}
	}()
	s.pipe = p
}

// stopPipe waits until every line given to the scan has been added, and
// ends the pipe.
func (s *logScan) stopPipe() {
	p := s.pipe
	if p == nil {
		return
	}
	p.send()
	close(p.work)
	close(p.order)
	<-p.added
	p.workers.Wait()
	if p.resetNext {
		s.haveRecord = false
	}
	for range p.made - 1 { // all but the one being filled, which is empty
		logBatches.Put(<-p.free)
	}
	logBatches.Put(p.cur)
	s.pipe = nil
}

// endRecord ends the record that the lines to come could continue: the
// next span of a sample starts.
func (s *logScan) endRecord() {
	if s.pipe != nil {
		s.pipe.resetNext = true
		return
	}
	s.haveRecord = false
}

// batch returns an empty batch: a free one, or a new one while fewer than
// the pipe holds have been made.
func (p *logPipe) batch() *logBatch {
	select {
	case b := <-p.free:
		return b
	default:
	}
	if p.made < logPipeDepth+2 {
		p.made++
		return logBatches.Get().(*logBatch)
	}
	return <-p.free
}

// logBatches keeps the batches of pipes that ended, for the next pipe.
var logBatches = sync.Pool{New: func() any {
	return &logBatch{text: make([]byte, 0, logBatchBytes+logLineCap), lines: make([]logBatchLine, 0, logBatchLines),
		toks: drain.NewBatch(drain.Options{})}
}}

// add queues one line.
func (p *logPipe) add(line []byte, off, num int64) {
	b := p.cur
	start := len(b.text)
	b.text = append(b.text, bytes.TrimSuffix(line, []byte{'\r'})...)
	b.lines = append(b.lines, logBatchLine{start: start, end: len(b.text), off: off, num: num, endRecord: p.resetNext})
	p.resetNext = false
	if len(b.lines) >= logBatchLines || len(b.text) >= logBatchBytes {
		p.send()
	}
}

// send hands the batch being filled to the workers and the adder.
func (p *logPipe) send() {
	b := p.cur
	if len(b.lines) == 0 {
		return
	}
	b.ready = make(chan struct{})
	p.work <- b
	p.order <- b
	p.cur = p.batch()
}

// split classifies and splits the batch's lines.
func (b *logBatch) split(f logFormat) {
	b.toks.Reset()
	for i := range b.lines {
		l := &b.lines[i]
		line := b.text[l.start:l.end]
		l.ll = f.classify(line)
		b.toks.AddStamped(l.ll.Mined(line))
	}
	close(b.ready)
}
