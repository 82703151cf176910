package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/internal/llmtest"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"
	"github.com/crumb-dev/crumb/summarize/openai"
)

func newStore(t testing.TB) store.Store {
	t.Helper()
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newCompactor(t testing.TB, opts history.Options) *history.Compactor {
	t.Helper()
	if opts.Store == nil {
		opts.Store = newStore(t)
	}
	c, err := history.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// body is a request body, read back.
type body struct {
	Model    string            `json:"model"`
	System   string            `json:"system"`
	Messages []json.RawMessage `json:"messages"`
}

func decode(t testing.TB, b []byte) body {
	t.Helper()
	var out body
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("compacted body is not JSON: %v", err)
	}
	return out
}

func compactJSON(t testing.TB, b []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

var formats = []history.Format{history.OpenAI, history.Anthropic}

func TestCompactTwoHundredTurnsUnderBudget(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			in := transcript(t, f, 200)
			c := newCompactor(t, history.Options{Budget: 20000})
			res, err := c.Compact(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != f {
				t.Errorf("format read as %q, want %q", res.Format, f)
			}
			if res.OverBudget || res.TokensAfter > 20000 {
				t.Fatalf("%d tokens after compaction, over the budget of 20,000 (over budget: %v)", res.TokensAfter, res.OverBudget)
			}
			if res.TokensBefore <= 20000 {
				t.Fatalf("the transcript has only %d tokens: the test needs one over budget", res.TokensBefore)
			}
			if len(res.Folds) == 0 || res.Breadcrumbs == 0 {
				t.Errorf("folds %d, breadcrumbs %d: want both", len(res.Folds), res.Breadcrumbs)
			}
			orig, got := decode(t, in), decode(t, res.Body)
			if got.Model != "test-model" || (f == history.Anthropic && got.System != "You are a coding agent.") {
				t.Errorf("the body's other members changed: model %q system %q", got.Model, got.System)
			}
			// The anchor stays word for word (the summary may follow the
			// task's text in its message).
			anchor := 1
			if f == history.OpenAI {
				anchor = 2
			}
			for i := 0; i < anchor; i++ {
				if !taskKept(t, orig.Messages[i], got.Messages[i]) {
					t.Errorf("anchor message %d changed:\n%.500s", i, got.Messages[i])
				}
			}
			// The last turns stay word for word: at least the 6 newest
			// assistant messages and everything after the first of them.
			tail := recentTail(t, orig.Messages, history.DefaultRecent)
			if len(got.Messages) < len(tail) {
				t.Fatalf("%d messages out, fewer than the %d recent ones", len(got.Messages), len(tail))
			}
			gotTail := got.Messages[len(got.Messages)-len(tail):]
			for i := range tail {
				if compactJSON(t, gotTail[i]) != compactJSON(t, tail[i]) {
					t.Errorf("recent message %d changed", i)
				}
			}
			t.Logf("%s: %d messages, %d tokens -> %d messages, %d tokens; %d breadcrumbs, %d folds",
				f, res.Messages, res.TokensBefore, res.MessagesAfter, res.TokensAfter, res.Breadcrumbs, len(res.Folds))
		})
	}
}

// transcriptFirst is the first message of every transcript in format f.
func transcriptFirst(t testing.TB, f history.Format) json.RawMessage {
	return decode(t, transcript(t, f, 1)).Messages[0]
}

// taskKept reports whether message got is message orig word for word, or
// orig's content followed by more parts of the same role's message.
func taskKept(t testing.TB, orig, got json.RawMessage) bool {
	t.Helper()
	if compactJSON(t, orig) == compactJSON(t, got) {
		return true
	}
	var o, g struct {
		Role    string
		Content json.RawMessage
	}
	if json.Unmarshal(orig, &o) != nil || json.Unmarshal(got, &g) != nil || o.Role != g.Role {
		return false
	}
	var text string
	if json.Unmarshal(o.Content, &text) == nil {
		o.Content, _ = json.Marshal([]map[string]string{{"type": "text", "text": text}})
	}
	var op, gp []json.RawMessage
	if json.Unmarshal(o.Content, &op) != nil || json.Unmarshal(g.Content, &gp) != nil || len(gp) <= len(op) {
		return false
	}
	for i := range op {
		var a, b any
		if json.Unmarshal(op[i], &a) != nil || json.Unmarshal(gp[i], &b) != nil || !reflect.DeepEqual(a, b) {
			return false
		}
	}
	return true
}

