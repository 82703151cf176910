package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// A Strategy turns a case's output into the first view a model would get in
// its place, and follows that view's own continuations.
//
// To add one (a baseline of another system), implement Name and View: View
// gets the case and an [Env] with a scratch directory, a lazily opened store
// and the token counter, and returns the view's text, the media blocks it
// keeps as media, and a [Pager] that reads what the view says can be read
// next, or nil when it says nothing can. Strategies must be deterministic:
// the same case gives the same view.
type Strategy interface {
	// Name names the strategy in reports ("crumb", "headtail-same").
	Name() string
	// View returns the first view of c.
	View(ctx context.Context, c *Case, env *Env) (*View, error)
}

// A View is a strategy's first view of a case.
type View struct {
	// Text is what enters the model's context as text. For an MCP result it
	// is the CallToolResult JSON the client gets.
	Text string
	// Media are the content blocks kept as media (images, audio).
	Media []json.RawMessage
	// Pages follows the view's continuations; nil when it has none.
	Pages Pager
}

// A Pager reads, one page at a time, what a view's continuations name, in
// the order an agent following them would read it.
type Pager interface {
	// Next returns the next page; ok is false when there is nothing more.
	Next(ctx context.Context) (page string, ok bool, err error)
}

// Env is what a strategy may use during one evaluation.
type Env struct {
	// Dir is a scratch directory, removed when the evaluation ends.
	Dir string
	// Counter counts tokens (o200k_base).
	Counter tokens.Counter

	once  sync.Once
	store store.Store
	err   error
}

// Store returns a disk store under Dir, opened on first use and shared by
// every case of the evaluation.
func (e *Env) Store() (store.Store, error) {
	e.once.Do(func() {
		e.store, e.err = store.OpenDir(filepath.Join(e.Dir, "store"), store.DirOptions{})
	})
	return e.store, e.err
}

func (e *Env) close() {
	if c, ok := e.store.(interface{ Close() error }); ok {
		c.Close()
	}
}

func newEnv(counter tokens.Counter) (*Env, error) {
	dir, err := os.MkdirTemp("", "crumb-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: making a scratch directory: %w", err)
	}
	return &Env{Dir: dir, Counter: counter}, nil
}

// Raw returns the strategy that shows the whole output, untouched: the
// ceiling for evidence and the floor for economy.
func Raw() Strategy { return rawStrategy{} }

type rawStrategy struct{}

func (rawStrategy) Name() string { return "raw" }

func (rawStrategy) View(_ context.Context, c *Case, _ *Env) (*View, error) {
	return &View{Text: string(c.Output)}, nil
}

// HeadTailSame returns the strategy that shows, of each case, a plain cut of
// the output's head and tail, as many tokens as the view of the same case in
// ref took (the report of another strategy, usually crumb), with a line
// saying how much was left out in between and no way to read it. It answers
// the question: what does the other strategy's view buy over the same number
// of tokens cut blindly?
func HeadTailSame(ref Report) Strategy {
	sizes := map[string]int{}
	for _, r := range ref.Cases {
		sizes[r.Case] = r.FirstTokens
	}
	return headTailSame{ref: ref.Strategy, sizes: sizes}
}

type headTailSame struct {
	ref   string
	sizes map[string]int
}

func (h headTailSame) Name() string { return "headtail-same" }

func (h headTailSame) View(_ context.Context, c *Case, env *Env) (*View, error) {
	n, ok := h.sizes[c.Name]
	if !ok {
		return nil, fmt.Errorf("the %s report has no case %s to take the size from", h.ref, c.Name)
	}
	return &View{Text: HeadTail(c.Output, n, env.Counter)}, nil
}

// HeadTail cuts text to at most budget tokens: as much of its head and of
// its tail as fit in about half the budget each, at line ends where the
// window holds one, joined by a line that says how many bytes and lines were
// left out. Bytes are kept as they are, whatever they are. Text that fits is
// returned whole.
func HeadTail(text []byte, budget int, counter tokens.Counter) string {
	if budget <= 0 {
		return ""
	}
	// A token is rarely longer than 64 bytes: a longer text does not fit,
	// and is not worth counting whole.
	if len(text) <= budget*64 && counter.Count(string(text)) <= budget {
		return string(text)
	}
	marker := func(lost []byte) string {
		return fmt.Sprintf("\n[… %s bytes, %s lines cut …]\n", textfmt.Int(int64(len(lost))), textfmt.Int(int64(strings.Count(string(lost), "\n"))))
	}
	room := budget - counter.Count(marker(text))
	if room <= 0 {
		return ""
	}
	headRoom := room / 2
	head := fitPrefix(text, headRoom, counter)
	if i := strings.LastIndexByte(string(head), '\n'); i >= 0 {
		head = head[:i+1]
	}
	rest := text[len(head):]
	tailRoom := room - counter.Count(string(head))
	tail := fitSuffix(rest, tailRoom, counter)
	if i := strings.IndexByte(string(tail), '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	out := string(head) + marker(rest[:len(rest)-len(tail)]) + string(tail)
	// Token counts of parts do not add up exactly; trim the tail until the
	// whole fits.
	for counter.Count(out) > budget && len(tail) > 0 {
		tail = tail[min(len(tail), max(1, len(tail)/16)):]
		out = string(head) + marker(rest[:len(rest)-len(tail)]) + string(tail)
	}
	for counter.Count(out) > budget && len(head) > 0 {
		head = head[:len(head)-min(len(head), max(1, len(head)/16))]
		out = string(head) + marker(text[len(head):len(text)-len(tail)]) + string(tail)
	}
	return out
}

// fitPrefix returns the longest prefix of b within room tokens that does not
// end inside a UTF-8 sequence.
func fitPrefix(b []byte, room int, counter tokens.Counter) []byte {
	if room <= 0 {
		return nil
	}
	lo, hi := 0, min(len(b), room*64)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter.Count(string(b[:mid])) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return textfmt.CutUTF8(b, lo)
}

// fitSuffix returns the longest suffix of b within room tokens that does not
// begin inside a UTF-8 sequence.
func fitSuffix(b []byte, room int, counter tokens.Counter) []byte {
	if room <= 0 {
		return nil
	}
	lo, hi := 0, min(len(b), room*64)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if counter.Count(string(b[len(b)-mid:])) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	s := b[len(b)-lo:]
	// Skip continuation bytes of a rune cut at its start (at most three).
	for i := 0; i < 3 && len(s) > 0 && s[0]&0xc0 == 0x80; i++ {
		s = s[1:]
	}
	return s
}
