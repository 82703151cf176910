package summarize

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// result is a real go test failure (from the corpus), the exact result the
// facts are checked against.
const result = `--- FAIL: TestParseRef (0.00s)
    ref_test.go:42: ParseRef("crumb:0123") = nil error, want ErrBadRef
FAIL
FAIL	github.com/crumb-dev/crumb/store	0.012s
`

const goodAnswer = `{"overview":"One test failed in package github.com/crumb-dev/crumb/store.","critical_facts":["TestParseRef failed at ref_test.go:42","the error: \"nil error, want ErrBadRef\""],"omitted":"nothing else ran"}`

// endpoint is a local server that speaks the OpenAI chat-completions and
// the Anthropic Messages wire formats. How it answers depends on the model
// asked for: "ok", "malformed", "invalid", "lying", "slow", "429", "500",
// "nousage", "zero".
type endpoint struct {
	t     *testing.T
	api   API
	calls atomic.Int32
	last  atomic.Value // the last request body, decoded
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.calls.Add(1)
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	e.last.Store(req)
	switch e.api {
	case OpenAI:
		if r.Method != "POST" || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			e.t.Errorf("openai request: %s %s auth %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
	case Anthropic:
		// The SDK sends the key as x-api-key or, in v2, as a bearer token.
		key := r.Header.Get("X-Api-Key") == "sk-test" || r.Header.Get("Authorization") == "Bearer sk-test"
		if r.Method != "POST" || r.URL.Path != "/v1/messages" || !key || r.Header.Get("Anthropic-Version") == "" {
			e.t.Errorf("anthropic request: %s %s key %q version %q", r.Method, r.URL.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version"))
		}
	}
	model, _ := req["model"].(string)
	answer := goodAnswer
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
		if e.api == OpenAI {
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
	if e.api == OpenAI {
		sep := ""
		if usage != "" {
			sep = ","
		}
		fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1764590000,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%s,"refusal":null},"logprobs":null,"finish_reason":"stop"}]%s%s}`, model, a, sep, usage)
		return
	}
	fmt.Fprintf(w, `{"id":"msg_01","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null%s}`, model, a, ausage)
}

func setup(t *testing.T, api API, models ...string) (*Summarizer, *endpoint) {
	t.Helper()
	e := &endpoint{t: t, api: api}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	base := srv.URL + "/v1"
	if api == Anthropic {
		base = srv.URL
	}
	s, err := New(Config{API: api, BaseURL: base, Models: models, APIKey: "sk-test", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

func request() Request {
	return Request{Tool: "bash", Args: json.RawMessage(`{"command":"go test ./store"}`), Intent: "why does the test fail?",
		View: result, Digest: "d1", Source: strings.NewReader(result), Size: int64(len(result))}
}

var apis = []API{OpenAI, Anthropic}

func TestSummarySuccess(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			s, e := setup(t, api, "ok")
			sum, err := s.Summarize(context.Background(), request())
			if err != nil {
				t.Fatal(err)
			}
			if sum.Model != "ok" || sum.Fields["overview"] == nil || len(sum.Facts) != 2 {
				t.Fatalf("summary: %+v", sum)
			}
			for _, f := range sum.Facts {
				if !f.Verified {
					t.Errorf("fact %q not verified (quoted %q)", f.Text, f.Quoted)
				}
			}
			if sum.InputTokens == nil || *sum.InputTokens != 120 || sum.OutputTokens == nil || *sum.OutputTokens != 45 {
				t.Errorf("token counts as reported: %v %v", sum.InputTokens, sum.OutputTokens)
			}
			// The request carries the call, the intent and the view, and
			// asks for JSON.
			req := e.last.Load().(map[string]any)
			raw, _ := json.Marshal(req)
			for _, want := range []string{"go test ./store", "why does the test fail?", "ref_test.go:42", "critical_facts"} {
				if !bytes.Contains(raw, []byte(want)) {
					t.Errorf("the request lacks %q", want)
				}
			}
			if api == OpenAI && !bytes.Contains(raw, []byte(`"response_format":{"type":"json_object"}`)) {
				t.Errorf("the request does not ask for a JSON object: %s", raw)
			}
			if api == Anthropic && req["max_tokens"] == nil {
				t.Errorf("no max_tokens")
			}
		})
	}
}

func TestSummaryFailures(t *testing.T) {
	for _, api := range apis {
		for _, c := range []struct {
			model string
			want  error
		}{
			{"malformed", ErrMalformed},
			{"invalid", ErrInvalid},
			{"lying", ErrUnverified},
			{"429", ErrUnavailable},
			{"500", ErrUnavailable},
		} {
			t.Run(string(api)+"/"+c.model, func(t *testing.T) {
				s, _ := setup(t, api, c.model)
				_, err := s.Summarize(context.Background(), request())
				if !errors.Is(err, c.want) {
					t.Fatalf("got %v, want %v", err, c.want)
				}
				if strings.Contains(err.Error(), "sk-test") {
					t.Errorf("the error shows the key: %v", err)
				}
			})
		}
	}
}

func TestSummaryTimeout(t *testing.T) {
	for _, api := range apis {
		e := &endpoint{t: t, api: api}
		srv := httptest.NewServer(e)
		defer srv.Close()
		base := srv.URL + "/v1"
		if api == Anthropic {
			base = srv.URL
		}
		s, err := New(Config{API: api, BaseURL: base, Models: []string{"slow", "ok"}, APIKey: "sk-test", Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Summarize(context.Background(), request()); !errors.Is(err, ErrTimeout) {
			t.Errorf("%s: got %v, want ErrTimeout", api, err)
		}
	}
}

func TestLadderTriesTheNextModel(t *testing.T) {
	for _, api := range apis {
		s, _ := setup(t, api, "429", "500", "malformed", "ok")
		sum, err := s.Summarize(context.Background(), request())
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if sum.Model != "ok" || strings.Join(sum.Attempts, ",") != "429,500,malformed" {
			t.Errorf("%s: model %q after %v", api, sum.Model, sum.Attempts)
		}
	}
}

func TestReportedTokens(t *testing.T) {
	for _, api := range apis {
		s, _ := setup(t, api, "zero")
		sum, err := s.Summarize(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if sum.InputTokens == nil || *sum.InputTokens != 0 {
			t.Errorf("%s: a reported zero must be kept: %v", api, sum.InputTokens)
		}
		s, _ = setup(t, api, "nousage")
		sum, err = s.Summarize(context.Background(), request())
		if err != nil {
			t.Fatal(err)
		}
		if sum.InputTokens != nil || sum.OutputTokens != nil {
			t.Errorf("%s: unreported counts must be absent: %v %v", api, sum.InputTokens, sum.OutputTokens)
		}
	}
}

func TestCacheHitAndExpiry(t *testing.T) {
	s, e := setup(t, OpenAI, "ok")
	ctx := context.Background()
	if _, err := s.Summarize(ctx, request()); err != nil {
		t.Fatal(err)
	}
	sum, err := s.Summarize(ctx, request())
	if err != nil || !sum.Cached || e.calls.Load() != 1 {
		t.Fatalf("second call: cached %v, %d calls, %v", sum != nil && sum.Cached, e.calls.Load(), err)
	}
	// Another digest is another summary.
	other := request()
	other.Digest = "d2"
	if sum, _ := s.Summarize(ctx, other); sum == nil || sum.Cached {
		t.Error("a different result hit the cache")
	}
	// Expired.
	later := time.Now().Add(DefaultCacheTTL + time.Minute)
	s.cache.now = func() time.Time { return later }
	if sum, _ := s.Summarize(ctx, request()); sum == nil || sum.Cached {
		t.Error("an expired summary was served")
	}
	// Invalid answers are never cached.
	bad, be := setup(t, OpenAI, "lying")
	bad.Summarize(ctx, request())
	bad.Summarize(ctx, request())
	if be.calls.Load() != 2 {
		t.Errorf("an invalid summary was cached: %d calls", be.calls.Load())
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newCache(2, time.Hour)
	c.put("a", &Summary{Model: "a"})
	c.put("b", &Summary{Model: "b"})
	c.get("a")
	c.put("c", &Summary{Model: "c"})
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.get("a"); !ok {
		t.Error("a was used last and should stay")
	}
}

func TestQuoted(t *testing.T) {
	for _, c := range []struct {
		fact string
		want []string
	}{
		{`TestParseRef failed at ref_test.go:42`, []string{"TestParseRef", "ref_test.go:42"}},
		{`the build stops with "undefined: foo"`, []string{"undefined: foo"}},
		{`3 of 120 tests failed on 2026-11-29.`, []string{"3", "120", "2026-11-29"}},
		{`the config lives in /etc/crumb/config.toml`, []string{"/etc/crumb/config.toml"}},
		{`nothing failed`, nil},
		{`The Server restarted`, nil},
	} {
		got := quoted(c.fact)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("quoted(%q) = %q, want %q", c.fact, got, c.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	env := map[string]string{"CRUMB_SUMMARY_API": "anthropic", "CRUMB_SUMMARY_MODELS": " small, large ", "ANTHROPIC_API_KEY": "k", "CRUMB_SUMMARY_TIMEOUT": "5s"}
	cfg, on, err := FromEnv(func(k string) string { return env[k] })
	if err != nil || !on || cfg.API != Anthropic || strings.Join(cfg.Models, ",") != "small,large" || cfg.APIKey != "k" || cfg.Timeout != 5*time.Second {
		t.Fatalf("%+v %v %v", cfg, on, err)
	}
	if _, on, _ := FromEnv(func(string) string { return "" }); on {
		t.Error("summaries on without models")
	}
	env["CRUMB_SUMMARY_API"] = "gemini"
	if _, _, err := FromEnv(func(k string) string { return env[k] }); !errors.Is(err, ErrConfig) {
		t.Errorf("unknown api: %v", err)
	}
}