// recentTail returns the messages from the n-th newest turn on, where a turn
// starts at each message that is not a tool result.
func recentTail(t testing.TB, msgs []json.RawMessage, n int) []json.RawMessage {
	t.Helper()
	seen := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if !isAnswer(msgs[i]) {
			seen++
			if seen == n {
				return msgs[i:]
			}
		}
	}
	return msgs
}

func isAnswer(raw json.RawMessage) bool {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &m)
	if m.Role == "tool" {
		return true
	}
	if m.Role != "user" || len(m.Content) == 0 || m.Content[0] != '[' {
		return false
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(blocks) > 0
}

// TestPairingHolds checks that every tool result in a compacted thread
// follows the call it answers and every call has its result, as the APIs
// demand.
func TestPairingHolds(t *testing.T) {
	for _, f := range formats {
		for _, budget := range []int{0, 8000, 20000, 60000} {
			t.Run(fmt.Sprintf("%s/%d", f, budget), func(t *testing.T) {
				c := newCompactor(t, history.Options{Budget: budget})
				for _, n := range []int{3, 17, 64, 101} {
					res, err := c.Compact(context.Background(), transcript(t, f, n))
					if err != nil {
						t.Fatal(err)
					}
					checkPairing(t, decode(t, res.Body).Messages)
				}
			})
		}
	}
}

func checkPairing(t *testing.T, msgs []json.RawMessage) {
	t.Helper()
	open := map[string]bool{}
	for i, raw := range msgs {
		var m struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		var blocks []struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		if len(m.Content) > 0 && m.Content[0] == '[' {
			_ = json.Unmarshal(m.Content, &blocks)
		}
		if m.Role == "assistant" {
			if len(open) > 0 {
				t.Fatalf("message %d: assistant speaks while calls %v have no result", i, open)
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
			for _, b := range blocks {
				if b.Type == "tool_use" {
					open[b.ID] = true
				}
			}
			continue
		}
		ids := []string{}
		if m.Role == "tool" {
			ids = append(ids, m.ToolCallID)
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				ids = append(ids, b.ToolUseID)
			}
		}
		for _, id := range ids {
			if !open[id] {
				t.Fatalf("message %d: a result for %q, which no open call made", i, id)
			}
			delete(open, id)
		}
	}
	if len(open) > 0 {
		t.Fatalf("calls %v have no result", open)
	}
}

// TestEveryMessageRecoverable checks that nothing is lost: every message of
// the input is in the output as it was, or its tool results are read back
// exactly through their breadcrumbs, or it is read back exactly from the
// fold that holds it.
func TestEveryMessageRecoverable(t *testing.T) {
	for _, f := range formats {
		for _, budget := range []int{0, 20000} {
			t.Run(fmt.Sprintf("%s/%d", f, budget), func(t *testing.T) { checkRecoverable(t, f, budget) })
		}
	}
}

