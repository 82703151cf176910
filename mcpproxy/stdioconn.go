package mcpproxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spoolAt is the size over which a message from the upstream server is
// written to a temporary file as it arrives instead of being held in
// memory: a tool result of 100 MB then goes from the file into the store.
const spoolAt = 1 << 20

// ErrPartialMessage means the upstream server's output ended in the middle
// of a message: the server died while it was answering.
var ErrPartialMessage = errors.New("the upstream server's output ended in the middle of a message")

// partialError is an ErrPartialMessage with the bytes that were read.
type partialError struct{ n int64 }

func (e *partialError) Error() string {
	return fmt.Sprintf("%v (%d bytes of it were read)", ErrPartialMessage, e.n)
}

func (e *partialError) Unwrap() error { return ErrPartialMessage }

// stdioConn is the proxy's connection to a peer over a reader and a
// writer — a server's standard output and input, or the client's —
// newline-delimited JSON-RPC, as MCP's stdio transport speaks it. It
// differs from the SDK's in three ways.
//
//   - Only the envelope of a message is decoded, and params and results
//     are passed on as the bytes that came (see decodeMessage), each
//     message written with one write.
//   - A line that is not JSON-RPC (a banner such as "Server starting on
//     stdio...", a stray console.log) is logged and skipped, as the
//     TypeScript and Python SDKs do, and the session goes on.
//   - Read by readMessage (as the upstream is), a message longer than
//     spoolAt is written to a temporary file as it arrives, and a response
//     to a tools/call is projected from there (see spooled), so that its
//     size costs disk, not memory.
type stdioConn struct {
	r io.ReadCloser
	w io.WriteCloser

	wmu  sync.Mutex
	wbuf []byte // the line being written, kept for the next

	log    *slog.Logger
	peer   string // who writes what is read, for the log
	tmpDir string

	start    sync.Once
	spools   bool // long lines go to a spool file (see readMessage)
	incoming chan upMsg
	closed   chan struct{}
	close    sync.Once
	queue    []jsonrpc.Message // the rest of a batch

	// batches holds the batches of calls the peer sent that are not yet
	// answered in full, by the ID of each call: the responses go back as
	// one batch, as JSON-RPC asks.
	bmu     sync.Mutex
	batches map[jsonrpc.ID]*batchReply
}

// batchReply collects the responses to one batch of calls.
type batchReply struct {
	index   map[jsonrpc.ID]int // of the calls not yet answered
	replies []*jsonrpc.Response
}

// upMsg is what the reader passes on: a message, a batch, a spooled
// message or the error that ended the output.
type upMsg struct {
	msg   jsonrpc.Message
	batch []jsonrpc.Message
	big   *spooled
	err   error
}

// keepBuf is the largest write buffer a connection keeps for the next
// message; a larger one goes with the message that needed it.
const keepBuf = 64 << 10

var _ mcp.Connection = (*stdioConn)(nil)

func newStdioConn(r io.ReadCloser, w io.WriteCloser) *stdioConn {
	return &stdioConn{r: r, w: w, log: slog.New(slog.DiscardHandler), peer: "the upstream server",
		incoming: make(chan upMsg), closed: make(chan struct{})}
}

// setLogger sets where skipped lines are reported; it must be called
// before the first Read.
func (c *stdioConn) setLogger(l *slog.Logger) { c.log = l }

// SessionID implements mcp.Connection: stdio has no session ID.
func (c *stdioConn) SessionID() string { return "" }

