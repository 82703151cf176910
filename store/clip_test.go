package store

import (
	"strings"
	"testing"
)

// A bad ref quoted back in an error is cut before a character, never in it.
func TestBadRefQuotesWholeCharacters(t *testing.T) {
	_, err := ParseRef(strings.Repeat("a", 39) + strings.Repeat("é", 10))
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("a", 39)+"...") {
		t.Errorf("%s", msg)
	}
}
