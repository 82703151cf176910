package project

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestCommandIntent checks that a command's output ranks by the call's
// intent through the shared ranker: on a real passing go test -v over
// several packages, the lines of the one subtest the intent names, deep in
// runs of thousands of like lines, make the first view, and do not without
// the intent. A word most lines hold ("pass") weighs little.
func TestCommandIntent(t *testing.T) {
	var f commandFixture
	for _, g := range rarityFixtures(t) {
		if g.name == "go-test-v-pass-cmp" {
			f = g
		}
	}
	if f.output == nil {
		t.Fatal("no go-test-v-pass-cmp fixture; run testdata/rarity/make.sh")
	}
	const want = "    --- PASS: TestDiff/Cycle/GraphInequalZeroed (0.00s)"
	if !strings.Contains(string(f.output), want+"\n") {
		t.Fatalf("the fixture lacks %q", want)
	}
	for _, c := range []struct {
		intent string
		shown  bool
	}{
		{"", false},
		{"did the tests pass?", false},
		{"Did TestDiff/Cycle/GraphInequalZeroed pass?", true},
		{"how long did GraphInequalZeroed take", true},
	} {
		in := f.input(t, 2000)
		args, err := json.Marshal(map[string]string{"command": "go test -v ./...", "description": c.intent})
		if err != nil {
			t.Fatal(err)
		}
		in.Args = args
		out, err := Project(context.Background(), KindCommand, in)
		if err != nil {
			t.Fatal(err)
		}
		checkCommandView(t, in, out)
		if got := strings.Contains(out.Text, want); got != c.shown {
			t.Errorf("intent %q: view shows %q: %v, want %v:\n%s", c.intent, want, got, c.shown, out.Text)
		}
	}
}
