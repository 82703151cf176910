package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// wireCases are lines a peer may write: messages of every kind, and lines
// the SDK's codec rejects.
var wireCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"small","arguments":{}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"ping"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi <b>&amp; \u00e9"}]}}`,
	`{"result":{"content":[]},"id":3,"jsonrpc":"2.0"}`,
	`{ "jsonrpc" : "2.0" , "id" : 4 , "result" : { "content" : [ ] } }`,
	`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found","data":{"x":1}}}`,
	`{"jsonrpc":"2.0","id":6,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":7.0,"result":{}}`,
	`{"jsonrpc":"2.0","id":7.9,"result":{}}`,
	`{"jsonrpc":"2.0","id":-12e2,"result":{}}`,
	`{"jsonrpc":"2.0","id":null,"method":"notifications/x"}`,
	`{"jsonrpc":"2.0","id":"\u0041\n","method":"m\u00e9thod"}`,
	`{"jsonrpc":"2.0","\u0069d":8,"method":"ping","x-extra":[1,{"a":null}]}`,
	`{"jsonrpc":"2.0","id":9,"id":10,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":11,"method":"","params":null}`,
	`{"jsonrpc":"2.0","id":12,"method":"ping","params":[1,2.5e-3,true,false,null,"s"]}`,
	`{"jsonrpc":"2.0","id":13,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":14,"result":null}`,
	// Error keys are matched case-sensitively, as the SDK matches them.
	`{"jsonrpc":"2.0","id":0,"error":{"Code":1}}`,
	`{"jsonrpc":"2.0","id":15,"error":{"code":2,"MESSAGE":"m","Data":{"b":1},"data":{"a":1}}}`,
	`{"jsonrpc":"2.0","id":16,"error":{"code":2,"data":{"a":1},"Data":{"b":1}}}`,
	`{"jsonrpc":"2.0","id":17,"error":{"code":3,"message":"first"},"error":{"data":[1]}}`,
	`{"jsonrpc":"2.0","id":18,"error":{"code":3,"message":"first"},"error":null}`,
	`{"jsonrpc":"2.0","id":19,"error":null,"error":{"code":4}}`,
	`{"jsonrpc":"2.0","id":20,"error":{"code":4,"code":5,"message":"a","message":"b"}}`,
	`{"jsonrpc":"2.0","id":21,"error":{"code":1e2}}`,
	`{"jsonrpc":"2.0","id":22,"error":{"code":1.0}}`,
	`{"jsonrpc":"2.0","id":23,"error":{"code":-0}}`,
	`{"jsonrpc":"2.0","id":24,"error":{"code":null,"message":null,"data":null}}`,
	`{"jsonrpc":"2.0","id":25,"error":{"c\u006fde":6}}`,
	`{"jsonrpc":"2.0","id":26,"error":{"code":99999999999999999999}}`,
	`{"jsonrpc":"2.0","id":27,"error":{"code":7,"message":"\ud800 x"}}`,
	`{"jsonrpc":"2.0","id":28,"error":[]}`,
	`{"jsonrpc":"2.0","id":29,"error":"x"}`,
	`{"jsonrpc":"2.0","id":30,"method":"ping","error":"x"}`,
	`{"jsonrpc":"2.0","id":31,"method":"ping","error":{"Code":1}}`,
	`{"jsonrpc":"2.0","jsonrpc":null,"id":32,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":33,"method":null}`,
	`{"jsonrpc":"2.0","id":34,"method":"ping","method":null}`,
	`{"jsonrpc":"2.0","id":35,"id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":36,"params":{},"params":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":37,"result":{},"result":null}`,
	`{"jsonrpc":"2.0","id":38,"error":{"code":1,"data":null}}`,
	`{"jsonrpc":"2.0","id":39,"error":{"code":1,"data":{"a":1},"data":null}}`,
	`{"jsonrpc":"2.0","id":40,"error":{"code":true}}`,
	`{"jsonrpc":"2.0","id":41,"error":{"message":5}}`,
	// Rejected.
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"id":1,"method":"ping"}`,
	`{"jsonrpc":2,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":"ping"} x`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":7}`,
	`{"jsonrpc":"2.0","result":{}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":01}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":"\x"}}`,
	`{"jsonrpc":"2.0","id":1,"result":["a",]}`,
	`{"jsonrpc":"2.0","id":1,"result":"tab	inside"}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
	`[1,2]`,
	`"2.0"`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"`,
	``,
}

