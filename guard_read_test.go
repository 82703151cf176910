package crumb_test

import (
	"context"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// Guard.Read reads a small view's continuation in pages of the page budget
// (Config.PageBudget, 2,000 tokens by default), not of the view's budget:
// following it from a 600-token view to the end takes as many calls as
// pages of that size, each within it.
func TestGuardReadPagesOfThePageBudget(t *testing.T) {
	tests := []struct {
		name       string
		pageBudget int // Config.PageBudget
		want       int // the pages' budget
	}{
		{"default", 0, crumb.DefaultPageBudget},
		{"700", 700, 700},
		{"5000", 5000, 5000},
	}
	body := logLines(20000)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t)
			g := newGuard(t, crumb.Config{Store: st, Budget: 600, PageBudget: tt.pageBudget})
			ctx := context.Background()
			v, err := g.Project(ctx, crumb.Result{Tool: "tail", Kind: crumb.KindText, Body: body})
			if err != nil {
				t.Fatal(err)
			}
			if v.Next == nil {
				t.Fatalf("a 20,000-line log was not projected:\n%.300s", v.Text)
			}
			count := func(read func(recall.Request) (recall.Page, error)) int {
				req := *v.Next
				for n := 1; ; n++ {
					p, err := read(req)
					if err != nil {
						t.Fatal(err)
					}
					if c := tokens.O200k().Count(p.Text); c > tt.want {
						t.Fatalf("page %d is %d tokens, over %d", n, c, tt.want)
					}
					if p.Next == nil {
						return n
					}
					req = *p.Next
				}
			}
			calls := count(func(r recall.Request) (recall.Page, error) { return g.Read(ctx, r) })
			opts := recall.Options{Budget: tt.want, Line: crumb.LineRenderer(ctx, st)}
			pages := count(func(r recall.Request) (recall.Page, error) { return recall.Read(ctx, st, r, opts) })
			if calls != pages {
				t.Errorf("Guard.Read took %d calls to read the log back; pages of %d tokens take %d", calls, tt.want, pages)
			}
		})
	}
}
