// Package projecttest checks that a [project.Projector] keeps the promises
// every view of crumb's makes, as testing/slogtest does for slog handlers. A
// program that registers a kind of its own runs [Run] over its projector
// with a few realistic results of that kind; crumb runs it over every kind
// it registers.
//
// # Checks
//
// For every case and every budget of the [Suite]:
//
//   - [CheckSmall]: a text result within crumb's default budget, projected
//     at a budget of four times its size, is shown whole: the view is
//     complete, names no continuation and holds every line of the result as
//     it is (binary content is never shown as text, and is not held to
//     this).
//   - [CheckNotLarger]: a view that omits anything costs no more tokens
//     than the whole result.
//   - [CheckWithinBudget]: the view takes at most the budget.
//   - [CheckBudgetUsed]: a result larger than the budget gets a view of at
//     least 80% of it, unless everything the view leaves out is a line it
//     already shows (exact repetition).
//   - [CheckDeterministic]: the same input gives a byte-identical view and
//     continuation.
//   - [CheckContinuation]: a view that omits material names a
//     continuation; the lines outside the ranges it names are in the view,
//     and following it through recall's reads visits every line it names
//     once, in order, and ends.
//
// Once per suite, [CheckMemory]: projecting a 1 GB input made on the fly
// ([Synth]) grows the heap by at most [MemoryLimit], measured from the
// runtime's own figures, never by time.
//
// Tokens are counted as a model is charged them: the view's text, and for
// an MCP CallToolResult its text and its images, not the base64 of its media
// blocks.
//
// A check a kind is known to fail is named in [Suite.Skip] with the reason,
// and is reported as skipped.
package projecttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// The names of the checks, for [Suite.Skip].
const (
	CheckSmall         = "small"
	CheckNotLarger     = "not-larger"
	CheckWithinBudget  = "within-budget"
	CheckBudgetUsed    = "budget-used"
	CheckDeterministic = "deterministic"
	CheckContinuation  = "continuation"
	CheckMemory        = "memory"
)

// UsedShare is the least share of the budget, in percent, that a view of a
// result larger than the budget takes ([CheckBudgetUsed]).
const UsedShare = 80

// MemoryLimit is the most the heap may grow while a projector projects the
// large input ([CheckMemory]): generous beside the buffers a projector
// needs for a budget, a quarter of the 1 GB input it is given.
const MemoryLimit = 256 << 20

// LargeSize is the size of the large input of [CheckMemory].
const LargeSize = 1 << 30

// Case is one raw result of the kind under test, with the call that
// produced it.
type Case struct {
	// Name names the case in test output.
	Name string
	// Body is the result's bytes exactly as the tool returned them.
	Body []byte
	// Tool, Args, ExitCode, Command and OutputSchema describe the call, as
	// in [project.Input].
	Tool         string
	Args         json.RawMessage
	ExitCode     *int
	Command      []string
	OutputSchema json.RawMessage
}

// Suite describes a projector under test.
type Suite struct {
	// Projector is the projector under test.
	Projector project.Projector
	// Cases are realistic results of its kind; the more of its shapes they
	// cover, the more the checks say.
	Cases []Case
	// Budgets are the budgets every case is projected at; nil means 2,000
	// (crumb's default) and 500.
	Budgets []int
	// Large makes the input of [CheckMemory]: a result of about size bytes
	// of the kind, typically a [Synth] over a record of the kind (call
	// fields such as the tool come from Case). Nil skips the check.
	Large func(size int64) (project.Source, Case)
	// Skip names checks known to fail, each with why (an issue reference):
	// a key is a check's name, for every case, or "case/check" for one
	// case. A skipped check is reported as skipped, never as passed.
	Skip map[string]string
	// Counter counts tokens; nil means o200k_base.
	Counter tokens.Counter
}