// Write writes one message as a line, with one write. A response to a call
// of a batch the peer sent is held until the batch is answered in full,
// then the responses are written as one batch.
func (c *stdioConn) Write(ctx context.Context, m jsonrpc.Message) error {
	var batch []*jsonrpc.Response
	if resp, ok := m.(*jsonrpc.Response); ok {
		var held bool
		if batch, held = c.reply(resp); held && batch == nil {
			return nil
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b := c.wbuf[:0]
	var err error
	if batch != nil {
		b = append(b, '[')
		for i, r := range batch {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = encodeLine(b, r); err != nil {
				return err
			}
			b = b[:len(b)-1] // the newline
		}
		b = append(b, "]\n"...)
	} else if b, err = encodeLine(b, m); err != nil {
		return err
	}
	_, err = c.w.Write(b)
	if cap(b) <= keepBuf {
		c.wbuf = b
	} else {
		c.wbuf = nil
	}
	return err
}

// encodeLine appends m and a newline to b.
func encodeLine(b []byte, m jsonrpc.Message) ([]byte, error) {
	if out, ok := appendMessage(b, m); ok {
		return out, nil
	}
	// Params or a result over several lines are compacted, as the SDK's
	// encoder compacts them, and the message written here: the SDK's
	// encoder would leave out an empty method, making a notification a
	// response without an ID, which no peer reads.
	if c, ok := compacted(m); ok {
		if out, ok := appendMessage(b, c); ok {
			return out, nil
		}
	}
	enc, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return b, fmt.Errorf("mcpproxy: encoding a message: %w", err)
	}
	return append(append(b, enc...), '\n'), nil
}

// compacted returns m with its params or result compacted onto one line,
// when they span several; ok is false when they do not, or are not JSON.
func compacted(m jsonrpc.Message) (jsonrpc.Message, bool) {
	compact := func(raw json.RawMessage) (json.RawMessage, bool) {
		if len(raw) == 0 || onOneLine(raw) {
			return nil, false
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) != nil {
			return nil, false
		}
		return buf.Bytes(), true
	}
	switch m := m.(type) {
	case *jsonrpc.Request:
		if p, ok := compact(m.Params); ok {
			return &jsonrpc.Request{ID: m.ID, Method: m.Method, Params: p}, true
		}
	case *jsonrpc.Response:
		if r, ok := compact(m.Result); ok {
			return &jsonrpc.Response{ID: m.ID, Result: r, Error: m.Error}, true
		}
	}
	return nil, false
}

// addBatch records the calls of a batch the peer sent, so that their
// responses go back together.
func (c *stdioConn) addBatch(msgs []jsonrpc.Message) {
	var br *batchReply
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			continue
		}
		if br == nil {
			br = &batchReply{index: map[jsonrpc.ID]int{}}
		}
		if _, dup := br.index[req.ID]; dup {
			continue // answered once, in the first place
		}
		br.index[req.ID] = len(br.replies)
		br.replies = append(br.replies, nil)
	}
	if br == nil {
		return
	}
	c.bmu.Lock()
	defer c.bmu.Unlock()
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*batchReply{}
	}
	for id := range br.index {
		c.batches[id] = br
	}
}

// reply records a response to a call of a batch: held reports that it
// was one, and batch holds all the responses once the last is in.
func (c *stdioConn) reply(resp *jsonrpc.Response) (batch []*jsonrpc.Response, held bool) {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	br := c.batches[resp.ID]
	if br == nil {
		return nil, false
	}
	delete(c.batches, resp.ID)
	br.replies[br.index[resp.ID]] = resp
	delete(br.index, resp.ID)
	if len(br.index) > 0 {
		return nil, true
	}
	return br.replies, true
}

// Close closes the server's input and the output pipe, which ends the
// reader.
func (c *stdioConn) Close() error {
	var err error
	c.close.Do(func() {
		close(c.closed)
		err = c.w.Close()
		if rerr := c.r.Close(); err == nil {
			err = rerr
		}
	})
	return err
}

// Read returns the next message, read into memory however long it is.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, big, err := c.read(ctx, false)
	if big != nil {
		return big.message()
	}
	return m, err
}

// readMessage returns the next message, or one longer than spoolAt as it
// is in a spool file. The first read of a connection decides: a
// connection first read by Read holds every message in memory.
func (c *stdioConn) readMessage(ctx context.Context) (jsonrpc.Message, *spooled, error) {
	return c.read(ctx, true)
}

func (c *stdioConn) read(ctx context.Context, spools bool) (jsonrpc.Message, *spooled, error) {
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil, nil
	}
	c.start.Do(func() {
		c.spools = spools
		go c.readLoop()
	})
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-c.closed:
		return nil, nil, io.EOF
	case u, ok := <-c.incoming:
		if !ok {
			return nil, nil, io.EOF
		}
		if u.err != nil {
			return nil, nil, u.err
		}
		if u.big != nil {
			return nil, u.big, nil
		}
		if u.batch != nil {
			c.queue = u.batch[1:]
			return u.batch[0], nil, nil
		}
		return u.msg, nil, nil
	}
}

// readLoop reads messages until the output ends.
func (c *stdioConn) readLoop() {
	defer close(c.incoming)
	br := bufio.NewReaderSize(c.r, 64<<10)
	for {
		u := c.next(br)
		if u.msg == nil && u.batch == nil && u.big == nil && u.err == nil {
			continue // a line skipped
		}
		if u.batch != nil {
			c.addBatch(u.batch)
		}
		select {
		case c.incoming <- u:
		case <-c.closed:
			if u.big != nil {
				u.big.close()
			}
			return
		}
		if u.err != nil {
			return
		}
	}
}

