// Package tokens counts tokens the way a model's tokenizer does.
//
// A [Counter] counts exactly; [O200k] is the o200k_base encoding used by
// current OpenAI models, with its vocabulary embedded in the binary so nothing
// is downloaded at run time. [Estimate] is a cheap approximation for hot paths
// where an exact count is not needed; receipts say which was used.
package tokens

import (
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Counter counts the tokens of a text. Implementations must be safe for
// concurrent use.
type Counter interface {
	// Count returns the number of tokens in s.
	Count(s string) int
	// Name names the encoding, for receipts (for example "o200k_base").
	Name() string
}

// EstimateName is the name receipts give to counts made by [Estimate].
const EstimateName = "estimate"

type o200k struct{}

// O200k returns the o200k_base counter. Its vocabulary is a table embedded
// in the binary and read in place, so the first count costs no more than
// later ones.
func O200k() Counter { return o200k{} }

func (o200k) Name() string { return "o200k_base" }

func (o200k) Count(s string) int {
	if s == "" {
		return 0
	}
	vocabularyUses.Add(1)
	return countBPE(s)
}

// vocabularyUses counts the texts counted with the o200k_base vocabulary.
var vocabularyUses atomic.Int64

// VocabularyUses returns how many texts this process has counted with the
// o200k_base vocabulary. Reading a page of a stored result needs no count
// when a bound on its tokens already shows that it fits (see AtMostBytes):
// the vocabulary's table, some 4 MB, is then never paged in. Tests and
// benchmarks use the figure to show it.
func VocabularyUses() int64 { return vocabularyUses.Load() }

// CountsAtMostBytes is true: every o200k_base token is at least one byte.
func (o200k) CountsAtMostBytes() bool { return true }

// Estimate approximates the o200k_base token count of s without a
// vocabulary: about four bytes per token for ASCII text and one token per
// character beyond it, never less than one token per 16 bytes. It runs at
// memory speed and is meant for deciding whether a text is near a budget, not
// for receipts of what a model was shown.
func Estimate(s string) int {
	// The bytes of s, read in place: classes only reads them.
	ascii, other := classes(unsafe.Slice(unsafe.StringData(s), len(s)))
	return estimateOf(ascii, other, len(s) > 0)
}

// classes counts the ASCII bytes of text and the bytes that start a
// multi-byte rune (or stand alone where one should: invalid UTF-8).
func classes(text []byte) (ascii, other int64) {
	var a, o int
	for _, c := range text {
		if c < utf8.RuneSelf {
			a++
		} else if utf8.RuneStart(c) {
			o++
		}
	}
	return int64(a), int64(o)
}

// estimateOf is the estimate of a text of ascii ASCII bytes and other
// other runes: a token per four ASCII bytes and per other rune, and one at
// least for a text that is not empty.
func estimateOf(ascii, other int64, nonEmpty bool) int {
	n := int((ascii+3)/4 + other)
	if n == 0 && nonEmpty {
		n = 1
	}
	return n
}

type estimator struct{}

// Estimator returns a Counter that uses [Estimate].
func Estimator() Counter { return estimator{} }

func (estimator) Name() string       { return EstimateName }
func (estimator) Count(s string) int { return Estimate(s) }

// CountsAtMostBytes is true: the estimate is at most a token per byte.
func (estimator) CountsAtMostBytes() bool { return true }

// ByteBounded is implemented by a Counter that may declare that it never
// counts more tokens than a text has bytes, as every tokenizer whose tokens
// are non-empty pieces of the text: o200k_base and the estimate do.
type ByteBounded interface {
	Counter
	// CountsAtMostBytes reports whether Count(s) <= len(s) for every s.
	CountsAtMostBytes() bool
}

// AtMostBytes reports whether c declares that it never counts more tokens
// than a text has bytes. A caller may then take a text's length as a bound
// on its count, and skip counting when the bound already decides.
func AtMostBytes(c Counter) bool {
	b, ok := c.(ByteBounded)
	return ok && b.CountsAtMostBytes()
}

// ByName returns the counter with the given name: "o200k_base" (also
// "o200k") or "estimate". It reports false for an unknown name.
func ByName(name string) (Counter, bool) {
	switch name {
	case "o200k_base", "o200k", "":
		return O200k(), true
	case EstimateName:
		return Estimator(), true
	}
	return nil, false
}

// MaxBytes bounds the bytes of a text that n tokens can show: no token of
// text a view shows holds more than about 16 bytes, and 64 more leave room
// for a short text's last token. A projector reads no more than this of a
// line or a document it may show within n tokens, since more could never
// fit.
func MaxBytes(n int) int { return n*16 + 64 }
