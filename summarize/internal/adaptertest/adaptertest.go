// Package adaptertest is the test every summary adapter (summarize/openai,
// summarize/anthropic) runs against a local server that speaks its API's
// wire format (internal/llmtest): a summary through the adapter, each way
// a call fails, the timeout, the ladder, the reported token counts and the
// bound on the answer. The tests that hold for any adapter live with the
// summarize package; these live with the adapters, which link the SDKs.
package adaptertest

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
	"github.com/crumb-dev/crumb/summarize"
)

// Result is a real go test failure (from the corpus), the exact result the
// facts are checked against.
const Result = `--- FAIL: TestParseRef (0.00s)
    ref_test.go:42: ParseRef("crumb:0123") = nil error, want ErrBadRef
FAIL
FAIL	github.com/crumb-dev/crumb/store	0.012s
`

// Answer is a valid summary of Result, every quote of it in Result.
const Answer = `{"overview":"One test failed in package github.com/crumb-dev/crumb/store.","critical_facts":[{"fact":"TestParseRef failed at ref_test.go:42","quotes":["--- FAIL: TestParseRef (0.00s)","ref_test.go:42"]},{"fact":"the error: \"nil error, want ErrBadRef\"","quotes":["nil error, want ErrBadRef"]}],"omitted":"nothing else ran"}`

// Setup starts a server for api whose "ok" model answers with Answer, and a
// summarize.Summarizer that asks it with the ladder models.
func Setup(t *testing.T, api summarize.API, models ...string) (*summarize.Summarizer, *llmtest.Endpoint) {
	t.Helper()
	e := llmtest.Start(t, string(api), Answer)
	s, err := summarize.New(summarize.Config{API: api, BaseURL: e.BaseURL, Models: models, APIKey: llmtest.Key, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return s, e
}

// Request is a request to summarize Result.
func Request() summarize.Request {
	return summarize.Request{Tool: "bash", Args: json.RawMessage(`{"command":"go test ./store"}`), Intent: "why does the test fail?",
		Text: Result, Whole: true, Digest: "d1", Source: strings.NewReader(Result), Size: int64(len(Result))}
}

// Run runs the adapter tests against api, whose adapter the caller's
// package registers.
func Run(t *testing.T, api summarize.API) {
	for _, c := range []struct {
		name string
		test func(*testing.T, summarize.API)
	}{
		{"Success", success},
		{"Failures", failures},
		{"Timeout", timeout},
		{"LadderTriesTheNextModel", ladder},
		{"ReportedTokens", reportedTokens},
		{"HugeAnswerIsRefused", hugeAnswer},
		{"TimeoutCoversTheRead", timeoutCoversTheRead},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, api) })
	}
}

func success(t *testing.T, api summarize.API) {
	s, e := Setup(t, api, "ok")
	sum, err := s.Summarize(context.Background(), Request())
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
	// The request carries the call, the intent and the view, and asks for
	// JSON.
	req := e.Last()
	raw, _ := json.Marshal(req)
	for _, want := range []string{"go test ./store", "why does the test fail?", "ref_test.go:42", "critical_facts"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the request lacks %q", want)
		}
	}
	if api == summarize.OpenAI && !bytes.Contains(raw, []byte(`"response_format":{"type":"json_object"}`)) {
		t.Errorf("the request does not ask for a JSON object: %s", raw)
	}
	if api == summarize.Anthropic && req["max_tokens"] == nil {
		t.Errorf("no max_tokens")
	}
}

func failures(t *testing.T, api summarize.API) {
	for _, c := range []struct {
		model string
		want  error
	}{
		{"malformed", summarize.ErrMalformed},
		{"invalid", summarize.ErrInvalid},
		{"lying", summarize.ErrUnverified},
		{"429", summarize.ErrUnavailable},
		{"500", summarize.ErrUnavailable},
	} {
		t.Run(c.model, func(t *testing.T) {
			s, _ := Setup(t, api, c.model)
			_, err := s.Summarize(context.Background(), Request())
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			if strings.Contains(err.Error(), llmtest.Key) {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

func timeout(t *testing.T, api summarize.API) {
	e := llmtest.Start(t, string(api), Answer)
	s, err := summarize.New(summarize.Config{API: api, BaseURL: e.BaseURL, Models: []string{"slow", "ok"}, APIKey: llmtest.Key, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Summarize(context.Background(), Request()); !errors.Is(err, summarize.ErrTimeout) {
		t.Errorf("got %v, want summarize.ErrTimeout", err)
	}
}

func ladder(t *testing.T, api summarize.API) {
	s, _ := Setup(t, api, "429", "500", "malformed", "ok")
	sum, err := s.Summarize(context.Background(), Request())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Model != "ok" || strings.Join(sum.Attempts, ",") != "429,500,malformed" {
		t.Errorf("model %q after %v", sum.Model, sum.Attempts)
	}
}

func reportedTokens(t *testing.T, api summarize.API) {
	s, _ := Setup(t, api, "zero")
	sum, err := s.Summarize(context.Background(), Request())
	if err != nil {
		t.Fatal(err)
	}
	if sum.InputTokens == nil || *sum.InputTokens != 0 {
		t.Errorf("a reported zero must be kept: %v", sum.InputTokens)
	}
	s, _ = Setup(t, api, "nousage")
	sum, err = s.Summarize(context.Background(), Request())
	if err != nil {
		t.Fatal(err)
	}
	if sum.InputTokens != nil || sum.OutputTokens != nil {
		t.Errorf("unreported counts must be absent: %v %v", sum.InputTokens, sum.OutputTokens)
	}
}

// hugeAnswer has the endpoint answer with a valid summary whose "omitted"
// is 50 MB: the answer is read only to its bound and refused, and the
// process allocates far less than the answer's size.
func hugeAnswer(t *testing.T, api summarize.API) {
	s, e := Setup(t, api, "huge")
	e.HugeBytes = 50 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := s.Summarize(context.Background(), Request())
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("a 50 MB answer: %v; %.1f MB allocated", err, float64(alloc)/(1<<20))
	if !errors.Is(err, summarize.ErrTooLarge) {
		t.Errorf("got %v, want summarize.ErrTooLarge", err)
	}
	if alloc > 32<<20 {
		t.Errorf("%.1f MB allocated reading a 50 MB answer", float64(alloc)/(1<<20))
	}
}

// timeoutCoversTheRead has the endpoint send the start of a valid answer,
// then a byte every 50 ms: the timeout ends the exchange while its body is
// being read.
func timeoutCoversTheRead(t *testing.T, api summarize.API) {
	e := llmtest.Start(t, string(api), Answer)
	s, err := summarize.New(summarize.Config{API: api, BaseURL: e.BaseURL, Models: []string{"drip"}, APIKey: llmtest.Key, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Summarize(context.Background(), Request())
	t.Logf("a dripping answer: %v after %v", err, time.Since(start).Round(time.Millisecond))
	if !errors.Is(err, summarize.ErrTimeout) {
		t.Errorf("got %v, want summarize.ErrTimeout", err)
	}
}