// Run runs every check of s as subtests of t.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.Projector == nil {
		t.Fatal("projecttest: no Projector")
	}
	if s.Counter == nil {
		s.Counter = tokens.O200k()
	}
	if s.Budgets == nil {
		s.Budgets = []int{2000, 500}
	}
	// The memory check runs first, while the heap holds little else.
	t.Run(CheckMemory, func(t *testing.T) {
		if why := s.skip("", CheckMemory); why != "" {
			t.Skip(why)
		}
		if s.Large == nil {
			t.Skip("the suite gives no large input")
		}
		if testing.Short() {
			t.Skip("a 1 GB input is not projected in -short runs")
		}
		if raceEnabled {
			t.Skip("a 1 GB input is not projected under -race, whose shadow memory the heap measure would count: run the suite without -race")
		}
		checkMemory(t, s)
	})
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, c := range s.Cases {
		t.Run(c.Name, func(t *testing.T) {
			r := &runner{s: s, st: st, c: c}
			r.open(t)
			rawTokens := s.cost(string(c.Body))
			budgets := slices.Clone(s.Budgets)
			// A small result, one within crumb's default budget, is also
			// projected at a budget four times its size, where it must be
			// shown whole.
			if rawTokens <= recall.DefaultBudget && !sniff.IsBinary(c.Body[:min(len(c.Body), sniff.Len)]) {
				budgets = append(budgets, 4*rawTokens+64)
			}
			for _, b := range budgets {
				t.Run(fmt.Sprintf("budget=%d", b), func(t *testing.T) { r.check(t, b, rawTokens) })
			}
		})
	}
}

// cost is what a text costs a model: its tokens, and for an MCP
// CallToolResult the tokens of its text and what its images cost, not the
// base64 of its media blocks, which a client sends as media.
func (s Suite) cost(text string) int {
	if c, ok := project.MCPCostOf([]byte(text)); ok {
		return s.Counter.Count(c.Text) + c.Images
	}
	return s.Counter.Count(text)
}

func (s Suite) skip(caseName, check string) string {
	if why := s.Skip[check]; why != "" {
		return why
	}
	if caseName == "" {
		return ""
	}
	return s.Skip[caseName+"/"+check]
}

type runner struct {
	s   Suite
	st  *store.Dir
	c   Case
	obj store.Object
	doc *lines.Doc
}

func (r *runner) open(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	info, err := r.st.Put(ctx, bytes.NewReader(r.c.Body), store.Meta{Tool: r.c.Tool})
	if err != nil {
		t.Fatalf("storing the case: %v", err)
	}
	obj, err := r.st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatalf("opening the stored case: %v", err)
	}
	t.Cleanup(func() { obj.Close() })
	r.obj, r.doc = obj, recall.NewDoc(obj)
}

// input builds a fresh input over the stored case, as the pipeline does.
func (r *runner) input(budget int) *project.Input {
	info := r.obj.Info()
	return newInput(r.s, r.c, r.obj, budget, func(ctx context.Context, data []byte, meta store.Meta) (store.Ref, error) {
		info, err := r.st.Put(ctx, bytes.NewReader(data), meta)
		return info.Ref, err
	}, info.Ref)
}

func newInput(s Suite, c Case, src project.Source, budget int, put func(context.Context, []byte, store.Meta) (store.Ref, error), ref store.Ref) *project.Input {
	info := src.Info()
	return &project.Input{
		Source: src, Ref: ref, Digest: info.Digest,
		Tool: c.Tool, Args: c.Args, ExitCode: c.ExitCode, Command: c.Command, OutputSchema: c.OutputSchema,
		Budget: budget, Counter: s.Counter, Hint: recall.CLIHint, Line: recall.PlainLine, Put: put,
	}
}

func (r *runner) project(t *testing.T, budget int) project.Output {
	t.Helper()
	out, err := r.s.Projector.Project(context.Background(), r.input(budget))
	if err != nil {
		t.Fatalf("projecting at a budget of %d: %v", budget, err)
	}
	return out
}

