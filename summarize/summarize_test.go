package summarize_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/llmtest"
	. "github.com/crumb-dev/crumb/summarize"
	"github.com/crumb-dev/crumb/summarize/internal/adaptertest"
	_ "github.com/crumb-dev/crumb/summarize/openai"
)

// The tests of any adapter's summaries; those of each adapter's wire
// format are adaptertest's, run by the adapter's package. These ask
// through the OpenAI adapter.
var (
	setup      = adaptertest.Setup
	request    = adaptertest.Request
	goodAnswer = adaptertest.Answer
)

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

// TestAdapterNotLinked checks the error of an API whose adapter the
// program did not import.
func TestAdapterNotLinked(t *testing.T) {
	_, err := New(Config{API: "gemini", Models: []string{"m"}})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "want openai or anthropic") {
		t.Errorf("an unknown api: %v", err)
	}
}
