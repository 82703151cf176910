package crumb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/project"
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

// TestNoMCPViewLargerThanResult: a CallToolResult that holds media and
// repeats it in structuredContent (the filesystem server's read_media_file,
// testdata/media/make.sh) costs a model only its image and a little text; a
// projection that cuts the repeated copy and says so would cost more. Such
// a result passes whole, stored, with its ref.
func TestNoMCPViewLargerThanResult(t *testing.T) {
	files, err := filepath.Glob("testdata/media/read-media-file-*.json")
	if err != nil || len(files) < 4 {
		t.Fatalf("%d fixtures (%v): run testdata/media/make.sh", len(files), err)
	}
	counter := tokens.O200k()
	cost := func(doc string) int {
		c, ok := project.MCPCostOf([]byte(doc))
		if !ok {
			t.Fatalf("not a CallToolResult: %.80s", doc)
		}
		return counter.Count(c.Text) + c.Images
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			g := newGuard(t, crumb.Config{Budget: 2000})
			v, err := g.Project(context.Background(), crumb.Result{Body: raw, Kind: crumb.KindMCP, Tool: "read_media_file"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := cost(v.Text), cost(string(raw)); got > want {
				t.Errorf("the view costs %d tokens, the result %d", got, want)
			}
			if v.Text != string(raw) || v.Ref == "" {
				t.Errorf("the result did not pass whole with its ref (ref %q, %d of %d bytes)", v.Ref, len(v.Text), len(raw))
			}
			if *v.Receipt.Tokens != cost(string(raw)) || v.Receipt.ViewTokens != cost(string(raw)) {
				t.Errorf("the receipt counts %d tokens and a view of %d, a model is charged %d", *v.Receipt.Tokens, v.Receipt.ViewTokens, cost(string(raw)))
			}
		})
	}
}