// next reads one line: a message, a spooled message, an error, or nothing
// for a line that was skipped.
func (c *stdioConn) next(br *bufio.Reader) upMsg {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			if c.spools && len(line) >= spoolAt {
				return c.spool(br, line)
			}
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if errors.Is(err, io.EOF) {
				err = &partialError{n: int64(len(line))}
			}
			return upMsg{err: err}
		}
		return upMsg{err: err}
	}
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return upMsg{}
	}
	return c.decoded(line)
}

// decoded decodes a line; one that is not JSON-RPC is logged and skipped.
func (c *stdioConn) decoded(line []byte) upMsg {
	if line[0] == '[' {
		msgs, err := decodeBatch(line)
		if err != nil {
			c.skipped(line, int64(len(line)), err)
			return upMsg{}
		}
		return upMsg{batch: msgs}
	}
	m, err := decodeMessage(line)
	if err != nil {
		c.skipped(line, int64(len(line)), err)
		return upMsg{}
	}
	return upMsg{msg: m}
}

// skipped logs a line that is not JSON-RPC.
func (c *stdioConn) skipped(line []byte, n int64, err error) {
	shown := line
	if len(shown) > 200 {
		shown = append(bytes.Clone(shown[:200]), "…"...)
	}
	c.log.Warn("crumb mcp: "+c.peer+" wrote a line that is not JSON-RPC; skipping it",
		"line", string(bytes.ToValidUTF8(shown, []byte("\uFFFD"))), "bytes", n, "err", err)
}

// spool writes a long line to a temporary file as it arrives, and reads
// the envelope of the message in it.
func (c *stdioConn) spool(br *bufio.Reader, head []byte) upMsg {
	first := bytes.TrimLeft(head, " \t\r")
	if len(first) > 0 && first[0] == '[' {
		// A batch: rare, and read whole.
		rest, err := br.ReadBytes('\n')
		line := append(head, rest...)
		if errors.Is(err, io.EOF) {
			return upMsg{err: &partialError{n: int64(len(line))}}
		} else if err != nil {
			return upMsg{err: err}
		}
		return c.decoded(bytes.TrimSpace(line))
	}
	if len(first) > 0 && first[0] != '{' {
		// Not a JSON-RPC object: skip the rest of the line unread.
		n := int64(len(head))
		for {
			chunk, err := br.ReadSlice('\n')
			n += int64(len(chunk))
			if err == nil {
				break
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				return upMsg{err: err}
			}
		}
		c.skipped(head[:min(len(head), 200)], n-1, errors.New("it does not begin with {"))
		return upMsg{}
	}
	sp, err := spoolLine(c.tmpDir, br, head)
	if err != nil {
		return upMsg{err: err}
	}
	if sp.inMem {
		c.log.Warn("crumb mcp: could not write a large message to a temporary file; it is held in memory", "bytes", sp.size, "err", sp.spoolErr)
	}
	if err := sp.envelope(); err != nil {
		sp.close()
		c.skipped(head[:min(len(head), 200)], sp.size, err)
		return upMsg{}
	}
	return upMsg{big: sp}
}

// spoolLine writes head and the rest of its line, up to and including the
// newline, from br to a temporary file in dir, and returns the file as a
// spooled message whose envelope is not yet read. A line cut short by the
// end of br is a partialError.
func spoolLine(dir string, br *bufio.Reader, head []byte) (*spooled, error) {
	sp, w, err := newSpool(dir, head)
	if err != nil {
		return nil, err
	}
	n := int64(len(head))
	for {
		chunk, rerr := br.ReadSlice('\n')
		if _, err := w.Write(chunk); err != nil {
			sp.close()
			return nil, fmt.Errorf("mcpproxy: spooling a large message: %w", err)
		}
		n += int64(len(chunk))
		if rerr == nil {
			break
		}
		if !errors.Is(rerr, bufio.ErrBufferFull) {
			sp.close()
			if errors.Is(rerr, io.EOF) {
				rerr = &partialError{n: n}
			}
			return nil, rerr
		}
	}
	if err := w.Flush(); err != nil {
		sp.close()
		return nil, fmt.Errorf("mcpproxy: spooling a large message: %w", err)
	}
	sp.size = n
	return sp, nil
}

