package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/store"
)

// longTurns is the length of the long thread of the issue: 10,000 tool
// turns (and a progress check every ten), about 80 MB and 12.8 million
// tokens in each format.
const longTurns = 10000

// BenchmarkCompactLong compacts the 10,000-turn transcript to 20,000
// tokens: cold, with a new Compactor and an empty store each time (what a
// crumb compact process does), and warm, with the Compactor of the
// previous call (what an agent's loop or crumb serve does).
func BenchmarkCompactLong(b *testing.B) {
	for _, f := range formats {
		in := transcript(b, f, longTurns)
		b.Run(string(f)+"/cold", func(b *testing.B) {
			var res *history.Result
			b.SetBytes(int64(len(in)))
			cpu := time.Duration(0)
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				c := newCompactor(b, history.Options{Budget: 20000})
				b.StartTimer()
				cpu0 := cpuTime()
				var err error
				if res, err = c.Compact(context.Background(), in); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
			}
			reportLong(b, res, cpu)
		})
		b.Run(string(f)+"/warm", func(b *testing.B) {
			res, cpu := compactWarm(b, in, 20000)
			reportLong(b, res, cpu)
		})
	}
}

// compactWarm compacts in b.N times with the Compactor of a first, untimed
// call, and returns the last result and the CPU time the b.N calls took.
func compactWarm(b *testing.B, in []byte, budget int) (*history.Result, time.Duration) {
	c := newCompactor(b, history.Options{Budget: budget})
	res, err := c.Compact(context.Background(), in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if res, err = c.Compact(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	return res, cpuTime() - cpu0
}

func reportLong(b *testing.B, res *history.Result, cpu time.Duration) {
	// The machine is shared: the CPU time of an operation (this process's,
	// user and system, on every core) is steadier than its wall time.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(res.TokensBefore), "tokens-before")
	b.ReportMetric(float64(res.TokensAfter), "tokens-after")
	b.ReportMetric(float64(len(res.Folds)), "blocks")
}

func bytesOf(msgs []json.RawMessage) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	return out
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLongThreadMeetsBudget compacts the 10,000-turn transcript (crumb's
// views of the corpus's real tool output, in OpenAI's and Anthropic's
// shapes) to budgets a long run is given: the summary merges its blocks
// level by level, and further when it must, so the thread fits; the task
// and the recent turns stay word for word, the blocks cover the folded
// messages in order, and each block's ref holds its messages exactly.
func TestLongThreadMeetsBudget(t *testing.T) {
	for _, f := range formats {
		in := transcript(t, f, longTestTurns)
		orig := decode(t, in)
		st := newStore(t)
		c := newCompactor(t, history.Options{Store: st, Budget: 20000})
		tight := newCompactor(t, history.Options{Store: st, Budget: 9000})
		for _, tc := range []struct {
			budget int
			c      *history.Compactor
		}{{20000, c}, {9000, tight}} {
			t.Run(fmt.Sprintf("%s/%d", f, tc.budget), func(t *testing.T) {
				res, err := tc.c.Compact(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%d messages, %d tokens -> %d messages, %d tokens in %d summary blocks (task %d, summary %d, older %d, recent %d)",
					res.Messages, res.TokensBefore, res.MessagesAfter, res.TokensAfter, len(res.Folds), res.TaskTokens, res.SummaryTokens, res.OlderTokens, res.RecentTokens)
				if res.OverBudget || res.TokensAfter > tc.budget {
					t.Fatalf("%d tokens after compaction in %d summary blocks, over the budget of %d (over budget: %v)", res.TokensAfter, len(res.Folds), tc.budget, res.OverBudget)
				}
				got := decode(t, res.Body)
				anchor := 1
				if f == history.OpenAI {
					anchor = 2
				}
				for i := 0; i < anchor; i++ {
					if !taskKept(t, orig.Messages[i], got.Messages[i]) {
						t.Errorf("anchor message %d changed", i)
					}
				}
				tail := recentTail(t, orig.Messages, history.DefaultRecent)
				gotTail := got.Messages[len(got.Messages)-len(tail):]
				for i := range tail {
					if compactJSON(t, gotTail[i]) != compactJSON(t, tail[i]) {
						t.Errorf("recent message %d changed", i)
					}
				}
				if len(res.Folds) == 0 || res.Folds[0].First != anchor {
					t.Fatalf("folds %+v: want the first to start right after the task", res.Folds)
				}
				for i, fold := range res.Folds {
					if i > 0 && fold.First != res.Folds[i-1].Last+1 {
						t.Fatalf("block %d starts at message %d, after %d: a gap or an overlap", i, fold.First, res.Folds[i-1].Last)
					}
					// Every block's messages read back exactly.
					data, err := store.ReadAll(context.Background(), st, fold.Ref)
					if err != nil {
						t.Fatalf("block %d (messages %d-%d): ref %s: %v", i, fold.First+1, fold.Last+1, fold.Ref, err)
					}
					want := append([]byte{'['}, bytes.Join(bytesOf(orig.Messages[fold.First:fold.Last+1]), []byte{','})...)
					if bytes.Equal(data, append(want, ']')) {
						continue // the thread's own bytes
					}
					var kept []json.RawMessage
					err = json.Unmarshal(data, &kept)
					if err != nil || len(kept) != fold.Last-fold.First+1 {
						t.Fatalf("block %d: %d messages kept (%v), want %d", i, len(kept), err, fold.Last-fold.First+1)
					}
					for j := range kept {
						if !bytes.Equal(kept[j], orig.Messages[fold.First+j]) && compactJSON(t, kept[j]) != compactJSON(t, orig.Messages[fold.First+j]) {
							t.Fatalf("block %d: message %d differs from the thread's", i, fold.First+j)
						}
					}
				}
				// The messages between the summary and the recent turns
				// are the thread's, in order: nothing is lost between them.
				last := res.Folds[len(res.Folds)-1].Last
				before := anchor + 1 // the anchor and the summary's own message
				if summaryPlace(t, got.Messages) == "task" {
					before = anchor
				}
				if n := len(got.Messages) - before; n != len(orig.Messages)-(last+1) {
					t.Errorf("%d messages after the summary, want the %d after message %d", n, len(orig.Messages)-(last+1), last+1)
				}
			})
		}
	}
}

// turnSummarizer records the most turns it was asked to summarize at once.
type turnSummarizer struct {
	mu   sync.Mutex
	most int
}

func (s *turnSummarizer) Summarize(ctx context.Context, req history.SummaryRequest) (string, error) {
	turns := 0
	for _, m := range req.Messages {
		if !isAnswer(m) {
			turns++
		}
	}
	s.mu.Lock()
	s.most = max(s.most, turns)
	s.mu.Unlock()
	return fmt.Sprintf("Summary of %d messages.", len(req.Messages)), nil
}

// TestSummarizerSeesSmallBlocks compacts a thread long enough for blocks
// of the third level (FoldStep³ turns and more): the summarizer writes the
// blocks of the first two levels, and the digest stands for the larger
// ones, whose messages are not sent to a model whole.
func TestSummarizerSeesSmallBlocks(t *testing.T) {
	for _, f := range formats {
		s := &turnSummarizer{}
		res, err := newCompactor(t, history.Options{Budget: 3000, FoldStep: 2, Recent: 2, Summarizer: s}).Compact(context.Background(), transcript(t, f, 120))
		if err != nil {
			t.Fatal(err)
		}
		big, summarized := 0, 0
		for _, fold := range res.Folds {
			if fold.Summarized {
				summarized++
			}
			if fold.Last-fold.First+1 > 2*2*2*2 { // more than FoldStep² turns of at most four messages
				big++
			}
		}
		if big == 0 || summarized == 0 {
			t.Fatalf("%s: %d blocks of more than 4 turns, %d summarized, of %d: the test needs both", f, big, summarized, len(res.Folds))
		}
		if s.most > 4 {
			t.Errorf("%s: the summarizer was sent %d turns at once, want at most FoldStep² = 4", f, s.most)
		}
	}
}