func checkRecoverable(t *testing.T, f history.Format, budget int) {
	{
		{
			st := newStore(t)
			c := newCompactor(t, history.Options{Store: st, Budget: budget})
			in := transcript(t, f, 120)
			res, err := c.Compact(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			orig := decode(t, in).Messages
			out := decode(t, res.Body).Messages
			folded := map[int]bool{}
			for _, fold := range res.Folds {
				data, err := store.ReadAll(context.Background(), st, fold.Ref)
				if err != nil {
					t.Fatalf("fold %s: %v", fold.Ref, err)
				}
				var kept []json.RawMessage
				if err := json.Unmarshal(data, &kept); err != nil {
					t.Fatal(err)
				}
				if len(kept) != fold.Last-fold.First+1 {
					t.Fatalf("fold %s holds %d messages, want %d", fold.Ref, len(kept), fold.Last-fold.First+1)
				}
				for j, k := range kept {
					i := fold.First + j
					if compactJSON(t, k) != compactJSON(t, orig[i]) {
						t.Fatalf("fold %s: message %d differs from the input's", fold.Ref, i)
					}
					folded[i] = true
				}
			}
			inOut := map[string]bool{}
			for _, m := range out {
				inOut[compactJSON(t, m)] = true
			}
			recovered := 0
			for i, m := range orig {
				if folded[i] || inOut[compactJSON(t, m)] {
					continue
				}
				// Breadcrumbed: each tool result is read back by the ref its
				// breadcrumb names.
				for _, want := range toolResults(t, m) {
					found := false
					for _, o := range out {
						for _, ref := range breadcrumbRefs(o) {
							data, err := store.ReadAll(context.Background(), st, ref)
							if err == nil && string(data) == want {
								found = true
							}
						}
					}
					if !found {
						t.Fatalf("message %d: a tool result of %d bytes is neither in the output nor behind a breadcrumb", i, len(want))
					}
					recovered++
				}
			}
			if (budget == 0 && recovered == 0) || (budget > 0 && len(folded) == 0) {
				t.Errorf("recovered %d breadcrumbed results and %d folded messages", recovered, len(folded))
			}
		}
	}
}

// toolResults returns what is stored of each tool result in a message: the
// text of string content, else its JSON.
func toolResults(t testing.TB, raw json.RawMessage) []string {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(raw, &m)
	stored := func(c json.RawMessage) string {
		var s string
		if json.Unmarshal(c, &s) == nil {
			return s
		}
		return compactJSON(t, c)
	}
	if m.Role == "tool" {
		return []string{stored(m.Content)}
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(m.Content, &blocks)
	var out []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			out = append(out, stored(b.Content))
		case "image", "image_url":
			// attachments are stored as their whole part; checked in
			// TestOldImagesStoredRecentKept
		}
	}
	return out
}

func breadcrumbRefs(raw json.RawMessage) []store.Ref {
	var refs []store.Ref
	s := string(raw)
	for {
		i := strings.Index(s, "as ref ")
		if i < 0 {
			return refs
		}
		s = s[i+len("as ref "):]
		if len(s) >= store.RefLen {
			if r, err := store.ParseRef(s[:store.RefLen]); err == nil {
				refs = append(refs, r)
			}
		}
	}
}

// TestStablePrefix compacts a thread before each of its turns, as an agent
// does, and checks that the requests share their prefix: between steps each
// request starts with the whole previous one, and a summary block once
// written stays byte for byte in every later request.
func TestStablePrefix(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			c := newCompactor(t, history.Options{Budget: 30000})
			var prev []string
			var prevRes *history.Result
			var blocks []string
			kept, steps := 0, 0
			for n := 48; n <= 84; n++ {
				res, err := c.Compact(context.Background(), transcript(t, f, n))
				if err != nil {
					t.Fatal(err)
				}
				cur := messages(t, res.Body)
				curBlocks := summaryBlocks(t, cur)
				if len(curBlocks) < len(blocks) {
					// A merge of the oldest blocks, once per FoldStep² turns.
					blocks = nil
				}
				for i, b := range blocks {
					if i >= len(curBlocks) || curBlocks[i] != b {
						t.Fatalf("turn %d: summary block %d changed or vanished", n, i)
					}
				}
				blocks = curBlocks
				if prevRes != nil {
					same := prevRes.OldTurns == res.OldTurns && len(prevRes.Folds) == len(res.Folds)
					if same {
						if !isPrefix(prev, cur) {
							t.Fatalf("turn %d: no compaction step, yet the previous request is not a prefix of this one", n)
						}
						kept++
					} else {
						steps++
						// The anchor at least stays, the task's text first.
						if first := compactJSON(t, json.RawMessage(transcriptFirst(t, f))); !taskKept(t, json.RawMessage(first), json.RawMessage(prev[0])) || !taskKept(t, json.RawMessage(first), json.RawMessage(cur[0])) {
							t.Fatalf("turn %d: the anchor changed", n)
						}
					}
				}
				prev, prevRes = cur, res
			}
			// Old turns step every FoldStep turns; folds mostly come with
			// them, and a fold or a last resort between steps adds one.
			if steps == 0 || kept <= steps {
				t.Errorf("%d requests kept the previous one as prefix, %d were compaction steps: want most requests to extend the previous one", kept, steps)
			}
			t.Logf("%s: %d of %d successive requests extend the previous one; %d compaction steps", f, kept, kept+steps, steps)
		})
	}
}