func (r *runner) check(t *testing.T, budget, rawTokens int) {
	out := r.project(t, budget)
	viewTokens := r.s.cost(out.Text)
	binary := sniff.IsBinary(r.c.Body[:min(len(r.c.Body), sniff.Len)])
	sub := func(name string, f func(t *testing.T)) {
		t.Run(name, func(t *testing.T) {
			if why := r.s.skip(r.c.Name, name); why != "" {
				t.Skip(why)
			}
			f(t)
		})
	}
	sub(CheckDeterministic, func(t *testing.T) {
		again := r.project(t, budget)
		if again.Text != out.Text {
			t.Errorf("a second projection differs:\n--- first ---\n%.2000s\n--- second ---\n%.2000s", out.Text, again.Text)
		}
		if a, b := argv(out.Next), argv(again.Next); a != b || out.Complete != again.Complete {
			t.Errorf("a second projection continues with %s (complete %v), the first with %s (complete %v)", b, again.Complete, a, out.Complete)
		}
	})
	sub(CheckWithinBudget, func(t *testing.T) {
		if viewTokens > budget {
			t.Errorf("the view takes %d tokens, over the budget of %d:\n%.3000s", viewTokens, budget, out.Text)
		}
	})
	sub(CheckNotLarger, func(t *testing.T) {
		if !out.Complete && viewTokens > rawTokens {
			t.Errorf("the view omits material yet takes %d tokens, the whole result %d:\n%.3000s", viewTokens, rawTokens, out.Text)
		}
	})
	if !binary && 4*rawTokens+64 <= budget {
		sub(CheckSmall, func(t *testing.T) {
			if !out.Complete || out.Next != nil {
				t.Fatalf("a result of %d tokens at a budget of %d is not shown whole (complete %v, next %s):\n%.3000s", rawTokens, budget, out.Complete, argv(out.Next), out.Text)
			}
			if err := r.inView(out.Text, 0, r.doc.Size()); err != nil {
				t.Error(err)
			}
		})
	}
	sub(CheckContinuation, func(t *testing.T) { r.checkContinuation(t, out, binary) })
	if rawTokens > budget {
		sub(CheckBudgetUsed, func(t *testing.T) {
			if viewTokens*100 >= budget*UsedShare {
				return
			}
			if out.Next != nil && out.Next.Ref == r.obj.Info().Ref && r.repeats(t, out) {
				return
			}
			t.Errorf("a result of %d tokens gets a view of %d tokens, under %d%% of the budget of %d, and what it leaves out is not all repetition of what it shows:\n%.3000s",
				rawTokens, viewTokens, UsedShare, budget, out.Text)
		})
	}
}

func argv(r *recall.Request) string {
	if r == nil {
		return "nothing"
	}
	return strings.Join(r.Argv(), " ")
}

// checkContinuation follows a view's continuation to its end.
func (r *runner) checkContinuation(t *testing.T, out project.Output, binary bool) {
	ctx := context.Background()
	if out.Next == nil {
		if !out.Complete && !binary {
			t.Errorf("the view is not complete and names no continuation:\n%.3000s", out.Text)
		}
		return
	}
	obj := r.obj
	if out.Next.Ref != obj.Info().Ref {
		o, err := r.st.Open(ctx, out.Next.Ref)
		if err != nil {
			t.Fatalf("opening %s, which the continuation names: %v", out.Next.Ref, err)
		}
		defer o.Close()
		obj = o
	}
	doc := recall.NewDoc(obj)
	want, err := Spans(doc, *out.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatalf("the continuation %s names nothing", argv(out.Next))
	}
	if obj == r.obj {
		pos := int64(0)
		for _, s := range append(want, recall.Span{From: doc.Size(), To: doc.Size()}) {
			if err := r.inView(out.Text, pos, s.From); err != nil {
				t.Fatal(err)
			}
			pos = s.To
		}
	}
	req := *out.Next
	var got []recall.Span
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("the continuations do not end")
		}
		p, err := recall.ReadObject(ctx, obj, req, recall.Options{Line: recall.PlainLine, Counter: r.s.Counter})
		if err != nil {
			t.Fatalf("reading %s: %v", argv(&req), err)
		}
		if len(p.Shown) == 0 {
			t.Fatalf("the page of %s shows nothing:\n%.2000s", argv(&req), p.Text)
		}
		for _, s := range p.Shown {
			if len(got) > 0 && s.From < got[len(got)-1].To {
				t.Fatalf("the page of %s reads bytes %d-%d again (the pages before read up to %d)", argv(&req), s.From, s.To, got[len(got)-1].To)
			}
			got = AppendSpan(got, s)
		}
		if p.Next == nil {
			break
		}
		req = *p.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the pages read bytes %v; the view omits %v", got, want)
	}
}

