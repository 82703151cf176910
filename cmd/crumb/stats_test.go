package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/tokens"
)

// TestStatsNetOfReadsBack checks that crumb stats charges every page read
// back — by crumb read and grep, the MCP proxy's crumb_read and
// crumb_search — against
// what the first view kept out of context.
func TestStatsNetOfReadsBack(t *testing.T) {
	dir := t.TempDir()
	var body strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&body, "line %d of a log that goes on\n", i)
	}
	code, out, errs := runCrumb(t, dir, strings.NewReader(body.String()), "project", "--kind", "text", "--budget", "300", "--json")
	if code != 0 {
		t.Fatalf("project: exit %d: %s", code, errs)
	}
	var view struct {
		Ref string `json:"ref"`
	}
	if err := json.Unmarshal([]byte(out), &view); err != nil || view.Ref == "" {
		t.Fatalf("project --json: %v: %s", err, out)
	}
	before := readStats(t, dir)
	if before.SavedTokens <= 0 || before.Reads != 0 || before.ReadTokens != 0 || before.NetSavedTokens != before.SavedTokens {
		t.Fatalf("stats before any read: %+v", before)
	}

	counter := tokens.O200k()
	var read int64
	for _, args := range [][]string{
		{"read", view.Ref, "--lines", "100:300", "--json"},
		{"read", view.Ref, "--json"},
		{"grep", view.Ref, "line 4[0-9]{3} ", "--json"},
	} {
		code, out, errs := runCrumb(t, dir, nil, args...)
		var page struct {
			Page string `json:"page"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &page) != nil {
			t.Fatalf("crumb %q: exit %d: %s%s", args, code, out, errs)
		}
		read += int64(counter.Count(page.Page))
	}
	// A page read through the MCP proxy counts as well.
	call, _ := mcpSession(t, "--store", dir)
	call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	for _, params := range []string{
		`{"name":"crumb_read","arguments":{"ref":"` + view.Ref + `","lines":"1000:1100"}}`,
		`{"name":"crumb_search","arguments":{"ref":"` + view.Ref + `","pattern":"line 3[0-9]{3} "}}`,
	} {
		res := call("tools/call", params)
		var tr struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal(res["result"], &tr); err != nil || tr.IsError || len(tr.Content) != 1 {
			t.Fatalf("%s: %v: %s", params, err, res["result"])
		}
		read += int64(counter.Count(tr.Content[0].Text))
	}

	after := readStats(t, dir)
	if after.Reads != 5 || after.ReadTokens != read {
		t.Errorf("stats after 5 reads of %d tokens: reads %d, read_tokens %d", read, after.Reads, after.ReadTokens)
	}
	if after.SavedTokens != before.SavedTokens || after.NetSavedTokens != before.SavedTokens-read {
		t.Errorf("gross %d → %d, net %d; want gross unchanged and net %d", before.SavedTokens, after.SavedTokens, after.NetSavedTokens, before.SavedTokens-read)
	}
	code, out, _ = runCrumb(t, dir, nil, "stats")
	for _, want := range []string{"kept out (gross):", "read back:           5 pages, ", fmt.Sprintf("kept out (net):      %s tokens", textfmt.Int(before.SavedTokens-read))} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("crumb stats lacks %q:\n%s", want, out)
		}
	}
}

func readStats(t *testing.T, dir string) wire.Stats {
	t.Helper()
	code, out, errs := runCrumb(t, dir, nil, "stats", "--json")
	var s wire.Stats
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("stats --json: exit %d: %s%s", code, out, errs)
	}
	return s
}
