package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

// loadOpenAPI loads server.OpenAPI and checks it is a valid OpenAPI
// document, its references resolved.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(server.OpenAPI)
	if err != nil {
		t.Fatalf("loading openapi.json: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	return doc
}

// closeObjects makes every object schema reachable from the document's
// components refuse members it does not name, unless it says what other
// members it takes: the document leaves its objects open, so that a client
// that validates answers keeps working when a member is added, but the
// test must fail when the server answers a member the document does not
// describe.
func closeObjects(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.SchemaRef)
	walk = func(s *openapi3.SchemaRef) {
		if s == nil || s.Value == nil || seen[s.Value] {
			return
		}
		v := s.Value
		seen[v] = true
		if len(v.Properties) > 0 && v.AdditionalProperties.Has == nil && v.AdditionalProperties.Schema == nil {
			v.AdditionalProperties.Has = openapi3.Ptr(false)
		}
		for _, p := range v.Properties {
			walk(p)
		}
		walk(v.Items)
		walk(v.AdditionalProperties.Schema)
		for _, x := range slices.Concat(v.OneOf, v.AnyOf, v.AllOf) {
			walk(x)
		}
	}
	for _, s := range doc.Components.Schemas {
		walk(s)
	}
}

// unrouted names the document's responses to a request no operation takes,
// by status (see the document's description).
var unrouted = map[int]string{
	http.StatusMethodNotAllowed:  "MethodNotAllowed",
	http.StatusNotFound:          "NoRoute",
	http.StatusTemporaryRedirect: "Redirect",
}

// transportHeaders are the headers of HTTP itself, which an OpenAPI
// document does not list for every response.
var transportHeaders = []string{"Date", "Content-Type", "Content-Length", "Connection"}

// apiCase is a request and the status it gets.
type apiCase struct {
	ts           *testServer
	method, path string
	token, body  string
	hdr          []string
	status       int
}

