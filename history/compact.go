package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/crumb-dev/crumb/store"
)

// thread is a parsed thread: its messages and where they sit in the body.
type thread struct {
	format Format
	body   *object // nil when the input was a bare messages array
	msgs   []*message
}

func (c *Compactor) parse(input []byte) (*thread, error) {
	in := bytes.TrimSpace(input)
	if len(in) == 0 {
		return nil, fmt.Errorf("%w: empty input: want a messages array or a request body with \"messages\"", ErrInput)
	}
	t := &thread{}
	var rawMsgs json.RawMessage
	switch in[0] {
	case '[':
		rawMsgs = in
	case '{':
		o, err := parseUnique(in)
		if err != nil {
			return nil, fmt.Errorf("%w: the request body: %v", ErrInput, err)
		}
		rawMsgs = o.get("messages")
		if rawMsgs == nil {
			return nil, fmt.Errorf("%w: the request body has no \"messages\"", ErrInput)
		}
		t.body = &o
	default:
		return nil, fmt.Errorf("%w: not JSON: want a messages array or a request body with \"messages\"", ErrInput)
	}
	elems, err := parseArray(rawMsgs)
	if err != nil {
		return nil, fmt.Errorf("%w: messages: %v", ErrInput, err)
	}
	t.format = c.opts.Format
	if t.format == Auto {
		t.format = detect(elems)
	}
	for i, e := range elems {
		mm := c.messages(t.format)
		m, ok := peek(c, mm, e)
		if !ok {
			if m, err = cached(c, mm, string(e), func() (*message, error) { return parseMessage(e, t.format, i) }); err != nil {
				return nil, err
			}
		}
		t.msgs = append(t.msgs, m)
	}
	return t, nil
}

// turns splits the thread into the anchor (leading system messages and the
// first user message) and turns: each user or assistant message with the
// messages that answer its tool calls. It returns the index of the first
// message after the anchor and the first message index of each turn.
func (t *thread) turns() (anchorEnd int, starts []int) {
	for i, m := range t.msgs {
		if m.role == "system" || m.role == "developer" {
			continue
		}
		if m.role == "user" && !m.answer {
			anchorEnd = i + 1
		}
		break
	}
	for i := anchorEnd; i < len(t.msgs); i++ {
		if !t.msgs[i].answer || len(starts) == 0 {
			starts = append(starts, i)
		}
	}
	return anchorEnd, starts
}

