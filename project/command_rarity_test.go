package project

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rarityFixtures reads the fixtures testdata/rarity/make.sh made from real
// tools: outputs where the evidence is one line among thousands of notes,
// remarks or warnings, and a passing run over several packages.
func rarityFixtures(t *testing.T) []commandFixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "rarity", "*", "output"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 7 {
		t.Fatalf("found %d rarity fixtures; run testdata/rarity/make.sh", len(paths))
	}
	var out []commandFixture
	for _, p := range paths {
		dir := filepath.Dir(p)
		f := commandFixture{name: filepath.Base(dir)}
		if f.output, err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &f.meta); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out = append(out, f)
	}
	return out
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