// sameMessage reports how two decoded messages differ, or "".
func sameMessage(got, want jsonrpc.Message) string {
	switch w := want.(type) {
	case *jsonrpc.Request:
		g, ok := got.(*jsonrpc.Request)
		switch {
		case !ok:
			return "not a request"
		case g.ID != w.ID || g.Method != w.Method:
			return "ID or method differs"
		case !sameRaw(g.Params, w.Params):
			return "params differ"
		}
	case *jsonrpc.Response:
		g, ok := got.(*jsonrpc.Response)
		switch {
		case !ok:
			return "not a response"
		case g.ID != w.ID:
			return "ID differs"
		case !sameRaw(g.Result, w.Result):
			return "result differs"
		case (g.Error == nil) != (w.Error == nil):
			return "error differs"
		case g.Error != nil:
			ge, we := g.Error.(*jsonrpc.Error), w.Error.(*jsonrpc.Error)
			if ge.Code != we.Code || ge.Message != we.Message || !sameRaw(ge.Data, we.Data) {
				return "error differs"
			}
		}
	}
	return ""
}

// sameRaw compares raw JSON as the bytes that came, ignoring only white
// space between tokens.
func sameRaw(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && ca.String() == cb.String()
}

// checkLikeSDK checks that decodeMessage takes line as the SDK's codec
// does, and that a message it writes reads back the same. A line that is
// not one JSON value is rejected, which the SDK's DecodeMessage does not
// always do ("{...} x" reads as the object).
func checkLikeSDK(t *testing.T, line []byte) {
	got, gerr := decodeMessage(line)
	if !json.Valid(line) {
		if gerr == nil {
			t.Fatalf("%.300q is not JSON, and decodes as %+v", line, got)
		}
		return
	}
	want, werr := jsonrpc.DecodeMessage(line)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%.300q: the SDK says %v, the proxy %v", line, werr, gerr)
	}
	if werr != nil {
		return
	}
	if d := sameMessage(got, want); d != "" {
		t.Fatalf("%.300q: %s: got %+v, want %+v", line, d, got, want)
	}
	// Params and results are the bytes that came.
	var raw []byte
	switch m := got.(type) {
	case *jsonrpc.Request:
		raw = m.Params
	case *jsonrpc.Response:
		raw = m.Result
	}
	if len(raw) > 0 && !bytes.Contains(line, raw) {
		t.Fatalf("%.300q: %q is not as it came", line, raw)
	}
	// Written by either codec, the message reads back the same.
	enc, err := encodeLine(nil, got)
	if err != nil {
		t.Fatalf("%.300q: encoding: %v", line, err)
	}
	if enc[len(enc)-1] != '\n' || bytes.IndexByte(enc[:len(enc)-1], '\n') >= 0 {
		t.Fatalf("%.300q: encoded as %q, not one line", line, enc)
	}
	back, err := jsonrpc.DecodeMessage(enc[:len(enc)-1])
	if err != nil {
		t.Fatalf("%.300q: encoded as %q, which the SDK cannot read: %v", line, enc, err)
	}
	if d := sameMessage(back, want); d != "" {
		t.Fatalf("%.300q: encoded as %q, which reads back with a different %s", line, enc, d)
	}
}

// intID and strID make IDs as the SDK's MakeID does.
func intID(n int64) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(float64(n))
	return id
}

func strID(s string) jsonrpc.ID {
	id, _ := jsonrpc.MakeID(s)
	return id
}

// TestDecodeMessageLikeSDK: the proxy's envelope decoder accepts what the
// SDK's does and rejects what it rejects, with the same messages.
func TestDecodeMessageLikeSDK(t *testing.T) {
	for i, line := range wireCases {
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkLikeSDK(t, []byte(line)) })
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, line := range wireCases {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkLikeSDK(t, line)
	})
}

