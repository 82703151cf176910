package teststream

import (
	"bytes"
	"context"
	"testing"

	"github.com/crumb-dev/crumb/project/rank"
)

// Any bytes, decoded as any format, give a report or an error, never a
// panic; every span a report names lies within its input.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"go-build.txt", "go-panic.txt", "cargo-fail.txt", "pytest-fail.xml", "jest-fail.json", "vitest-fail.json"} {
		f.Add(fixture(f, name))
	}
	f.Add([]byte(`{"Action":"output","Package":"p","Test":"T","Output":"x.go:1: boom\n"}` + "\n" + `{"Action":"fail","Package":"p","Test":"T"}`))
	f.Add([]byte(`{"numFailedTestSuites":1,"testResults":[{"assertionResults":[{"status":"failed","failureMessages":["e"]}]}]}`))
	f.Add([]byte(`<testsuites><testsuite name="s"><testcase name="t"><failure message="m">x.py:3: E</failure></testcase>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, fm := range []Format{GoTest, LibTest, Jest, JUnit} {
			rep, err := Decode(context.Background(), bytes.NewReader(b), int64(len(b)), fm)
			if err != nil {
				continue
			}
			n := int64(len(b))
			check := func(what string, sp Span) {
				if sp.From < 0 || sp.To > n || sp.From > sp.To {
					t.Fatalf("%v: %s span %v outside %d bytes", fm, what, sp, n)
				}
			}
			for _, c := range append(append(rep.Failures, rep.Skips...), rep.Slowest...) {
				if len(c.Key) != len(c.Evidence) {
					t.Fatalf("%v: %d keys for %d spans", fm, len(c.Key), len(c.Evidence))
				}
				for _, sp := range c.Evidence {
					check("evidence", sp)
				}
				check("extent", c.Extent)
			}
			for _, sp := range rep.Summary {
				check("summary", sp)
			}
			for _, u := range Units(rep, rank.Parse("why does TestX fail")) {
				for _, sp := range u.Quote {
					check("quote", sp)
				}
			}
		}
	})
}