// newSpool creates the temporary file of a spooled message in dir, and
// returns it with a writer that has head in it.
//
// A spool that cannot be written (the temporary directory's disk is full)
// goes on in memory: the message costs memory then, but it is not lost,
// and the session goes on.
func newSpool(dir string, head []byte) (*spooled, *bufio.Writer, error) {
	sp := &spooled{}
	if f, err := os.CreateTemp(dir, "crumb-mcp-*.json"); err == nil {
		// Unlinked at once where the system allows: the file goes with
		// the last handle.
		sp.f, sp.unlinked = f, os.Remove(f.Name()) == nil
	} else {
		sp.inMem, sp.spoolErr = true, err
	}
	w := bufio.NewWriterSize(spoolSink{sp}, 256<<10)
	w.Write(head)
	return sp, w, nil
}

// spoolSink writes a spool: to its file, and to memory from the first
// write that fails, with what the file held.
type spoolSink struct{ sp *spooled }

func (w spoolSink) Write(p []byte) (int, error) {
	sp, n := w.sp, len(p)
	if !sp.inMem {
		k, err := sp.f.Write(p)
		sp.written += int64(k)
		if err == nil {
			return k, nil
		}
		held := make([]byte, sp.written, sp.written+int64(len(p)-k))
		if _, rerr := sp.f.ReadAt(held, 0); rerr != nil && !errors.Is(rerr, io.EOF) {
			return k, err
		}
		sp.inMem, sp.spoolErr, sp.mem = true, err, held
		sp.f.Close()
		if !sp.unlinked {
			os.Remove(sp.f.Name())
		}
		p = p[k:]
	}
	sp.mem = append(sp.mem, p...)
	return n, nil
}

// spooled is a message held in a temporary file.
type spooled struct {
	f        *os.File
	unlinked bool
	size     int64
	written  int64 // to f
	// inMem reports that the spool went on in memory, mem, because
	// spoolErr kept it from its file.
	inMem    bool
	mem      []byte
	spoolErr error

	// Of the envelope: the ID, whether the message is a request, and
	// where its result is in the file.
	id         jsonrpc.ID
	request    bool
	result     [2]int64
	hasResult  bool
	closeOnce  sync.Once
	decodeOnce sync.Once
}

// envelope finds the members of the message.
func (sp *spooled) envelope() error {
	s := jsonscan.New(sp, sp.size)
	s.Single()
	defer s.Close()
	t, err := s.Next()
	if err != nil {
		return err
	}
	if t.Kind != jsonscan.BeginObject {
		return errors.New("not a JSON-RPC object")
	}
	for {
		k, err := s.Next()
		if err != nil {
			return err
		}
		if k.Kind == jsonscan.EndObject {
			break
		}
		raw, err := s.Bytes(k.Start, k.End, 64)
		if err != nil {
			return err
		}
		key, _ := jsonscan.KeyText(raw, false)
		v, err := s.Next()
		if err != nil {
			return err
		}
		end := v.End
		if v.Kind == jsonscan.BeginObject || v.Kind == jsonscan.BeginArray {
			if end, err = s.Skip(); err != nil {
				return err
			}
		}
		switch key {
		case "id":
			b, err := s.Bytes(v.Start, end, 1<<10)
			if err != nil {
				return err
			}
			var x any
			if err := json.Unmarshal(b, &x); err != nil {
				return err
			}
			if sp.id, err = jsonrpc.MakeID(x); err != nil {
				return err
			}
		case "method":
			sp.request = true
		case "result":
			sp.result, sp.hasResult = [2]int64{v.Start, end}, true
		}
	}
	if _, err := s.Next(); !errors.Is(err, io.EOF) {
		return errors.New("more than one JSON value on a line")
	}
	return nil
}

// ReadAt reads the file.
func (sp *spooled) ReadAt(p []byte, off int64) (int, error) {
	if sp.inMem {
		return bytes.NewReader(sp.mem).ReadAt(p, off)
	}
	return sp.f.ReadAt(p, off)
}

// message reads the whole message into memory and decodes it, for a
// message the proxy passes on as it is; it closes the file.
func (sp *spooled) message() (jsonrpc.Message, error) {
	defer sp.close()
	b := make([]byte, sp.size)
	if _, err := sp.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("mcpproxy: reading a spooled message: %w", err)
	}
	return decodeMessage(bytes.TrimSpace(b))
}

func (sp *spooled) close() {
	sp.closeOnce.Do(func() {
		sp.mem = nil
		if sp.f == nil || sp.inMem {
			return // closed when the spool went on in memory
		}
		sp.f.Close()
		if !sp.unlinked {
			os.Remove(sp.f.Name())
		}
	})
}
