package recall

import (
	"context"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// A page of a small range in the middle of a result of many chunks is built
// with the default counter, o200k_base, without using its vocabulary: the
// bound shows that it fits. It verifies the one chunk it reads and no
// other, not even the last (whether the result ends with a newline is in
// its line index). A page that fills its budget counts exactly, and fits.
func TestSmallPageUsesNoVocabulary(t *testing.T) {
	st := testStore(t)
	data := numbered(600_000) // some 13 MB: 13 chunks
	ref := put(t, st, data)
	ctx := context.Background()

	mid := int64(300_000)
	uses, checks := tokens.VocabularyUses(), store.ChunkVerifications()
	p, err := Read(ctx, st, Request{Ref: ref, Lines: &Span{From: mid, To: mid + 5}}, Options{NoPageTokens: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := tokens.VocabularyUses() - uses; n != 0 {
		t.Errorf("a page of %d bytes used the vocabulary %d times", len(p.Text), n)
	}
	if n := store.ChunkVerifications() - checks; n != 1 {
		t.Errorf("a page inside one chunk verified %d chunks, want 1", n)
	}
	if p.Next != nil || p.To-p.From != int64(len("row 300000 value 90000000000\n")*6) {
		t.Errorf("page %d-%d, next %v:\n%s", p.From, p.To, p.Next, p.Text)
	}

	for _, budget := range []int{MinBudget, 700, DefaultBudget} {
		uses = tokens.VocabularyUses()
		p, err = Read(ctx, st, Request{Ref: ref, Lines: &Span{From: mid}}, Options{Budget: budget, NoPageTokens: true})
		if err != nil {
			t.Fatal(err)
		}
		if tokens.VocabularyUses() == uses {
			t.Errorf("budget %d: a page that fills its budget was not counted", budget)
		}
		n := tokens.O200k().Count(p.Text)
		if n > budget {
			t.Errorf("budget %d: the page takes %d tokens", budget, n)
		}
		if p.Next == nil || n < budget*3/4 {
			t.Errorf("budget %d: a page of %d tokens, next %v: want one that fills its budget", budget, n, p.Next)
		}
	}
}
