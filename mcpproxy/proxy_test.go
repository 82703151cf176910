package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// TestFaithfulPassThrough checks that what crumb does not project reaches
// the client exactly: the initialize result with unknown fields, every
// upstream tool with its schema ($schema, title, anyOf, $defs, unknown keys)
// byte for byte, a small result with an unknown block type and unknown
// fields, and an error with data.
func TestFaithfulPassThrough(t *testing.T) {
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", io.Discard))

	init := c.initialize()
	if string(init.Result) != fakeInit {
		t.Errorf("initialize result changed:\n got %s\nwant %s", init.Result, fakeInit)
	}

	list := c.call("tools/list", `{}`)
	obj, err := jsonobj.Parse(list.Result)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := obj.Get("x-list-extra"); string(got) != "true" {
		t.Errorf("tools/list lost its unknown field: %s", list.Result)
	}
	tools, _ := obj.Get("tools")
	prefix := strings.TrimSuffix(fakeTools, "]")
	if !strings.HasPrefix(string(tools), prefix+",") {
		t.Errorf("upstream tools changed:\n got %.600s\nwant prefix %.600s", tools, prefix)
	}
	var all []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(tools, &all); err != nil {
		t.Fatal(err)
	}
	var own []string
	for _, tool := range all[len(all)-3:] {
		own = append(own, tool.Name)
		if tool.Description == "" || !json.Valid(tool.InputSchema) {
			t.Errorf("crumb tool %s lacks a description or a schema", tool.Name)
		}
	}
	if strings.Join(own, ",") != "crumb_read,crumb_search,crumb_query" {
		t.Errorf("crumb's tools = %v", own)
	}

	small := c.toolCall("small", `{"mode":"a"}`)
	if string(small.Result) != fakeSmall {
		t.Errorf("small result changed:\n got %s\nwant %s", small.Result, fakeSmall)
	}

	bad := c.call("no/such/method", `{}`)
	if bad.Error == nil || bad.Error.Code != -32601 || string(bad.Error.Data) != `{"x":1}` {
		t.Errorf("error did not pass through: %s", bad.line)
	}
	if ping := c.call("ping", `{}`); string(ping.Result) != "{}" {
		t.Errorf("ping = %s", ping.line)
	}

	// A second page of tools does not repeat crumb's.
	page2 := c.call("tools/list", `{"cursor":"next"}`)
	if bytes.Contains(page2.Result, []byte("crumb_read")) {
		t.Errorf("crumb's tools added to a later page: %.200s", page2.Result)
	}
}

// TestLargeResult checks that a large result costs the model at most the
// budget, that its continuations are calls of crumb_read, and that reading
// the saved result back gives it exactly, in pages of the page budget
// (2,000 tokens), not of the view's: as many calls as such pages take.
func TestLargeResult(t *testing.T) {
	const budget = 800
	c, p := startRaw(t, testConfig(t, budget), fakeCommand("", io.Discard))
	c.initialize()
	c.call("tools/list", `{}`)

	resp := c.toolCall("big", `{"lines":20000,"width":60}`)
	if resp.Error != nil {
		t.Fatalf("big: %s", resp.line)
	}
	want := fakeBigText(20000, 60)
	if n := tokens.O200k().Count(string(resp.Result)); n > budget {
		t.Errorf("view is %d tokens, over the budget of %d", n, budget)
	}
	r := decodeResult(t, resp.Result)
	var view strings.Builder
	for _, b := range r.Content {
		view.WriteString(b.Text)
	}
	m := hintRE.FindStringSubmatch(view.String())
	if m == nil {
		t.Fatalf("view has no crumb_read continuation:\n%s", view.String())
	}
	var hint struct {
		Ref string `json:"ref"`
	}
	if err := json.Unmarshal([]byte(m[1]), &hint); err != nil {
		t.Fatalf("continuation %s: %v", m[1], err)
	}
	calls, biggest := 0, 0
	call := func(name, args string) (string, bool) {
		res := decodeResult(t, c.toolCall(name, args).Result)
		if len(res.Content) != 1 {
			t.Fatalf("%s gave %d blocks", name, len(res.Content))
		}
		calls++
		biggest = max(biggest, tokens.O200k().Count(res.Content[0].Text))
		return res.Content[0].Text, res.IsError
	}
	got := readAll(t, call, hint.Ref)
	if got != want && !jsonHasText(got, want) {
		t.Errorf("reading %s back gave %d bytes that are neither the text (%d bytes) nor the result holding it", hint.Ref, len(got), len(want))
	}

	// The pages are those of the page budget: count them from the store.
	ctx := context.Background()
	st := p.Guard().Store()
	opts := recall.Options{Budget: crumb.DefaultPageBudget, Hint: p.hint, Line: crumb.LineRenderer(ctx, st)}
	pages := 0
	for req := (recall.Request{Ref: store.Ref(hint.Ref), Lines: &recall.Span{From: 1}}); ; pages++ {
		pg, err := recall.Read(ctx, st, req, opts)
		if err != nil {
			t.Fatal(err)
		}
		if pg.Next == nil {
			pages++
			break
		}
		req = *pg.Next
	}
	if calls != pages {
		t.Errorf("reading %s back took %d calls of crumb_read; pages of %d tokens take %d", hint.Ref, calls, crumb.DefaultPageBudget, pages)
	}
	if biggest > crumb.DefaultPageBudget {
		t.Errorf("a crumb_read page is %d tokens, over the page budget of %d", biggest, crumb.DefaultPageBudget)
	}
	if pages < 2 {
		t.Fatalf("the result reads in %d page; the test needs several", pages)
	}
	// Search finds a line in the saved result.
	found, isErr := call("crumb_search", `{"ref":"`+hint.Ref+`","pattern":"line 012345"}`)
	if isErr || !strings.Contains(found, "line 012345") {
		t.Errorf("crumb_search: %s", found)
	}
	if p.Guard().Store() == nil {
		t.Fatal("no store")
	}
}

