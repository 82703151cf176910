package recall

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// A read of several ranges shows them in order, marks what lies between
// them, and its next read carries the ranges still unread.
func TestReadSeveralRanges(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, numbered(3000))
	ctx := context.Background()
	p, err := Read(ctx, st, Request{Ref: ref, Lines: &Span{10, 14}, More: []Span{{19, 44}, {64, 66}, {73, 0}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lines 10-14, 19-44, 64-66, 73-", "\nrow 14 value 196\n[… lines 15-18 not asked for …]\nrow 19 value 361\n", "[… lines 45-63 not asked for …]"} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("page lacks %q:\n%.800s", want, p.Text)
		}
	}
	if p.Next == nil || p.Next.Lines == nil || len(p.Next.More) != 0 || p.Next.Lines.To != 3000 {
		t.Fatalf("next = %+v, want the rest of the last range", p.Next)
	}
	if len(p.Shown) != 4 {
		t.Errorf("page shows %d ranges, want 4: %v", len(p.Shown), p.Shown)
	}

	// A small page stops inside the first range and carries the others.
	p, err = Read(ctx, st, Request{Ref: ref, Lines: &Span{10, 400}, More: []Span{{500, 600}, {700, 0}}}, Options{Budget: 150})
	if err != nil {
		t.Fatal(err)
	}
	if got := CLIHint(*p.Next); !strings.HasSuffix(got, ":400,500:600,700:") {
		t.Errorf("next = %s, want the rest of 10:400, then 500:600 and 700:", got)
	}
	if n := tokens.O200k().Count(p.Text); n > 150 {
		t.Errorf("page has %d tokens, budget 150", n)
	}

	// The last range ends before the end of the result.
	p, err = Read(ctx, st, Request{Ref: ref, Lines: &Span{1, 2}, More: []Span{{5, 6}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Next != nil || !strings.HasSuffix(p.Text, "[end of the ranges asked for]") {
		t.Errorf("a read of ranges that stop early ends so:\n%s", p.Text)
	}
}

// Item: views and reads agree on text. A read that names lines or bytes,
// and a search, read content as text whatever it sniffs as; only a read
// that names nothing refuses content that sniffs as binary, and only when
// its view did: stored as a kind whose view shows lines ("text"), its first
// page shows lines too (issue 20 item 12); stored as "binary", it is
// refused. Named ranges and searches work either way.
func TestReadsOfNamedRangesReadTextWhateverItLooksLike(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	var b bytes.Buffer
	for i := 0; i < 2000; i++ {
		b.WriteString("\x1b[31mERROR\x1b[0m step \x00 failed \xff\xfe at row ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte('\n')
	}
	body := b.Bytes()
	for _, kind := range []string{"text", "binary"} {
		info, err := st.Put(ctx, bytes.NewReader(body), store.Meta{Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		ref := info.Ref
		p, err := Read(ctx, st, Request{Ref: ref, Lines: &Span{100, 0}}, Options{})
		if err != nil {
			t.Fatalf("stored as %s: lines: %v", kind, err)
		}
		if !strings.Contains(p.Text, "ERROR step") || strings.ContainsAny(p.Text, "\x00\x1b") {
			t.Errorf("stored as %s: lines are not shown clean:\n%.300q", kind, p.Text)
		}
		if _, err := Read(ctx, st, Request{Ref: ref, Bytes: &Span{10, 500}}, Options{}); err != nil {
			t.Errorf("stored as %s: bytes: %v", kind, err)
		}
		g, err := Read(ctx, st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "ERROR"}}, Options{})
		if err != nil || !strings.Contains(g.Text, "matches 1-") {
			t.Errorf("stored as %s: search: %v\n%.300s", kind, err, g.Text)
		}
		first, err := Read(ctx, st, Request{Ref: ref}, Options{})
		switch {
		case kind == "binary" && !errors.Is(err, ErrBinary):
			t.Errorf("stored as %s: a read that names nothing: %v, want ErrBinary", kind, err)
		case kind == "text" && err != nil:
			t.Errorf("stored as %s (its view shows lines): a read that names nothing: %v, want its first lines", kind, err)
		case kind == "text" && (!strings.HasPrefix(first.Text, "[crumb read "+string(ref)+": lines 1-") || !strings.Contains(first.Text, "ERROR step")):
			t.Errorf("stored as %s: the first page is not its first lines:\n%.300q", kind, first.Text)
		}
	}
}

// Item: one rule for every range, with errors that say what was meant.
func TestRangeRule(t *testing.T) {
	ref := store.Ref("0123456789abcdef")
	tests := []struct {
		lines, bytes string
		want         string // "" for valid
	}{
		{lines: "5:0", want: "write 5:"},
		{bytes: "100:0", want: "write 100:"},
		{lines: "0:0", want: "names nothing"},
		{bytes: "0:0", want: "names nothing"},
		{bytes: "5:5", want: "5:6 is the byte at 5"},
		{lines: "5:5"},
		{lines: "5:"},
		{bytes: "5:"},
		{lines: "9:3", want: "ends before it starts"},
		{lines: "0:3", want: "numbered from 1"},
		{lines: "1:3,3:9", want: "overlap or are out of order"},
		{lines: "1:,5:9", want: "only the last range may be open"},
		{lines: "1:3,4:9"},
		{lines: "99999999999999999999", want: "too large"},
		{lines: "9007199254740993:", want: "too large"},
		{bytes: "-1:5", want: "not a whole number"},
	}
	for _, tt := range tests {
		argv := []string{"read", string(ref)}
		if tt.lines != "" {
			argv = append(argv, "--lines", tt.lines)
		} else {
			argv = append(argv, "--bytes", tt.bytes)
		}
		_, err := ParseArgv(argv)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: %v", argv[2:], err)
		case tt.want != "" && (err == nil || !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: error %v, want one that says %q", argv[2:], err, tt.want)
		}
	}
}

// Item: hostile numbers are refused with a clear error, or read without
// crashing: a search that skips MaxInt64 matches used to overflow into a
// stack overflow, and a budget of 2^59 into a panic.
func TestHostileNumbers(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	ref := put(t, st, numbered(50))
	bad := []Request{
		{Ref: ref, Grep: &GrepSpec{Pattern: "row", Skip: math.MaxInt64}},
		{Ref: ref, Grep: &GrepSpec{Pattern: "row", Max: math.MaxInt64}},
		{Ref: ref, Grep: &GrepSpec{Pattern: "row", Context: math.MaxInt32}},
		{Ref: ref, Grep: &GrepSpec{Pattern: "row", From: math.MaxInt64}},
		{Ref: ref, Lines: &Span{1, math.MaxInt64}},
		{Ref: ref, Bytes: &Span{math.MaxInt64, 0}},
	}
	for _, r := range bad {
		if _, err := Read(ctx, st, r, Options{}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%q: %v, want ErrBadRequest", r.Argv(), err)
		}
	}
	for _, b := range []int{-5, MaxBudget + 1, 1 << 59} {
		if _, err := Read(ctx, st, Request{Ref: ref}, Options{Budget: b}); !errors.Is(err, ErrBadRequest) {
			t.Errorf("budget %d: %v, want ErrBadRequest", b, err)
		}
	}
	p, err := Read(ctx, st, Request{Ref: ref}, Options{Budget: MaxBudget})
	if err != nil || !strings.Contains(p.Text, "row 50 value 2500") {
		t.Errorf("the largest budget reads the whole result: %v\n%.200s", err, p.Text)
	}
	// The largest skip is past the last match, and says so (issue 20 item
	// 10): it never numbers matches from past the result.
	p, err = Read(ctx, st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "row", Skip: MaxCount}}, Options{})
	if !errors.Is(err, ErrOutOfRange) || !strings.Contains(err.Error(), "--skip 1,099,511,627,776 is past the last match: "+string(ref)+" has only 50 matches") {
		t.Errorf("the largest skip: %v, want ErrOutOfRange naming the 50 matches\n%.300s", err, p.Text)
	}
}

// FuzzRead reads a small stored result with arbitrary request fields: no
// panic, an invalid request fails with ErrBadRequest or ErrOutOfRange, and
// a page that has a next read shows something.
func FuzzRead(f *testing.F) {
	st := testStore(f)
	ref := put(f, st, append(numbered(300), "a last line without newline"...))
	f.Add(int64(1), int64(0), int64(-1), int64(0), "", 0, 0, 0, int64(0), 0)
	f.Add(int64(10), int64(14), int64(19), int64(44), "", 0, 0, 0, int64(0), 300)
	f.Add(int64(0), int64(0), int64(0), int64(0), "row", 2, 5, math.MaxInt64, int64(3), 0)
	f.Add(int64(5), int64(5), int64(-1), int64(0), "", 0, 0, 0, int64(0), 1<<59)
	f.Fuzz(func(t *testing.T, a, b, c, d int64, pattern string, ctxLines, maxN, skip int, from int64, budget int) {
		req := Request{Ref: ref}
		switch {
		case pattern != "":
			req.Grep = &GrepSpec{Pattern: pattern, Context: ctxLines, Max: maxN, Skip: skip, From: from}
		case a < 0:
			req.Bytes = &Span{-a, b}
		case a > 0:
			req.Lines = &Span{a, b}
			if c >= 0 {
				req.More = []Span{{c, d}}
			}
		}
		p, err := ReadObject(context.Background(), mustOpen(t, st, ref), req, Options{Budget: budget})
		if err != nil {
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("%q: unexpected error %v", req.Argv(), err)
			}
			return
		}
		// A search page repeats its pattern, of any length, in its header
		// and its next read; a read's page keeps within the budget.
		if limit := min(max(budget, MinBudget), MaxBudget); req.Grep == nil && (budget > 0 && p.Tokens > limit || budget == 0 && p.Tokens > DefaultBudget) {
			t.Fatalf("%q: page of %d tokens, budget %d:\n%s", req.Argv(), p.Tokens, budget, p.Text)
		}
		if p.Next != nil && req.Grep == nil && len(p.Shown) == 0 {
			t.Fatalf("%q: a page with a next read shows nothing:\n%s", req.Argv(), p.Text)
		}
		if p.Next != nil {
			if err := p.Next.Validate(); err != nil {
				t.Fatalf("%q: next read %q is invalid: %v", req.Argv(), p.Next.Argv(), err)
			}
		}
	})
}

func mustOpen(t *testing.T, st store.Store, ref store.Ref) store.Object {
	obj, err := st.Open(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { obj.Close() })
	return obj
}

// Item: storing the same bytes again with another kind must not break the
// reads an earlier view of them named (project --kind text < f, then
// --kind binary < f, then the first view's next read).
func TestStoringAgainAsBinaryKeepsTextReads(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	body := numbered(500)
	var ref store.Ref
	for _, kind := range []string{"text", "binary"} {
		info, err := st.Put(ctx, bytes.NewReader(body), store.Meta{Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		ref = info.Ref
	}
	for _, r := range []Request{{Ref: ref}, {Ref: ref, Lines: &Span{41, 240}}, {Ref: ref, Grep: &GrepSpec{Pattern: "row 4"}}} {
		if _, err := Read(ctx, st, r, Options{}); err != nil {
			t.Errorf("%q after the bytes were stored again as binary: %v", r.Argv(), err)
		}
	}
}