// Compact compacts one thread; see the package documentation.
func (c *Compactor) Compact(ctx context.Context, input []byte) (*Result, error) {
	t, err := c.parse(input)
	if err != nil {
		return nil, err
	}
	res := &Result{Format: t.format, Messages: len(t.msgs), Budget: c.opts.Budget}
	p := &plan{c: c, t: t, ctx: ctx, calls: map[string]toolCall{}}
	p.out = make([]json.RawMessage, len(t.msgs))
	p.cost = make([]int, len(t.msgs))
	p.rawPre = make([]int, len(t.msgs)+1)
	for i, m := range t.msgs {
		p.out[i] = m.raw
		p.cost[i] = c.count(m.raw)
		p.rawPre[i+1] = p.rawPre[i] + p.cost[i]
		for _, tc := range m.calls {
			p.calls[tc.id] = tc
		}
	}
	res.TokensBefore = p.rawPre[len(t.msgs)]
	p.anchorEnd, p.starts = t.turns()
	nT := len(p.starts)
	raw := p.turnCosts()

	// Old turns, FoldStep at a time once Recent turns are newer, become
	// breadcrumbs.
	old := p.oldTurns(nT)
	if err := p.crumbTurns(0, old, res); err != nil {
		return nil, err
	}
	crumbed := p.turnCosts()

	// The number of summary blocks is the most that any earlier state of
	// this thread needed (each prefix of its turns), so that it never
	// shrinks as the thread grows and a block once written stays.
	k := 0
	anchor := p.rawPre[p.anchorEnd]
	if c.opts.Budget > 0 {
		for m := 1; m <= nT; m++ {
			// Where the old turns step forward, fold with room to spare for
			// the turns still to come before the next step, so that folds
			// mostly happen together with steps.
			room := c.opts.Budget
			if m == c.opts.Recent+p.oldTurns(m) {
				room -= c.opts.Budget / 4
			}
			for k < p.oldTurns(m)/c.opts.FoldStep {
				tot, err := p.total(anchor, m, k, raw, crumbed)
				if err != nil {
					return nil, err
				}
				if tot <= room {
					break
				}
				k++
			}
		}
	}
	// Last resort: still over budget, the turns between the folded ones and
	// the Recent newest become breadcrumbs now, as they will once the next
	// step is reached (with the same text).
	if c.opts.Budget > 0 && old < nT-c.opts.Recent {
		tot, err := p.total(anchor, nT, k, raw, crumbed)
		if err != nil {
			return nil, err
		}
		if tot > c.opts.Budget {
			if err := p.crumbTurns(old, nT-c.opts.Recent, res); err != nil {
				return nil, err
			}
			old = nT - c.opts.Recent
		}
	}
	rest := 0 // the turns after the folded ones, as they will be sent
	for i := p.turnStart(k * c.opts.FoldStep); i < len(p.cost); i++ {
		rest += p.cost[i]
	}
	spans := lazySpans(k, p.merge())
	blocks, err := p.blocks(spans)
	if err != nil {
		return nil, err
	}
	// Still over budget with every old turn folded that can be: the summary
	// tightens, merging its blocks as often as it takes, until it fits or
	// is one block.
	if c.opts.Budget > 0 && k > 0 && anchor+summaryCost(blocks)+rest > c.opts.Budget {
		if blocks, err = p.tighten(tighterSpans(k, p.merge()), c.opts.Budget-anchor-rest); err != nil {
			return nil, err
		}
	}

	msgs := make([]json.RawMessage, 0, len(p.out)+1)
	msgs = append(msgs, p.out[:p.anchorEnd]...)
	folded := p.anchorEnd
	if k > 0 {
		texts := make([]json.RawMessage, len(blocks))
		for i, blk := range blocks {
			// The folded messages stay in the store while the thread
			// refers to them.
			if err := p.keep(blk); err != nil {
				return nil, err
			}
			texts[i] = blk.text
			res.Folds = append(res.Folds, blk.fold)
		}
		folded = p.turnStart(k * c.opts.FoldStep)
		var merged bool
		msgs, merged = p.placeSummary(msgs, texts, folded)
		res.SummaryTokens = c.count(msgs[len(msgs)-1])
		if merged {
			// The summary takes what it added to the task's message.
			res.SummaryTokens -= c.count(p.out[p.anchorEnd-1])
		}
		res.FoldedTurns = k * c.opts.FoldStep
	}
	msgs = append(msgs, p.out[folded:]...)
	res.OldTurns = old
	res.RecentTurns = nT - old
	res.MessagesAfter = len(msgs)
	for i := 0; i < p.anchorEnd; i++ {
		res.TaskTokens += c.count(p.out[i])
	}
	for i := folded; i < len(p.out); i++ {
		n := c.count(p.out[i])
		if i < p.turnStart(old) {
			res.OlderTokens += n
		} else {
			res.RecentTokens += n
		}
	}
	res.TokensAfter = res.TaskTokens + res.SummaryTokens + res.OlderTokens + res.RecentTokens
	res.OverBudget = c.opts.Budget > 0 && res.TokensAfter > c.opts.Budget
	arr := joinArray(msgs)
	if t.body == nil {
		res.Body = arr
	} else {
		res.Body = t.body.with("messages", arr).marshal()
	}
	return res, nil
}

// plan is the state of one compaction.
type plan struct {
	c         *Compactor
	t         *thread
	ctx       context.Context
	calls     map[string]toolCall
	out       []json.RawMessage // each message as it will be sent
	cost      []int             // and its tokens
	rawPre    []int             // prefix sums of the messages' tokens as they came
	anchorEnd int
	starts    []int // first message of each turn
	folds     map[span]foldBlock
}

type foldBlock struct {
	fold Fold
	text json.RawMessage // the text block
	cost int
	// first and end are the messages [first, end) the block stands for.
	first, end int
}

// oldTurns is how many of the first m turns are old: none while there are
// at most Recent, then FoldStep more each time FoldStep more turns came.
func (p *plan) oldTurns(m int) int {
	r, s := p.c.opts.Recent, p.c.opts.FoldStep
	if m <= r {
		return 0
	}
	return (m - r) / s * s
}

// turnStart is the index of the first message of turn i (the end of the
// thread for i past the last turn).
func (p *plan) turnStart(i int) int {
	if i < len(p.starts) {
		return p.starts[i]
	}
	return len(p.t.msgs)
}

