package sniff

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDebugAll(t *testing.T) {
	g := os.Getenv("SNIFF_GLOB")
	if g == "" {
		t.Skip()
	}
	ms, _ := filepath.Glob(g)
	for _, m := range ms {
		b, _ := os.ReadFile(m)
		if IsBinary(b[:min(len(b), Len)]) {
			continue
		}
		t.Logf("%-70s %s", m, TextOf(sample(b)))
	}
}
