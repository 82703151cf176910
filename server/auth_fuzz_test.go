package server_test

import (
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/server"
)

// FuzzTokens: a token list either fails to parse or binds each of its
// tokens to a valid namespace, and a token file and CRUMB_TOKENS agree.
func FuzzTokens(f *testing.F) {
	for _, s := range []string{"tok ns\n", "# c\n\na b\nc d\n", "a ../b\n", "a b c\n", "x\ty\r\n", "t n\nt n2\n", " \n#\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		var tok server.Tokens
		if err := tok.ReadTokens(strings.NewReader(file)); err != nil {
			return
		}
		var env []string
		for _, line := range strings.Split(file, "\n") {
			fields := strings.Fields(line)
			if len(fields) != 2 || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			ns, ok := tok.Namespace(fields[0])
			if !ok || ns != fields[1] || !server.ValidNamespace(ns) {
				t.Fatalf("token %q: %q %v, want namespace %q", fields[0], ns, ok, fields[1])
			}
			if !strings.ContainsAny(line, ",:") {
				env = append(env, fields[0]+":"+fields[1])
			}
		}
		var fromEnv server.Tokens
		if err := fromEnv.ParseTokens(strings.Join(env, ",")); err != nil {
			t.Fatalf("CRUMB_TOKENS=%q: %v", strings.Join(env, ","), err)
		}
	})
}
