package recall

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// TestGrepSkipIsTrue (issue 20 item 10): the numbers a search page states
// are the matches' own. From the start, --skip passes over that many
// matches; a skip past the last match is an error that says how many there
// are; after --from, --skip cannot claim more matches than there are lines
// before it; and continuations from a skip reach the last match once each.
func TestGrepSkipIsTrue(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	ref := put(t, st, numbered(3000)) // "value" is on every line; "row 7" on 111 lines
	sevens := 0
	for _, l := range strings.Split(string(numbered(3000)), "\n") {
		if strings.Contains(l, "row 7") {
			sevens++
		}
	}
	tests := []struct {
		name string
		g    GrepSpec
		head string // the page's header starts so
		line string // the first match shown
		err  error
		msg  string
	}{
		{name: "skip 3 from the start", g: GrepSpec{Pattern: "row 7", Skip: 3}, head: "matches 4-", line: "72:row 72 value 5184"},
		{name: "skip 0", g: GrepSpec{Pattern: "row 7"}, head: "matches 1-", line: "7:row 7 value 49"},
		{name: "skip to the last match", g: GrepSpec{Pattern: "row 7", Skip: sevens - 1}, head: "matches 111-111 of 111", line: "799:row 799 value"},
		{name: "skip every match", g: GrepSpec{Pattern: "row 7", Skip: sevens}, err: ErrOutOfRange, msg: "--skip 111 is past the last match: " + string(ref) + ` has only 111 matches of "row 7" in 3,000 lines`},
		{name: "hostile skip", g: GrepSpec{Pattern: "row 7", Skip: 1<<31 - 1}, err: ErrOutOfRange, msg: "--skip 2,147,483,647 is past the last match"},
		{name: "skip with no match", g: GrepSpec{Pattern: "nowhere", Skip: 5}, err: ErrOutOfRange, msg: `has no matches of "nowhere"`},
		{name: "skip with from", g: GrepSpec{Pattern: "row 7", From: 700, Skip: 3}, head: "matches 4-", line: "700:row 700"},
		{name: "skip more than the lines before from", g: GrepSpec{Pattern: "row 7", From: 100, Skip: 2147483647}, err: ErrBadRequest, msg: "at most 99 matches come before line 100"},
		{name: "skip at max", g: GrepSpec{Pattern: "row 7", Skip: 5, Max: 5}, err: ErrBadRequest, msg: "--skip must be below it"},
		{name: "skip out of range", g: GrepSpec{Pattern: "row 7", Skip: MaxCount + 1}, err: ErrBadRequest, msg: "--skip: 1,099,511,627,777 is out of range: want 0 to 1,099,511,627,776 (matches)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			p, err := Read(ctx, st, Request{Ref: ref, Grep: &g}, Options{Budget: 300})
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("err = %v, want %v with %q", err, tc.err, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(p.Text, "\n")
			if !strings.Contains(first, `"row 7": `+tc.head) {
				t.Errorf("header %q, want %q", first, tc.head)
			}
			if body := strings.SplitN(p.Text, "\n", 3); len(body) < 2 || !strings.HasPrefix(body[1], tc.line) {
				t.Errorf("first match shown %q, want %q", body[1], tc.line)
			}
		})
	}

	// Following the continuations from --skip 3 shows every later match
	// once, numbered in order, and nothing claims more than there are.
	req := Request{Ref: ref, Grep: &GrepSpec{Pattern: "row 7", Skip: 3}}
	seen, pages := 0, 0
	num := regexp.MustCompile(`matches ([\d,]+)-([\d,]+) of ([\d,]+)`)
	for pages = 0; pages < 100; pages++ {
		p, err := Read(ctx, st, req, Options{Budget: 200})
		if err != nil {
			t.Fatal(err)
		}
		m := num.FindStringSubmatch(p.Text)
		if m == nil || m[3] != "111" {
			t.Fatalf("page %d header: %.200q", pages, p.Text)
		}
		for _, l := range strings.Split(p.Text, "\n") {
			if regexp.MustCompile(`^\d+:row`).MatchString(l) {
				seen++
			}
		}
		if p.Next == nil {
			break
		}
		req = *p.Next
	}
	if seen != sevens-3 {
		t.Errorf("continuations from --skip 3 showed %d matches, want %d", seen, sevens-3)
	}
}
