package history

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

// TestCountsAgree checks that every count compaction writes agrees with its
// noun: "1 more message" and "2 more messages" in a digest that ran out of
// room, "1 line" and "2 lines" in a breadcrumb, "1 older turn" in the
// budget note.
func TestCountsAgree(t *testing.T) {
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		msgs int
		want string
	}{
		{2, "- … 1 more message: read it"},
		{3, "- … 2 more messages: read them"},
	} {
		var msgs []string
		for i := range tc.msgs {
			msgs = append(msgs, fmt.Sprintf(`{"role":%q,"content":"message %d"}`, []string{"user", "assistant"}[i%2], i))
		}
		th, err := c.parse([]byte("[" + strings.Join(msgs, ",") + "]"))
		if err != nil {
			t.Fatal(err)
		}
		// No room: the first line is written, the others are counted.
		if got := c.digest(th, 0, tc.msgs, 0); !strings.HasSuffix(got, tc.want) {
			t.Errorf("a digest of %d messages with no room: %q, want it to end %q", tc.msgs, got, tc.want)
		}
	}
	for _, tc := range []struct {
		body, want string
	}{
		{strings.Repeat("word ", 400), "tokens (2.0 KB, 1 line) as ref"},
		{strings.Repeat("word ", 200) + "\n" + strings.Repeat("word ", 200), "tokens (2.0 KB, 2 lines) as ref"},
	} {
		th, err := c.parse([]byte(`[{"role":"user","content":"go"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":` + string(jsonString(tc.body)) + `}]`))
		if err != nil {
			t.Fatal(err)
		}
		m := th.msgs[2]
		e, _, err := c.breadcrumbs(context.Background(), m, map[string]toolCall{"c1": th.msgs[1].calls[0]}, c.count(m.raw))
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if err := json.Unmarshal(e.content, &text); err != nil || !strings.Contains(text, tc.want) {
			t.Errorf("breadcrumb %q (%v): want %q", text, err, tc.want)
		}
	}
	note := (&Result{Budget: 10, OverBudget: true, TokensAfter: 20, OldTurns: 1, OlderTokens: 5}).BudgetNote()
	if !strings.Contains(note, ", 1 older turn as breadcrumbs") {
		t.Errorf("budget note %q: want \"1 older turn\"", note)
	}
}