func messages(t testing.TB, b []byte) []string {
	var out []string
	for _, m := range decode(t, b).Messages {
		out = append(out, compactJSON(t, m))
	}
	return out
}

func isPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func summaryBlocks(t testing.TB, msgs []string) []string {
	for _, m := range msgs {
		if !strings.Contains(m, "[crumb summary of messages") {
			continue
		}
		var s struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal([]byte(m), &s); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range s.Content {
			if strings.Contains(string(c), "[crumb summary of message") {
				out = append(out, string(c)) // not the task's own text
			}
		}
		return out
	}
	return nil
}

func TestSmallThreadUnchanged(t *testing.T) {
	for _, f := range formats {
		in := transcript(t, f, 4)
		res, err := newCompactor(t, history.Options{Budget: 1 << 20}).Compact(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if compactJSON(t, res.Body) != compactJSON(t, in) {
			t.Errorf("%s: a thread under budget with only recent turns changed", f)
		}
		if res.Breadcrumbs != 0 || len(res.Folds) != 0 || res.TokensAfter != res.TokensBefore {
			t.Errorf("%s: %+v", f, res)
		}
	}
}

func TestMessagesArrayInArrayOut(t *testing.T) {
	in := transcript(t, history.OpenAI, 40)
	arr, _ := json.Marshal(decode(t, in).Messages)
	res, err := newCompactor(t, history.Options{Budget: 10000}).Compact(context.Background(), arr)
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(res.Body, &out); err != nil || len(out) == 0 {
		t.Fatalf("a messages array in should give one out: %v\n%.200s", err, res.Body)
	}
}

// TestOldImagesStoredRecentKept checks that image blocks of recent turns
// stay as images, and older ones become a line naming the stored block.
func TestOldImagesStoredRecentKept(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			turns := corpusTurns(t)
			img := -1
			for i, tt := range turns {
				if tt.images != nil {
					img = i
				}
			}
			if img < 0 {
				t.Skip("no image case in the corpus")
			}
			st := newStore(t)
			c := newCompactor(t, history.Options{Store: st})
			// The image is in the last turn: kept.
			res, err := c.Compact(context.Background(), transcript(t, f, img+1))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(res.Body, []byte("iVBORw0KGgo")) {
				t.Fatalf("the recent image was not kept as an image")
			}
			// Many turns later it is old: gone from the context, kept in the
			// store.
			res, err = c.Compact(context.Background(), transcript(t, f, img+1+history.DefaultRecent+history.DefaultFoldStep))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(res.Body, []byte("iVBORw0KGgo")) {
				t.Fatalf("an old image is still in the thread")
			}
			var found bool
			for _, ref := range breadcrumbRefs(res.Body) {
				data, err := store.ReadAll(context.Background(), st, ref)
				if err == nil && bytes.Contains(data, []byte("iVBORw0KGgo")) {
					found = true
				}
			}
			if !found {
				t.Fatalf("no ref in the thread reads back the old image")
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	c := newCompactor(t, history.Options{})
	for _, in := range []string{``, `hello`, `{"model":"x"}`, `[{"content":"no role"}]`, `{"messages":{}}`, `[1,2]`, `{"messages":[` + `{"role":"user"}` + `]} trailing`} {
		_, err := c.Compact(context.Background(), []byte(in))
		if !errors.Is(err, history.ErrInput) {
			t.Errorf("%q: got %v, want ErrInput", in, err)
		}
	}
	if _, err := history.New(history.Options{Store: newStore(t), Budget: -1}); err == nil {
		t.Error("a negative budget was accepted")
	}
}

// fixedSummarizer is a summarizer that answers from the digest it is given,
// counting its calls, or fails when told to.
type fixedSummarizer struct {
	calls atomic.Int32
	fail  bool
}

func (s *fixedSummarizer) Summarize(ctx context.Context, req history.SummaryRequest) (string, error) {
	s.calls.Add(1)
	if s.fail {
		return "", errors.New("model unavailable")
	}
	return fmt.Sprintf("Summary of %d messages.", len(req.Messages)), nil
}

func TestSummarizerCachedAndFallback(t *testing.T) {
	st := newStore(t)
	in := transcript(t, history.OpenAI, 100)
	sum := &fixedSummarizer{}
	res, err := newCompactor(t, history.Options{Store: st, Budget: 15000, Summarizer: sum}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) == 0 || !res.Folds[0].Summarized || !bytes.Contains(res.Body, []byte("Summary of ")) {
		t.Fatalf("the summarizer's text is not in the thread: %+v", res.Folds)
	}
	calls := sum.calls.Load()
	// Another process sharing the store: the summaries are cached beside
	// the folds, so the model is not asked again and the text is the same.
	sum2 := &fixedSummarizer{fail: true}
	res2, err := newCompactor(t, history.Options{Store: st, Budget: 15000, Summarizer: sum2}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.calls.Load() != 0 || !bytes.Equal(res.Body, res2.Body) {
		t.Errorf("cached summaries: %d new calls (want 0), same body %v", sum2.calls.Load(), bytes.Equal(res.Body, res2.Body))
	}
	// A fresh store and a failing model: the extractive digest stands in,
	// marked as a fallback.
	res3, err := newCompactor(t, history.Options{Budget: 15000, Summarizer: &fixedSummarizer{fail: true}}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res3.Folds) == 0 || !res3.Folds[0].Fallback || res3.Folds[0].Err == "" || bytes.Contains(res3.Body, []byte("Summary of ")) {
		t.Errorf("a failing summarizer should fall back to the digest: %+v", res3.Folds)
	}
	if calls == 0 {
		t.Error("the summarizer was never called")
	}
}

func TestHintNamesTheRead(t *testing.T) {
	mcp := func(r recall.Request) string { return `crumb_read {"ref":"` + string(r.Ref) + `"}` }
	res, err := newCompactor(t, history.Options{Budget: 8000, Hint: mcp}).Compact(context.Background(), transcript(t, history.Anthropic, 60))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(res.Body, []byte(`read it with: crumb_read {\"ref\":`)) || !bytes.Contains(res.Body, []byte(`read them with: crumb_read`)) {
		t.Errorf("breadcrumbs and summaries do not name the hint's read")
	}
}

func TestDeterministic(t *testing.T) {
	in := transcript(t, history.Anthropic, 80)
	a, err := newCompactor(t, history.Options{Budget: 10000}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newCompactor(t, history.Options{Budget: 10000}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Body, b.Body) {
		t.Error("two compactions of the same thread differ")
	}
}

// BenchmarkCompact200 compacts a 200-turn transcript to 20,000 tokens with
// a warm Compactor, as an agent does once per turn.
func BenchmarkCompact200(b *testing.B) {
	for _, f := range formats {
		b.Run(string(f), func(b *testing.B) {
			res, _ := compactWarm(b, transcript(b, f, 200), 20000)
			b.ReportMetric(float64(res.TokensBefore), "tokens-before")
			b.ReportMetric(float64(res.TokensAfter), "tokens-after")
			b.ReportMetric(100*float64(res.TokensBefore-res.TokensAfter)/float64(res.TokensBefore), "%saved")
		})
	}
}

// TestSummaryMergesOldBlocks checks that the running summary stays small on
// a long thread: once there are twice FoldStep blocks, the oldest FoldStep
// merge into one, and the blocks still cover the folded messages in order
// with no gap.
func TestSummaryMergesOldBlocks(t *testing.T) {
	for _, f := range formats {
		res, err := newCompactor(t, history.Options{Budget: 4000, FoldStep: 2, Recent: 2}).Compact(context.Background(), transcript(t, f, 60))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Folds) < 2 {
			t.Fatalf("%s: %d folds", f, len(res.Folds))
		}
		anchor := 1
		if f == history.OpenAI {
			anchor = 2
		}
		if res.Folds[0].First != anchor {
			t.Errorf("%s: the first fold starts at message %d, want %d (right after the task)", f, res.Folds[0].First, anchor)
		}
		merged := false
		for i, fold := range res.Folds {
			if i > 0 && fold.First != res.Folds[i-1].Last+1 {
				t.Errorf("%s: fold %d starts at %d, after %d: a gap or an overlap", f, i, fold.First, res.Folds[i-1].Last)
			}
			if fold.Last-fold.First+1 >= 2*2*2 { // FoldStep² turns of at least two messages
				merged = true
			}
		}
		if !merged {
			t.Errorf("%s: no merged block among %d folds", f, len(res.Folds))
		}
	}
}

// TestLLMSummaries folds turns with a model behind a local server that
// speaks the OpenAI wire format: a verified summary stands in the thread; a
// lying one gives the digest, marked as a fallback.
func TestLLMSummaries(t *testing.T) {
	in := transcript(t, history.OpenAI, 60)
	e := llmtest.Start(t, "openai", `{"overview":"The agent ran its tools one by one.","critical_facts":[{"fact":"it began with its first step","quotes":["Step 1: I will run"]}],"omitted":"the results"}`)
	s, err := openai.New(summarize.Config{BaseURL: e.BaseURL, Models: []string{"ok"}, APIKey: llmtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	res, err := newCompactor(t, history.Options{Budget: 10000, Summarizer: history.LLM(s)}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) == 0 || !res.Folds[0].Summarized || !bytes.Contains(res.Body, []byte(`- it began with its first step\n  ✓ \"Step 1: I will run\"`)) {
		t.Fatalf("folds %+v", res.Folds)
	}
	liar, err := openai.New(summarize.Config{BaseURL: e.BaseURL, Models: []string{"lying"}, APIKey: llmtest.Key})
	if err != nil {
		t.Fatal(err)
	}
	res, err = newCompactor(t, history.Options{Budget: 10000, Summarizer: history.LLM(liar)}).Compact(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Folds) == 0 || !res.Folds[0].Fallback || !strings.Contains(res.Folds[0].Err, "the quote check") {
		t.Fatalf("a lying model: folds %+v", res.Folds)
	}
}

// TestDuplicateKeysRefused checks that a thread whose body, message or
// content block names a key twice is refused with ErrInput and an error that
// names the key, rather than compacting one of the two and passing the
// other through: a provider's decoder may read either.
func TestDuplicateKeysRefused(t *testing.T) {
	c := newCompactor(t, history.Options{Budget: 3000})
	for _, f := range formats {
		in := string(transcript(t, f, 40))
		first := strings.Index(in, `"messages":`)
		if first < 0 {
			t.Fatal("the transcript has no messages key")
		}
		short := `"messages":[{"role":"user","content":"the other messages"}],`
		for _, tc := range []struct{ name, in, key string }{
			{"messages twice, short first", in[:first] + short + in[first:], "messages"},
			{"messages twice, short last", in[:len(in)-1] + "," + strings.TrimSuffix(short, ",") + "}", "messages"},
			{"model twice", strings.Replace(in, `"model":`, `"model":"other","model":`, 1), "model"},
			{"bare array, a message's content twice", `[{"role":"user","content":"task"},{"role":"user","content":"a","content":"b"}]`, "content"},
		} {
			t.Run(string(f)+"/"+tc.name, func(t *testing.T) {
				res, err := c.Compact(context.Background(), []byte(tc.in))
				if !errors.Is(err, history.ErrInput) || !strings.Contains(err.Error(), `"`+tc.key+`" twice`) {
					t.Fatalf("got %v (result %v), want ErrInput naming %q twice", err, res != nil, tc.key)
				}
			})
		}
	}
	// An Anthropic tool_result block with two contents.
	dup := `[{"role":"user","content":"task"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"short","content":"` + strings.Repeat("long ", 500) + `"}]}]`
	if _, err := c.Compact(context.Background(), []byte(dup)); !errors.Is(err, history.ErrInput) || !strings.Contains(err.Error(), `"content" twice`) {
		t.Errorf("a tool_result block with two contents: got %v", err)
	}
}

// TestRolesTakeTurns compacts threads whose user and assistant messages take
// turns, as both APIs expect, and checks that the compacted ones still do:
// the running summary never stands as a second user message beside the
// task or beside a user message after the folded turns, every tool result
// still follows its call, and the summary sits in each place it can (in the
// task's message before an assistant turn, an assistant message of its own
// before a user turn).
func TestRolesTakeTurns(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			places := map[string]int{}
			for _, c := range []struct {
				turns        int
				budget       int
				step, recent int
				wantFolds    bool
			}{
				{16, 6000, 0, 0, true},
				{16, 3000, 5, 2, true},
				{16, 3000, 2, 2, true},
				// These fold up to the user's progress check (in the OpenAI
				// thread, a user message with images comes before it).
				{16, 3000, 11, 2, true},
				{16, 3000, 12, 2, true},
				{60, 8000, 0, 0, true},
				{60, 4000, 2, 2, true},
				{30, 0, 0, 0, false},
			} {
				res, err := newCompactor(t, history.Options{Budget: c.budget, FoldStep: c.step, Recent: c.recent}).Compact(context.Background(), transcript(t, f, c.turns))
				if err != nil {
					t.Fatal(err)
				}
				if c.wantFolds != (len(res.Folds) > 0) {
					t.Fatalf("%d turns, budget %d: %d folds", c.turns, c.budget, len(res.Folds))
				}
				msgs := decode(t, res.Body).Messages
				checkTurnsAlternate(t, f, msgs)
				checkPairing(t, msgs)
				if p := summaryPlace(t, msgs); p != "" {
					places[p]++
					t.Logf("%d turns, budget %d, fold step %d: the summary in %s", c.turns, c.budget, c.step, p)
				}
			}
			if places["task"] == 0 || places["assistant"] == 0 {
				t.Errorf("the summary sat %v: want it in the task's message and in an assistant message", places)
			}
		})
	}
}

// checkTurnsAlternate fails when two user or two assistant messages follow
// one another, or an Anthropic thread does not start with the user.
func checkTurnsAlternate(t *testing.T, f history.Format, msgs []json.RawMessage) {
	t.Helper()
	prev := ""
	for i, raw := range msgs {
		var m struct{ Role string }
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if i == 0 && f == history.Anthropic && m.Role != "user" {
			t.Fatalf("message 0 is %q: an Anthropic thread starts with the user", m.Role)
		}
		if m.Role == prev && (m.Role == "user" || m.Role == "assistant") {
			t.Fatalf("messages %d and %d are both %s messages:\n%.300s\n%.300s", i-1, i, m.Role, msgs[i-1], raw)
		}
		prev = m.Role
	}
}

// summaryPlace says where the running summary is: "task" when it is in the
// task's own message (after the task's text), else the role of the message
// that holds it; "" when there is none.
func summaryPlace(t testing.TB, msgs []json.RawMessage) string {
	t.Helper()
	for _, raw := range msgs {
		s := string(raw)
		if !strings.Contains(s, "[crumb summary of message") {
			continue
		}
		var m struct {
			Role    string
			Content []struct{ Text string }
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("the summary's message: %v", err)
		}
		if len(m.Content) > 0 && strings.HasPrefix(m.Content[0].Text, "The CI run of crumb fails.") {
			return "task"
		}
		return m.Role
	}
	return ""
}
