package mcpproxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The fake upstream is a raw JSON-RPC MCP server written by hand, so that it
// can say what typed SDK layers cannot: unknown fields, unknown content
// blocks, schemas with $schema, $defs and keys nobody knows, results of 50 MB.
// The test binary runs it as a process when CRUMB_FAKE_UPSTREAM is set, and
// benchmarks run it in-process over pipes.

// fakeInit is the fake's initialize result, byte for byte.
const fakeInit = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},"prompts":{},"logging":{},"experimental":{"x-hologram":{"depth":3}}},"serverInfo":{"name":"fake-upstream","title":"Fake <Upstream> & Co","version":"1.2.3","x-build":"abc"},"instructions":"Use the fake tools wisely.","x-unknown":{"deep":[1,2.50,{"z":null}]}}`

// fakeTools is the fake's tool list, byte for byte.
const fakeTools = `[{"name":"small","title":"Small","description":"Returns a small result with an unknown block.","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"SmallArgs","properties":{"mode":{"anyOf":[{"type":"string","enum":["a","b"]},{"$ref":"#/$defs/num"}]}},"$defs":{"num":{"type":"number","x-unit":"mm"}},"x-vendor-key":{"keep":true}},"x-tool-extra":[1,2,3],"annotations":{"readOnlyHint":true,"x-hint":"yes"}},` +
	`{"name":"big","description":"Returns N numbered lines.","inputSchema":{"type":"object","properties":{"lines":{"type":"integer"},"width":{"type":"integer"}}}},` +
	`{"name":"huge","description":"Returns a result of MB megabytes.","inputSchema":{"type":"object","properties":{"mb":{"type":"integer"}}}},` +
	`{"name":"structured","description":"Returns structured content.","inputSchema":{"type":"object"},"outputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"items":{"type":"array"}},"required":["items"],"additionalProperties":false}},` +
	`{"name":"image","description":"Returns a long text and an image.","inputSchema":{"type":"object"}},` +
	`{"name":"hang","description":"Never answers.","inputSchema":{"type":"object"}},` +
	`{"name":"crash","description":"Exits with status 3.","inputSchema":{"type":"object"}},` +
	`{"name":"progress","description":"Reports progress, then answers.","inputSchema":{"type":"object"}},` +
	`{"name":"sample","description":"Asks the client to sample.","inputSchema":{"type":"object"}},` +
	`{"name":"noisy","description":"Writes lines that are not JSON-RPC, then answers.","inputSchema":{"type":"object"}},` +
	`{"name":"notify","description":"Sends list_changed.","inputSchema":{"type":"object"}},` +
	`{"name":"spaced","description":"Returns a small result written with white space.","inputSchema":{"type":"object"}},` +
	`{"name":"bulk","description":"Returns structuredContent of MB megabytes of small objects.","inputSchema":{"type":"object","properties":{"mb":{"type":"integer"}}}}]`

// fakeSpaced is the result of the spaced tool, byte for byte: JSON as a
// server that does not compact its output writes it.
const fakeSpaced = `{ "content" : [ { "type": "text", "text": "spaced \u0041 out\n" } ],	"isError": false }`

// fakeSmall is the result of the small tool, byte for byte.
const fakeSmall = `{"content":[{"type":"text","text":"hi <b>&amp; \u00e9 done"},{"type":"x-hologram","data":{"k":"v"},"annotations":{"audience":["user"]}}],"x-result-extra":7,"_meta":{"x-trace":"t1"}}`

// fakeLine is line i of the big tool's text.
func fakeLine(i, width int) string {
	s := fmt.Sprintf("line %06d: the quick brown fox jumps over the lazy dog", i)
	for len(s) < width {
		s += " lorem ipsum"
	}
	return s[:max(width, 10)]
}

// fakeBigText returns the big tool's text: n lines, each ending in a newline.
func fakeBigText(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(fakeLine(i, width))
		b.WriteByte('\n')
	}
	return b.String()
}

type fakeServer struct {
	w      io.Writer
	wmu    sync.Mutex
	shadow bool // offers a tool named crumb_read of its own
	exit   func(code int)

	mu      sync.Mutex
	waiting map[string]chan json.RawMessage // answers to the fake's own requests
	nextID  int
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// serveFake serves MCP on r and w until r ends.
func serveFake(r io.Reader, w io.Writer, shadow bool, exit func(int)) {
	f := &fakeServer{w: w, shadow: shadow, exit: exit, waiting: map[string]chan json.RawMessage{}}
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var m fakeMsg
			if json.Unmarshal(line, &m) == nil {
				f.handle(m)
			}
		}
		if err != nil {
			return
		}
	}
}

func (f *fakeServer) send(s string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	io.WriteString(f.w, s+"\n")
}