// turnCosts returns the prefix sums of the turns' current costs: element i
// is the cost of turns [0, i).
func (p *plan) turnCosts() []int {
	sums := make([]int, len(p.starts)+1)
	for i := range p.starts {
		n := 0
		for j := p.starts[i]; j < p.turnStart(i+1); j++ {
			n += p.cost[j]
		}
		sums[i+1] = sums[i] + n
	}
	return sums
}

// crumbTurns turns the tool results and attachments of turns [from, to)
// into breadcrumbs.
func (p *plan) crumbTurns(from, to int, res *Result) error {
	var idx []int
	for i := p.turnStart(from); i < p.turnStart(to); i++ {
		if m := p.t.msgs[i]; len(m.results) > 0 || m.media > 0 {
			idx = append(idx, i)
		}
	}
	// Storing a result waits on the disk (each is synced) far longer than
	// it computes, so a few messages are crumbed at a time; the results
	// are applied in order, so the thread is the same whatever the timing.
	crumbs := make([]crumbedMessage, len(idx))
	errs := make([]error, len(idx))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(idx), crumbWorkers) {
		wg.Go(func() {
			for {
				j := int(next.Add(1) - 1)
				if j >= len(idx) {
					return
				}
				i := idx[j]
				crumbs[j], errs[j] = p.c.crumbed(p.ctx, p.t.msgs[i], p.calls, p.cost[i])
			}
		})
	}
	wg.Wait()
	for j, i := range idx {
		if errs[j] != nil {
			return fmt.Errorf("history: message %d: %w", i, errs[j])
		}
		if crumbs[j].n == 0 {
			continue
		}
		p.out[i] = crumbs[j].raw
		p.cost[i] = p.c.count(crumbs[j].raw)
		res.Breadcrumbs += crumbs[j].n
	}
	return nil
}

// crumbWorkers is how many messages crumbTurns crumbs at a time.
const crumbWorkers = 8

// crumbedMessage is an old message with its breadcrumbs: its new text, how
// many parts it replaced, and the refs they name.
type crumbedMessage struct {
	raw  json.RawMessage
	n    int
	refs []store.Ref
}

// crumbed returns the message with its large tool results and attachments
// replaced by breadcrumbs. A Compactor makes each once, and afterwards
// checks only that what they name is still stored.
func (c *Compactor) crumbed(ctx context.Context, m *message, calls map[string]toolCall, cost int) (crumbedMessage, error) {
	var key strings.Builder
	key.Write(m.sum[:])
	for _, r := range m.results {
		tc := calls[r.callID]
		key.WriteString("\x00" + tc.name + "\x00")
		key.Write(tc.args)
	}
	k := key.String()
	c.mu.Lock()
	cm, ok := c.crumbs[k]
	c.mu.Unlock()
	if ok {
		fresh := true
		for _, ref := range cm.refs {
			if _, err := c.opts.Store.Stat(ctx, ref); err != nil {
				fresh = false
			}
		}
		if fresh {
			return cm, nil
		}
		c.mu.Lock()
		delete(c.crumbs, k)
		c.mu.Unlock()
	}
	return cached(c, c.crumbs, k, func() (crumbedMessage, error) {
		e, refs, err := c.breadcrumbs(ctx, m, calls, cost)
		if err != nil || len(refs) == 0 {
			return crumbedMessage{}, err
		}
		raw, err := m.apply(e)
		if err != nil {
			return crumbedMessage{}, err
		}
		return crumbedMessage{raw: raw, n: len(refs), refs: refs}, nil
	})
}

// total is the cost the first m turns had, with k groups folded into the
// summary: the anchor, the summary, the old turns not folded as breadcrumbs
// and the newer ones whole.
func (p *plan) total(anchor, m, k int, raw, crumbed []int) (int, error) {
	tot := anchor
	if k > 0 {
		blocks, err := p.blocks(lazySpans(k, p.merge()))
		if err != nil {
			return 0, err
		}
		tot += summaryCost(blocks)
	}
	old := p.oldTurns(m)
	tot += crumbed[old] - crumbed[k*p.c.opts.FoldStep]
	tot += raw[m] - raw[old]
	return tot, nil
}

