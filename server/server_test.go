package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// testServer is a real HTTP server on loopback over disk stores in a
// temporary directory.
type testServer struct {
	*httptest.Server
	s    *server.Server
	root string
}

func newServer(t testing.TB, opts server.Options) *testServer {
	t.Helper()
	root := t.TempDir()
	if opts.Open == nil {
		opts.Open = server.DirOpener(root, store.DirOptions{ManualGC: true})
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	return &testServer{Server: hs, s: s, root: root}
}

// answer is a response read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not JSON: %v\n%s", a.status, err, a.body)
	}
	return m
}

// errCode returns the error code of an error answer.
func (a answer) errCode(t testing.TB) string {
	t.Helper()
	e, ok := a.json(t)["error"].(map[string]any)
	if !ok {
		t.Fatalf("answer %d has no error: %s", a.status, a.body)
	}
	if e["message"] == "" {
		t.Fatalf("error without a message: %s", a.body)
	}
	return e["code"].(string)
}

func (ts *testServer) do(t testing.TB, method, path, token string, body io.Reader, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

// follow performs a continuation's "http" call.
func (ts *testServer) follow(t testing.TB, next map[string]any, token string) answer {
	t.Helper()
	h, ok := next["http"].(map[string]any)
	if !ok {
		t.Fatalf("continuation without http: %v", next)
	}
	if _, ok := next["argv"].([]any); !ok {
		t.Fatalf("continuation without argv: %v", next)
	}
	path := h["path"].(string)
	if q, _ := h["query"].(string); q != "" {
		path += "?" + q
	}
	return ts.do(t, h["method"].(string), path, token, nil)
}

// damage flips a bit of the default namespace's stored copy of ref, past
// its first 100 bytes.
func (ts *testServer) damage(t testing.TB, ref string) {
	t.Helper()
	blob := filepath.Join(ts.root, server.DefaultNamespace, "objects", ref[:2], ref)
	data, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	data[100] ^= 1
	if err := os.WriteFile(blob, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// binaryBytes is 200 KiB of content that sniffs as binary.
func binaryBytes() []byte {
	bin := make([]byte, 200<<10)
	for i := range bin {
		bin[i] = byte(i*7 + i/251)
	}
	return bin
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func numberedLines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %06d worker=%d served request in %dms\n", i, i%7, i%97)
	}
	return b.Bytes()
}

var lineNo = regexp.MustCompile(`(?m)^line (\d{6}) `)

func linesIn(text string) []int {
	var out []int
	for _, m := range lineNo.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

func TestRoutesMatchOpenAPI(t *testing.T) {
	s, err := server.New(server.Options{Open: server.DirOpener(t.TempDir(), store.DirOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(server.OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	routes := s.Routes()
	sort.Strings(documented)
	sort.Strings(routes)
	if !slices.Equal(documented, routes) {
		t.Errorf("routes and openapi.json differ:\nserved:     %v\ndocumented: %v", routes, documented)
	}
	ts := newServer(t, server.Options{})
	if a := ts.do(t, "GET", "/openapi.json", "", nil); a.status != 200 || !bytes.Equal(a.body, server.OpenAPI) {
		t.Errorf("GET /openapi.json: %d", a.status)
	}
}

// TestFollowToEnd posts a large log and follows the continuations over HTTP
// to the end: every line after the view's head is read exactly once, in
// order, and the raw bytes are the posted ones. The view is asked for at
// 600 tokens; the pages keep to the server's page budget (2,000 tokens
// unless Options.PageBudget says otherwise), not to the view's: they are
// as many as pages of that budget read from the store.
func TestFollowToEnd(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       server.Options
		pageBudget int
	}{
		{"default pages", server.Options{}, crumb.DefaultPageBudget},
		{"page budget 700", server.Options{PageBudget: 700}, 700},
	} {
		t.Run(tc.name, func(t *testing.T) { followToEnd(t, tc.opts, tc.pageBudget) })
	}
}

func followToEnd(t *testing.T, opts server.Options, pageBudget int) {
	ts := newServer(t, opts)
	body := numberedLines(20000)
	a := ts.do(t, "POST", "/v1/results?kind=text&tool=tail&budget=600", "", bytes.NewReader(body))
	if a.status != 200 {
		t.Fatalf("POST: %d %s", a.status, a.body)
	}
	v := a.json(t)
	ref, _ := v["ref"].(string)
	next, _ := v["next"].(map[string]any)
	if ref == "" || next == nil {
		t.Fatalf("a 20,000-line log was not projected: %s", a.body)
	}
	rc := v["receipt"].(map[string]any)
	if rc["output"] != "projected" || rc["stored"] != true {
		t.Fatalf("receipt: %v", rc)
	}
	// The view shows a head and a tail; the continuations read what lies
	// between them.
	shown := linesIn(v["view"].(string))
	want, tail := 1, 0
	for i, n := range shown {
		if n != want {
			tail = n
			if !slices.Equal(shown[i:], seq(n, 20000)) {
				t.Fatalf("the view's tail is not lines %d-20000: %v", n, shown[i:])
			}
			break
		}
		want++
	}
	if tail == 0 {
		t.Fatalf("the view shows no tail: %v", shown)
	}
	first, _ := next["lines"].(string)
	if !strings.HasPrefix(first, strconv.Itoa(want)+":") {
		t.Fatalf("the first continuation reads %v, want lines from %d", first, want)
	}
	pages := 0
	for next != nil {
		a := ts.follow(t, next, "")
		if a.status != 200 {
			t.Fatalf("following %v: %d %s", next["http"], a.status, a.body)
		}
		p := a.json(t)
		if n := tokens.O200k().Count(p["page"].(string)); n > pageBudget {
			t.Fatalf("page %d is %d tokens, over the page budget of %d", pages+1, n, pageBudget)
		}
		for _, n := range linesIn(p["page"].(string)) {
			if n != want {
				t.Fatalf("page %d shows line %d, want line %d (a gap or an overlap)", pages+1, n, want)
			}
			want++
		}
		next, _ = p["next"].(map[string]any)
		pages++
		if pages > 1000 {
			t.Fatal("the continuations do not end")
		}
	}
	if want != tail {
		t.Fatalf("the continuations ended before line %d; the view's tail starts at %d", want, tail)
	}
	if n := pagesOf(t, filepath.Join(ts.root, server.DefaultNamespace), ref, first, pageBudget); pages != n {
		t.Errorf("reading the log back took %d pages; pages of %d tokens take %d", pages, pageBudget, n)
	}
	raw := ts.do(t, "GET", "/v1/results/"+ref+"/raw", "", nil)
	if raw.status != 200 || !bytes.Equal(raw.body, body) {
		t.Fatalf("raw: %d, %d bytes, want the %d posted", raw.status, len(raw.body), len(body))
	}
	if cl := raw.header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %s, want %d", cl, len(body))
	}
	if d := raw.header.Get("X-Crumb-Digest"); d == "" || d != rc["digest"] {
		t.Errorf("X-Crumb-Digest %q, receipt digest %v", d, rc["digest"])
	}
	t.Logf("read a 20,000-line log in %d pages after its view", pages)
}

// pagesOf counts the pages of budget tokens that read lines of ref from
// the directory store dir, following each page's next read to the end.
func pagesOf(t *testing.T, dir, ref, lines string, budget int) int {
	t.Helper()
	st, err := store.OpenDir(dir, store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := recall.ParseRanges(lines)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := recall.Request{Ref: store.Ref(ref)}
	req.SetRanges(false, rs)
	opts := recall.Options{Budget: budget, Line: crumb.LineRenderer(ctx, st)}
	for n := 1; ; n++ {
		p, err := recall.Read(ctx, st, req, opts)
		if err != nil {
			t.Fatal(err)
		}
		if p.Next == nil {
			return n
		}
		req = *p.Next
	}
}

// TestHeaders gives the result's facts as X-Crumb-* headers.
func TestHeaders(t *testing.T) {
	ts := newServer(t, server.Options{})
	out := []byte(strings.Repeat("ok  \tpkg/a\t0.1s\n", 400) + "--- FAIL: TestX (0.00s)\n    x_test.go:9: boom\nFAIL\n")
	a := ts.do(t, "POST", "/v1/results", "", bytes.NewReader(out), "X-Crumb-Kind", "command", "X-Crumb-Exit-Code", "1",
		"X-Crumb-Tool", "go test", "X-Crumb-Budget", "300", "X-Crumb-Args", `{"cmd":"go test ./..."}`, "X-Crumb-Intent", "failing test")
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	v := a.json(t)
	rc := v["receipt"].(map[string]any)
	if rc["kind"] != "command" || rc["tool"] != "go test" || rc["budget"] != 300.0 {
		t.Errorf("receipt ignores the headers: %v", rc)
	}
	if !strings.Contains(v["view"].(string), "TestX") {
		t.Errorf("the view lost the failing test:\n%s", v["view"])
	}
	// A small result passes through, with neither ref nor next.
	a = ts.do(t, "POST", "/v1/results", "", strings.NewReader("hello\n"))
	if v := a.json(t); v["view"] != "hello\n" || v["ref"] != nil || v["next"] != nil {
		t.Errorf("a small result did not pass through: %s", a.body)
	}
}

func TestAuthAndNamespaces(t *testing.T) {
	var tok server.Tokens
	if err := tok.ParseTokens("alpha-token:team1,beta-token:team2"); err != nil {
		t.Fatal(err)
	}
	ts := newServer(t, server.Options{Tokens: &tok})
	body := numberedLines(5000)
	for _, c := range []struct{ method, path, token string }{
		{"POST", "/v1/results", ""}, {"POST", "/v1/results", "wrong"}, {"GET", "/v1/results", ""},
		{"GET", "/v1/results/0123456789abcdef", ""}, {"GET", "/metrics", ""}, {"POST", "/v1/compact", "wrong"},
	} {
		a := ts.do(t, c.method, c.path, c.token, bytes.NewReader(body))
		if a.status != 401 || a.errCode(t) != server.CodeUnauthorized || a.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s %s with token %q: %d %s, want 401 unauthorized", c.method, c.path, c.token, a.status, a.body)
		}
	}
	if a := ts.do(t, "GET", "/healthz", "", nil); a.status != 200 {
		t.Errorf("healthz needs no token: %d", a.status)
	}
	a := ts.do(t, "POST", "/v1/results?kind=text", "alpha-token", bytes.NewReader(body))
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	ref := a.json(t)["ref"].(string)
	for _, path := range []string{"/v1/results/" + ref, "/v1/results/" + ref + "/raw", "/v1/results/" + ref + "/grep?pattern=line"} {
		if a := ts.do(t, "GET", path, "beta-token", nil); a.status != 404 || a.errCode(t) != server.CodeMissing {
			t.Errorf("team2 GET %s: %d %s, want 404 missing", path, a.status, a.body)
		}
		if a := ts.do(t, "GET", path, "alpha-token", nil); a.status != 200 {
			t.Errorf("team1 GET %s: %d %s", path, a.status, a.body)
		}
	}
	if a := ts.do(t, "GET", "/v1/results", "beta-token", nil); a.json(t)["total"] != 0.0 {
		t.Errorf("team2 lists team1's results: %s", a.body)
	}
	if a := ts.do(t, "GET", "/v1/results", "alpha-token", nil); a.json(t)["total"] != 1.0 {
		t.Errorf("team1's list: %s", a.body)
	}
	if _, err := os.Stat(filepath.Join(ts.root, "team1", "meta")); err != nil {
		t.Errorf("no store directory for team1: %v", err)
	}
}

func TestTokens(t *testing.T) {
	var tok server.Tokens
	err := tok.ReadTokens(strings.NewReader("# tokens\n\nsecret1 ns-a\n  secret2   ns_b  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tok.ParseTokens("secret3:ns.c"); err != nil {
		t.Fatal(err)
	}
	for token, want := range map[string]string{"secret1": "ns-a", "secret2": "ns_b", "secret3": "ns.c"} {
		if ns, ok := tok.Namespace(token); !ok || ns != want {
			t.Errorf("token %s: %q %v, want %s", token, ns, ok, want)
		}
	}
	if _, ok := tok.Namespace("secret"); ok {
		t.Error("an unknown token is accepted")
	}
	for _, bad := range []string{"onlytoken\n", "a b c\n", "tok ../up\n", "tok .hidden\n", "tok ns\ntok ns2\n"} {
		var tk server.Tokens
		if err := tk.ReadTokens(strings.NewReader(bad)); err == nil {
			t.Errorf("token file %q accepted", bad)
		}
	}
	for _, bad := range []string{"tok", "tok:", ":ns", "a:ns,a:ns2", "t:n/s"} {
		var tk server.Tokens
		if err := tk.ParseTokens(bad); err == nil {
			t.Errorf("CRUMB_TOKENS=%q accepted", bad)
		}
	}
}

// TestLimits: a body over the limit is refused with 413 and leaves nothing
// in the store, whether its length is announced or not.
func TestLimits(t *testing.T) {
	ts := newServer(t, server.Options{MaxResult: 64 << 10, MaxRequest: 1 << 10})
	body := numberedLines(4000) // about 200 KB
	if a := ts.do(t, "POST", "/v1/results?kind=text", "", bytes.NewReader(body)); a.status != 413 || a.errCode(t) != server.CodeTooLarge {
		t.Errorf("announced length: %d %s", a.status, a.body)
	}
	// io.MultiReader hides the length: the body is sent chunked.
	if a := ts.do(t, "POST", "/v1/results?kind=text", "", io.MultiReader(bytes.NewReader(body))); a.status != 413 || a.errCode(t) != server.CodeTooLarge {
		t.Errorf("chunked: %d %s", a.status, a.body)
	}
	if a := ts.do(t, "GET", "/v1/results", "", nil); a.json(t)["total"] != 0.0 {
		t.Errorf("a refused result is listed: %s", a.body)
	}
	thread := `[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]`
	if a := ts.do(t, "POST", "/v1/compact", "", io.MultiReader(strings.NewReader(thread))); a.status != 413 || a.errCode(t) != server.CodeTooLarge {
		t.Errorf("compact: %d %s", a.status, a.body)
	}
	if a := ts.do(t, "POST", "/v1/results?kind=text", "", bytes.NewReader(body[:60<<10])); a.status != 200 {
		t.Errorf("a result under the limit: %d %s", a.status, a.body)
	}
}

func TestErrors(t *testing.T) {
	ts := newServer(t, server.Options{})
	text := ts.do(t, "POST", "/v1/results?kind=text&budget=200", "", bytes.NewReader(numberedLines(3000))).json(t)["ref"].(string)
	binRef := ts.do(t, "POST", "/v1/results?kind=binary", "", bytes.NewReader(binaryBytes())).json(t)["ref"].(string)
	for _, c := range []struct {
		method, path string
		body         string
		status       int
		code         string
	}{
		{"GET", "/v1/results/XYZ", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/0123456789abcdef", "", 404, server.CodeMissing},
		{"GET", "/v1/results/0123456789abcdef/raw", "", 404, server.CodeMissing},
		{"GET", "/v1/results/" + text + "?lines=99999:", "", 416, server.CodeOutOfRange},
		{"GET", "/v1/results/" + text + "?lines=9:3", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "?lines=1:2&bytes=0:9", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "?lines=abc", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "?rev=ffffffffffff", "", 409, server.CodeRevision},
		{"GET", "/v1/results/" + text + "?colour=red", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "?budget=0", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "/grep", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + text + "/grep?pattern=(", "", 400, server.CodeBadRequest},
		{"GET", "/v1/results/" + binRef, "", 422, server.CodeBinary},
		{"POST", "/v1/results/" + text + "/query", ".a", 400, server.CodeBadRequest},
		{"POST", "/v1/results?kind=nonsense", "x", 400, server.CodeBadRequest},
		{"POST", "/v1/results?args=notjson", "x", 400, server.CodeBadRequest},
		{"POST", "/v1/results?exit_code=one", "x", 400, server.CodeBadRequest},
		{"POST", "/v1/compact", "not json", 400, server.CodeBadRequest},
		{"POST", "/v1/compact?format=xml", "[]", 400, server.CodeBadRequest},
		{"GET", "/v2/nothing", "", 404, server.CodeMissing},
		{"DELETE", "/v1/results", "", 405, server.CodeBadRequest},
	} {
		a := ts.do(t, c.method, c.path, "", strings.NewReader(c.body))
		if a.status != c.status || a.errCode(t) != c.code {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, a.status, a.body, c.status, c.code)
		}
	}
	// Damage the stored copy: reads answer broken.
	ts.damage(t, text)
	if a := ts.do(t, "GET", "/v1/results/"+text+"?lines=1:5", "", nil); a.status != 500 || a.errCode(t) != server.CodeBroken {
		t.Errorf("damaged: %d %s", a.status, a.body)
	}
	// A raw read that meets the damage mid-stream ends the connection
	// instead of answering short.
	req, _ := http.NewRequest("GET", ts.URL+"/v1/results/"+text+"/raw", nil)
	if resp, err := ts.Client().Do(req); err == nil {
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && rerr == nil {
			t.Errorf("a damaged raw read succeeded with %d bytes", len(b))
		}
	}
}

func TestGrepQueryPointer(t *testing.T) {
	ts := newServer(t, server.Options{})
	ref := ts.do(t, "POST", "/v1/results?kind=text&budget=300", "", bytes.NewReader(numberedLines(20000))).json(t)["ref"].(string)
	a := ts.do(t, "GET", "/v1/results/"+ref+"/grep?pattern=^line+0[0-9]{2}000+&budget=200", "", nil)
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	var found []int
	p := a.json(t)
	for {
		for _, m := range regexp.MustCompile(`(?m)^(\d+):line`).FindAllStringSubmatch(p["page"].(string), -1) {
			n, _ := strconv.Atoi(m[1])
			found = append(found, n)
		}
		next, _ := p["next"].(map[string]any)
		if next == nil {
			break
		}
		if next["http"].(map[string]any)["path"] != "/v1/results/"+ref+"/grep" {
			t.Fatalf("grep continues with %v", next["http"])
		}
		p = ts.follow(t, next, "").json(t)
	}
	want := []int{1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000}
	if !slices.Equal(found, want) {
		t.Errorf("grep found lines %v, want %v", found, want)
	}

	doc := `{"items":[` + strings.Repeat(`{"name":"a","status":"ok"},`, 500) + `{"name":"needle","status":"failed"}]}`
	jref := ts.do(t, "POST", "/v1/results?kind=json&budget=200", "", strings.NewReader(doc)).json(t)["ref"].(string)
	a = ts.do(t, "POST", "/v1/results/"+jref+"/query", "", strings.NewReader(`.items[] | select(.status == "failed") | .name`))
	if a.status != 200 || !strings.Contains(a.json(t)["page"].(string), "needle") {
		t.Errorf("query: %d %s", a.status, a.body)
	}
	a = ts.do(t, "GET", "/v1/results/"+jref+"?pointer=/items/500/name", "", nil)
	if a.status != 200 || !strings.Contains(a.json(t)["page"].(string), "needle") {
		t.Errorf("pointer: %d %s", a.status, a.body)
	}
	a = ts.do(t, "GET", "/v1/results/"+jref+"?bytes=0:9", "", nil)
	if a.status != 200 || !strings.Contains(a.json(t)["page"].(string), `{"items":`) {
		t.Errorf("bytes: %d %s", a.status, a.body)
	}
}

// bashThread is an OpenAI request body of n bash calls, each answered with
// 300 numbered lines.
func bashThread(n int) []byte {
	var msgs []map[string]any
	msgs = append(msgs, map[string]any{"role": "system", "content": "You fix builds."}, map[string]any{"role": "user", "content": "Make the tests pass."})
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "bash", "arguments": `{"cmd":"go test ./..."}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": string(numberedLines(300))})
	}
	thread, _ := json.Marshal(map[string]any{"model": "gpt-x", "messages": msgs})
	return thread
}

// TestCompact compacts a thread over HTTP as history.Compact does, naming
// each read as the HTTP request that performs it (the "http" of a view's
// continuation), and the reads work in the same namespace only.
func TestCompact(t *testing.T) {
	var tok server.Tokens
	tok.ParseTokens("t1:one,t2:two")
	ts := newServer(t, server.Options{Tokens: &tok})
	thread := bashThread(30)
	a := ts.do(t, "POST", "/v1/compact?budget=3000&format=openai", "t1", bytes.NewReader(thread))
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	before, _ := strconv.Atoi(a.header.Get("X-Crumb-Tokens-Before"))
	after, _ := strconv.Atoi(a.header.Get("X-Crumb-Tokens-After"))
	if after <= 0 || after >= before/4 {
		t.Errorf("tokens %d -> %d", before, after)
	}
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	httpRead := func(r recall.Request) string { return "GET /v1/results/" + string(r.Ref) }
	want, err := history.Compact(t.Context(), thread, history.Options{Store: st, Budget: 3000, Format: history.OpenAI, Hint: httpRead})
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.TrimSuffix(a.body, []byte("\n")); !bytes.Equal(got, want.Body) {
		t.Errorf("the sidecar's compaction differs from history.Compact's with HTTP reads")
	}
	// Without a budget, the old results are breadcrumbs.
	crumbed := ts.do(t, "POST", "/v1/compact?format=openai", "t1", bytes.NewReader(thread))
	if crumbed.status != 200 {
		t.Fatalf("%d %s", crumbed.status, crumbed.body)
	}
	reads := regexp.MustCompile(`read (it|them) with: GET (/v1/results/[0-9a-f]{16})\b`).FindAllStringSubmatch(string(a.body)+string(crumbed.body), -1)
	if i := bytes.Index(append(a.body, crumbed.body...), []byte("crumb read")); i >= 0 {
		t.Errorf("the sidecar's compaction names a crumb command: %.300s", append(a.body, crumbed.body...)[i:])
	}
	kinds := map[string]int{}
	for _, r := range reads {
		kinds[r[1]]++
		if a := ts.do(t, "GET", r[2], "t1", nil); a.status != 200 || a.json(t)["page"] == "" {
			t.Errorf("GET %s as the compacted thread says: %d %.200s", r[2], a.status, a.body)
		}
	}
	if kinds["it"] == 0 || kinds["them"] == 0 {
		t.Errorf("reads named %v: want breadcrumbs (it) and summary blocks (them)", kinds)
	}
	refs := regexp.MustCompile(`\b[0-9a-f]{16}\b`).FindAllString(string(a.body), -1)
	if len(refs) == 0 {
		t.Fatal("the compacted thread names no ref")
	}
	if a := ts.do(t, "GET", "/v1/results/"+refs[0]+"/raw", "t1", nil); a.status != 200 {
		t.Errorf("the ref %s of the compaction: %d %s", refs[0], a.status, a.body)
	}
	if a := ts.do(t, "GET", "/v1/results/"+refs[0]+"/raw", "t2", nil); a.status != 404 {
		t.Errorf("another namespace reads the compaction's ref %s: %d", refs[0], a.status)
	}
}

// TestCompactOverBudget compacts a thread whose recent turns alone are over
// the budget: the thread comes back in full, and the headers say it is over
// budget, what each part takes and which parts do not fit, in the words
// crumb compact prints.
func TestCompactOverBudget(t *testing.T) {
	ts := newServer(t, server.Options{})
	thread := bashThread(30)
	a := ts.do(t, "POST", "/v1/compact?budget=500&format=openai", "", bytes.NewReader(thread))
	if a.status != 200 || !json.Valid(a.body) {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if a.header.Get("X-Crumb-Over-Budget") != "true" || a.header.Get("X-Crumb-Budget") != "500" {
		t.Errorf("over budget %q, budget %q", a.header.Get("X-Crumb-Over-Budget"), a.header.Get("X-Crumb-Budget"))
	}
	sum := 0
	for _, part := range []string{"Task", "Summary", "Older", "Recent"} {
		n, err := strconv.Atoi(a.header.Get("X-Crumb-Tokens-" + part))
		if err != nil {
			t.Fatalf("X-Crumb-Tokens-%s: %v", part, err)
		}
		sum += n
	}
	if after, _ := strconv.Atoi(a.header.Get("X-Crumb-Tokens-After")); sum != after || after <= 500 {
		t.Errorf("the parts add up to %d, tokens after %d", sum, after)
	}
	if note := a.header.Get("X-Crumb-Budget-Note"); !strings.HasPrefix(note, "over budget: ") || !strings.Contains(note, "the task and the recent turns alone are over the budget") {
		t.Errorf("X-Crumb-Budget-Note: %q", note)
	}
}

func TestMetrics(t *testing.T) {
	ts := newServer(t, server.Options{})
	ref := ts.do(t, "POST", "/v1/results?kind=text", "", bytes.NewReader(numberedLines(5000))).json(t)["ref"].(string)
	ts.do(t, "GET", "/v1/results/"+ref+"?lines=10:20", "", nil)
	ts.do(t, "GET", "/v1/results/"+ref+"/raw", "", nil)
	a := ts.do(t, "GET", "/metrics", "", nil)
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	m := string(a.body)
	for _, want := range []string{
		`crumb_results_kept_total{namespace="default"} 1`,
		`crumb_views_total{namespace="default",output="projected"} 1`,
		`crumb_reads_total{mode="lines",namespace="default"} 1`,
		`crumb_reads_total{mode="raw",namespace="default"} 1`,
		`crumb_http_request_duration_seconds_count{code="200",route="POST /v1/results"} 1`,
		`crumb_http_request_duration_seconds_count{code="200",route="GET /v1/results/{ref}"} 1`,
		`crumb_store_results{namespace="default"} 1`,
		`crumb_bytes_kept_out_total{namespace="default"}`,
		`crumb_tokens_kept_out_total{namespace="default"}`,
		`crumb_store_bytes{namespace="default"}`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestBodyStreamed posts a 128 MiB result: the server allocates far less
// than the result, because the body streams into the store.
func TestBodyStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("posts 128 MiB")
	}
	ts := newServer(t, server.Options{})
	const size = 128 << 20
	line := []byte("2026-12-01T12:00:00Z INFO worker=3 request served in 12ms\n")
	body := io.LimitReader(&repeater{line: line}, size)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	a := ts.do(t, "POST", "/v1/results?kind=text", "", body)
	runtime.ReadMemStats(&m1)
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if rc := a.json(t)["receipt"].(map[string]any); rc["bytes"] != float64(size) {
		t.Fatalf("stored %v bytes, want %d", rc["bytes"], size)
	}
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("posting %d MiB allocated %d MiB in all (client and server)", size>>20, alloc>>20)
	if alloc > size/2 {
		t.Errorf("posting %d MiB allocated %d MiB: the body is held in memory", size>>20, alloc>>20)
	}
}

type repeater struct {
	line []byte
	off  int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8377": true, "localhost:80": true, "[::1]:9000": true, "127.3.4.5:1": true,
		"0.0.0.0:8377": false, ":8377": false, "[::]:80": false, "10.0.0.2:80": false, "example.com:80": false,
	} {
		if got := server.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestRawHeadAndList: HEAD /raw gives the size and digest without the
// bytes; the list is most recently used first and takes a limit.
func TestRawHeadAndList(t *testing.T) {
	ts := newServer(t, server.Options{})
	var refs []string
	for i := 0; i < 3; i++ {
		body := numberedLines(3000 + i)
		refs = append(refs, ts.do(t, "POST", "/v1/results?kind=text&tool=t"+strconv.Itoa(i), "", bytes.NewReader(body)).json(t)["ref"].(string))
	}
	a := ts.do(t, "HEAD", "/v1/results/"+refs[1]+"/raw", "", nil)
	if a.status != 200 || len(a.body) != 0 || a.header.Get("Content-Length") != strconv.Itoa(len(numberedLines(3001))) || a.header.Get("X-Crumb-Digest") == "" {
		t.Errorf("HEAD raw: %d %v %d bytes", a.status, a.header, len(a.body))
	}
	l := ts.do(t, "GET", "/v1/results?limit=2", "", nil).json(t)
	items := l["results"].([]any)
	if l["total"] != 3.0 || len(items) != 2 {
		t.Fatalf("list: %v", l)
	}
	for _, it := range items {
		m := it.(map[string]any)
		if m["kind"] != "text" || !strings.HasPrefix(m["tool"].(string), "t") || m["size"].(float64) < 1000 || m["lines"].(float64) < 3000 {
			t.Errorf("list item %v", m)
		}
		if _, ok := m["chunks"]; ok {
			t.Errorf("list items carry chunk digests: %v", m)
		}
	}
}

// TestStats sums up the namespace's results as crumb stats does.
func TestStats(t *testing.T) {
	ts := newServer(t, server.Options{})
	ts.do(t, "POST", "/v1/results?kind=text", "", bytes.NewReader(numberedLines(5000)))
	ts.do(t, "POST", "/v1/results?kind=text", "", bytes.NewReader(numberedLines(6000)))
	s := ts.do(t, "GET", "/v1/stats", "", nil).json(t)
	if s["results"] != 2.0 || s["projected"] != 2.0 || s["saved_bytes"].(float64) < float64(len(numberedLines(5000))) || s["saved_tokens"].(float64) <= 0 {
		t.Errorf("stats: %v", s)
	}
	if _, ok := s["store"]; ok {
		t.Errorf("stats show the store's path: %v", s)
	}
}

// TestMuxAnswers: a path the mux redirects is redirected, and a method a
// path does not take is answered with Allow and a JSON error.
func TestMuxAnswers(t *testing.T) {
	ts := newServer(t, server.Options{})
	req, _ := http.NewRequest("GET", ts.URL+"/v1//results", nil)
	resp, err := (&http.Transport{}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "/v1/results" {
		t.Errorf("GET /v1//results: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	a := ts.do(t, "PUT", "/v1/results", "", nil)
	if a.status != 405 || a.errCode(t) != server.CodeBadRequest || !strings.Contains(a.header.Get("Allow"), "POST") {
		t.Errorf("PUT /v1/results: %d, Allow %q, %s", a.status, a.header.Get("Allow"), a.body)
	}
}

// TestStatsCountReads: every page read back through the sidecar (lines,
// bytes, a JSON pointer, a search, a jq query) counts in GET /v1/stats, as
// crumb read and the MCP proxy count theirs, so its net savings are net of
// what a fleet read back.
func TestStatsCountReads(t *testing.T) {
	ts := newServer(t, server.Options{})
	text := ts.do(t, "POST", "/v1/results?kind=text&budget=200", "", bytes.NewReader(numberedLines(3000))).json(t)["ref"].(string)
	doc := `{"items":[` + strings.Repeat(`{"name":"a","status":"ok"},`, 500) + `{"name":"needle","status":"failed"}]}`
	js := ts.do(t, "POST", "/v1/results?kind=json&budget=200", "", strings.NewReader(doc)).json(t)["ref"].(string)
	reads := []struct {
		method, path, body string
	}{
		{"GET", "/v1/results/" + text + "?lines=10:20", ""},
		{"GET", "/v1/results/" + text + "?bytes=0:4096", ""},
		{"GET", "/v1/results/" + text + "/grep?pattern=line+0012", ""},
		{"GET", "/v1/results/" + js + "?pointer=/items/500", ""},
		{"POST", "/v1/results/" + js + "/query", ".items[500].name"},
	}
	const rounds = 3
	for range rounds {
		for _, r := range reads {
			if a := ts.do(t, r.method, r.path, "", strings.NewReader(r.body)); a.status != 200 {
				t.Fatalf("%s %s: %d %s", r.method, r.path, a.status, a.body)
			}
		}
	}
	s := ts.do(t, "GET", "/v1/stats", "", nil).json(t)
	if want := float64(rounds * len(reads)); s["reads"] != want {
		t.Errorf("stats count %v reads after %v pages read back: %v", s["reads"], want, s)
	}
	if rt, _ := s["read_tokens"].(float64); rt <= 0 || s["net_saved_tokens"] != s["saved_tokens"].(float64)-rt {
		t.Errorf("read tokens %v, net saved %v of %v saved", s["read_tokens"], s["net_saved_tokens"], s["saved_tokens"])
	}
}