// TestOpenAPIAnswers sends every route the requests that get each status
// the document lists for it, over loopback to a real server, and checks
// each answer against the document with kin-openapi's validator: the status
// is documented for the operation, the headers are the documented ones
// (and no others), the body is valid by the documented schema (and carries
// no member the schema does not name). A request that should be valid is
// checked against the document too. Every status the document lists must
// have been seen: the document describes what the routes answer, no more
// and no less.
func TestOpenAPIAnswers(t *testing.T) {
	doc := loadOpenAPI(t)
	closeObjects(doc)
	openapi3filter.RegisterBodyDecoder("application/vnd.google.protobuf", openapi3filter.FileBodyDecoder)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}

	open := newServer(t, server.Options{MaxResult: 1 << 20, MaxRequest: 64 << 10})
	var tok server.Tokens
	if err := tok.ParseTokens("s3cret:agents"); err != nil {
		t.Fatal(err)
	}
	authed := newServer(t, server.Options{Tokens: &tok})
	down := newServer(t, server.Options{Open: func(ns string) (store.Store, error) {
		return nil, errors.New("the store's disk is gone")
	}})
	closed := newServer(t, server.Options{})
	if err := closed.s.Close(); err != nil {
		t.Fatal(err)
	}

	post := func(path, body string) string {
		t.Helper()
		a := open.do(t, "POST", path, "", strings.NewReader(body))
		ref, _ := a.json(t)["ref"].(string)
		if a.status != 200 || ref == "" {
			t.Fatalf("POST %s: %d %s", path, a.status, a.body)
		}
		return ref
	}
	lines := string(numberedLines(3000))
	text := post("/v1/results?kind=text&budget=200", lines)
	js := post("/v1/results?kind=json&budget=200", `{"items":[`+strings.Repeat(`{"name":"a","status":"ok"},`, 500)+`{"name":"needle","status":"failed"}]}`)
	bin := binaryBytes()
	binRef := post("/v1/results?kind=binary", string(bin))
	broken := post("/v1/results?kind=text&budget=200", string(numberedLines(3001)))
	open.damage(t, broken)
	const missing = "0123456789abcdef"
	anthropic := `{"model":"claude-x","max_tokens":100,"system":"You fix builds.","messages":[{"role":"user","content":"Make the tests pass."},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"tu_1","name":"bash","input":{"cmd":"go test ./..."}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":` + strconv.Quote(lines[:20000]) + `}]}]}`

	cases := []apiCase{
		{ts: open, method: "POST", path: "/v1/results", body: "hello\n", status: 200},
		{ts: open, method: "POST", path: "/v1/results?kind=text&tool=tail&budget=200&intent=worker%3D3", body: lines, status: 200},
		{ts: open, method: "POST", path: "/v1/results", body: lines, status: 200, hdr: []string{"X-Crumb-Kind", "command", "X-Crumb-Exit-Code", "1",
			"X-Crumb-Tool", "go test", "X-Crumb-Budget", "300", "X-Crumb-Threshold", "300", "X-Crumb-Args", `{"cmd":"go test ./..."}`, "X-Crumb-Intent", "failing test"}},
		{ts: open, method: "POST", path: "/v1/results?kind=binary", body: string(bin), status: 200},
		{ts: down, method: "POST", path: "/v1/results?kind=text&budget=200", body: lines, status: 200},
		{ts: open, method: "POST", path: "/v1/results?colour=red", body: "x", status: 400},
		{ts: open, method: "POST", path: "/v1/results?args=%5B1%5D", body: "x", status: 400},
		{ts: open, method: "POST", path: "/v1/results", body: strings.Repeat(lines, 8), status: 413},
		{ts: closed, method: "POST", path: "/v1/results", body: "hello\n", status: 500},

		{ts: open, method: "GET", path: "/v1/results?limit=2", status: 200},
		{ts: open, method: "GET", path: "/v1/results?limit=0", status: 400},
		{ts: closed, method: "GET", path: "/v1/results", status: 500},
		{ts: down, method: "GET", path: "/v1/results", status: 503},

		{ts: open, method: "GET", path: "/v1/stats", status: 200},
		{ts: open, method: "GET", path: "/v1/stats?namespace=x", status: 400},
		{ts: closed, method: "GET", path: "/v1/stats", status: 500},
		{ts: down, method: "GET", path: "/v1/stats", status: 503},

		{ts: open, method: "GET", path: "/v1/results/" + text, status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + text + "?lines=10:20&n=true&budget=300", status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + text + "?bytes=0:4096", status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + js + "?pointer=/items/500", status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + binRef + "?lines=1:2", status: 200},
		{ts: open, method: "GET", path: "/v1/results/XYZ", status: 400},
		{ts: open, method: "GET", path: "/v1/results/" + text + "?lines=9:3", status: 400},
		{ts: open, method: "GET", path: "/v1/results/" + missing, status: 404},
		{ts: open, method: "GET", path: "/v1/results/" + text + "?rev=ffffffffffff", status: 409},
		{ts: open, method: "GET", path: "/v1/results/" + text + "?lines=99999:", status: 416},
		{ts: open, method: "GET", path: "/v1/results/" + js + "?pointer=/items/9999", status: 416},
		{ts: open, method: "GET", path: "/v1/results/" + binRef, status: 422},
		{ts: open, method: "GET", path: "/v1/results/" + broken + "?lines=1:5", status: 500},
		{ts: closed, method: "GET", path: "/v1/results/" + text, status: 500},
		{ts: down, method: "GET", path: "/v1/results/" + text, status: 503},

		{ts: open, method: "GET", path: "/v1/results/" + text + "/raw", status: 200},
		{ts: open, method: "GET", path: "/v1/results/XYZ/raw", status: 400},
		{ts: open, method: "GET", path: "/v1/results/" + missing + "/raw", status: 404},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/raw?rev=ffffffffffff", status: 409},
		{ts: closed, method: "GET", path: "/v1/results/" + text + "/raw", status: 500},
		{ts: down, method: "GET", path: "/v1/results/" + text + "/raw", status: 503},

		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep?pattern=line+0012&context=1&budget=200", status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep?pattern=worker%3D3&max=5", status: 200},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep", status: 400},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep?pattern=(", status: 400},
		{ts: open, method: "GET", path: "/v1/results/" + missing + "/grep?pattern=x", status: 404},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep?pattern=x&rev=ffffffffffff", status: 409},
		{ts: open, method: "GET", path: "/v1/results/" + text + "/grep?pattern=x&from=99999", status: 416},
		{ts: closed, method: "GET", path: "/v1/results/" + text + "/grep?pattern=x", status: 500},
		{ts: down, method: "GET", path: "/v1/results/" + text + "/grep?pattern=x", status: 503},

		{ts: open, method: "POST", path: "/v1/results/" + js + "/query", body: `.items[] | select(.status == "failed") | .name`, status: 200},
		{ts: open, method: "POST", path: "/v1/results/" + js + "/query?jq=.items%5B0%5D", status: 200},
		{ts: open, method: "POST", path: "/v1/results/" + js + "/query", status: 400},
		{ts: open, method: "POST", path: "/v1/results/" + text + "/query", body: ".a", status: 400},
		{ts: open, method: "POST", path: "/v1/results/" + missing + "/query", body: ".a", status: 404},
		{ts: open, method: "POST", path: "/v1/results/" + js + "/query?rev=ffffffffffff", body: ".a", status: 409},
		{ts: open, method: "POST", path: "/v1/results/" + js + "/query", body: ".a" + strings.Repeat(" ", 70<<10), status: 413},
		{ts: closed, method: "POST", path: "/v1/results/" + js + "/query", body: ".a", status: 500},
		{ts: down, method: "POST", path: "/v1/results/" + js + "/query", body: ".a", status: 503},

		{ts: open, method: "POST", path: "/v1/compact?budget=3000&format=openai", body: string(bashThread(2)), status: 200},
		{ts: open, method: "POST", path: "/v1/compact?budget=500&recent=1&fold_step=1&breadcrumb_over=50", body: anthropic, status: 200},
		{ts: open, method: "POST", path: "/v1/compact", body: `[{"role":"user","content":"hi"}]`, status: 200},
		{ts: open, method: "POST", path: "/v1/compact", body: "not json", status: 400},
		{ts: open, method: "POST", path: "/v1/compact?format=xml", body: "[]", status: 400},
		{ts: open, method: "POST", path: "/v1/compact", body: string(bashThread(10)), status: 413},
		{ts: closed, method: "POST", path: "/v1/compact", body: "[]", status: 500},
		{ts: down, method: "POST", path: "/v1/compact", body: "[]", status: 503},

		{ts: open, method: "GET", path: "/metrics", status: 200},
		{ts: open, method: "GET", path: "/metrics", status: 200, hdr: []string{"Accept-Encoding", "gzip"}},
		{ts: open, method: "GET", path: "/metrics", status: 200, hdr: []string{"Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"}},
		{ts: authed, method: "GET", path: "/metrics", token: "s3cret", status: 200},
		{ts: open, method: "GET", path: "/healthz", status: 200},
		{ts: authed, method: "GET", path: "/healthz", status: 200},
		{ts: down, method: "GET", path: "/healthz", status: 503},
		{ts: open, method: "GET", path: "/openapi.json", status: 200},

		{ts: open, method: "PUT", path: "/v1/results", status: 405},
		{ts: open, method: "DELETE", path: "/v1/results/" + text, status: 405},
		{ts: open, method: "GET", path: "/v2/nothing", status: 404},
		{ts: open, method: "GET", path: "/v1//results", status: 307},
	}
	// Every operation that needs a token is refused without one.
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security == nil || len(*op.Security) > 0 {
				p := strings.ReplaceAll(path, "{ref}", text)
				cases = append(cases, apiCase{ts: authed, method: method, path: p, body: "[]", status: 401})
				cases = append(cases, apiCase{ts: authed, method: method, path: p, token: "wrong", body: "[]", status: 401})
			}
		}
	}

	seen := map[string]bool{}
	for _, c := range cases {
		name := fmt.Sprintf("%s %s", c.method, c.path)
		if len(name) > 120 {
			name = name[:120]
		}
		status, key, err := checkAnswer(t.Context(), doc, router, c)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if status != c.status {
			t.Errorf("%s: %d, want %d", name, status, c.status)
		}
		seen[key] = true
	}
	// Every status the document lists was answered.
	var unseen []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code := range op.Responses.Map() {
				if k := method + " " + path + " " + code; !seen[k] {
					unseen = append(unseen, k)
				}
			}
		}
	}
	for _, name := range unrouted {
		if !seen[name] {
			unseen = append(unseen, name)
		}
	}
	sort.Strings(unseen)
	if len(unseen) > 0 {
		t.Errorf("documented but never answered:\n%s", strings.Join(unseen, "\n"))
	}
}