// summaryCost is what the summary message of blocks takes.
func summaryCost(blocks []foldBlock) int {
	if len(blocks) == 0 {
		return 0
	}
	n := messageOverhead + 8
	for _, blk := range blocks {
		n += blk.cost
	}
	return n
}

// A span is a block of the running summary: the FoldStep-turn groups
// [from, to) folded into it.
type span struct{ from, to int }

// merge is how many blocks merge into one: FoldStep, and at least two, so
// that merging shrinks the summary whatever the step.
func (p *plan) merge() int { return max(p.c.opts.FoldStep, 2) }

// lazySpans are the blocks of the running summary when the first k groups
// are folded. Blocks merge s at a time, level by level: a level keeps
// between s and 2s-1 blocks, and once it would reach 2s its oldest s merge
// into one block of the level above. The summary so has about 2s blocks per
// level, log_s(k) levels, and each level changes once per s of the blocks
// of the level below: a merge is the one change to earlier blocks, and the
// higher its level the rarer it is.
func lazySpans(k, s int) []span {
	return spansOf(k, s, func(n int) int {
		if n < 2*s {
			return 0
		}
		return n/s - 1
	})
}

// tighterSpans are the smaller summaries Compact falls back to, tightest
// last, when the blocks of lazySpans do not fit the budget: first k
// written in base s (at most s-1 blocks a level), then its oldest blocks
// merged into one, one more at a time, down to a single block.
func tighterSpans(k, s int) [][]span {
	strict := spansOf(k, s, func(n int) int { return n / s })
	out := [][]span{strict}
	for j := 1; j < len(strict); j++ {
		out = append(out, append([]span{{0, strict[j].to}}, strict[j+1:]...))
	}
	return out
}

// tighten returns the blocks of the first of candidates (as tighterSpans
// gives them, each smaller than the one before, nearly always) whose
// summary fits room, or of the last when none does. Past the first, it
// searches by halves: each candidate is a fold of a larger stretch.
func (p *plan) tighten(candidates [][]span, room int) ([]foldBlock, error) {
	fits := func(i int) ([]foldBlock, bool, error) {
		blocks, err := p.blocks(candidates[i])
		return blocks, err == nil && summaryCost(blocks) <= room, err
	}
	blocks, ok, err := fits(0)
	if ok || err != nil || len(candidates) == 1 {
		return blocks, err
	}
	lo, hi := 1, len(candidates)-1
	if blocks, ok, err = fits(hi); !ok || err != nil {
		return blocks, err
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if _, ok, err := fits(mid); err != nil {
			return nil, err
		} else if ok {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return p.blocks(candidates[hi])
}

// spansOf splits groups [0, k) into blocks, level by level: up returns how
// many blocks of the level above take the oldest of n blocks of a level.
func spansOf(k, s int, up func(n int) int) []span {
	var out []span
	var level func(n, unit int)
	level = func(n, unit int) {
		hi := up(n)
		if hi > 0 {
			level(hi, unit*s)
		}
		for j := hi * s; j < n; j++ {
			out = append(out, span{j * unit, (j + 1) * unit})
		}
	}
	level(k, 1)
	return out
}

// blocks returns the summary blocks of spans.
func (p *plan) blocks(spans []span) ([]foldBlock, error) {
	s := p.c.opts.FoldStep
	out := make([]foldBlock, 0, len(spans))
	for _, sp := range spans {
		blk, ok := p.folds[sp]
		if !ok {
			first, end := p.turnStart(sp.from*s), p.turnStart(sp.to*s)
			var err error
			small := sp.to-sp.from <= s // at most FoldStep² turns: a summarizer may write it
			if blk, err = p.c.fold(p.ctx, p.t, first, end, p.rawPre[end]-p.rawPre[first], small); err != nil {
				return nil, err
			}
			if p.folds == nil {
				p.folds = map[span]foldBlock{}
			}
			p.folds[sp] = blk
		}
		out = append(out, blk)
	}
	return out, nil
}

// keep stores the messages a block of the output stands for.
func (p *plan) keep(blk foldBlock) error {
	ref, err := p.c.put(p.ctx, p.t.foldData(blk.first, blk.end), store.Meta{Kind: "json", Tool: "history.fold"})
	if err == nil && ref != blk.fold.Ref {
		err = fmt.Errorf("history: the store kept messages %d-%d as ref %s, not %s", blk.first+1, blk.end, ref, blk.fold.Ref)
	}
	return err
}
