package recall

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crumb-dev/crumb/tokens"
)

// spyCounter counts with o200k_base and counts its calls; bounded says
// whether it declares tokens.AtMostBytes.
type spyCounter struct {
	calls   *atomic.Int64
	bounded bool
}

func (s spyCounter) Count(text string) int   { s.calls.Add(1); return tokens.O200k().Count(text) }
func (s spyCounter) Name() string            { return "spy" }
func (s spyCounter) CountsAtMostBytes() bool { return s.bounded }

// mixedLines returns lines of varied widths and scripts, some long.
func mixedLines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "%d %s\n", i, strings.Repeat("日本語 ", i%40))
		case 1:
			fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("word ", i%300))
		case 2:
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "2026-11-29T12:00:%02d INFO served /api/v1/items/%d status=200 bytes=%d\n", i%60, i, i*37)
		}
	}
	return b.Bytes()
}

// Pages built with the byte bound are the pages that counting every line
// builds, at every budget, for reads and searches.
func TestBoundedPagesMatchCountedPages(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, mixedLines(3000))
	ctx := context.Background()
	reqs := []Request{
		{Ref: ref},
		{Ref: ref, Lines: &Span{From: 1500}},
		{Ref: ref, Lines: &Span{From: 10, To: 14}},
		{Ref: ref, Bytes: &Span{From: 7, To: 0}},
		{Ref: ref, Grep: &GrepSpec{Pattern: `status=200`}},
		{Ref: ref, Grep: &GrepSpec{Pattern: `word|日本`, Context: 2}},
		{Ref: ref, Grep: &GrepSpec{Pattern: `^line 1\d+:`, From: 400}},
	}
	for _, budget := range []int{MinBudget, 150, 400, 2000, 9000} {
		for i, req := range reqs {
			var calls atomic.Int64
			bounded, err := Read(ctx, st, req, Options{Budget: budget, Counter: spyCounter{&calls, true}, Numbers: i%2 == 0})
			if err != nil {
				t.Fatal(err)
			}
			counted, err := Read(ctx, st, req, Options{Budget: budget, Counter: spyCounter{&calls, false}, Numbers: i%2 == 0})
			if err != nil {
				t.Fatal(err)
			}
			if bounded.Text != counted.Text || bounded.Tokens != counted.Tokens || bounded.To != counted.To {
				t.Errorf("budget %d, request %d: the bounded page differs from the counted one:\n%s\n---\n%s", budget, i, bounded.Text, counted.Text)
			}
		}
	}
}

// A page that plainly fits its budget is built without counting a token.
func TestPageThatFitsIsNotCounted(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, numbered(100_000))
	ctx := context.Background()
	for _, req := range []Request{
		{Ref: ref, Lines: &Span{From: 50_000, To: 50_010}},
		{Ref: ref, Grep: &GrepSpec{Pattern: `^row 7777 `}},
	} {
		var calls atomic.Int64
		p, err := Read(ctx, st, req, Options{Counter: spyCounter{&calls, true}, NoPageTokens: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("%+v: counted %d times for a page of %d bytes", req, n, len(p.Text))
		}
		if p.Tokens != 0 {
			t.Errorf("Tokens = %d with NoPageTokens", p.Tokens)
		}
	}
}
