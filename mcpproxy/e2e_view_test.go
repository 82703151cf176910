package mcpproxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/tokens"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// randomBytes returns n bytes no compressor shrinks, the same each run.
func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(9, 9))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return b
}

var refsRE = regexp.MustCompile(`\b[0-9a-f]{16}\b`)

// TestReadMediaFileBinary: the filesystem server's read_media_file of a
// 300 KB binary file comes back as one text block naming one ref (issue 9
// item 8), with a structuredContent that keeps to the tool's outputSchema
// and holds no cut base64 (item 6), and crumb_read gives the file back,
// byte for byte, as blobs in pages (item 5).
func TestReadMediaFileBinary(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	data := randomBytes(300 << 10)
	path := filepath.Join(root, "blob.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cs := sdkProxied(t, testConfig(t, 2000), []string{bin, root}, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_media_file", Arguments: map[string]any{"path": path}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		raw, _ := json.Marshal(res.Content)
		t.Fatalf("want one block, got %d: %.1000s", len(res.Content), raw)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	refs := map[string]bool{}
	for _, r := range refsRE.FindAllString(text, -1) {
		refs[r] = true
	}
	if len(refs) != 1 {
		t.Errorf("the block names %d refs, want one:\n%s", len(refs), text)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if regexp.MustCompile(`"[A-Za-z0-9+/]{8,}…"`).Match(sc) {
		t.Errorf("structuredContent hands out cut base64: %.300s", sc)
	}
	if n := tokens.O200k().Count(string(sc)) + tokens.O200k().Count(text); n > 2000 {
		t.Errorf("the view takes %d tokens", n)
	}
	m := hintRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the block names no crumb_read call:\n%s", text)
	}
	call := func(args string) ownAnswer {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crumb_read", Arguments: a})
		if err != nil {
			t.Fatalf("crumb_read %s: %v", args, err)
		}
		raw, _ := json.Marshal(r)
		var out ownAnswer
		json.Unmarshal(raw, &out)
		return out
	}
	if got := readBlobs(t, call, m[1]); !bytes.Equal(got, data) {
		t.Errorf("crumb_read gives back %d bytes, not the file's %d", len(got), len(data))
	}
}

// TestUnknownSchemaRealResult: the filesystem server's read_text_file of a
// large file, projected by the library's Guard without its outputSchema
// (as `crumb project --kind mcp` does): structuredContent, which repeats
// the text, becomes a bounded index instead of going out whole beside the
// projected text (issue 9 item 6).
func TestUnknownSchemaRealResult(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	var big strings.Builder
	for i := 0; big.Len() < 106<<10; i++ {
		big.WriteString(`{"id":` + strings.Repeat("7", 1+i%5) + `,"name":"item","tags":["a","b"],"note":"the same data in text and in structuredContent"}` + "\n")
	}
	path := filepath.Join(root, "data.jsonl")
	os.WriteFile(path, []byte(big.String()), 0o644)
	rd := rawDirect(t, []string{bin, root})
	rd.initialize()
	resp := rd.call("tools/call", `{"name":"read_text_file","arguments":{"path":"`+path+`"}}`)
	if resp.Error != nil || !bytes.Contains(resp.Result, []byte(`"structuredContent"`)) {
		t.Fatalf("read_text_file: %+v %.200s", resp.Error, resp.Result)
	}
	v := projectWhole(t, 2000, "read_text_file", resp.Result)
	var out struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal([]byte(v.Text), &out); err != nil {
		t.Fatalf("the view is not a CallToolResult: %v", err)
	}
	if n := tokens.O200k().Count(v.Text); n > 2000 {
		t.Errorf("the view takes %d tokens (structuredContent %d bytes), over the budget", n, len(out.StructuredContent))
	}
	if !strings.Contains(v.Text, "repeats the content above") {
		t.Errorf("no note says structuredContent repeats the text:\n%.600s", v.Text)
	}
}

// TestTypeScriptClientBinary: the TypeScript SDK's client, in front of
// `crumb mcp` and the filesystem server, gets a 300 KB binary file back
// through the crumb_read calls the view and its pages name (issue 9 items
// 5 and 8).
func TestTypeScriptClientBinary(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	sdk, err := filepath.Abs(filepath.Join(filepath.Dir(filepath.Dir(bin)), "@modelcontextprotocol", "sdk"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sdk, "dist", "esm", "client", "index.js")); err != nil {
		t.Skipf("the TypeScript SDK is not installed beside the servers: %v", err)
	}
	crumbBin := buildCrumb(t)
	root := t.TempDir()
	data := randomBytes(300 << 10)
	path := filepath.Join(root, "blob.bin")
	os.WriteFile(path, data, 0o644)
	args, _ := json.Marshal(map[string]string{"path": path})
	cmd := exec.Command("node", "testdata/ts-client.mjs", sdk, "read_media_file", string(args), "--",
		crumbBin, "mcp", "--store", t.TempDir(), "--", bin, root)
	cmd.Stderr = testWriter{t}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v", err)
	}
	var got struct {
		First struct {
			Content []struct{ Type, Text string } `json:"content"`
		} `json:"first"`
		Pages []struct {
			IsError bool     `json:"isError"`
			Types   []string `json:"types"`
			Text    string   `json:"text"`
		} `json:"pages"`
		Data string `json:"data"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the client's output: %v: %.300s", err, out)
	}
	if len(got.First.Content) != 1 || got.First.Content[0].Type != "text" {
		t.Errorf("read_media_file gave %d blocks, want one text block: %+v", len(got.First.Content), got.First.Content)
	}
	if len(got.Pages) < 2 {
		t.Fatalf("the client followed %d pages: %+v", len(got.Pages), got.Pages)
	}
	for i, p := range got.Pages {
		if p.IsError || len(p.Types) != 2 || p.Types[1] != "resource" {
			t.Errorf("page %d: %+v", i, p)
		}
	}
	back, _ := base64.StdEncoding.DecodeString(got.Data)
	if !bytes.Equal(back, data) {
		t.Errorf("the TypeScript client read back %d bytes, not the file's %d", len(back), len(data))
	}
}

// TestEverythingBlobResource: the reference server's gzip-file-as-resource
// returns a 100 KB gzip blob as an embedded resource; the view names it
// with one crumb_read call, which gives it back in blob pages that gunzip
// to the input (issue 9 item 5).
func TestEverythingBlobResource(t *testing.T) {
	bin := npmServer(t, "mcp-server-everything")
	input := randomBytes(100 << 10)
	ctx := context.Background()
	cs := sdkProxied(t, testConfig(t, 2000), []string{bin}, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gzip-file-as-resource", Arguments: map[string]any{
		"name": "input.bin.gz", "outputType": "resource",
		"data": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(input),
	}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("want one block, got %.600s", raw)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if strings.Contains(text, "crumb read ") {
		t.Errorf("the view names a command line:\n%s", text)
	}
	m := hintRE.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the view names no crumb_read call:\n%s", text)
	}
	call := func(args string) ownAnswer {
		var a map[string]any
		json.Unmarshal([]byte(args), &a)
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "crumb_read", Arguments: a})
		if err != nil {
			t.Fatalf("crumb_read %s: %v", args, err)
		}
		raw, _ := json.Marshal(r)
		var out ownAnswer
		json.Unmarshal(raw, &out)
		return out
	}
	gz := readBlobs(t, call, m[1])
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatalf("what crumb_read gives back is not the gzip blob: %v", err)
	}
	back, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(back, input) {
		t.Errorf("the blob gunzips to %d bytes (%v), not the input's %d", len(back), err, len(input))
	}
}
