package mcpproxy

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A server reached by URL answers each POST with a JSON body or an SSE
// stream, which the SDK's streamable client reads whole, message by
// message, into memory. So that a large tools/call result costs disk, not
// memory, as it does from a server on stdio, the proxy's HTTP client reads
// each POST's answer before the SDK does: a response larger than spoolAt is
// written to a temporary file as it arrives, and what the SDK reads in its
// place is a short response of the same ID whose result names the file by
// a token of the connection's own. The connection hands the file to the
// session as it hands one over from stdio (see spooledMessage), and the
// SDK keeps doing what it does for the protocol: sessions, versions,
// stream resumption, errors. A token the connection did not make is just a
// result, passed on as it came.

// spoolKey is the member of a placeholder result that names its file.
const spoolKey = "crumb-spooled"

// httpSpools holds the messages an HTTP connection spooled, by token.
type httpSpools struct {
	prefix string // random, so that a server cannot name a file
	next   atomic.Int64
	mu     sync.Mutex
	files  map[string]*spooled
}

func newHTTPSpools() *httpSpools {
	b := make([]byte, 12)
	rand.Read(b)
	return &httpSpools{prefix: hex.EncodeToString(b), files: map[string]*spooled{}}
}

// placeholder records sp and returns the response that stands for it.
func (h *httpSpools) placeholder(sp *spooled) []byte {
	token := h.prefix + "-" + strconv.FormatInt(h.next.Add(1), 10)
	h.mu.Lock()
	h.files[token] = sp
	h.mu.Unlock()
	id, _ := json.Marshal(sp.id.Raw())
	return []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"` + spoolKey + `":"` + token + `"}}`)
}

// take returns the spooled message a response stands for, if it is a
// placeholder of this connection, and forgets it.
func (h *httpSpools) take(m jsonrpc.Message) *spooled {
	resp, ok := m.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) > 128 || !bytes.HasPrefix(resp.Result, []byte(`{"`+spoolKey+`":"`+h.prefix)) {
		return nil
	}
	var r map[string]string
	if json.Unmarshal(resp.Result, &r) != nil || len(r) != 1 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sp := h.files[r[spoolKey]]
	delete(h.files, r[spoolKey])
	return sp
}

// closeAll closes the files not handed over.
func (h *httpSpools) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, sp := range h.files {
		sp.close()
		delete(h.files, k)
	}
}

// spoolBody returns the body the SDK reads of a response to a POST: the
// server's, with every message larger than spoolAt that is a response
// with a result replaced by its placeholder.
func (h *httpSpools) spoolBody(resp *http.Response) io.ReadCloser {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		return h.spoolJSON(resp.Body)
	case "text/event-stream":
		return h.spoolSSE(resp.Body)
	}
	return resp.Body
}

// readCloser reads r and closes c.
type readCloser struct {
	io.Reader
	c func() error
}

func (r readCloser) Close() error { return r.c() }

// spoolJSON is spoolBody for a body that is one message.
func (h *httpSpools) spoolJSON(body io.ReadCloser) io.ReadCloser {
	head := make([]byte, spoolAt+1)
	n, err := io.ReadFull(body, head)
	if n <= spoolAt || err != nil {
		var rest io.Reader = body
		if err != nil {
			rest = &errReader{err}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				rest = bytes.NewReader(nil)
			}
		}
		return readCloser{io.MultiReader(bytes.NewReader(head[:n]), rest), body.Close}
	}
	sp, err := spoolAll(head, body)
	body.Close()
	if err != nil {
		return readCloser{&errReader{err}, func() error { return nil }}
	}
	return readCloser{bytes.NewReader(h.standIn(sp)), func() error { return nil }}
}

// standIn returns what the SDK reads for a spooled message: the
// placeholder of a response with a result; the message itself, read back
// into memory, for anything else (rare: a large request or error).
func (h *httpSpools) standIn(sp *spooled) []byte {
	if err := sp.envelope(); err == nil && !sp.request && sp.hasResult {
		return h.placeholder(sp)
	}
	defer sp.close()
	b := make([]byte, sp.size)
	if _, err := sp.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	return bytes.TrimSpace(b)
}

// spoolSSE is spoolBody for an SSE stream: its lines pass as they come,
// but for a long data line, which is a message (MCP's servers write each
// message as one data line).
func (h *httpSpools) spoolSSE(body io.ReadCloser) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(body, 64<<10)
		bw := bufio.NewWriterSize(pw, 64<<10)
		var err error
		for err == nil {
			err = h.sseLine(br, bw)
		}
		if errors.Is(err, io.EOF) {
			err = bw.Flush()
		}
		if err == nil {
			err = io.EOF
		}
		pw.CloseWithError(err)
	}()
	return readCloser{pr, func() error {
		pr.Close()
		return body.Close()
	}}
}

var dataField = []byte("data:")

// sseLine copies one line of an SSE stream, spooling a long data line.
func (h *httpSpools) sseLine(br *bufio.Reader, w *bufio.Writer) error {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case err == nil:
			if _, err := w.Write(line); err != nil {
				return err
			}
			if len(bytes.TrimRight(line, "\r\n")) == 0 {
				return w.Flush() // the end of an event: deliver it now
			}
			return nil
		case !errors.Is(err, bufio.ErrBufferFull):
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
			return err
		}
		if len(line) < spoolAt {
			continue
		}
		if !bytes.HasPrefix(line, dataField) {
			// A long line of another field: passed on as it comes.
			if _, err := w.Write(line); err != nil {
				return err
			}
			line = line[:0]
			for {
				chunk, err := br.ReadSlice('\n')
				if _, werr := w.Write(chunk); werr != nil {
					return werr
				}
				if !errors.Is(err, bufio.ErrBufferFull) {
					return err
				}
			}
		}
		head := bytes.TrimPrefix(line[len(dataField):], []byte(" "))
		sp, err := spoolLine("", br, head)
		if err != nil {
			return err
		}
		w.Write(dataField)
		w.Write(h.standIn(sp))
		_, err = w.Write([]byte("\n"))
		return err
	}
}

// spoolAll writes head and the rest of r to a temporary file, and returns
// it as a spooled message whose envelope is not yet read.
func spoolAll(head []byte, r io.Reader) (*spooled, error) {
	sp, w, err := newSpool("", head)
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(w, r)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		sp.close()
		return nil, fmt.Errorf("mcpproxy: spooling a large message: %w", err)
	}
	sp.size = int64(len(head)) + n
	return sp, nil
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }
