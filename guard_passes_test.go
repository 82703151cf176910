package crumb_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	crumb "github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/tokens"
)

// TestPassesAgreesWithProject checks that Guard.Passes, the rule a proxy
// forwards results by before counting a token, is the rule Project passes
// results through by: every result Passes lets through, Project returns
// unchanged and does not store; every other one whose tokens, counted, do
// not fit the threshold, Project stores.
func TestPassesAgreesWithProject(t *testing.T) {
	const threshold = 200
	g := newGuard(t, crumb.Config{Budget: threshold, Threshold: threshold, Exempt: []string{"read_*"},
		Tools: []crumb.ToolPolicy{{Match: "search", Threshold: 50}}})
	counter := tokens.O200k()
	for _, tool := range []string{"bash", "read_file", "search"} {
		for _, size := range []int{0, 1, 49, 50, 51, 199, 200, 201, 800, 4000} {
			// Words of distinct numbers: more than one token a few bytes.
			var b bytes.Buffer
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "%d ", i*7919%100003)
			}
			body := b.Bytes()[:size]
			v, err := g.Project(context.Background(), crumb.Result{Tool: tool, Body: body})
			if err != nil {
				t.Fatal(err)
			}
			exact := v.Receipt.Output == crumb.OutputExact
			passes := g.Passes(tool, size)
			if passes && (!exact || v.Text != string(body) || v.Receipt.Stored) {
				t.Errorf("%s, %d bytes: Passes, but Project made a %s view (stored %v)", tool, size, v.Receipt.Output, v.Receipt.Stored)
			}
			_, th, _ := g.Limits(tool)
			if n := counter.Count(string(body)); !passes && n > th && !v.Receipt.Stored {
				t.Errorf("%s, %d bytes (%d tokens): Passes does not, but Project passed it through unstored over the threshold %d", tool, size, n, th)
			}
		}
	}
	if g.Passes("bash", threshold+1) || !g.Passes("read_file", 1<<30) || g.Passes("search", 51) {
		t.Error("Passes does not follow the limits: threshold, exemption, a tool's policy")
	}
}
