package project

import (
	"bytes"
	"context"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rarityMarker finds the markers of omitted stretches in a view.
var rarityMarker = regexp.MustCompile(`(?m)^\[… lines [0-9,]+-[0-9,]+ omitted \([^\n]*$`)

// rarityFixtures reads the fixtures testdata/rarity/make.sh made from real
// tools: outputs where the evidence is one line among thousands of notes,
// remarks or warnings, and a passing run over several packages.
func rarityFixtures(t *testing.T) []commandFixture {
	t.Helper()
	return loadCommandFixtures(t, filepath.Join("testdata", "rarity"), 7, "testdata/rarity/make.sh")
}

// TestCommandRarity checks that the first view of each fixture holds its
// needles: the one error (at file:line) among thousands of lines of a few
// repeated templates (go build -gcflags=-m and -m=2, gcc -fopt-info, clang
// -Rpass, gcc -Wall -Wextra, eslint), and every per-package summary of a
// passing go test -v over several packages, which fit the budget.
func TestCommandRarity(t *testing.T) {
	for _, budget := range []int{2000, 1000} {
		for _, f := range rarityFixtures(t) {
			t.Run(f.name, func(t *testing.T) {
				in := f.input(t, budget)
				out, err := Project(context.Background(), KindCommand, in)
				if err != nil {
					t.Fatal(err)
				}
				checkCommandView(t, in, out)
				// A view may be small only when what it omits is
				// repetition of what it shows, counted in its markers.
				if n := in.Counter.Count(out.Text); n < budget/2 {
					for _, m := range rarityMarker.FindAllString(out.Text, -1) {
						if !strings.Contains(m, " lines like `") {
							t.Errorf("budget %d: a view of %d tokens omits a stretch that is not repetition: %s", budget, n, m)
						}
					}
				}
				for _, nd := range f.meta.Needles {
					if !bytes.Contains(f.output, []byte(nd.Text)) {
						t.Fatalf("needle %q is not in the output", nd.Text)
					}
					if !strings.Contains(out.Text, nd.Text) {
						t.Errorf("budget %d: view misses %q (%s):\n%s", budget, nd.Text, nd.Why, out.Text)
					}
				}
			})
		}
	}
}

// TestCommandRarityWithoutVocabulary checks that rarity and the error
// vocabulary find the error among the Go compiler's notes without knowing
// the notes: with their vocabulary unknown, every "file:line:col: can
// inline …" line reads as a diagnostic, and the one whose template occurs
// once and that names an error still makes the first view.
func TestCommandRarityWithoutVocabulary(t *testing.T) {
	notes := classify.Notes
	defer func() { classify.Notes = notes }()
	classify.Notes = 0
	for _, f := range rarityFixtures(t) {
		if !strings.HasPrefix(f.name, "go-gcflags-") {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			in := f.input(t, 2000)
			out, err := Project(context.Background(), KindCommand, in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text, "compiler error lines") {
				t.Fatalf("the notes do not read as errors; the test tests nothing:\n%s", out.Text)
			}
			for _, nd := range f.meta.Needles {
				if !strings.Contains(out.Text, nd.Text) {
					t.Errorf("view misses %q (%s):\n%s", nd.Text, nd.Why, out.Text)
				}
			}
		})
	}
}
