package jsonscan

import (
	"strings"
	"testing"
)

// A bad pointer quoted back in an error is cut before a character, never in
// it.
func TestBadPointerQuotesWholeCharacters(t *testing.T) {
	_, err := ParsePointer(strings.Repeat("a", 59) + strings.Repeat("é", 10))
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("a", 59)+"...") {
		t.Errorf("%s", msg)
	}
}
