package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// library is the o200k_base codec of github.com/tiktoken-go/tokenizer, the
// reference the embedded table and merge are checked against.
func library(t testing.TB) tokenizer.Codec {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkSame(t testing.TB, lib tokenizer.Codec, s string) {
	t.Helper()
	want, err := lib.Count(s)
	if err != nil {
		t.Fatalf("the tokenizer library cannot count %q: %v", clipText(s), err)
	}
	if got := countBPE(s); got != want {
		t.Errorf("count of %q = %d; the tokenizer library says %d", clipText(s), got, want)
	}
}

func clipText(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

// Every token of the table is one token, and has the rank the library
// gives it.
func TestTableHoldsTheVocabulary(t *testing.T) {
	lib := library(t)
	v := &o200kVocab
	if v.n < 199_000 {
		t.Fatalf("table holds %d tokens", v.n)
	}
	for r := uint32(0); r < v.n; r += 7 {
		tok := v.token(r)
		ids, _, err := lib.Encode(tok)
		if got, ok := v.rank(tok); !ok || got != r {
			t.Fatalf("rank(token %d) = %d, %v", r, got, ok)
		}
		if utf8.ValidString(tok) && err == nil && len(ids) == 1 && ids[0] != uint(r) {
			t.Fatalf("token %q: rank %d in the table, %d in the library", tok, r, ids[0])
		}
	}
}

// The counts are the library's on every output of the corpus, line by line
// and in large pieces, and on awkward text.
func TestCountsMatchTheLibrary(t *testing.T) {
	lib := library(t)
	outs, _ := filepath.Glob("../testdata/corpus/*/output")
	if len(outs) == 0 {
		t.Fatal("no corpus outputs")
	}
	for _, p := range outs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		size, every := 256<<10, 3
		if raceEnabled {
			size, every = 16<<10, 5
		}
		s := string(b[:min(len(b), size)])
		for i, line := range strings.SplitAfter(s, "\n") {
			if i%every == 0 {
				checkSame(t, lib, line)
			}
		}
		checkSame(t, lib, s[:min(len(s), 64<<10)])
	}
	for _, s := range []string{
		"", " ", "\n", "   \n\n  x", "日本語のテキストです。", "🙂🙂 ok", "\xff\xfe\x80 bad utf-8 \xc3",
		"I'm sure they'll say it's fine, wasn't it? DON'T", strings.Repeat("a", 5000), strings.Repeat(" ", 3000) + "x",
		strings.Repeat("ab12", 700), "<|endoftext|> special", strings.Repeat("=-", 900),
		"aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZGF0YSBmb3IgYSB0ZXN0IG9mIGxvbmcgcGllY2Vz",
	} {
		checkSame(t, lib, s)
	}
}

func FuzzCountsMatchTheLibrary(f *testing.F) {
	for _, s := range []string{"hello world", "x\n\ny", "ÀÉ ñ 123456 foo_bar", "\x00\x01\x1b[31m", "  \t\r\n"} {
		f.Add(s)
	}
	lib := library(f)
	f.Fuzz(func(t *testing.T, s string) { checkSame(t, lib, s) })
}

// The heap merge of long pieces leaves what the scan leaves.
func TestLongMergeMatchesScan(t *testing.T) {
	lib := library(t)
	for _, s := range []string{strings.Repeat("a", 300), strings.Repeat("ab", 400), strings.Repeat("xyzzy", 200),
		strings.Repeat("Ab", 150), "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQgZGF0YSBmb3IgYSB0ZXN0IG9mIGxvbmcgcGllY2Vz" + strings.Repeat("QUJD", 60)} {
		checkSame(t, lib, s)
		for _, k := range []int{2, 7, 50, longPiece, len(s)} {
			if got, want := mergeCountLong(s[:k]), mergeCountScan(s[:k]); got != want {
				t.Errorf("%q: the heap leaves %d parts, the scan %d", clipText(s[:k]), got, want)
			}
		}
	}
}
