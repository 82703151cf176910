package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// Crumb returns the strategy that projects each case with a crumb.Guard at
// the given token budget (the case's kind, tool, args, exit code and MCP
// output schema as the Guard's result), storing results in the evaluation's
// store.
//
// Its pages are what an agent reads by following the view's continuations
// with recall.Read at the same budget: first the view's own continuation
// (View.Next), then every other read of omitted material the view names
// (line and byte ranges, JSON pointers), in the order the view names them,
// each to the end of the range it reads. Searches the view offers (grep,
// jq) are not continuations and are not followed. A page whose lines were
// all shown by an earlier page is skipped and not counted, as an agent that
// knows which lines it has read would skip it.
func Crumb(budget int) Strategy { return crumbStrategy{budget: budget} }

type crumbStrategy struct{ budget int }

func (s crumbStrategy) Name() string { return "crumb" }

func (s crumbStrategy) View(ctx context.Context, c *Case, env *Env) (*View, error) {
	st, err := env.Store()
	if err != nil {
		return nil, fmt.Errorf("opening the store: %w", err)
	}
	rec := &hintRecorder{}
	g, err := crumb.New(crumb.Config{Store: st, Counter: env.Counter, Budget: s.budget, Hint: rec.hint})
	if err != nil {
		return nil, err
	}
	res := crumb.Result{Tool: c.Tool, Args: c.Args, Kind: c.Kind, Body: c.Output, ExitCode: c.ExitCode, Command: c.Command,
		OutputSchema: c.OutputSchema}
	if res.Body == nil {
		res.Body = []byte{}
	}
	v, err := g.Project(ctx, res)
	if err != nil {
		return nil, err
	}
	var reads []recall.Request
	for _, r := range rec.named(v.Text, v.Next) {
		if r.Grep == nil && r.Query == "" {
			reads = append(reads, r)
		}
	}
	var pages Pager
	if len(reads) > 0 {
		pages = &readPager{st: st, queue: reads, seen: map[string]bool{}, shown: map[store.Ref][]span{}, opts: recall.Options{
			Budget:  s.budget,
			Counter: env.Counter,
			Line:    crumb.LineRenderer(ctx, st),
		}}
	}
	return &View{Text: v.Text, Media: v.Media, Pages: pages}, nil
}

// hintRecorder renders continuations as the command line does and records
// each one, so that the reads a view names can be followed exactly.
type hintRecorder struct {
	mu   sync.Mutex
	reqs []recall.Request
}

func (h *hintRecorder) hint(r recall.Request) string {
	h.mu.Lock()
	h.reqs = append(h.reqs, r)
	h.mu.Unlock()
	return recall.CLIHint(r)
}

// simpleRead matches reads of a line or byte range written in a view as the
// command line writes them, for reads a projector rendered without the
// Guard's Hint.
var simpleRead = lazyre.New(`crumb read ([0-9a-f]{16}) --(lines|bytes) (\d+:\d*)(?: --rev ([0-9a-f]+))?`)

// named returns the reads the view text names, in the order it names them:
// those rendered through the hint (a projector may render reads it then
// trims away; only those in the text count) and any simple read written in
// the text another way. next, the view's own continuation, goes first when
// the text does not name it.
func (h *hintRecorder) named(text string, next *recall.Request) []recall.Request {
	type at struct {
		pos int
		req recall.Request
	}
	var found []at
	seen := map[string]bool{}
	add := func(pos int, r recall.Request) {
		k := strings.Join(r.Argv(), "\x00")
		if seen[k] {
			return
		}
		seen[k] = true
		found = append(found, at{pos, r})
	}
	h.mu.Lock()
	for _, r := range h.reqs {
		if pos := indexHint(text, recall.CLIHint(r)); pos >= 0 {
			add(pos, r)
		}
	}
	h.mu.Unlock()
	for _, m := range simpleRead.FindAllStringSubmatchIndex(text, -1) {
		argv := []string{"read", text[m[2]:m[3]], "--" + text[m[4]:m[5]], text[m[6]:m[7]]}
		if m[8] >= 0 {
			argv = append(argv, "--rev", text[m[8]:m[9]])
		}
		if r, err := recall.ParseArgv(argv); err == nil {
			add(m[0], r)
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].pos < found[j].pos })
	var out []recall.Request
	if next != nil && !seen[strings.Join(next.Argv(), "\x00")] {
		out = append(out, *next)
	}
	for _, f := range found {
		out = append(out, f.req)
	}
	return out
}

// indexHint finds a rendered read in a view, as it is or JSON-escaped (an
// MCP view is a JSON document).
func indexHint(text, hint string) int {
	if i := strings.Index(text, hint); i >= 0 {
		return i
	}
	b, _ := json.Marshal(hint)
	esc := string(b[1 : len(b)-1])
	if esc != hint {
		return strings.Index(text, esc)
	}
	return -1
}

// readPager follows a queue of reads, each page by page to the end of its
// range.
type readPager struct {
	st    store.Store
	queue []recall.Request
	cur   *recall.Request
	seen  map[string]bool
	shown map[store.Ref][]span // byte ranges of plain reads shown, per result
	opts  recall.Options
}

// span is a byte range [from, to).
type span struct{ from, to int64 }

func (p *readPager) Next(ctx context.Context) (string, bool, error) {
	for {
		if p.cur == nil {
			if len(p.queue) == 0 {
				return "", false, nil
			}
			r := p.queue[0]
			p.queue = p.queue[1:]
			p.cur = &r
		}
		req := *p.cur
		p.cur = nil
		key := strings.Join(req.Argv(), "\x00")
		if p.seen[key] {
			continue
		}
		p.seen[key] = true
		page, err := recall.Read(ctx, p.st, req, p.opts)
		if err != nil {
			return "", false, fmt.Errorf("reading %s: %w", recall.CLIHint(req), err)
		}
		p.cur = page.Next
		if req.Pointer == nil && req.Query == "" && len(page.Shown) > 0 {
			// A page of several ranges shows only those, not what lies
			// between them.
			if !slices.ContainsFunc(page.Shown, func(s recall.Span) bool { return !p.covered(req.Ref, s.From, s.To) }) {
				continue
			}
			for _, s := range page.Shown {
				p.shown[req.Ref] = append(p.shown[req.Ref], span{s.From, s.To})
			}
		}
		return page.Text, true, nil
	}
}

// covered reports whether pages already shown hold every byte of [from, to)
// of a result.
func (p *readPager) covered(ref store.Ref, from, to int64) bool {
	spans := append([]span(nil), p.shown[ref]...)
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	for _, s := range spans {
		if s.from > from {
			return false
		}
		if s.to > from {
			from = s.to
		}
		if from >= to {
			return true
		}
	}
	return from >= to
}