// TestAppendMessageLikeSDK: where the proxy writes a message itself, it
// writes the bytes the SDK's encoder writes for it.
func TestAppendMessageLikeSDK(t *testing.T) {
	msgs := []jsonrpc.Message{
		&jsonrpc.Request{ID: intID(1), Method: "tools/call", Params: json.RawMessage(`{"name":"x","arguments":{"a":"<&>"}}`)},
		&jsonrpc.Request{ID: strID("crumb-tools-list-1"), Method: "tools/list", Params: json.RawMessage(`{}`)},
		&jsonrpc.Request{Method: "notifications/initialized"},
		&jsonrpc.Request{ID: intID(-3), Method: "ping", Params: json.RawMessage(`null`)},
		&jsonrpc.Response{ID: intID(1 << 40), Result: json.RawMessage(`{"content":[{"type":"text","text":"\u00e9 <b>"}]}`)},
		&jsonrpc.Response{ID: strID("x"), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: intID(2)},
	}
	for _, m := range msgs {
		got, ok := appendMessage(nil, m)
		if !ok {
			t.Errorf("%+v: not written by the proxy", m)
			continue
		}
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want)+"\n" {
			t.Errorf("wrote %s, the SDK writes %s", got, want)
		}
	}
	// What needs the SDK's encoder goes to it.
	for _, m := range []jsonrpc.Message{
		&jsonrpc.Response{ID: intID(1), Error: &jsonrpc.Error{Code: 1, Message: "m"}},
		&jsonrpc.Request{ID: strID("quote\"d"), Method: "ping"},
		&jsonrpc.Request{ID: intID(1), Method: "ping", Params: json.RawMessage("{\n}")},
		&jsonrpc.Response{ID: intID(1), Result: json.RawMessage("{\r\n\"a\": 1}")},
	} {
		if _, ok := appendMessage(nil, m); ok {
			t.Errorf("%+v: written by the proxy", m)
		}
		got, err := encodeLine(nil, m)
		want, _ := jsonrpc.EncodeMessage(m)
		if err != nil || string(got) != string(want)+"\n" {
			t.Errorf("encodeLine = %q, %v; want %s", got, err, want)
		}
	}
}

// TestWireAllocs: a small response or call is read with three allocations
// (the message, and the two values jsonrpc.MakeID boxes for a numeric ID) and
// written with none: the SDK's codec takes dozens, more than the
// upstream's work on a small call.
func TestWireAllocs(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1234,"result":{"content":[{"type":"text","text":"line 000001: the quick brown fox\nline 000002: jumps\n"}],"x-result-extra":"kept"}}`)
	var m jsonrpc.Message
	if n := testing.AllocsPerRun(100, func() {
		var err error
		if m, err = decodeMessage(line); err != nil {
			t.Fatal(err)
		}
	}); n > 3 {
		t.Errorf("decoding a small response takes %.0f allocations", n)
	}
	req := []byte(`{"jsonrpc":"2.0","id":1234,"method":"tools/call","params":{"name":"big","arguments":{"lines":3}}}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := decodeMessage(req); err != nil {
			t.Fatal(err)
		}
	}); n > 3 {
		t.Errorf("decoding a tools/call takes %.0f allocations", n)
	}
	buf := make([]byte, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		var err error
		if buf, err = encodeLine(buf[:0], m); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("encoding a small response takes %.0f allocations", n)
	}
	if string(buf) != string(line)+"\n" {
		t.Errorf("the response is not written as it came:\n got %s\nwant %s", buf, line)
	}
}

// TestBatchReplies: the responses to a batch of calls go back as one
// batch, in the order of the calls, once the last is in; other responses
// go at once.
func TestBatchReplies(t *testing.T) {
	in := `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"notifications/n"},{"jsonrpc":"2.0","id":"two","method":"b"}]` + "\n"
	var out bytes.Buffer
	c := newStdioConn(io.NopCloser(strings.NewReader(in)), nopWriteCloser{&out})
	ctx := context.Background()
	for range 3 {
		if _, err := c.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write := func(m jsonrpc.Message) {
		t.Helper()
		if err := c.Write(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	write(&jsonrpc.Response{ID: strID("two"), Result: json.RawMessage(`{"b":2}`)})
	write(&jsonrpc.Response{ID: intID(9), Result: json.RawMessage(`{}`)})
	if got, want := out.String(), `{"jsonrpc":"2.0","id":9,"result":{}}`+"\n"; got != want {
		t.Errorf("before the batch is answered, wrote %q; want %q", got, want)
	}
	out.Reset()
	write(&jsonrpc.Response{ID: intID(1), Error: &jsonrpc.Error{Code: -32601, Message: "no a"}})
	want := `[{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no a"}},{"jsonrpc":"2.0","id":"two","result":{"b":2}}]` + "\n"
	if out.String() != want {
		t.Errorf("the batch's responses:\n got %s\nwant %s", out.String(), want)
	}
	if len(c.batches) != 0 {
		t.Errorf("%d calls of answered batches are still held", len(c.batches))
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"crumb_read": true, "a.b-c_9": true, "": false, strings.Repeat("a", 128): true,
		strings.Repeat("a", 129): false, "has space": false, "ünï": false, "a/b": false,
	} {
		if got := validToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}
