package mcpproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ownCall calls one of crumb's tools as a client would, and decodes the
// answer.
func ownCall(t testing.TB, p *Proxy, name, args string) ownAnswer {
	t.Helper()
	s := &session{p: p}
	resp := s.answerOwn(context.Background(), jsonrpc.ID{}, name, json.RawMessage(args))
	var a ownAnswer
	if err := json.Unmarshal(resp.Result, &a); err != nil {
		t.Fatalf("%s %s: %v: %s", name, args, err, resp.Result)
	}
	if len(a.Content) == 0 {
		t.Fatalf("%s %s: no content", name, args)
	}
	return a
}

// ownAnswer is a CallToolResult of crumb's tools, decoded.
type ownAnswer struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
		Resource *struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Blob     string `json:"blob"`
		} `json:"resource"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (a ownAnswer) text() string { return a.Content[0].Text }

// putBytes stores data in the proxy's store and returns its ref.
func putBytes(t testing.TB, p *Proxy, data []byte) string {
	t.Helper()
	info, err := p.Guard().Store().Put(context.Background(), bytes.NewReader(data), store.Meta{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return string(info.Ref)
}

// textRef stores 5,000 lines of text and returns its ref.
func textRef(t testing.TB, p *Proxy) string {
	return putBytes(t, p, []byte(strings.Repeat("hello world, line of text\n", 5000)))
}

// TestOwnToolRanges: every number crumb's tools take is range-checked with
// a clear error, and none brings the proxy down (issue 8 item 6: a skip of
// 9223372036854775807 overflowed into a stack overflow).
func TestOwnToolRanges(t *testing.T) {
	p := newTestProxy(t, Names{})
	ref := textRef(t, p)
	for _, c := range []struct{ tool, args, want string }{
		{"crumb_search", `{"ref":"R","pattern":"hello","skip":9223372036854775807}`, `"skip": 9,223,372,036,854,775,807 is out of range: want 0 to 1,099,511,627,776 (matches)`},
		{"crumb_search", `{"ref":"R","pattern":"hello","skip":9223372036854775807,"max":3}`, `"skip"`},
		{"crumb_search", `{"ref":"R","pattern":"hello","max":9223372036854775807}`, `"max"`},
		{"crumb_search", `{"ref":"R","pattern":"hello","from":9223372036854775807}`, `"from"`},
		{"crumb_search", `{"ref":"R","pattern":"hello","context":9223372036854775807}`, `"context"`},
		{"crumb_search", `{"ref":"R","pattern":"hello","context":-1}`, `"context": -1 is out of range: want 0 to 1,000 (lines)`},
		{"crumb_search", `{"ref":"R","pattern":"hello","skip":1e30}`, `arguments`},
		{"crumb_read", `{"ref":"R","lines":"9223372036854775807:"}`, `"lines"`},
		{"crumb_read", `{"ref":"R","lines":"1:9223372036854775807"}`, `"lines"`},
		{"crumb_read", `{"ref":"R","bytes":"9223372036854775806:9223372036854775807"}`, `"bytes"`},
		{"crumb_read", `{"ref":"R","lines":"-3:5"}`, `range`},
	} {
		args := strings.ReplaceAll(c.args, `"R"`, `"`+ref+`"`)
		a := ownCall(t, p, c.tool, args)
		if !a.IsError || !strings.Contains(a.text(), c.want) {
			t.Errorf("%s %s: want an error naming %s, got %+v", c.tool, args, c.want, a)
		}
	}
	// The proxy still answers.
	if a := ownCall(t, p, "crumb_search", `{"ref":"`+ref+`","pattern":"hello","skip":4990}`); a.IsError {
		t.Errorf("a search in range fails: %s", a.text())
	}
}

// TestOwnToolsShareTheLimits (issue 20 item 10): crumb's tools take the
// numbers the command line and the sidecar take (one table,
// internal/limits), and a skip past the last match says how many there
// are instead of numbering matches from past the result.
func TestOwnToolsShareTheLimits(t *testing.T) {
	p := newTestProxy(t, Names{})
	ref := textRef(t, p) // 5,000 lines, each a match of "hello"
	for _, c := range []struct{ tool, args, want string }{
		{"crumb_search", `{"ref":"R","pattern":"hello","skip":2147483647}`, `"skip" 2,147,483,647 is past the last match: R has only 5,000 matches of "hello" in 5,000 lines`},
		{"crumb_search", `{"ref":"R","pattern":"hello","skip":1099511627777}`, `"skip": 1,099,511,627,777 is out of range: want 0 to 1,099,511,627,776 (matches)`},
		{"crumb_search", `{"ref":"R","pattern":"hello","context":1001}`, `want 0 to 1,000 (lines)`},
		{"crumb_search", `{"ref":"R","pattern":"hello","from":9007199254740993}`, `want 0 to 9,007,199,254,740,992 (line number)`},
		{"crumb_search", `{"ref":"R","pattern":"hello","from":2147483648}`, `"from" 2147483648 is past the end`},
		{"crumb_read", `{"ref":"R","lines":"1:9007199254740993"}`, `"lines"`},
	} {
		args := strings.ReplaceAll(c.args, `"R"`, `"`+ref+`"`)
		want := strings.ReplaceAll(c.want, "R has", ref+" has")
		a := ownCall(t, p, c.tool, args)
		if !a.IsError || !strings.Contains(a.text(), want) {
			t.Errorf("%s %s: want an error with %s, got %+v", c.tool, args, want, a)
		}
	}
	// The tools say so in their schemas.
	var search struct {
		InputSchema struct {
			Properties map[string]struct {
				Type string `json:"type"`
				Min  *int64 `json:"minimum"`
				Max  *int64 `json:"maximum"`
			} `json:"properties"`
		} `json:"inputSchema"`
	}
	for _, raw := range p.buildTools() {
		if strings.Contains(string(raw), `"name":"crumb_search"`) {
			if err := json.Unmarshal(raw, &search); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, lim := range map[string]limits.Limit{"context": limits.Context, "max": limits.Matches, "from": limits.From, "skip": limits.Skip} {
		pr := search.InputSchema.Properties[name]
		if pr.Type != "integer" || pr.Min == nil || pr.Max == nil || *pr.Min != lim.Min || *pr.Max != lim.Max {
			t.Errorf("crumb_search's %q schema: %+v, want minimum %d and maximum %d", name, pr, lim.Min, lim.Max)
		}
	}
	a := ownCall(t, p, "crumb_search", `{"ref":"`+ref+`","pattern":"hello","skip":4997}`)
	if a.IsError || !strings.Contains(a.text(), `"hello": matches 4,998-5,000 of 5,000`) {
		t.Errorf("a skip of 4,997 of 5,000 matches: %s", a.text())
	}
}

// cliCommand finds a command line in what crumb's tools say.
var cliCommand = regexp.MustCompile(`crumb (read|grep) [0-9a-f]{16}|--all > FILE`)

// TestOwnToolErrorsNameToolCalls: a read that fails says what to call
// next as a call of crumb's tools, never as a command line (issue 9 item
// 5: crumb_query on text suggested "crumb read REF --lines 1:200").
func TestOwnToolErrorsNameToolCalls(t *testing.T) {
	p := newTestProxy(t, Names{})
	ref := textRef(t, p)
	for _, c := range []struct{ tool, args, want string }{
		{"crumb_query", `{"ref":"R","jq":".a"}`, `crumb_read {"ref":"R","lines":"1:200"}`},
		{"crumb_query", `{"ref":"R","pointer":"/a"}`, `crumb_read {"ref":"R","lines":"1:200"}`},
		{"crumb_read", `{"ref":"R","lines":"9000:"}`, `crumb_read {"ref":"R","lines":"1:5000"}`},
		{"crumb_search", `{"ref":"R","pattern":"x","from":9000}`, `"from" 9000 is past the end`},
	} {
		args := strings.ReplaceAll(c.args, `"R"`, `"`+ref+`"`)
		want := strings.ReplaceAll(c.want, `"R"`, `"`+ref+`"`)
		a := ownCall(t, p, c.tool, args)
		if !a.IsError || !strings.Contains(a.text(), want) || cliCommand.MatchString(a.text()) {
			t.Errorf("%s %s: want an error that names %s and no command line, got:\n%s", c.tool, args, want, a.text())
		}
	}
	// The rewritten error still wraps its sentinel.
	_, err := p.callOwn(context.Background(), "crumb_query", json.RawMessage(`{"ref":"`+ref+`","jq":"."}`))
	if !errors.Is(err, recall.ErrNotJSON) {
		t.Errorf("the error %v does not wrap ErrNotJSON", err)
	}
}

// pngOf encodes a w×h image.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nextCall finds the call of crumb_read a binary page names.
var nextCall = regexp.MustCompile(`; next: crumb_read (\{[^}]*"blob":true\})\]$`)

// readBlobs follows crumb_read over a binary result from args to its end
// and returns the bytes of its blobs.
func readBlobs(t testing.TB, call func(args string) ownAnswer, args string) []byte {
	t.Helper()
	var out []byte
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("too many pages")
		}
		a := call(args)
		if a.IsError || len(a.Content) != 2 || a.Content[1].Type != "resource" || a.Content[1].Resource == nil {
			t.Fatalf("crumb_read %s: want a line and a blob, got %+v", args, a)
		}
		data, err := base64.StdEncoding.DecodeString(a.Content[1].Resource.Blob)
		if err != nil {
			t.Fatalf("the blob is not base64: %v", err)
		}
		if len(data) > BlobPageBytes {
			t.Fatalf("a page holds %d bytes, more than %d", len(data), BlobPageBytes)
		}
		out = append(out, data...)
		m := nextCall.FindStringSubmatch(a.text())
		if m == nil {
			if !strings.HasSuffix(a.text(), "the end of the result]") && !strings.HasSuffix(a.text(), "the end of the range asked for]") {
				t.Fatalf("a page names no next call and no end: %s", a.text())
			}
			return out
		}
		args = m[1]
	}
}

// TestReadBinaryBack: a binary result reads back through crumb_read: an
// image as an image block, anything else as embedded resource blobs in
// pages, each naming the next call, that reassemble it exactly (issue 9
// item 5: crumb_read returned isError).
func TestReadBinaryBack(t *testing.T) {
	p := newTestProxy(t, Names{})
	call := func(args string) ownAnswer { return ownCall(t, p, "crumb_read", args) }

	pic := pngOf(t, 64, 48)
	ref := putBytes(t, p, pic)
	a := call(`{"ref":"` + ref + `"}`)
	if a.IsError || len(a.Content) != 2 || a.Content[1].Type != "image" || a.Content[1].MimeType != "image/png" {
		t.Fatalf("an image reads back as %+v", a)
	}
	if got, _ := base64.StdEncoding.DecodeString(a.Content[1].Data); !bytes.Equal(got, pic) {
		t.Error("the image block is not the stored image")
	}
	if !strings.Contains(a.text(), "64x48") {
		t.Errorf("the line before the image: %s", a.text())
	}

	data := make([]byte, 300<<10+17)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(r.UintN(256))
	}
	ref = putBytes(t, p, data)
	if got := readBlobs(t, call, `{"ref":"`+ref+`"}`); !bytes.Equal(got, data) {
		t.Errorf("blob pages reassemble %d bytes, not the %d stored", len(got), len(data))
	}
	// A range reads just that range, in pages.
	if got := readBlobs(t, call, `{"ref":"`+ref+`","bytes":"1000:200000"}`); !bytes.Equal(got, data[1000:200000]) {
		t.Errorf("the range reads back %d bytes, want %d", len(got), 199000)
	}
	// Any stored result reads as blobs when asked: a text too.
	txt := []byte(strings.Repeat("text that is no binary\n", 5000))
	ref = putBytes(t, p, txt)
	if got := readBlobs(t, call, `{"ref":"`+ref+`","blob":true}`); !bytes.Equal(got, txt) {
		t.Errorf("a text read as blobs gives %d bytes, not its %d", len(got), len(txt))
	}
}

// TestMCPNotesNameToolCalls: what a projected MCP result says about what
// it stored apart names calls of crumb's tools, which give it back (issue
// 9 item 5: "save it with: crumb read REF --all > FILE").
func TestMCPNotesNameToolCalls(t *testing.T) {
	p := newTestProxy(t, Names{})
	blob := make([]byte, 50<<10)
	for i := range blob {
		blob[i] = byte(i * 7)
	}
	res := `{"content":[{"type":"resource","resource":{"uri":"file:///x.bin","mimeType":"application/octet-stream","blob":"` + base64.StdEncoding.EncodeToString(blob) + `"}}]}`
	v, err := p.Guard().Project(context.Background(), crumb.Result{Tool: "read_media_file", Kind: crumb.KindMCP, Body: []byte(res)})
	if err != nil {
		t.Fatal(err)
	}
	if cliCommand.MatchString(v.Text) {
		t.Errorf("the view names a command line:\n%.500s", v.Text)
	}
	m := hintRE.FindStringSubmatch(v.Text)
	if m == nil {
		t.Fatalf("the view names no crumb_read call:\n%.500s", v.Text)
	}
	var args string
	json.Unmarshal([]byte(`"`+m[1]+`"`), &args) // the call is JSON-escaped in the view
	call := func(args string) ownAnswer { return ownCall(t, p, "crumb_read", args) }
	if got := readBlobs(t, call, args); !bytes.Equal(got, blob) {
		t.Errorf("the blob reads back %d bytes, not the %d of the resource", len(got), len(blob))
	}
}

var ownTools = []string{"crumb_read", "crumb_search", "crumb_query"}

// FuzzOwnTools calls crumb's tools with arbitrary arguments over a stored
// text, JSON and binary result: no panic, no hang, and every failure a
// tool error with a message.
func FuzzOwnTools(f *testing.F) {
	p := newTestProxy(f, Names{})
	text := textRef(f, p)
	js := putBytes(f, p, []byte(`{"a":[1,2,{"b":"c"}],"s":"`+strings.Repeat("x", 3000)+`"}`))
	bin := putBytes(f, p, pngOf(f, 8, 8))
	for _, s := range []string{
		`{"ref":"T","lines":"41:240"}`, `{"ref":"T","bytes":"0:"}`, `{"ref":"T","lines":7}`,
		`{"ref":"T","pattern":"a|b","context":2,"from":3,"skip":1}`,
		`{"ref":"T","pattern":"hello","skip":9223372036854775807}`,
		`{"ref":"T","pattern":"hello","from":9223372036854775807,"max":9223372036854775807}`,
		`{"ref":"T","pattern":"hello","context":9223372036854775807}`,
		`{"ref":"T","lines":"9223372036854775807:9223372036854775807"}`,
		`{"ref":"T","bytes":"9223372036854775806:"}`,
		`{"ref":"J","jq":".a"}`, `{"ref":"J","pointer":"/a/2"}`, `{"ref":"J","pointer":"/s"}`,
		`{"ref":"B"}`, `{"ref":"B","bytes":"3:9"}`, `{"ref":"B","blob":true}`, `{"ref":"T","bytes":"100:","blob":true}`, `{"ref":"J","lines":"1:","blob":true}`, `{"ref":"B","bytes":"9000:"}`, `{"ref":"B","lines":"2:"}`,
		`{"ref":"T","rev":"ff"}`, `[]`, `null`, `{"ref":1}`,
	} {
		for i := range ownTools {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		tool := ownTools[int(which)%len(ownTools)]
		args = strings.NewReplacer(`"T"`, `"`+text+`"`, `"J"`, `"`+js+`"`, `"B"`, `"`+bin+`"`).Replace(args)
		ctx, cancel := context.WithTimeout(context.Background(), 20e9)
		defer cancel()
		s := &session{p: p}
		resp := s.answerOwn(ctx, jsonrpc.ID{}, tool, json.RawMessage(args))
		var a ownAnswer
		if err := json.Unmarshal(resp.Result, &a); err != nil || len(a.Content) == 0 {
			t.Fatalf("%s %s: not a CallToolResult: %s", tool, args, resp.Result)
		}
		if a.IsError && !strings.HasPrefix(a.text(), tool+": ") {
			t.Fatalf("%s %s: an error that does not name the tool: %s", tool, args, a.text())
		}
	})
}

// TestDownscaledImageOriginal: the original of an image the view shows
// downscaled reads back, exactly, through the crumb_read call the note
// names (issue 9 item 5).
func TestDownscaledImageOriginal(t *testing.T) {
	p := newTestProxy(t, Names{})
	pic := pngOf(t, 2400, 300)
	res := `{"content":[{"type":"image","mimeType":"image/png","data":"` + base64.StdEncoding.EncodeToString(pic) + `"}]}`
	v, err := p.Guard().Project(context.Background(), crumb.Result{Tool: "screenshot", Kind: crumb.KindMCP, Body: []byte(res)})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`the original: crumb_read (\{[^}]*\})`).FindStringSubmatch(v.Text)
	if m == nil {
		t.Fatalf("the note names no crumb_read call for the original:\n%.300s", v.Text)
	}
	var args string
	json.Unmarshal([]byte(`"`+m[1]+`"`), &args)
	call := func(args string) ownAnswer { return ownCall(t, p, "crumb_read", args) }
	if a := call(args); !strings.Contains(a.text(), "larger than a model takes as an image") {
		t.Errorf("the first page does not say why the image comes as a blob: %s", a.text())
	}
	if got := readBlobs(t, call, args); !bytes.Equal(got, pic) {
		t.Errorf("the original reads back as %d bytes, not its %d", len(got), len(pic))
	}
}

// TestManySmallBlocksThroughProxy: a server's 10,000 small text blocks
// reach the client through crumb as the first blocks whole and one
// continuation, whose crumb_read pages give every other block's text, in
// order and once (issue 9 item 7).
func TestManySmallBlocksThroughProxy(t *testing.T) {
	const n = 10000
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("event %05d: worker=w%02d state=done elapsed=%03dms", i, i%17, i%997)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "blocks", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "events", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var content []mcp.Content
		for _, s := range texts {
			content = append(content, &mcp.TextContent{Text: s})
		}
		return &mcp.CallToolResult{Content: content}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs := connectSDK(t, testConfig(t, 2000), ct, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "events"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if k := tokens.O200k().Count(string(raw)); k > 2000 {
		t.Errorf("the view takes %d tokens", k)
	}
	var got []string
	for _, c := range res.Content[:len(res.Content)-1] {
		got = append(got, c.(*mcp.TextContent).Text)
	}
	if len(got) < 50 {
		t.Errorf("only %d blocks shown", len(got))
	}
	note := res.Content[len(res.Content)-1].(*mcp.TextContent).Text
	m := hintRE.FindAllStringSubmatch(note, -1)
	if len(m) != 1 {
		t.Fatalf("the note names %d calls, want one:\n%s", len(m), note)
	}
	var hint struct{ Ref string }
	json.Unmarshal([]byte(m[0][1]), &hint)
	call := func(name, args string) (string, bool) {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return r.Content[0].(*mcp.TextContent).Text, r.IsError
	}
	rest := strings.Split(strings.TrimSuffix(readAll(t, call, hint.Ref), "\n"), "\n")
	got = append(got, rest...)
	if !slices.Equal(got, texts) {
		t.Errorf("the view and its pages give %d blocks, not the %d in order", len(got), n)
	}
}
