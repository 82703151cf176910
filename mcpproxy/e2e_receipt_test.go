package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// TestSpilledReceipt: the receipt of a large real result whose text the
// proxy stored apart counts what the whole result costs a model, as the
// receipt of the same result projected whole does, not the short skeleton
// that stands for it in the store. The result is the filesystem server's
// read_text_file of a 2 MB file of real Go source (tabs, quotes and
// newlines, which JSON escapes, and some non-ASCII), whose text comes back
// twice: in content and in structuredContent.
func TestSpilledReceipt(t *testing.T) {
	bin := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	path := filepath.Join(root, "http.go.txt")
	if err := os.WriteFile(path, goSource(t, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	args := `{"path":` + strconv.Quote(path) + `}`

	// The result as the server sends it.
	rd := rawDirect(t, []string{bin, root})
	rd.initialize()
	direct := rd.toolCall("read_text_file", args)
	if direct.Error != nil || len(direct.Result) < 4<<20 {
		t.Fatalf("read_text_file: %+v, %d bytes", direct.Error, len(direct.Result))
	}
	raw := []byte(direct.Result)
	cost, ok := project.MCPCostOf(raw)
	if !ok {
		t.Fatalf("the server's result is not a CallToolResult: %.200s", raw)
	}
	whole := tokens.Estimate(cost.Text) + cost.Images

	// The same result projected whole, unspilled, by the library.
	unspilled := projectWhole(t, 2000, "read_text_file", raw)
	if unspilled.Receipt.Tokens == nil {
		t.Fatalf("projecting the result whole: no tokens in %+v", unspilled.Receipt)
	}

	// Through the proxy, which stores the text apart: the store records
	// the receipt's counts with the result.
	cfg := testConfig(t, 2000)
	c, _ := startRaw(t, cfg, &CommandTransport{Command: exec.Command(bin, root), Stderr: testWriter{t}})
	c.initialize()
	if resp := c.toolCall("read_text_file", args); resp.Error != nil || len(resp.Result) > 64<<10 {
		t.Fatalf("through crumb: %+v, %d bytes", resp.Error, len(resp.Result))
	}
	list, err := cfg.Guard.Store.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rec *store.Info
	for i, info := range list {
		if info.Kind == string(crumb.KindMCP) && info.Tool == "read_text_file" {
			rec = &list[i]
		}
	}
	if rec == nil || rec.Size > 4<<10 {
		t.Fatalf("the store holds no skeleton of the result: %+v", list)
	}
	proxied, _ := strconv.Atoi(rec.Attrs["tokens"])
	viewTokens, _ := strconv.Atoi(rec.Attrs["view_tokens"])

	// The proxy's spill and the Guard, for the receipt itself.
	p, err := New(testConfig(t, 2000))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	body, parts, err := p.spill(context.Background(), bytes.NewReader(raw), 0, int64(len(raw)), store.Meta{Tool: "read_text_file"})
	if err != nil || len(parts) != 2 {
		t.Fatalf("spill: %d parts, %v", len(parts), err)
	}
	spills, closeSpills, err := (&session{p: p}).openSpilled(context.Background(), parts)
	defer closeSpills()
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.guard.Project(context.Background(), crumb.Result{Tool: "read_text_file", Args: json.RawMessage(args), Kind: crumb.KindMCP, Body: body, Spilled: spills})
	if err != nil {
		t.Fatal(err)
	}
	rc := v.Receipt
	t.Logf("%d-byte result, %d-byte skeleton: whole estimate %d, unspilled receipt %d (%s), spilled receipt %d (%s), proxy's record %d (%s), view %d",
		len(raw), len(body), whole, *unspilled.Receipt.Tokens, unspilled.Receipt.TokensBy, deref(rc.Tokens), rc.TokensBy, proxied, rec.Attrs["tokens_by"], rc.ViewTokens)

	if rc.Bytes != int64(len(raw)) {
		t.Errorf("the receipt's bytes are %d, the result's %d (skeleton %d)", rc.Bytes, len(raw), len(body))
	}
	if rc.Tokens == nil || rc.TokensBy != tokens.EstimateName {
		t.Fatalf("the receipt's tokens are %d by %q, want an estimate", deref(rc.Tokens), rc.TokensBy)
	}
	n := *rc.Tokens
	if n < rc.ViewTokens || proxied < viewTokens {
		t.Errorf("the result counts fewer tokens than its view: receipt %d < %d, proxy's record %d < %d", n, rc.ViewTokens, proxied, viewTokens)
	}
	// The same estimate of the same text: within the notes' difference.
	if d := n - whole; d < -whole/100 || d > whole/100 {
		t.Errorf("the receipt counts %d tokens, the whole result %d", n, whole)
	}
	// The unspilled receipt scales an estimate of the result's start and
	// end to its size: near, not equal.
	if u := *unspilled.Receipt.Tokens; n < u*95/100 || n > u*105/100 {
		t.Errorf("the receipt counts %d tokens, the same result unspilled %d", n, u)
	}
	if proxied != n || rec.Attrs["tokens_by"] != rc.TokensBy {
		t.Errorf("the proxy recorded %s tokens by %q, the receipt %d by %q", rec.Attrs["tokens"], rec.Attrs["tokens_by"], n, rc.TokensBy)
	}
}

// goSource returns at least size bytes of real text: the Go sources under
// net in the standard library, in the order of their paths, as many as it
// takes.
func goSource(t *testing.T, size int) []byte {
	t.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	var b bytes.Buffer
	errEnough := errors.New("enough")
	err = filepath.WalkDir(filepath.Join(string(bytes.TrimSpace(goroot)), "src", "net"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b.Write(data)
		if b.Len() >= size {
			return errEnough
		}
		return nil
	})
	if err != errEnough {
		t.Fatalf("the Go sources under net: %d bytes, under %d: %v", b.Len(), size, err)
	}
	return b.Bytes()
}

// deref returns *p, or -1 for nil.
func deref(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