// repeats reports whether every line the view's continuation names is, as
// rendered, already in the view.
func (r *runner) repeats(t *testing.T, out project.Output) bool {
	spans, err := Spans(r.doc, *out.Next)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range spans {
		for pos := s.From; pos < s.To; {
			l, err := r.doc.ReadLine(pos, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.TrimSpace(recall.PlainLine(l.Text, l.Cut))
			if !seen[text] {
				if text != "" && !strings.Contains(out.Text, text) {
					return false
				}
				seen[text] = true
			}
			pos = l.End
		}
	}
	return true
}

// Spans returns the byte ranges of doc that a read of lines or bytes names,
// each To exclusive, adjacent ones merged: what a continuation says a view
// omits, in the form a page's Shown reports what it read.
func Spans(doc *lines.Doc, r recall.Request) ([]recall.Span, error) {
	total, err := doc.Lines()
	if err != nil {
		return nil, err
	}
	var out []recall.Span
	for _, s := range r.Ranges() {
		from, to := s.From, s.To
		if r.Lines != nil {
			if from, err = doc.LineStart(s.From); err != nil {
				return nil, err
			}
			to = doc.Size()
			if s.To != 0 && s.To < total {
				if to, err = doc.LineStart(s.To + 1); err != nil {
					return nil, err
				}
			}
		} else if to == 0 || to > doc.Size() {
			to = doc.Size()
		}
		out = AppendSpan(out, recall.Span{From: from, To: to})
	}
	return out, nil
}

// AppendSpan appends s to ss, merged with the last span when they touch.
func AppendSpan(ss []recall.Span, s recall.Span) []recall.Span {
	if n := len(ss); n > 0 && ss[n-1].To == s.From {
		ss[n-1].To = s.To
		return ss
	}
	return append(ss, s)
}

func (r *runner) inView(view string, from, to int64) error {
	return InView(r.doc, view, from, to, recall.PlainLine)
}

// InView checks that view shows the bytes [from, to) of doc: each line of
// them, rendered by render as views render lines, is in the view's text (as
// it is, or escaped as a JSON string for views that are JSON documents).
func InView(doc *lines.Doc, view string, from, to int64, render recall.LineFunc) error {
	for pos := from; pos < to; {
		l, err := doc.ReadLine(pos, 1<<20)
		if err != nil {
			return err
		}
		end := min(l.End, to)
		text := l.Text[:min(int64(len(l.Text)), end-pos)]
		fragment := end < l.End && end-pos <= int64(len(l.Text)) || pos > l.Start
		// Whole characters only: a line cut for the budget is cut at one.
		for len(text) > 0 && !utf8.FullRune(text[len(text)-min(len(text), utf8.UTFMax):]) {
			text = text[:len(text)-1]
		}
		s := strings.TrimSpace(render(text, fragment))
		if s != "" && !strings.Contains(view, s) {
			js, _ := json.Marshal(s)
			if !strings.Contains(view, strings.Trim(string(js), `"`)) {
				return fmt.Errorf("bytes %d-%d are not omitted, but the view does not show them: %.200q\nview:\n%.3000s", pos, end, s, view)
			}
		}
		pos = end
	}
	return nil
}

// checkMemory projects the large input and checks how far the heap grew.
func checkMemory(t *testing.T, s Suite) {
	src, c := s.Large(LargeSize)
	if src.Size() < LargeSize*9/10 {
		t.Fatalf("the large input has %d bytes; want about %d", src.Size(), LargeSize)
	}
	m, err := measure(s, src, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes projected: the heap's space grew by %.1f MiB (%.1f MiB were free before), %.1f MiB allocated in all; a view of %d tokens",
		src.Size(), float64(m.grew)/(1<<20), float64(m.free)/(1<<20), float64(m.allocated)/(1<<20), m.viewTokens)
	if m.grew > MemoryLimit {
		t.Errorf("projecting %d bytes grew the heap by %.1f MiB; want at most %d MiB", src.Size(), float64(m.grew)/(1<<20), MemoryLimit>>20)
	}
	if m.viewTokens > m.budget {
		t.Errorf("the view of the large input takes %d tokens, over the budget of %d", m.viewTokens, m.budget)
	}
}

// measured is what one projection cost the heap.
type measured struct {
	grew, free, allocated int64
	viewTokens, budget    int
}

// measure projects src once at crumb's default budget. HeapSys, the heap's
// address space, keeps what the heap once needed (the runtime returns pages
// to the OS but keeps their addresses), so its growth says how far the
// heap's peak rose above its size before, whenever the peak came; pages
// free before (all released by FreeOSMemory) that the projection took
// again count as well, by how far the released bytes fell. A projection
// that held a 1 GB input would grow the heap by a gigabyte.
func measure(s Suite, src project.Source, c Case) (measured, error) {
	in := newInput(s, c, src, 2000, nil, src.Info().Ref)
	debug.FreeOSMemory()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := s.Projector.Project(context.Background(), in)
	runtime.ReadMemStats(&after)
	if err != nil {
		return measured{}, fmt.Errorf("projecting %d bytes: %w", src.Size(), err)
	}
	// The free pages released before the projection and in use again
	// after it grew the heap too, without growing its address space.
	reused := max(int64(before.HeapReleased)-int64(after.HeapReleased), 0)
	return measured{
		grew:       int64(after.HeapSys) - int64(before.HeapSys) + reused,
		free:       int64(before.HeapSys) - int64(before.HeapInuse),
		allocated:  int64(after.TotalAlloc - before.TotalAlloc),
		viewTokens: s.cost(out.Text),
		budget:     in.Budget,
	}, nil
}
