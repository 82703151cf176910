// Package llmtest is a local HTTP server that speaks the OpenAI
// chat-completions and the Anthropic Messages wire formats, for testing
// summaries without a model. Requests are checked as the real APIs check
// them (method, path, key, version header, a JSON body); answers are shaped
// as the real APIs shape them. How it answers depends on the model asked
// for: "ok" (the answer given to Start), "malformed", "invalid", "lying",
// "slow", "429", "500", "nousage" (no usage block), "zero" (usage of 0),
// "huge" (a valid summary whose "omitted" is HugeBytes long, streamed),
// "drip" (a valid answer's first bytes, then a byte every 50 ms for up to a
// minute), or any model given an answer with Answer.
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
	// HugeBytes is the length of the "huge" model's "omitted" field; zero
	// means 50 MB.
	HugeBytes int
	answers   map[string]string
}

// Answer makes model answer with text, as "ok" answers with Start's.
func (e *Endpoint) Answer(model, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.answers == nil {
		e.answers = map[string]string{}
	}
	e.answers[model] = text
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
	e.mu.Lock()
	if a, ok := e.answers[model]; ok {
		answer = a
	}
	e.mu.Unlock()
	usage := `"usage":{"prompt_tokens":120,"completion_tokens":45,"total_tokens":165}`
	ausage := `,"usage":{"input_tokens":120,"output_tokens":45}`
	switch model {
	case "malformed":
		answer = `Sure! Here is the summary: one test failed.`
	case "invalid":
		answer = `{"overview":42,"critical_facts":"not a list"}`
	case "lying":
		answer = `{"overview":"Tests passed.","critical_facts":[{"fact":"TestParseRef passed at ref_test.go:43","quotes":["--- PASS: TestParseRef (0.00s)"]}],"omitted":""}`
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
	case "huge", "drip":
		e.stream(w, r, model)
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

// stream writes the "huge" or the "drip" answer in the API's shape without
// holding it: the envelope's start, the summary's start, the long field
// written a chunk at a time, then the ends.
func (e *Endpoint) stream(w http.ResponseWriter, r *http.Request, model string) {
	w.Header().Set("Content-Type", "application/json")
	start, end := `{"id":"chatcmpl-1","object":"chat.completion","created":1764590000,"model":"`+model+`","choices":[{"index":0,"message":{"role":"assistant","content":"`,
		`","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":120,"completion_tokens":45,"total_tokens":165}}`
	if e.api == "anthropic" {
		start, end = `{"id":"msg_01","type":"message","role":"assistant","model":"`+model+`","content":[{"type":"text","text":"`,
			`"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":120,"output_tokens":45}}`
	}
	// The summary, as the JSON string the envelope carries.
	io.WriteString(w, start+`{\"overview\":\"a long answer\",\"critical_facts\":[],\"omitted\":\"`)
	if model == "drip" {
		flusher, _ := w.(http.Flusher)
		for i := 0; i < 1200; i++ {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
			io.WriteString(w, "x")
			if flusher != nil {
				flusher.Flush()
			}
		}
	} else {
		n := e.HugeBytes
		if n == 0 {
			n = 50 << 20
		}
		chunk := make([]byte, 64<<10)
		for i := range chunk {
			chunk[i] = 'x'
		}
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return // the client stopped reading
			}
			n -= k
		}
	}
	io.WriteString(w, `\"}`+end)
}
