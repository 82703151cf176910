package crumb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/tokens"
)

// TestNoViewLargerThanResult checks that a result whose tokens are few for
// its bytes (padded columns, long runs of spaces: too many bytes to pass
// through on its size, too few tokens for any view to be smaller) passes
// whole instead of as a view that costs more than it.
func TestNoViewLargerThanResult(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "%-170s|\n", fmt.Sprintf("row%d", i%7))
	}
	padded := b.String()
	n := tokens.O200k().Count(padded)
	if len(padded) <= 16*2000 || n >= 2000 {
		t.Fatalf("fixture: %d bytes, %d tokens: want over 32,000 bytes and under 2,000 tokens", len(padded), n)
	}
	for _, kind := range []crumb.Kind{"", crumb.KindText, crumb.KindCommand} {
		g := newGuard(t, crumb.Config{Budget: 2000})
		v, err := g.Project(context.Background(), crumb.Result{Body: []byte(padded), Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		if got := tokens.O200k().Count(v.Text); got > n {
			t.Errorf("kind %q: the view takes %d tokens, the result %d", kind, got, n)
		}
		if v.Text == padded && v.Ref == "" {
			t.Errorf("kind %q: the result passed whole, but the stored result's ref is not kept", kind)
		}
	}
}
