package summarize_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/llmtest"
	. "github.com/crumb-dev/crumb/summarize"
	_ "github.com/crumb-dev/crumb/summarize/anthropic"
	_ "github.com/crumb-dev/crumb/summarize/openai"
)

// result is a real go test failure (from the corpus), the exact result the
// facts are checked against.
const result = `--- FAIL: TestParseRef (0.00s)
    ref_test.go:42: ParseRef("crumb:0123") = nil error, want ErrBadRef
FAIL
FAIL	github.com/crumb-dev/crumb/store	0.012s
`

const goodAnswer = `{"overview":"One test failed in package github.com/crumb-dev/crumb/store.","critical_facts":[{"fact":"TestParseRef failed at ref_test.go:42","quotes":["--- FAIL: TestParseRef (0.00s)","ref_test.go:42"]},{"fact":"the error: \"nil error, want ErrBadRef\"","quotes":["nil error, want ErrBadRef"]}],"omitted":"nothing else ran"}`

func setup(t *testing.T, api API, models ...string) (*Summarizer, *llmtest.Endpoint) {
	t.Helper()
	e := llmtest.Start(t, string(api), goodAnswer)
	s, err := New(Config{API: api, BaseURL: e.BaseURL, Models: models, APIKey: llmtest.Key, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

func request() Request {
	return Request{Tool: "bash", Args: json.RawMessage(`{"command":"go test ./store"}`), Intent: "why does the test fail?",
		Text: result, Whole: true, Digest: "d1", Source: strings.NewReader(result), Size: int64(len(result))}
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
			// Each quote is located by line in the result.
			var located []string
			for _, f := range sum.Facts {
				for _, q := range f.Quotes {
					located = append(located, fmt.Sprintf("L%d-%d %s", q.Line, q.EndLine, q.Text))
				}
			}
			if got, want := strings.Join(located, "|"), "L1-1 --- FAIL: TestParseRef (0.00s)|L2-2 ref_test.go:42|L2-2 nil error, want ErrBadRef"; got != want {
				t.Errorf("quotes located at %q, want %q", got, want)
			}
			if sum.InputTokens == nil || *sum.InputTokens != 120 || sum.OutputTokens == nil || *sum.OutputTokens != 45 {
				t.Errorf("token counts as reported: %v %v", sum.InputTokens, sum.OutputTokens)
			}
			// The request carries the call, the intent and the view, and
			// asks for JSON.
			req := e.Last()
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
		e := llmtest.Start(t, string(api), goodAnswer)
		s, err := New(Config{API: api, BaseURL: e.BaseURL, Models: []string{"slow", "ok"}, APIKey: llmtest.Key, Timeout: 300 * time.Millisecond})
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
	if err != nil || !sum.Cached || e.Calls() != 1 {
		t.Fatalf("second call: cached %v, %d calls, %v", sum != nil && sum.Cached, e.Calls(), err)
	}
	// Another digest is another summary.
	other := request()
	other.Digest = "d2"
	if sum, _ := s.Summarize(ctx, other); sum == nil || sum.Cached {
		t.Error("a different result hit the cache")
	}
	// Expired.
	later := time.Now().Add(DefaultCacheTTL + time.Minute)
	SetCacheClock(s, func() time.Time { return later })
	if sum, _ := s.Summarize(ctx, request()); sum == nil || sum.Cached {
		t.Error("an expired summary was served")
	}
	// Invalid answers are never cached.
	bad, be := setup(t, OpenAI, "lying")
	bad.Summarize(ctx, request())
	bad.Summarize(ctx, request())
	if be.Calls() != 2 {
		t.Errorf("an invalid summary was cached: %d calls", be.Calls())
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

func TestCustomSchemaAndInstructions(t *testing.T) {
	schema := `{"type":"object","properties":{"answer":{"type":"string"},"files":{"type":"array","items":{"type":"string"}}},"required":["answer","files"]}`
	e := llmtest.Start(t, "openai", `{"answer":"the store test fails","files":["ref_test.go"]}`)
	s, err := New(Config{API: OpenAI, BaseURL: e.BaseURL, Models: []string{"ok"}, APIKey: llmtest.Key, Schema: json.RawMessage(schema), Instructions: "Answer in one sentence."})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Summarize(context.Background(), request())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fields["answer"] != "the store test fails" || len(sum.Facts) != 0 {
		t.Errorf("fields %v facts %v", sum.Fields, sum.Facts)
	}
	raw, _ := json.Marshal(e.Last())
	if !strings.Contains(string(raw), "Answer in one sentence.") || !strings.Contains(string(raw), `\"files\"`) {
		t.Errorf("the request lacks the instructions or the schema: %.400s", raw)
	}
	// The default answer does not fit this schema.
	e2 := llmtest.Start(t, "openai", goodAnswer)
	s2, _ := New(Config{API: OpenAI, BaseURL: e2.BaseURL, Models: []string{"ok"}, APIKey: llmtest.Key, Schema: json.RawMessage(schema)})
	if _, err := s2.Summarize(context.Background(), request()); !errors.Is(err, ErrInvalid) {
		t.Errorf("got %v, want ErrInvalid", err)
	}
	if _, err := New(Config{API: OpenAI, Models: []string{"ok"}, Schema: json.RawMessage(`{"type":`)}); !errors.Is(err, ErrConfig) {
		t.Errorf("a broken schema: %v", err)
	}
}

// TestHugeAnswerIsRefused has the endpoint answer with a valid summary
// whose "omitted" is 50 MB: the answer is read only to its bound and
// refused, and the process allocates far less than the answer's size.
func TestHugeAnswerIsRefused(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			s, e := setup(t, api, "huge")
			e.HugeBytes = 50 << 20
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := s.Summarize(context.Background(), request())
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("a 50 MB answer: %v; %.1f MB allocated", err, float64(alloc)/(1<<20))
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("got %v, want ErrTooLarge", err)
			}
			if alloc > 32<<20 {
				t.Errorf("%.1f MB allocated reading a 50 MB answer", float64(alloc)/(1<<20))
			}
		})
	}
}

// TestTimeoutCoversTheRead has the endpoint send the start of a valid
// answer, then a byte every 50 ms: the timeout ends the exchange while its
// body is being read.
func TestTimeoutCoversTheRead(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			e := llmtest.Start(t, string(api), goodAnswer)
			s, err := New(Config{API: api, BaseURL: e.BaseURL, Models: []string{"drip"}, APIKey: llmtest.Key, Timeout: 500 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err = s.Summarize(context.Background(), request())
			t.Logf("a dripping answer: %v after %v", err, time.Since(start).Round(time.Millisecond))
			if !errors.Is(err, ErrTimeout) {
				t.Errorf("got %v, want ErrTimeout", err)
			}
		})
	}
}

// TestAdapterNotLinked checks the error of an API whose adapter the
// program did not import.
func TestAdapterNotLinked(t *testing.T) {
	_, err := New(Config{API: "gemini", Models: []string{"m"}})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "want openai or anthropic") {
		t.Errorf("an unknown api: %v", err)
	}
}
