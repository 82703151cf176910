package project

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/tokens"
)

// TestLineCounterExact checks that counting lines one by one gives the
// count of the lines joined, on views, real outputs, and lines made to
// break the split: empty, white space only, leading slashes, carriage
// returns, trailing white space and punctuation, Unicode spaces.
func TestLineCounterExact(t *testing.T) {
	var texts []string
	for _, pattern := range []string{
		filepath.Join("testdata", "json", "*", "view-*.golden"),
		filepath.Join("testdata", "json", "*", "output"),
		filepath.Join("testdata", "text", "*", "output"),
		filepath.Join("..", "testdata", "corpus", "*", "view.golden"),
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, string(b[:min(len(b), 64<<10)]))
		}
	}
	if len(texts) < 10 {
		t.Fatalf("only %d texts found", len(texts))
	}
	texts = append(texts,
		"a\n\nb\n\n\nc",
		"x {\n/usr/lib\n}\n/",
		"end.\n   \n  next\n\t\n",
		"a,\r\nb\r\n\r\nc\r",
		"trailing   \n  lead\n\u00a0\u00a0x\n\u2028\nq",
		"}\n]\n,\n:\n\"k\": [\n  1,\n  2\n]",
		"it's\n's\n'S\n don't\n\n",
		"12345\n678\n9\n 0",
		"\xff\xfe\n\xc3\n(\n)",
	)
	c := tokens.O200k()
	lc := newLineCounter(c)
	rng := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, text := range texts {
		lines := strings.Split(text, "\n")
		for k := 0; k < 8; k++ {
			a := rng.IntN(len(lines))
			b := a + rng.IntN(min(len(lines)-a, 60)) + 1
			part := lines[a:b]
			if got, want := lc.count(part), c.Count(strings.Join(part, "\n")); got != want {
				t.Fatalf("lines %q: counted %d, joined %d", part, got, want)
			}
			checked++
		}
		if got, want := lc.count(lines), c.Count(text); got != want {
			t.Fatalf("%.200q: counted %d, joined %d", text, got, want)
		}
	}
	// Another counter is used as it is.
	est := newLineCounter(tokens.Estimator())
	if got, want := est.count([]string{"ab", "cd"}), tokens.Estimate("ab\ncd"); got != want {
		t.Fatalf("estimator: %d, want %d", got, want)
	}
	if lc.count(nil) != 0 {
		t.Fatal("no lines count tokens")
	}
}

// FuzzLineCounter checks the line counter against counting the joined
// text.
func FuzzLineCounter(f *testing.F) {
	for _, s := range []string{"a\n/b", "x.\n\n y", " \r\n\t\n", "{\n  \"a\": 1\n}", "é\n\u00a0\n"} {
		f.Add(s)
	}
	c := tokens.O200k()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1024 {
			return
		}
		lc := newLineCounter(c)
		lines := strings.Split(s, "\n")
		if got, want := lc.count(lines), c.Count(s); got != want {
			t.Fatalf("%q: counted %d, joined %d", s, got, want)
		}
		// Twice: the remembered counts give the same.
		if got := lc.count(lines); got != c.Count(s) {
			t.Fatalf("%q: counted %d the second time", s, got)
		}
	})
}
