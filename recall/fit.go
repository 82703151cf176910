package recall

import "github.com/crumb-dev/crumb/tokens"

// fitter decides what fits in a page's budget: a reserve (the header and
// footer at their longest) and pieces of content, each with a few tokens
// more for its separators. As long as the pieces' bytes fit, they fit: a
// counter that counts at most a token per byte (tokens.AtMostBytes) need
// not run. Once the bytes no longer fit, it counts
// everything exactly and goes on counting, so a page holds exactly what
// counting every piece would have let in.
type fitter struct {
	c       tokens.Counter
	budget  int
	reserve []string
	extra   int
	pieces  []piece // what was let in, while not counting
	exact   bool
	used    int // tokens of the reserve and the pieces; bytes while not exact
}

type piece struct {
	text string
	plus int
}

// newFitter returns a fitter for budget tokens, with the reserve texts and
// extra tokens set aside.
func newFitter(c tokens.Counter, budget, extra int, reserve ...string) *fitter {
	f := &fitter{c: c, budget: budget, reserve: reserve, extra: extra, exact: !tokens.AtMostBytes(c)}
	f.used = extra
	for _, r := range reserve {
		f.used += f.cost(r, 0)
	}
	return f
}

// cost is the tokens of text and plus, or its bound while not exact.
func (f *fitter) cost(text string, plus int) int {
	if f.exact {
		return f.c.Count(text) + plus
	}
	return len(text) + plus
}

// count switches to exact counts.
func (f *fitter) count() {
	if f.exact {
		return
	}
	f.exact = true
	f.used = f.extra
	for _, r := range f.reserve {
		f.used += f.cost(r, 0)
	}
	for _, p := range f.pieces {
		f.used += f.cost(p.text, p.plus)
	}
	f.pieces = nil
}

// try lets text (plus tokens) in if it fits, and reports whether it did.
func (f *fitter) try(text string, plus int) bool {
	if !f.exact && f.used+len(text)+plus > f.budget {
		f.count()
	}
	n := f.cost(text, plus)
	if f.used+n > f.budget {
		return false
	}
	f.add(text, plus, n)
	return true
}

// force lets text in whether it fits or not.
func (f *fitter) force(text string, plus int) { f.add(text, plus, f.cost(text, plus)) }

func (f *fitter) add(text string, plus, n int) {
	if !f.exact {
		f.pieces = append(f.pieces, piece{text, plus})
	}
	f.used += n
}

// room returns the tokens left, counted exactly.
func (f *fitter) room() int {
	f.count()
	return f.budget - f.used
}
