package recall

import (
	"strings"
	"testing"
)

// A long value quoted back in an error is cut before a character, never in
// it: "aaa…a\xc3..." would quote half an é.
func TestErrorsQuoteWholeCharacters(t *testing.T) {
	long := strings.Repeat("a", 39) + strings.Repeat("é", 10)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"range", func() error { _, err := ParseSpan(long); return err }()},
		{"verb", func() error { _, err := ParseArgv([]string{long, "0123456789abcdef"}); return err }()},
		{"pattern", func() error { _, err := Compile(GrepSpec{Pattern: "(" + long}); return err }()},
	} {
		if tc.err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if msg := tc.err.Error(); strings.Contains(msg, `\x`) || !strings.Contains(msg, strings.Repeat("a", 39)+"...") {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
}
