package project

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A log read as a file gets the log view, which shows the error buried in
// its middle; a read that asks for lines still gets those lines.
func TestFileReadOfALogShowsItsErrors(t *testing.T) {
	var b bytes.Buffer
	for i := 1; i <= 40000; i++ {
		if i == 23817 {
			fmt.Fprintf(&b, "2026-11-29T10:39:41.%03dZ ERROR req=%06d POST /v2/charge 502: upstream timeout after 30s\n", i%1000, i)
			continue
		}
		fmt.Fprintf(&b, "2026-11-29T10:%02d:%02d.%03dZ INFO  req=%06d GET /v2/orders 200 12ms\n", i/3600%60, i/60%60, i%1000, i)
	}
	in := testInput(t, b.Bytes(), 2000)
	in.Args = json.RawMessage(`{"path": "/var/log/server.log"}`)
	out, err := Project(context.Background(), KindFile, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "ERROR req=023817 POST /v2/charge 502") {
		t.Errorf("the error in the middle of the log is not in the view:\n%s", out.Text)
	}
	in = testInput(t, b.Bytes(), 2000)
	in.Args = json.RawMessage(`{"path": "/var/log/server.log", "offset": 100, "limit": 5}`)
	out, err = Project(context.Background(), KindFile, in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "req=000100 ") {
		t.Errorf("a read of lines 100-104 does not show them:\n%s", out.Text)
	}
}
