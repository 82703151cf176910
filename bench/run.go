package bench

import (
	"context"
	"fmt"
	"sync"

	"github.com/crumb-dev/crumb/tokens"
)

// DefaultStrategies is what "crumb bench" compares when told nothing else:
// the baselines, a head-and-tail cut of the size of crumb's views, and crumb.
func DefaultStrategies() []string {
	return append(StrategyNames()[:len(StrategyNames())-1], NameHeadTailSame, NameCrumb)
}

// RunOptions tune [Run].
type RunOptions struct {
	// Workers is how many strategies are evaluated at once; zero means 1.
	Workers int
	// MaxPages bounds the pages of continuations followed per case; zero
	// means no bound short of the continuations' end.
	MaxPages int
	// Counter counts tokens; nil means o200k_base.
	Counter tokens.Counter
	// Progress, when set, is called as each strategy starts and ends.
	Progress func(name string, done, total int)
}

// Run evaluates the named strategies (see [Lookup], and "headtail-same",
// which is sized after crumb's views at its default budget) over cases and
// returns their reports and summaries in the order of names, each summary
// with those of the corpus's dev and sealed parts.
func Run(ctx context.Context, cases []*Case, names []string, o RunOptions) ([]Report, []Summary, error) {
	if o.Counter == nil {
		o.Counter = tokens.O200k()
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 1 << 30
	}
	o.Workers = max(o.Workers, 1)
	type job struct {
		name  string
		s     *Meter
		rep   Report
		shown bool
	}
	var jobs []*job
	seen := map[string]bool{}
	sameAt := -1
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		if n == NameHeadTailSame {
			sameAt = len(jobs)
			jobs = append(jobs, &job{name: n, shown: true})
			continue
		}
		s, err := Lookup(n)
		if err != nil {
			return nil, nil, err
		}
		jobs = append(jobs, &job{name: n, s: Metered(s), shown: true})
	}
	var ref *job
	if sameAt >= 0 {
		for _, j := range jobs {
			if j.name == NameCrumb {
				ref = j
			}
		}
		if ref == nil {
			s, _ := Lookup(NameCrumb)
			ref = &job{name: NameCrumb, s: Metered(s)}
			jobs = append(jobs, ref)
		}
	}
	eo := Options{Counter: o.Counter, MaxPages: o.MaxPages}
	total := len(jobs)
	var mu sync.Mutex
	done := 0
	eval := func(j *job) {
		if o.Progress != nil {
			mu.Lock()
			o.Progress(j.name, done, total)
			mu.Unlock()
		}
		j.rep = EvaluateWith(ctx, cases, j.s, eo)
		mu.Lock()
		done++
		if o.Progress != nil {
			o.Progress(j.name, done, total)
		}
		mu.Unlock()
	}
	// crumb's report sizes headtail-same: it goes first, the rest after.
	var rest []*job
	for _, j := range jobs {
		if j == ref {
			eval(j)
		} else if j.s != nil {
			rest = append(rest, j)
		}
	}
	if sameAt >= 0 {
		if ref.rep.Err != "" {
			return nil, nil, fmt.Errorf("bench: evaluating crumb: %s", ref.rep.Err)
		}
		jobs[sameAt].s = Metered(HeadTailSame(ref.rep))
		rest = append(rest, jobs[sameAt])
	}
	work := make(chan *job)
	var wg sync.WaitGroup
	for range min(o.Workers, max(len(rest), 1)) {
		wg.Go(func() {
			for j := range work {
				eval(j)
			}
		})
	}
	for _, j := range rest {
		work <- j
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	var reps []Report
	var sums []Summary
	for _, j := range jobs {
		if !j.shown {
			continue
		}
		if j.rep.Err != "" {
			return nil, nil, fmt.Errorf("bench: evaluating %s: %s", j.name, j.rep.Err)
		}
		reps = append(reps, j.rep)
		s := Summarize(j.rep, cases, j.s, o.Counter)
		dev := Summarize(j.rep.Part(PartDev), cases, j.s, o.Counter)
		sealed := Summarize(j.rep.Part(PartSealed), cases, j.s, o.Counter)
		s.Dev, s.Sealed = &dev, &sealed
		sums = append(sums, s)
	}
	return reps, sums, nil
}
