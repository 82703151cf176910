package recall

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func testStore(t testing.TB) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(t.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func put(t testing.TB, st store.Store, b []byte) store.Ref {
	t.Helper()
	info, err := st.Put(context.Background(), bytes.NewReader(b), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	return info.Ref
}

func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "row %d value %d\n", i, i*i)
	}
	return b.Bytes()
}

func TestReadLines(t *testing.T) {
	st := testStore(t)
	body := numbered(100)
	ref := put(t, st, body)
	ctx := context.Background()
	from := bytes.Index(body, []byte("row 41 "))
	to := bytes.Index(body, []byte("row 44 "))
	p, err := Read(ctx, st, Request{Ref: ref, Lines: &Span{41, 43}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[crumb read %s: lines 41-43 of 100; bytes %d-%d of 1,750]\nrow 41 value 1681\nrow 42 value 1764\nrow 43 value 1849\n[end of the range asked for]", ref, from, to)
	if p.Text != want {
		t.Errorf("got\n%s\nwant\n%s", p.Text, want)
	}
	p, err = Read(ctx, st, Request{Ref: ref, Lines: &Span{98, 0}}, Options{Numbers: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, " 98\trow 98 value 9604\n") || !strings.HasSuffix(p.Text, "[end of result]") || p.Next != nil {
		t.Errorf("open-ended numbered read:\n%s", p.Text)
	}
	p, err = Read(ctx, st, Request{Ref: ref}, Options{Budget: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.Next == nil || p.Next.Lines == nil || p.Next.Lines.To != 100 || p.From != 0 {
		t.Errorf("a read without a range pages from line 1 to the end; next = %+v", p.Next)
	}
	if n := tokens.O200k().Count(p.Text); n > 100 {
		t.Errorf("page has %d tokens, budget 100", n)
	}
	if !strings.HasSuffix(p.Text, "[next: "+CLIHint(*p.Next)+"]") {
		t.Errorf("page does not end with its next read:\n%s", p.Text)
	}
}

func TestReadBytesCutsOnlyWhatDoesNotFit(t *testing.T) {
	st := testStore(t)
	long := append(bytes.Repeat([]byte("0123456789"), 5000), '\n')
	body := append(append([]byte("short\n"), long...), "end\n"...)
	ref := put(t, st, body)
	p, err := Read(context.Background(), st, Request{Ref: ref}, Options{Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	// The first page holds "short" and nothing of the long line, whose
	// whole does not fit: the next page starts at it.
	if p.To != 6 || p.Next == nil || p.Next.Lines == nil || p.Next.Lines.From != 2 {
		t.Fatalf("page 1 to=%d next=%+v\n%s", p.To, p.Next, p.Text)
	}
	p, err = Read(context.Background(), st, *p.Next, Options{Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	if p.Next == nil || p.Next.Bytes == nil || p.Next.Bytes.From != p.To || !strings.Contains(p.Text, " …\n") {
		t.Fatalf("a line longer than a page continues by bytes; next=%+v\n%s", p.Next, p.Text)
	}
}

func TestReadErrors(t *testing.T) {
	st := testStore(t)
	ctx := context.Background()
	ref := put(t, st, numbered(10))
	png, _ := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	bin := put(t, st, append([]byte{0x89, 'P', 'N', 'G', 0, 0}, png...))
	tests := []struct {
		name string
		req  Request
		want error
	}{
		{"malformed ref", Request{Ref: "nope"}, store.ErrBadRef},
		{"missing", Request{Ref: "0123456789abcdef"}, store.ErrMissing},
		{"line past the end", Request{Ref: ref, Lines: &Span{11, 20}}, ErrOutOfRange},
		{"byte past the end", Request{Ref: ref, Bytes: &Span{5000, 6000}}, ErrOutOfRange},
		{"other revision", Request{Ref: ref, Rev: "ffffffffffff"}, ErrRevision},
		{"binary as text", Request{Ref: bin}, ErrBinary},
		{"bad pattern", Request{Ref: ref, Grep: &GrepSpec{Pattern: "(("}}, ErrBadRequest},
		{"backwards range", Request{Ref: ref, Lines: &Span{5, 2}}, ErrBadRequest},
	}
	for _, tt := range tests {
		_, err := Read(ctx, st, tt.req, Options{})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestReadOfTamperedContentIsBroken(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, numbered(1000))
	var blob string
	filepath.Walk(st.Path(), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && filepath.Base(p) == string(ref) {
			blob = p
		}
		return nil
	})
	if blob == "" {
		t.Fatal("blob file not found")
	}
	b, _ := os.ReadFile(blob)
	b[100] ^= 1
	if err := os.WriteFile(blob, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Read(context.Background(), st, Request{Ref: ref}, Options{})
	if !errors.Is(err, store.ErrBroken) {
		t.Fatalf("read of tampered content: %v, want ErrBroken", err)
	}
}

// grepAll follows a search's continuations and returns every match line
// number it reported.
func grepAll(t *testing.T, st store.Store, req Request, budget int) ([]int, []string) {
	t.Helper()
	var got []int
	var pages []string
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("search pages do not end")
		}
		p, err := Read(context.Background(), st, req, Options{Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p.Text)
		for _, l := range strings.Split(p.Text, "\n") {
			var n int
			var rest string
			if k, _ := fmt.Sscanf(l, "%d:%s", &n, &rest); k == 2 {
				got = append(got, n)
			}
		}
		if p.Next == nil {
			return got, pages
		}
		req = *p.Next
	}
}

func TestGrepFindsEveryMatchOnceAcrossPages(t *testing.T) {
	st := testStore(t)
	body := numbered(5000)
	ref := put(t, st, body)
	re := regexp.MustCompile(`value \d*7\d\b`)
	var want []int
	for i, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if re.MatchString(l) {
			want = append(want, i+1)
		}
	}
	for _, ctxLines := range []int{0, 2} {
		got, pages := grepAll(t, st, Request{Ref: ref, Grep: &GrepSpec{Pattern: re.String(), Context: ctxLines}}, 300)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("context %d: %d matches over %d pages, want %d", ctxLines, len(got), len(pages), len(want))
		}
		if len(pages) < 2 {
			t.Errorf("expected several pages at budget 300, got %d", len(pages))
		}
	}
}

func TestGrepContextAndCase(t *testing.T) {
	st := testStore(t)
	ref := put(t, st, []byte("alpha\nBeta\ngamma\nbeta\ndelta\nepsilon\nzeta\neta\nbeta\n"))
	p, err := Read(context.Background(), st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "beta", IgnoreCase: true, Context: 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "1-alpha\n2:Beta\n3-gamma\n4:beta\n5-delta\n--\n8-eta\n9:beta\n[no more matches]"
	if !strings.HasSuffix(p.Text, want) || !strings.Contains(p.Text, "matches 1-3 of 3") {
		t.Errorf("got\n%s\nwant suffix\n%s", p.Text, want)
	}
	p, err = Read(context.Background(), st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "beta", Max: 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "4:beta") || strings.Contains(p.Text, "9:beta") || !strings.Contains(p.Text, "--max 1") {
		t.Errorf("--max 1:\n%s", p.Text)
	}
	p, err = Read(context.Background(), st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "omega"}}, Options{})
	if err != nil || !strings.Contains(p.Text, "no matches") {
		t.Errorf("no match: %v\n%s", err, p.Text)
	}
}

func TestGrepShortensLongLinesAroundTheMatch(t *testing.T) {
	st := testStore(t)
	line := strings.Repeat("x", 100000) + "NEEDLE" + strings.Repeat("y", 100000) + "\n"
	ref := put(t, st, []byte("a\n"+line+"b\n"))
	p, err := Read(context.Background(), st, Request{Ref: ref, Grep: &GrepSpec{Pattern: "NEEDLE"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "2:…") || !strings.Contains(p.Text, "NEEDLE") || len(p.Text) > 2000 {
		t.Errorf("long match line not windowed (%d bytes):\n%.300s", len(p.Text), p.Text)
	}
}
