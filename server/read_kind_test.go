package server_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/server"
)

// TestFirstPageFollowsTheView (issue 20 item 12): a read that names no
// range gives the view's answer. Output with NUL bytes posted as a command
// or as text gets a view of lines, and its first page shows lines; the
// same bytes left to crumb get the binary view, and the read is 422 binary.
func TestFirstPageFollowsTheView(t *testing.T) {
	ts := newServer(t, server.Options{})
	var b bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "line %d \x00 hello\n", i)
	}
	for _, kind := range []string{"command", "text"} {
		v := ts.do(t, "POST", "/v1/results?kind="+kind+"&budget=200", "", bytes.NewReader(b.Bytes())).json(t)
		if !strings.Contains(v["view"].(string), "line 2999 ^@ hello") {
			t.Fatalf("kind %s: the view shows no lines:\n%s", kind, v["view"])
		}
		a := ts.do(t, "GET", "/v1/results/"+v["ref"].(string), "", nil)
		if a.status != 200 || !strings.Contains(a.json(t)["page"].(string), "line 0 ^@ hello") {
			t.Errorf("kind %s: the first page: %d %.300s", kind, a.status, a.body)
		}
	}
	v := ts.do(t, "POST", "/v1/results", "", bytes.NewReader(b.Bytes())).json(t)
	if !strings.Contains(v["view"].(string), "binary content is not shown") {
		t.Fatalf("left to crumb, the view is not binary:\n%s", v["view"])
	}
	if a := ts.do(t, "GET", "/v1/results/"+v["ref"].(string), "", nil); a.status != 422 || a.errCode(t) != server.CodeBinary {
		t.Errorf("after the binary view, the first page: %d %s, want 422 binary", a.status, a.body)
	}
}
