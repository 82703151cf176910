package main

import (
	"strings"
	"testing"
)

// A bad flag value quoted back in an error is cut before a character, never
// in it.
func TestFlagErrorsQuoteWholeCharacters(t *testing.T) {
	long := strings.Repeat("a", 39) + strings.Repeat("é", 10)
	_, err := parseIntIn(long, 1, 10, "tokens")
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("a", 39)+"...") {
		t.Errorf("%s", msg)
	}
}
