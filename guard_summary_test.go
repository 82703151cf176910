package crumb

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/llmtest"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"
)

// deepFail is a real go test -v run (from the corpus) with one failing
// subtest deep in a long log, and an answer a model could give about it.
const deepFailAnswer = `{"overview":"go test -v ./... failed: one subtest of TestTour fails.","critical_facts":[{"fact":"TestTour/tour_2 fails","quotes":["--- FAIL: TestTour/tour_2"]},{"fact":"the tour measures 5482.0 km, not 5484.7 km","quotes":["distance_test.go:50: Length([paris berlin vienna rome madrid lisbon paris]) = 5482.0 km, want 5484.7 km (±2.6)"]},{"fact":"the cause is that legs are truncated, not rounded","quotes":["want 5484.7 km"]}],"omitted":"the passing tests"}`

func summaryGuard(t *testing.T, models ...string) (*Guard, store.Store, *llmtest.Endpoint) {
	t.Helper()
	return markGuard(t, deepFailAnswer, summarize.Config{Models: models, Timeout: 5 * time.Second})
}

func deepFail(t *testing.T) Result {
	t.Helper()
	out, err := os.ReadFile("testdata/corpus/command-go-test-v-deep-fail/output")
	if err != nil {
		t.Fatal(err)
	}
	code := 1
	return Result{Tool: "bash", Args: json.RawMessage(`{"command":"go test -v ./...","description":"why does TestTour fail?"}`), Body: out, ExitCode: &code}
}

func TestSummaryView(t *testing.T) {
	g, st, e := summaryGuard(t, "ok")
	stored := 0
	e.OnCall = func() {
		infos, _ := st.List(context.Background())
		stored = len(infos)
	}
	v, err := g.Project(context.Background(), deepFail(t))
	if err != nil {
		t.Fatal(err)
	}
	if stored != 1 {
		t.Fatalf("the exact result was not stored before the model was asked (%d results stored then)", stored)
	}
	if v.Receipt.Output != OutputSummarized || v.Receipt.Summary == nil || v.Receipt.Summary.Model != "ok" {
		t.Fatalf("receipt: %+v, summary %+v", v.Receipt, v.Receipt.Summary)
	}
	if r := v.Receipt.Summary; r.Facts != 3 || r.Quotes != 3 || r.Verified != 3 || r.Input != "whole" || r.InputTokens == nil || *r.InputTokens != 120 || r.LatencyMS == nil {
		t.Errorf("summary receipt: %+v", r)
	}
	for _, want := range []string{"[crumb summary of a result (command): ref " + string(v.Ref), "3 passages quoted from the result", SummaryLegend,
		"  1. TestTour/tour_2 fails\n     ✓ L", `: "--- FAIL: TestTour/tour_2"`, "  3. the cause is that legs are truncated, not rounded\n", "the model's overview: go test -v", "[next: crumb read " + string(v.Ref)} {
		if !strings.Contains(v.Text, want) {
			t.Errorf("the view lacks %q:\n%s", want, v.Text)
		}
	}
	// The continuation reads the exact result from its start.
	if v.Next == nil || v.Next.Lines == nil || v.Next.Lines.From != 1 {
		t.Fatalf("next: %+v", v.Next)
	}
	p, err := recall.Read(context.Background(), st, *v.Next, recall.Options{})
	first, _, _ := strings.Cut(string(deepFail(t).Body), "\n")
	if err != nil || !strings.Contains(p.Text, first) || p.Next == nil {
		t.Fatalf("reading on from the summary does not start at the result's first line %q: %v\n%.300s", first, err, p.Text)
	}
	// The request carried the intent.
	raw, _ := json.Marshal(e.Last())
	if !strings.Contains(string(raw), "why does TestTour fail?") {
		t.Error("the prompt lacks the call's intent")
	}
}

func TestSummaryFallbacks(t *testing.T) {
	plain, err := New(Config{Store: mustStore(t)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := plain.Project(context.Background(), deepFail(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"lying", "malformed", "invalid", "500"} {
		t.Run(model, func(t *testing.T) {
			g, st, _ := summaryGuard(t, model)
			v, err := g.Project(context.Background(), deepFail(t))
			if err != nil {
				t.Fatal(err)
			}
			if v.Receipt.Output != OutputFallback || v.Receipt.Summary == nil || v.Receipt.Summary.Error == "" {
				t.Fatalf("receipt: %+v", v.Receipt)
			}
			if !strings.HasPrefix(v.Text, "[crumb: no summary (") || !strings.HasSuffix(v.Text, want.Text) {
				t.Errorf("the fallback is not the marked projection:\n%.300s", v.Text)
			}
			// Nothing is lost: the exact result reads back.
			data, err := store.ReadAll(context.Background(), st, v.Ref)
			if err != nil || len(data) != len(deepFail(t).Body) {
				t.Errorf("exact result: %d bytes, %v", len(data), err)
			}
		})
	}
}

func TestSummaryOnlyAboveThreshold(t *testing.T) {
	g, _, e := summaryGuard(t, "ok")
	v, err := g.Project(context.Background(), Result{Tool: "bash", Body: []byte("ok  \tgithub.com/x/y\t0.01s\n")})
	if err != nil {
		t.Fatal(err)
	}
	if e.Calls() != 0 || v.Receipt.Output != OutputExact {
		t.Errorf("a small result was summarized: %d calls, output %s", e.Calls(), v.Receipt.Output)
	}
}

func mustStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestSummaryViewDeterministic checks invariant 3 with summaries on: the
// same result projected again gives the same view, from the cache, without
// asking the model again.
func TestSummaryViewDeterministic(t *testing.T) {
	g, _, e := summaryGuard(t, "ok")
	a, err := g.Project(context.Background(), deepFail(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Project(context.Background(), deepFail(t))
	if err != nil {
		t.Fatal(err)
	}
	if a.Text != b.Text || e.Calls() != 1 || !b.Receipt.Summary.Cached {
		t.Errorf("same view %v, %d model calls (want 1), cached %v", a.Text == b.Text, e.Calls(), b.Receipt.Summary.Cached)
	}
}
