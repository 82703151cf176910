package history

import (
	"os"
	"testing"
)

// TestFoundLine checks the one line a digest says a tool result held, on
// real command output (made by the make.sh scripts next to the fixtures):
// the first line that reports a problem by the error vocabulary, not a
// line whose path holds an error's word.
func TestFoundLine(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		// "Compiling ledger v0.1.0 (/tmp/crumb-command-fixtures/cargo-test-fail)"
		// comes first; "fail" in a path is no failure.
		{"../project/testdata/command/cargo-test-fail/output", "test tests::parse_whole_amount ... FAILED"},
		{"../project/testdata/command/python-traceback/output", "Traceback (most recent call last):"},
		{"../project/testdata/command/go-build-error/output", "cart/cart.go:16:13: it.Cost undefined (type Item has no field or method Cost)"},
		{"../project/rank/testdata/severity/go-run-exit.txt", "could not load settings: open /nonexistent/settings.toml: no such file or directory"},
		// No problem at all: the first line with words in it.
		{"../project/rank/testdata/severity/cargo-test-pass.txt", "Compiling tally v0.1.0 (/tmp/crumb-severity-fixtures/tally)"},
	}
	for _, tt := range tests {
		body, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := foundLine(body, "text"); got != tt.want {
			t.Errorf("%s: found %q, want %q", tt.file, got, tt.want)
		}
	}
}
