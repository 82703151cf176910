package project

import (
	"bytes"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"os"
	"regexp"
	"testing"
)

// TestCommandGoReportNotes checks that every line of a real Go compiler
// optimisation report (go build -gcflags=-m=2, testdata/rarity/make.sh) is
// a note, by the shared error vocabulary, whatever code it quotes: the
// "from …" and "flow: …" lines that open their message after a location,
// and the lines that quote panic("invalid …") or "… failure".
func TestCommandGoReportNotes(t *testing.T) {
	out, err := os.ReadFile("testdata/rarity/go-gcflags-m2-value/output")
	if err != nil {
		t.Fatal(err)
	}
	report := regexp.MustCompile(`^\S+\.go:\d+:\d+: +(from |flow: |.* escapes to heap|.* does not escape|leaking param|can inline|inlining call)`)
	n := 0
	for _, line := range bytes.Split(out, []byte("\n")) {
		if !report.Match(line) {
			continue
		}
		n++
		if m := classify.Classify(line, 0); m.Fam != classify.FamNote {
			t.Errorf("%q: family %d, want a note (%d)", line, m.Fam, classify.FamNote)
		}
	}
	if n < 100 {
		t.Fatalf("only %d lines of the report matched; the test tests little", n)
	}
}
