package mcpproxy

import (
	"io"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/tokens"
)

// TestBulkStructuredContent: a structuredContent of many small objects, too
// large to hold in memory, is projected apart as a JSON result of its own
// (the JSON projector reads it as a stream): the client gets the result's
// content and a text block with the view of it, naming the read of the
// rest, within the budget.
func TestBulkStructuredContent(t *testing.T) {
	const budget = 2000
	c, _ := startRaw(t, testConfig(t, budget), fakeCommand("", io.Discard))
	c.initialize()
	c.call("tools/list", `{}`)
	resp := c.toolCall("bulk", `{"mb":20}`)
	if resp.Error != nil {
		t.Fatalf("the call failed: %+v", resp.Error)
	}
	r := decodeResult(t, resp.Result)
	if len(r.Content) != 2 || r.Content[0].Text != "the items" || r.StructuredContent != nil || r.IsError {
		t.Fatalf("not the content and a view of the structuredContent: %.1000s", resp.Result)
	}
	view := r.Content[1].Text
	t.Logf("the view:\n%s", view)
	for _, want := range []string{"structuredContent (", "crumb json", `"name": "item 000000"`, "crumb_"} {
		if !strings.Contains(view, want) {
			t.Errorf("the view does not hold %q:\n%s", want, view)
		}
	}
	if n := tokens.O200k().Count(string(resp.Result)); n > budget+200 {
		t.Errorf("the result takes %d tokens, over the budget of %d", n, budget)
	}
}
