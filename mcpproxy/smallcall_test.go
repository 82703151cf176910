package mcpproxy

import (
	"io"
	"strings"
	"testing"
)

// TestSmallResultAsItCame: a result under the threshold reaches the
// client as the bytes the server wrote, white space and escapes included
// (invariant 1), and nothing of it is stored: no view omits anything of
// it, so there is nothing to read back.
func TestSmallResultAsItCame(t *testing.T) {
	cfg := testConfig(t, 500)
	cs := &countingStore{Store: cfg.Guard.Store}
	cfg.Guard.Store = cs
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()
	for _, tc := range []struct{ tool, want string }{{"spaced", fakeSpaced}, {"small", fakeSmall}} {
		resp := c.toolCall(tc.tool, `{}`)
		if string(resp.Result) != tc.want {
			t.Errorf("%s: the result changed on the way:\n got %s\nwant %s", tc.tool, resp.Result, tc.want)
		}
	}
	// Before the tools were listed, and after.
	c.call("tools/list", `{}`)
	if resp := c.toolCall("spaced", `{}`); string(resp.Result) != fakeSpaced {
		t.Errorf("after tools/list: the result changed on the way:\n got %s\nwant %s", resp.Result, fakeSpaced)
	}
	if cs.puts != 0 {
		t.Errorf("small results were stored: %d puts, %d bytes", cs.puts, cs.bytes)
	}
}

// TestCallNameAsTheServerReadsIt: the proxy takes a call's tool name from
// the key "name" alone, as MCP servers read it (case-sensitively), so a
// call whose params also hold a "Name" of one of crumb's tools is the
// server's to answer, not crumb's.
func TestCallNameAsTheServerReadsIt(t *testing.T) {
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", io.Discard))
	c.initialize()
	// The fake reads params case-insensitively (encoding/json), so it
	// answers as its own crumb_read: the call reached it.
	resp := c.call("tools/call", `{"name":"small","Name":"crumb_read","arguments":{}}`)
	if !strings.Contains(string(resp.Result), "upstream crumb_read") {
		t.Errorf("the call did not reach the server: %.300s", resp.line)
	}
}

// TestClientBatch: a batch of calls from the client is answered with one
// batch, whether crumb answers a call itself or the server does.
func TestClientBatch(t *testing.T) {
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", io.Discard))
	c.initialize()
	c.send(`[{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"small","arguments":{}}},` +
		`{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"crumb_read","arguments":{"ref":"nonsense"}}},` +
		`{"jsonrpc":"2.0","id":"b3","method":"ping"}]`)
	m, ok := <-c.in
	if !ok {
		t.Fatal("the proxy closed the connection")
	}
	line := string(m.line)
	if !strings.HasPrefix(line, `[{"jsonrpc":"2.0","id":"b1","result":`+fakeSmall+`},{"jsonrpc":"2.0","id":"b2","result":{"content":[{"type":"text","text":"crumb_read: `) ||
		!strings.HasSuffix(line, `,{"jsonrpc":"2.0","id":"b3","result":{}}]`+"\n") {
		t.Errorf("the batch's answer: %.600s", line)
	}
}
