package project

import "testing"

func TestCmdIntentMatch(t *testing.T) {
	tests := []struct {
		intent, line string
		score        int16
	}{
		{"", "func EqualFold(s, t string) bool", 0},
		{"did the tests pass?", "--- PASS: TestStore (0.01s)", 0},
		{"EqualFold", "func EqualFold(s, t string) bool", scoreDetail + 3},
		{"equalfold", "func EqualFold(s, t string) bool", scoreDetail},
		{"store package", "ok  \tgithub.com/crumb-dev/crumb/store\t0.412s", scoreDetail},
		{"store package", "restore the package", scoreDetail},
		{"store", "restored", 0},
		{"max_retries connection timeout", "max_retries=3 connection timeout after 30s", scoreDetail + 6},
	}
	for _, tt := range tests {
		if got := cmdIntentMatch([]byte(tt.line), cmdIntentWords(tt.intent)).score; got != tt.score {
			t.Errorf("%q on %q: score %d, want %d", tt.intent, tt.line, got, tt.score)
		}
	}
}