func (f *fakeServer) reply(id json.RawMessage, result string) {
	f.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (f *fakeServer) handle(m fakeMsg) {
	if m.Method == "" { // an answer to one of the fake's requests
		f.mu.Lock()
		ch := f.waiting[string(m.ID)]
		f.mu.Unlock()
		if ch != nil {
			ch <- m.Result
		}
		return
	}
	switch m.Method {
	case "initialize":
		f.reply(m.ID, fakeInit)
	case "ping":
		f.reply(m.ID, `{}`)
	case "tools/list":
		tools := fakeTools
		if f.shadow {
			tools = strings.TrimSuffix(tools, "]") + `,{"name":"crumb_read","description":"The upstream's own.","inputSchema":{"type":"object"}}]`
		}
		f.reply(m.ID, `{"tools":`+tools+`,"x-list-extra":true}`)
	case "tools/call":
		go f.call(m)
	case "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		f.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"cancelled ` + strings.Trim(string(p.RequestID), `"`) + `"}}`)
	default:
		if len(m.ID) > 0 {
			f.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":"method not found: ` + m.Method + `","data":{"x":1}}}`)
		}
	}
}

func (f *fakeServer) call(m fakeMsg) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
		Meta      struct {
			ProgressToken any `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(m.Params, &p)
	num := func(k string, def int) int {
		if v, ok := p.Arguments[k].(float64); ok {
			return int(v)
		}
		return def
	}
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return string(b)
	}
	switch p.Name {
	case "small":
		f.reply(m.ID, fakeSmall)
	case "spaced":
		f.reply(m.ID, fakeSpaced)
	case "crumb_read":
		f.reply(m.ID, `{"content":[{"type":"text","text":"upstream crumb_read"}]}`)
	case "big":
		f.reply(m.ID, `{"content":[{"type":"text","text":`+text(fakeBigText(num("lines", 20000), num("width", 60)))+`}],"x-result-extra":"kept"}`)
	case "huge":
		line := strings.Repeat("0123456789abcdef", 4) + "\n"
		n := num("mb", 50) << 20 / len(line)
		f.reply(m.ID, `{"content":[{"type":"text","text":`+text(strings.Repeat(line, n))+`}]}`)
	case "bulk":
		out := fakeBulk(num("mb", 100))
		if p.Arguments["structured_only"] == true {
			// A tool that returns structuredContent alone: no text.
			out = strings.Replace(out, `{"type":"text","text":"the items"}`, "", 1)
		}
		f.reply(m.ID, out)
	case "structured":
		var items []string
		for i := range 3000 {
			items = append(items, fmt.Sprintf(`{"id":%d,"name":"item %d","tags":["a","b"]}`, i, i))
		}
		arr := "[" + strings.Join(items, ",") + "]"
		f.reply(m.ID, `{"content":[{"type":"text","text":`+text(`{"items":`+arr+`}`)+`}],"structuredContent":{"items":`+arr+`}}`)
	case "image":
		f.reply(m.ID, `{"content":[{"type":"text","text":`+text(fakeBigText(5000, 60))+`},{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==","mimeType":"image/png"}]}`)
	case "hang":
		// Never answers.
	case "crash":
		fmt.Fprintln(os.Stderr, "fake upstream: crashing on purpose")
		f.exit(3)
	case "progress":
		tok, _ := json.Marshal(p.Meta.ProgressToken)
		for i := 1; i <= 3; i++ {
			f.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(tok) + `,"progress":` + strconv.Itoa(i) + `,"total":3,"message":"step ` + strconv.Itoa(i) + `"}}`)
		}
		f.reply(m.ID, `{"content":[{"type":"text","text":"done after 3 steps"}]}`)
	case "sample":
		f.mu.Lock()
		f.nextID++
		id := `"fake-` + strconv.Itoa(f.nextID) + `"`
		ch := make(chan json.RawMessage, 1)
		f.waiting[id] = ch
		f.mu.Unlock()
		f.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"say hi"}}],"maxTokens":10}}`)
		select {
		case res := <-ch:
			var r struct {
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			json.Unmarshal(res, &r)
			f.reply(m.ID, `{"content":[{"type":"text","text":`+text("the client said: "+r.Content.Text)+`}]}`)
		case <-time.After(10 * time.Second):
			f.reply(m.ID, `{"content":[{"type":"text","text":"no answer"}],"isError":true}`)
		}
	case "noisy":
		// Lines that are not JSON-RPC, between messages: a log line, JSON
		// that is no message, and a line longer than the proxy holds in
		// memory.
		f.send("Server log: working on it...")
		f.send(`{"level":"info","msg":"not a JSON-RPC message"}`)
		f.send(strings.Repeat("#", 3<<20))
		f.reply(m.ID, `{"content":[{"type":"text","text":"done despite the noise"}]}`)
	case "notify":
		f.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
		f.reply(m.ID, `{"content":[{"type":"text","text":"notified"}]}`)
	default:
		f.reply(m.ID, `{"content":[{"type":"text","text":"unknown tool"}],"isError":true}`)
	}
}

// fakeBulkItem is the i-th of the bulk tool's small objects.
func fakeBulkItem(i int) string {
	return fmt.Sprintf(`{"id":%d,"name":"item %06d","tags":["a","b"],"ok":true,"score":%d.5}`, i, i, i%1000)
}

// fakeBulk returns the bulk tool's result: a short text and a
// structuredContent of about mb megabytes of small objects.
func fakeBulk(mb int) string {
	var b strings.Builder
	b.WriteString(`{"content":[{"type":"text","text":"the items"}],"structuredContent":{"items":[`)
	for i := 0; b.Len() < mb<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(fakeBulkItem(i))
	}
	b.WriteString(`]}}`)
	return b.String()
}