// checkAnswer sends c's request and checks the answer against doc. It
// returns the status and what it answered: "METHOD /path STATUS" for an
// operation's response, the name of the component for an answer to a
// request no operation takes.
func checkAnswer(ctx context.Context, doc *openapi3.T, router routers.Router, c apiCase) (int, string, error) {
	// The request as the router and the validators see it.
	vreq, err := http.NewRequestWithContext(ctx, c.method, c.path, strings.NewReader(c.body))
	if err != nil {
		return 0, "", err
	}
	if c.token != "" {
		vreq.Header.Set("Authorization", "Bearer "+c.token)
	}
	for i := 0; i+1 < len(c.hdr); i += 2 {
		vreq.Header.Set(c.hdr[i], c.hdr[i+1])
	}
	route, params, rerr := router.FindRoute(vreq)
	if rerr == nil && route.Operation.RequestBody != nil && c.body != "" {
		// A client sends the body in the one media type the document gives.
		for ct := range route.Operation.RequestBody.Value.Content {
			vreq.Header.Set("Content-Type", ct)
		}
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.ts.URL+c.path, strings.NewReader(c.body))
	if err != nil {
		return 0, "", err
	}
	req.Header = vreq.Header.Clone()
	// What the server sends, as it sends it: no redirect followed, no
	// transparent decompression.
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, "", err
	}
	answer := fmt.Sprintf("%d %s\n%.600s", resp.StatusCode, resp.Header, body)

	var (
		key      string
		response *openapi3.Response
		input    *openapi3filter.RequestValidationInput
	)
	switch {
	case rerr == nil:
		key = c.method + " " + route.Path + " " + strconv.Itoa(resp.StatusCode)
		input = &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if resp.StatusCode < 300 {
			if err := openapi3filter.ValidateRequest(ctx, input); err != nil {
				return 0, "", fmt.Errorf("a request the server takes is not valid by the document: %v", err)
			}
		}
		if r := route.Operation.Responses.Status(resp.StatusCode); r != nil {
			response = r.Value
		}
	case errors.Is(rerr, routers.ErrMethodNotAllowed), errors.Is(rerr, routers.ErrPathNotFound):
		name, ok := unrouted[resp.StatusCode]
		if r := doc.Components.Responses[name]; ok && r != nil {
			key, response = name, r.Value
			// The validator takes a route: one of the component alone.
			op := openapi3.NewOperation()
			op.Responses = openapi3.NewResponses(openapi3.WithStatus(resp.StatusCode, r))
			input = &openapi3filter.RequestValidationInput{Request: vreq, Route: &routers.Route{Spec: doc, Path: c.path, Method: c.method, Operation: op}}
		}
	default:
		return 0, "", rerr
	}
	if response == nil {
		return 0, "", fmt.Errorf("the document does not describe this answer:\n%s", answer)
	}
	err = openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input, Status: resp.StatusCode, Header: resp.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	})
	if err != nil {
		return 0, "", fmt.Errorf("the answer is not the documented one: %v\n%s", err, answer)
	}
	// The validator checks the headers the document lists; the answer must
	// carry no others, and every required one (the validator passes over
	// redirects).
	documented := map[string]bool{}
	for name, h := range response.Headers {
		documented[http.CanonicalHeaderKey(name)] = true
		if h.Value != nil && h.Value.Required && resp.Header.Get(name) == "" {
			return 0, "", fmt.Errorf("the documented header %s is missing:\n%s", name, answer)
		}
	}
	for name := range resp.Header {
		if !documented[name] && !slices.Contains(transportHeaders, name) {
			return 0, "", fmt.Errorf("the answer carries the header %s, which the document does not list:\n%s", name, answer)
		}
	}
	return resp.StatusCode, key, nil
}
