package rank

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"
)

// termsMet reports whether scanTerms meets any term in text, read with the
// lead a located line has, as an unlocated line, and as a message.
func termsMet(text []byte) bool {
	met := false
	for _, lead := range []int{messageStart(text), -1, 0} {
		scanTerms(text, lead, func(Words, int, int) bool {
			met = true
			return false
		})
	}
	return met
}

// mayHoldTermSeeds are texts at the edges of the precheck: terms at the
// start, the end, joined into names, after escaped newlines, error types'
// names, the two-byte "!=", and lines that hold none.
var mayHoldTermSeeds = []string{
	"", "x", "error", "Error: x", "restocked item 38: 43 units", "stderr", "libgpg-error", "src/error.rs",
	`"Output":"FAIL\texample.com/x\n"`, `a\nerror`, `\\nerror`, `\terror`, `\rfailed`, `\n`,
	"can't connect", "couldn't", "zero-copy string", "x != y", "a!=b", "!", "!=",
	"java.lang.IllegalStateException: x", "os.PathError", "Outer$InnerError", "isError", "ValueError",
	"exit status 1", "exit status 0", "0 failed", "no errors", "x.go:3:5: can inline f",
	"x.go:3:5:   from &x (address-of) at x.go:4:2", "flow: x", "found call to y", "ℹ fail 0",
	"ERROR", "WARN", "Deprecated", "timed out", "ok  \tpkg\t0.1s", "9'x", "a'error", "the errors'",
	"abcdefghijklmnopqrstuvwxyzabcdefghijk", "FAILURE", "failures=0", "x_test.go:12: got 1, want 2",
}

// TestMayHoldTerm checks that the precheck never rules out a text in which
// scanTerms meets a term: the seeds, and every line of the real output under
// testdata (the severity and short fixtures, the fuzz corpus).
func TestMayHoldTerm(t *testing.T) {
	texts := mayHoldTermSeeds
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			continue // a folder
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		f.Close()
	}
	ruled := 0
	for _, s := range texts {
		b := []byte(s)
		may := mayHoldTerm(b)
		if !may {
			ruled++
		}
		if !may && termsMet(b) {
			t.Errorf("mayHoldTerm(%q) = false, but scanTerms meets a term in it", s)
		}
	}
	if ruled == 0 {
		t.Errorf("mayHoldTerm ruled out none of %d texts", len(texts))
	}
	for _, s := range []string{"restocked item 38: 43 units", "=== RUN   TestRestockItem001"} {
		if mayHoldTerm([]byte(s)) {
			t.Errorf("mayHoldTerm(%q) = true, want false: no word of it starts a term", s)
		}
	}
}

// FuzzMayHoldTerm checks the precheck against scanTerms on any text: it
// may say yes to a text that holds no term, never no to one that holds one.
func FuzzMayHoldTerm(f *testing.F) {
	for _, s := range mayHoldTermSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if !mayHoldTerm(text) && termsMet(text) {
			t.Fatalf("mayHoldTerm(%q) = false, but scanTerms meets a term in it", text)
		}
	})
}
