package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestLinesNotJSONRPC: lines on the upstream's output that are not JSON-RPC
// (a log line, JSON that is no message, a 3 MB line) are logged and
// skipped, and the session goes on.
func TestLinesNotJSONRPC(t *testing.T) {
	var log syncBuffer
	cfg := testConfig(t, 500)
	cfg.Logger = newTestLogger(&log)
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()
	resp := c.toolCall("noisy", `{}`)
	if resp.Error != nil || !strings.Contains(string(resp.Result), "done despite the noise") {
		t.Fatalf("noisy: %.300s", resp.line)
	}
	if small := c.toolCall("small", `{}`); small.Error != nil || string(small.Result) != fakeSmall {
		t.Errorf("the session did not go on: %.300s", small.line)
	}
	for _, want := range []string{"Server log: working on it...", "not a JSON-RPC message", "bytes=3145728"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not name the skipped line %q:\n%.2000s", want, log.String())
		}
	}
}

// countingStore counts the bytes put into a store.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	puts  int
	bytes int64
}

func (s *countingStore) Put(ctx context.Context, r io.Reader, meta store.Meta) (store.Info, error) {
	info, err := s.Store.Put(ctx, r, meta)
	s.mu.Lock()
	s.puts++
	s.bytes += info.Size
	s.mu.Unlock()
	return info, err
}

// TestStoredOnce: a large result's text is stored once: as the result the
// view's continuation reads, and not again inside a copy of the whole
// result.
func TestStoredOnce(t *testing.T) {
	cfg := testConfig(t, 500)
	cs := &countingStore{Store: cfg.Guard.Store}
	cfg.Guard.Store = cs
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()
	text := fakeBigText(40000, 60) // 2.4 MB: spooled
	resp := c.toolCall("big", `{"lines":40000}`)
	m := hintRE.FindStringSubmatch(string(resp.Result))
	if m == nil {
		t.Fatalf("no continuation in %.300s", resp.line)
	}
	var h struct{ Ref string }
	json.Unmarshal([]byte(strings.ReplaceAll(m[1], `\"`, `"`)), &h)
	list, err := cs.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, info := range list {
		total += info.Size
	}
	if cs.bytes > int64(len(text))+64<<10 || total > int64(len(text))+64<<10 {
		t.Errorf("a result of %d bytes of text put %d bytes in %d puts; the store holds %d bytes in %d results", len(text), cs.bytes, cs.puts, total, len(list))
	}
	got, err := store.ReadAll(context.Background(), cs, store.Ref(h.Ref))
	if err != nil || string(got) != text {
		t.Errorf("the continuation's ref %s does not hold the text: %v (%d bytes)", h.Ref, err, len(got))
	}
}

// TestStdioConnRead reads a server's output as the proxy's stdio
// connection does: lines that are not JSON-RPC skipped, batches small and
// large taken apart, a large response spooled with its ID and result
// found, and output that ends in the middle of a message reported as such.
func TestStdioConnRead(t *testing.T) {
	big := strings.Repeat("b", 2<<20)
	out := strings.Join([]string{
		"Server starting on stdio...",
		"",
		`[{"jsonrpc":"2.0","method":"notifications/a"},{"jsonrpc":"2.0","method":"notifications/b"}]`,
		`[{"jsonrpc":"2.0","method":"notifications/c","params":{"x":"` + big + `"}}]`,
		`{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":7}`,
		`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"cut`,
	}, "\n")
	r, w := io.Pipe()
	go func() { io.WriteString(w, out); w.Close() }()
	c := newStdioConn(r, nopWriteCloser{io.Discard})
	ctx := context.Background()
	var methods []string
	for range 3 {
		m, big, err := c.readMessage(ctx)
		if err != nil || big != nil {
			t.Fatalf("message %d: %v, %v", len(methods), err, big)
		}
		methods = append(methods, m.(*jsonrpc.Request).Method)
	}
	if strings.Join(methods, " ") != "notifications/a notifications/b notifications/c" {
		t.Errorf("methods: %v", methods)
	}
	_, sp, err := c.readMessage(ctx)
	if err != nil || sp == nil {
		t.Fatalf("the large response was not spooled: %v", err)
	}
	if id, _ := jsonrpc.MakeID(float64(7)); sp.id != id || !sp.hasResult || sp.request {
		t.Errorf("spooled envelope: id %v, result %v, request %v", sp.id, sp.hasResult, sp.request)
	}
	res := make([]byte, sp.result[1]-sp.result[0])
	sp.ReadAt(res, sp.result[0])
	if want := `{"content":[{"type":"text","text":"` + big + `"}]}`; string(res) != want {
		t.Errorf("spooled result: %.100s", res)
	}
	sp.close()
	_, _, err = c.readMessage(ctx)
	if !errors.Is(err, ErrPartialMessage) {
		t.Errorf("output cut in a message: %v", err)
	}
}

// TestSpill takes a result apart: long strings are stored once and
// named by their pointers, media data stays in place, short strings and
// the rest keep their bytes.
func TestSpill(t *testing.T) {
	p, err := New(testConfig(t, 500))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a long line of the text\n", 4000)
	data := strings.Repeat("iVBORw0KGgo", 20000)
	res, _ := json.Marshal(map[string]any{
		"content": []any{
			map[string]any{"type": "image", "data": data, "mimeType": "image/png"},
			map[string]any{"type": "text", "text": long},
			map[string]any{"type": "text", "text": "short"},
		},
		"structuredContent": map[string]any{"text": long, "n": 1.50},
	})
	skel, parts, err := p.spill(context.Background(), bytes.NewReader(res), 0, int64(len(res)), store.Meta{Tool: "t"})
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, sp := range parts {
		ptrs = append(ptrs, sp.ptr)
		if sp.info.Ref != parts[0].info.Ref {
			t.Errorf("the same string stored as two results")
		}
	}
	if strings.Join(ptrs, " ") != "/content/1/text /structuredContent/text" {
		t.Errorf("spilled %v", ptrs)
	}
	got, err := store.ReadAll(context.Background(), p.Guard().Store(), parts[0].info.Ref)
	if err != nil || string(got) != long {
		t.Errorf("the stored string: %v, %d bytes", err, len(got))
	}
	for _, want := range []string{data, `"short"`, `1.5`, "stored as ref " + string(parts[0].info.Ref)} {
		if !strings.Contains(string(skel), want) {
			t.Errorf("the skeleton lost %.40q:\n%.300s", want, skel)
		}
	}
	if len(skel) > len(data)+2000 {
		t.Errorf("the skeleton is %d bytes", len(skel))
	}
}
