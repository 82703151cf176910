package tokens

import (
	"os"
	"testing"
)

func benchText(b *testing.B) string {
	src, err := os.ReadFile("../testdata/corpus/text-nginx-access/output")
	if err != nil {
		b.Skip(err)
	}
	return string(src[:256<<10])
}

// BenchmarkCountTable counts o200k_base tokens with the embedded table.
func BenchmarkCountTable(b *testing.B) {
	s := benchText(b)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		countBPE(s)
	}
}

// BenchmarkCountLibrary counts them with the tokenizer library, loaded.
func BenchmarkCountLibrary(b *testing.B) {
	s := benchText(b)
	lib := library(b)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := lib.Count(s); err != nil {
			b.Fatal(err)
		}
	}
}
