package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/mcpproxy"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// readCall matches a crumb_read call a view names; pageNext, the one a
// page ends with.
var (
	readCall = regexp.MustCompile(`crumb_read (\{[^}\n]*\})`)
	pageNext = regexp.MustCompile(`\n\[next: crumb_read (\{.*\})\]$`)
)

// A page's size is its own setting: at --budget 600, crumb mcp reads a
// result back in pages of 2,000 tokens (or of --page-budget, or of the
// configuration's page_budget), not of 600. The calls of crumb_read that
// follow the view's continuation to the end are counted, and must be as
// many as the pages of that size.
func TestMCPPageBudget(t *testing.T) {
	tests := []struct {
		name   string
		config string // the configuration file's text, if any
		args   []string
		want   int // the page budget
	}{
		{"--budget alone", "", []string{"--budget", "600"}, crumb.DefaultPageBudget},
		{"--page-budget", "", []string{"--budget", "600", "--page-budget", "900"}, 900},
		{"budget in the file", "budget = 600\n", nil, crumb.DefaultPageBudget},
		{"page_budget in the file", "budget = 600\npage_budget = 700\n", nil, 700},
		{"--page-budget over the file's", "page_budget = 700\n", []string{"--budget", "600", "--page-budget", "1200"}, 1200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"--store", dir}, tt.args...)
			if tt.config != "" {
				cfg := filepath.Join(t.TempDir(), "crumb.toml")
				if err := os.WriteFile(cfg, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			call, _ := mcpSession(t, args...)
			call("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
			text := func(resp map[string]json.RawMessage) string {
				var r struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					IsError bool `json:"isError"`
				}
				if err := json.Unmarshal(resp["result"], &r); err != nil || len(r.Content) == 0 || r.IsError {
					t.Fatalf("answer %s: %v", resp["result"], err)
				}
				return r.Content[0].Text
			}
			view := text(call("tools/call", `{"name":"lines","arguments":{"n":20000}}`))
			if n := tokens.O200k().Count(view); n > 600 {
				t.Fatalf("the view is %d tokens, over its budget of 600", n)
			}
			m := readCall.FindStringSubmatch(view)
			if m == nil {
				t.Fatalf("the view names no crumb_read call:\n%.400s", view)
			}
			first := m[1]
			calls := 0
			for args := first; ; calls++ {
				page := text(call("tools/call", `{"name":"crumb_read","arguments":`+args+`}`))
				if n := tokens.O200k().Count(page); n > tt.want {
					t.Fatalf("page %d is %d tokens, over the page budget of %d", calls+1, n, tt.want)
				}
				m := pageNext.FindStringSubmatch(page)
				if m == nil {
					calls++
					break
				}
				args = m[1]
			}
			if want := mcpPages(t, dir, first, tt.want); calls != want {
				t.Errorf("reading the result back took %d calls of crumb_read; pages of %d tokens take %d", calls, tt.want, want)
			}
		})
	}
}

// mcpPages counts the pages of budget tokens the MCP proxy's Guard gives
// over the store in dir, from the crumb_read call with arguments args to
// the end.
func mcpPages(t *testing.T, dir, args string, budget int) int {
	t.Helper()
	st, err := store.OpenDir(dir, store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := mcpproxy.New(mcpproxy.Config{Guard: crumb.Config{Store: st, PageBudget: budget}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var a struct {
		Ref   string `json:"ref"`
		Rev   string `json:"rev"`
		Lines string `json:"lines"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		t.Fatal(err)
	}
	rs, err := recall.ParseRanges(a.Lines)
	if err != nil {
		t.Fatal(err)
	}
	req := recall.Request{Ref: store.Ref(a.Ref), Rev: a.Rev}
	req.SetRanges(false, rs)
	ctx := context.Background()
	for n := 1; ; n++ {
		page, err := p.Guard().Read(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if page.Next == nil {
			return n
		}
		req = *page.Next
	}
}
