package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestEveryCommandHasExamples holds the README's promise: every command's
// --help ends its description with examples that run that command.
func TestEveryCommandHasExamples(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{name, "--help"}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
			if code != 0 {
				t.Fatalf("crumb %s --help: exit %d: %s", name, code, stderr.String())
			}
			_, examples, ok := strings.Cut(stdout.String(), "\nExamples:\n")
			if !ok {
				t.Fatalf("crumb %s --help has no Examples:\n%s", name, stdout.String())
			}
			if !strings.Contains(examples, "  crumb "+name) && !strings.Contains(examples, "| crumb "+name) {
				t.Errorf("crumb %s --help: no example runs crumb %s:\n%s", name, name, examples)
			}
		})
	}
}
