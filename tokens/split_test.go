package tokens

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	// Registers the compiled form of o200kSplit, as the tokenizer library
	// runs it.
	_ "github.com/tiktoken-go/tokenizer/codec"
)

// o200kSplit is o200k_base's pre-tokenizer as the tokenizer library
// compiles it; pieceEnd is held to it.
const o200kSplit = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var splitRe = regexp2.MustCompile(o200kSplit, regexp2.None)

// pieces cuts s as countBPE does.
func pieces(s string) []string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	var out []string
	for i := 0; i < len(s); {
		e := pieceEnd(s, i)
		if e == i {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		out = append(out, s[i:e])
		i = e
	}
	return out
}

// expressionPieces cuts s with the expression.
func expressionPieces(t testing.TB, s string) []string {
	var out []string
	m, err := splitRe.FindStringMatch(s)
	for ; err == nil && m != nil; m, err = splitRe.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func checkPieces(t testing.TB, s string) {
	t.Helper()
	got, want := pieces(s), expressionPieces(t, s)
	if slices.Equal(got, want) {
		return
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%q: piece %d is %q, the expression's %q", clipText(s), i, got[i], want[i])
			return
		}
	}
	t.Errorf("%q: %d pieces, the expression's %d", clipText(s), len(got), len(want))
}

func TestPiecesMatchTheExpression(t *testing.T) {
	outs, _ := filepath.Glob("../testdata/corpus/*/output")
	for _, p := range outs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		size := 256 << 10
		if raceEnabled {
			size = 16 << 10
		}
		checkPieces(t, string(b[:min(len(b), size)]))
	}
	for _, s := range []string{"\n  \n  {", "  \n  \n  x", "\n\n  x", "a\x7fb", "\x7f", " \x7f", "{\x7f", "I'M we'LL they'Re it'ſ",
		"ÀB Ǆa ǅb ˆx 日本語 a\u0301b \u0301 ١٢٣٤ ⅫⅩ", "\u00a0\u2003x\u3000\n", "x  ", "x \t\r\n y", "//\n/ /", "' 's", "''s"} {
		checkPieces(t, s)
	}
}

func FuzzPiecesMatchTheExpression(f *testing.F) {
	for _, s := range []string{"hello world", "x\n\ny", "ÀÉ ñ 123456 foo_bar", "\x00\x01\x1b[31m\x7f", "  \t\r\n", "don't STOP'S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPieces(t, s) })
}