// jsonHasText reports whether doc is a CallToolResult whose text is want.
func jsonHasText(doc, want string) bool {
	var r result
	if json.Unmarshal([]byte(doc), &r) != nil {
		return false
	}
	for _, b := range r.Content {
		if b.Text == want {
			return true
		}
	}
	return false
}

// TestOwnToolErrors checks that bad reads are tool errors that say what to
// do, not protocol errors.
func TestOwnToolErrors(t *testing.T) {
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", io.Discard))
	c.initialize()
	tests := []struct {
		name, tool, args, want string
	}{
		{"missing ref", "crumb_read", `{"ref":"0123456789abcdef"}`, "expired or was evicted"},
		{"malformed ref", "crumb_read", `{"ref":"../../etc/passwd"}`, "16 hex digits"},
		{"no ref", "crumb_read", `{}`, `"ref" is required`},
		{"unknown argument", "crumb_read", `{"ref":"0123456789abcdef","page":2}`, "unknown field"},
		{"bad range", "crumb_read", `{"ref":"0123456789abcdef","lines":"x:y"}`, "want A:B"},
		{"bad pattern", "crumb_search", `{"ref":"0123456789abcdef","pattern":"("}`, "not a valid RE2"},
		{"query without selector", "crumb_query", `{"ref":"0123456789abcdef"}`, `give "jq"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := c.toolCall(tt.tool, tt.args)
			if resp.Error != nil {
				t.Fatalf("protocol error: %s", resp.line)
			}
			r := decodeResult(t, resp.Result)
			if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, tt.want) {
				t.Errorf("got %s, want an error containing %q", resp.Result, tt.want)
			}
		})
	}
	// Out of range, on a result that exists.
	resp := c.toolCall("big", `{"lines":3000}`)
	m := hintRE.FindStringSubmatch(string(resp.Result))
	if m == nil {
		t.Fatalf("no continuation in %.300s", resp.Result)
	}
	var h struct{ Ref string }
	json.Unmarshal([]byte(strings.ReplaceAll(m[1], `\"`, `"`)), &h)
	r := decodeResult(t, c.toolCall("crumb_read", `{"ref":"`+h.Ref+`","lines":"99999999:"}`).Result)
	if !r.IsError || !strings.Contains(r.Content[0].Text, "past the end") {
		t.Errorf("out of range read: %+v", r)
	}
}

// TestUpstreamCrash checks that an upstream that exits fails the calls in
// flight and every later call with a clear error, and that crumb's own tools
// keep answering from the store.
func TestUpstreamCrash(t *testing.T) {
	var stderr syncBuffer
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", &stderr))
	c.initialize()
	big := c.toolCall("big", `{"lines":3000}`)
	m := hintRE.FindStringSubmatch(string(big.Result))
	if m == nil {
		t.Fatalf("no continuation in %.300s", big.Result)
	}
	var h struct{ Ref string }
	json.Unmarshal([]byte(strings.ReplaceAll(m[1], `\"`, `"`)), &h)

	c.send(`{"jsonrpc":"2.0","id":"hang-1","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	crash := c.toolCall("crash", `{}`)
	hang := c.await(`"hang-1"`)
	for _, resp := range []*wireMsg{crash, hang} {
		if resp.Error == nil || resp.Error.Code != CodeUpstream ||
			!strings.Contains(resp.Error.Message, "upstream server exited: exit status 3") ||
			!strings.Contains(resp.Error.Message, "crashing on purpose") {
			t.Errorf("call in flight got %s", resp.line)
		}
	}
	later := c.call("tools/list", `{}`)
	if later.Error == nil || !strings.Contains(later.Error.Message, "exit status 3") {
		t.Errorf("later call got %s", later.line)
	}
	page := decodeResult(t, c.toolCall("crumb_read", `{"ref":"`+h.Ref+`","lines":"1:5"}`).Result)
	if page.IsError {
		t.Errorf("crumb_read after the crash: %s", page.Content[0].Text)
	}
	if !strings.Contains(stderr.String(), "crashing on purpose") {
		t.Errorf("upstream stderr did not reach crumb's stderr: %q", stderr.String())
	}
}

// TestNotificationsAndRequests checks that progress, list_changed, logging
// and cancellation flow through, and that the upstream's requests of the
// client (sampling) are forwarded and answered.
func TestNotificationsAndRequests(t *testing.T) {
	c, _ := startRaw(t, testConfig(t, 500), fakeCommand("", io.Discard))
	c.onRequest = func(m *wireMsg) string {
		if m.Method != "sampling/createMessage" {
			t.Errorf("unexpected request %s", m.line)
		}
		return `{"role":"assistant","content":{"type":"text","text":"hi from the client"},"model":"test"}`
	}
	c.initialize()

	prog := c.call("tools/call", `{"name":"progress","arguments":{},"_meta":{"progressToken":"tok-9"}}`)
	if r := decodeResult(t, prog.Result); r.Content[0].Text != "done after 3 steps" {
		t.Errorf("progress result: %s", prog.Result)
	}
	n := 0
	for _, m := range c.seen {
		if m.Method == "notifications/progress" && bytes.Contains(m.Params, []byte(`"tok-9"`)) {
			n++
		}
	}
	if n != 3 {
		t.Errorf("saw %d progress notifications, want 3: %v", n, c.seenMethods())
	}

	sample := c.toolCall("sample", `{}`)
	if r := decodeResult(t, sample.Result); r.Content[0].Text != "the client said: hi from the client" {
		t.Errorf("sampling round trip: %s", sample.Result)
	}

	c.toolCall("notify", `{}`)
	if !contains(c.seenMethods(), "notifications/tools/list_changed") {
		t.Errorf("list_changed did not reach the client: %v", c.seenMethods())
	}

	// Cancellation reaches the upstream, which logs it.
	c.send(`{"jsonrpc":"2.0","id":"h","method":"tools/call","params":{"name":"hang","arguments":{}}}`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"h","reason":"test"}}`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c.call("ping", `{}`)
		for _, m := range c.seen {
			if m.Method == "notifications/message" && bytes.Contains(m.Params, []byte("cancelled h")) {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("cancellation did not reach the upstream: %v", c.seenMethods())
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestShadowedName checks that an upstream tool named like one of crumb's
// keeps its name and its calls, and crumb's tool is left out.
func TestShadowedName(t *testing.T) {
	var logs syncBuffer
	cfg := testConfig(t, 500)
	cfg.Logger = newTestLogger(&logs)
	c, _ := startRaw(t, cfg, fakeCommand("shadow", io.Discard))
	c.initialize()
	list := c.call("tools/list", `{}`)
	if n := bytes.Count(list.Result, []byte(`"name":"crumb_read"`)); n != 1 {
		t.Errorf("crumb_read listed %d times", n)
	}
	r := decodeResult(t, c.toolCall("crumb_read", `{}`).Result)
	if r.Content[0].Text != "upstream crumb_read" {
		t.Errorf("call of the upstream's crumb_read went elsewhere: %+v", r)
	}
	if !strings.Contains(logs.String(), "same name") {
		t.Errorf("no warning about the name clash: %s", logs.String())
	}
}

// failingStore is a store whose Put always fails.
type failingStore struct{ store.Store }

func (failingStore) Put(context.Context, io.Reader, store.Meta) (store.Info, error) {
	return store.Info{}, errors.New("disk full")
}

// TestStoreFailsSayso checks that a result that cannot be stored reaches
// the client bounded and saying so: a small one whole, after a note of
// why; a large one as the bounded view (it used to pass whole); a tool's
// whose outputSchema needs the structuredContent left out as an error.
// The log says why too.
func TestStoreFailsSayso(t *testing.T) {
	var logs syncBuffer
	cfg := testConfig(t, 300)
	cfg.Guard.Store = failingStore{cfg.Guard.Store}
	cfg.Logger = newTestLogger(&logs)
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()

	resp := c.toolCall("big", `{"lines":500}`)
	r := decodeResult(t, resp.Result)
	if len(r.Content) != 2 || !strings.Contains(r.Content[0].Text, "could not store this result (disk full); it is shown whole") ||
		r.Content[1].Text != fakeBigText(500, 60) || !bytes.Contains(resp.Result, []byte(`"x-result-extra":"kept"`)) {
		t.Errorf("a small result that could not be stored is not whole after a note: %.300s", resp.Result)
	}

	resp = c.toolCall("big", `{"lines":2000}`)
	r = decodeResult(t, resp.Result)
	if len(resp.Result) > 8<<10 || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "disk full)") ||
		!strings.Contains(r.Content[0].Text, fakeLine(2000, 60)) || r.IsError {
		t.Errorf("a large result that could not be stored is not a bounded view that says so: %.600s", resp.Result)
	}

	resp = c.toolCall("structured", `{}`)
	r = decodeResult(t, resp.Result)
	if len(resp.Result) > 8<<10 || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, "disk full)") || !r.IsError {
		t.Errorf("a structured result that could not be stored is not a bounded error that says so: %.600s", resp.Result)
	}
	if !strings.Contains(logs.String(), "disk full") {
		t.Errorf("log does not say why: %s", logs.String())
	}
}

// TestExemptTools checks that a tool configured never to be projected
// passes through whole, and that a glob matches it.
func TestExemptTools(t *testing.T) {
	cfg := testConfig(t, 300)
	cfg.Guard.Exempt = []string{"b?g"}
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()
	r := decodeResult(t, c.toolCall("big", `{"lines":2000}`).Result)
	if r.Content[0].Text != fakeBigText(2000, 60) {
		t.Errorf("exempt tool's result was changed")
	}
	cfg2 := testConfig(t, 300)
	cfg2.Guard.Tools = []crumb.ToolPolicy{{Match: "big", Threshold: 1 << 20, Budget: 1 << 20}}
	c2, _ := startRaw(t, cfg2, fakeCommand("", io.Discard))
	c2.initialize()
	r = decodeResult(t, c2.toolCall("big", `{"lines":2000}`).Result)
	if r.Content[0].Text != fakeBigText(2000, 60) {
		t.Errorf("result under the tool's own threshold was changed")
	}
}

// TestHugeResult checks that a 50 MB result (hugeMB) passes the transports
// both ways: projected, and whole for an exempt tool.
func TestHugeResult(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB result; skipped in -short mode")
	}
	cfg := testConfig(t, 500)
	cfg.Guard.Exempt = []string{"huge-exempt"}
	c, _ := startRaw(t, cfg, fakeCommand("", io.Discard))
	c.initialize()
	args := fmt.Sprintf(`{"mb":%d}`, hugeMB)
	resp := c.toolCall("huge", args)
	if resp.Error != nil {
		t.Fatalf("huge: %s", resp.line)
	}
	if len(resp.line) > 64<<10 {
		t.Errorf("projected %d MB result is %d bytes", hugeMB, len(resp.line))
	}

	// The same result, with the tool exempt, passes whole.
	cfg2 := testConfig(t, 500)
	cfg2.Guard.Exempt = []string{"huge"}
	c2, _ := startRaw(t, cfg2, fakeCommand("", io.Discard))
	c2.initialize()
	whole := c2.toolCall("huge", args)
	if len(whole.Result) < hugeMB<<20 {
		t.Fatalf("exempt %d MB result is %d bytes", hugeMB, len(whole.Result))
	}
	r := decodeResult(t, whole.Result)
	line := strings.Repeat("0123456789abcdef", 4) + "\n"
	if r.Content[0].Text != strings.Repeat(line, hugeMB<<20/len(line)) {
		t.Errorf("exempt %d MB result changed", hugeMB)
	}
}

// TestStructuredContent checks that a large structured result of a tool
// with an outputSchema stays valid for the schema, and within the budget:
// the proxy tells the projector the schema it saw in tools/list.
func TestStructuredContent(t *testing.T) {
	const budget = 800
	c, _ := startRaw(t, testConfig(t, budget), fakeCommand("", io.Discard))
	c.initialize()
	c.call("tools/list", `{}`)
	resp := c.toolCall("structured", `{}`)
	r := decodeResult(t, resp.Result)
	var sc map[string]json.RawMessage
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
		t.Fatalf("structuredContent is not an object: %v: %.200s", err, resp.Result)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(sc["items"], &items); err != nil || len(sc) != 1 {
		t.Errorf("structuredContent breaks the outputSchema (items required, nothing else): %.300s", r.StructuredContent)
	}
	if n := tokens.O200k().Count(string(resp.Result)); n > budget {
		t.Errorf("view is %d tokens, over the budget of %d", n, budget)
	}
}
