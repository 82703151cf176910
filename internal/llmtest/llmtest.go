// Package llmtest is a local HTTP server that speaks the OpenAI
// chat-completions and the Anthropic Messages wire formats, for testing
// summaries without a model. Requests are checked as the real APIs check
// them (method, path, key, version header, a JSON body); answers are shaped
// as the real APIs shape them. How it answers depends on the model asked
// for: "ok" (the answer given to Start), "malformed", "invalid", "lying",
// "slow", "429", "500", "nousage" (no usage block), "zero" (usage of 0).
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Key is the API key the server expects.
const Key = "sk-test"

// Endpoint is a running server.
type Endpoint struct {
	// BaseURL is the base URL to give the SDK: ".../v1" for OpenAI, the
	// server's root for Anthropic.
	BaseURL string

	t      testing.TB
	api    string
	answer string
	calls  atomic.Int32
	mu     sync.Mutex
	last   map[string]any
	// OnCall, when set, runs at the start of each request (for example to
	// check what is stored by then).
	OnCall func()
}

// Start starts a server for api ("openai" or "anthropic") whose "ok" model
// answers with answer; it stops when the test ends.
func Start(t testing.TB, api, answer string) *Endpoint {
	e := &Endpoint{t: t, api: api, answer: answer}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	e.BaseURL = srv.URL
	if api == "openai" {
		e.BaseURL += "/v1"
	}
	return e
}

// Calls is the number of requests served.
func (e *Endpoint) Calls() int32 { return e.calls.Load() }

// Last is the body of the last request, decoded.
func (e *Endpoint) Last() map[string]any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// ServeHTTP answers one request.
func (e *Endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.calls.Add(1)
	if e.OnCall != nil {
		e.OnCall()
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	e.mu.Lock()
	e.last = req
	e.mu.Unlock()
	switch e.api {
	case "openai":
		if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+Key {
			e.t.Errorf("openai request: %s %s auth %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
	case "anthropic":
		// The SDK sends the key as x-api-key or, in v2, as a bearer token.
		key := r.Header.Get("X-Api-Key") == Key || r.Header.Get("Authorization") == "Bearer "+Key
		if r.Method != "POST" || r.URL.Path != "/v1/messages" || !key || r.Header.Get("Anthropic-Version") == "" {
			e.t.Errorf("anthropic request: %s %s version %q", r.Method, r.URL.Path, r.Header.Get("Anthropic-Version"))
		}
	}
	model, _ := req["model"].(string)
	answer := e.answer
	usage := `"usage":{"prompt_tokens":120,"completion_tokens":45,"total_tokens":165}`
	ausage := `,"usage":{"input_tokens":120,"output_tokens":45}`
	switch model {
	case "malformed":
		answer = `Sure! Here is the summary: one test failed.`
	case "invalid":
		answer = `{"overview":42,"critical_facts":"not a list"}`
	case "lying":
		answer = `{"overview":"Tests passed.","critical_facts":["TestParseRef passed at ref_test.go:43"],"omitted":""}`
	case "slow":
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	case "429", "500":
		code := 429
		if model == "500" {
			code = 500
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		if e.api == "openai" {
			fmt.Fprintf(w, `{"error":{"message":"try later","type":"rate_limit_error","code":null}}`)
		} else {
			fmt.Fprintf(w, `{"type":"error","error":{"type":"overloaded_error","message":"try later"}}`)
		}
		return
	case "nousage":
		usage, ausage = "", ""
	case "zero":
		usage = `"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}`
		ausage = `,"usage":{"input_tokens":0,"output_tokens":0}`
	}
	w.Header().Set("Content-Type", "application/json")
	a, _ := json.Marshal(answer)
	if e.api == "openai" {
		sep := ""
		if usage != "" {
			sep = ","
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1764590000,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}]%s%s}`, model, a, sep, usage)
		return
	}
	fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null%s}`, model, a, ausage)
}
