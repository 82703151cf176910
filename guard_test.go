package crumb_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

func newStore(t testing.TB) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(t.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func newGuard(t testing.TB, cfg crumb.Config) *crumb.Guard {
	t.Helper()
	if cfg.Store == nil {
		cfg.Store = newStore(t)
	}
	g, err := crumb.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// logLines returns n lines of plain ASCII text, each distinct.
func logLines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "2026-11-29T12:00:%02d worker %d handled request %d in %dms\n", i%60, i%7, i, i*37%1000)
	}
	return b.Bytes()
}

// plainLines returns n distinct lines of plain text that is not a log.
func plainLines(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "the quick brown fox %d jumps over the lazy dog %d times\n", i, i*37%1000)
	}
	return b.Bytes()
}

// Invariant 1: under the threshold, the result passes through byte-identical.
func TestPassThroughIsByteIdentical(t *testing.T) {
	inputs := map[string][]byte{
		"empty":         {},
		"one line":      []byte("hello"),
		"trailing ws":   []byte("a  \n\tb \r\n\n"),
		"unicode":       []byte("héllo 日本 🙂\n"),
		"ansi kept":     []byte("\x1b[31mred\x1b[0m\n"),
		"at threshold":  bytes.Repeat([]byte("a "), 900),
		"just a little": logLines(20),
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			st := newStore(t)
			g := newGuard(t, crumb.Config{Store: st})
			for _, res := range []crumb.Result{{Body: in}, {Reader: bytes.NewReader(in)}} {
				v, err := g.Project(context.Background(), res)
				if err != nil {
					t.Fatal(err)
				}
				if v.Text != string(in) || v.Ref != "" || v.Next != nil || v.Receipt.Output != crumb.OutputExact {
					t.Fatalf("did not pass through: output=%s ref=%q text=%q", v.Receipt.Output, v.Ref, v.Text)
				}
			}
			if infos, _ := st.List(context.Background()); len(infos) != 0 {
				t.Errorf("a result that passed through was stored: %v", infos)
			}
		})
	}
}

// Invariant 2: a view that omits material exists only once the exact result
// is stored, and the stored bytes are exactly the input.
func TestProjectedViewIsBackedByExactCopy(t *testing.T) {
	st := newStore(t)
	g := newGuard(t, crumb.Config{Store: st})
	in := logLines(30000)
	v, err := g.Project(context.Background(), crumb.Result{Tool: "bash", Reader: bytes.NewReader(in)})
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.Output != crumb.OutputProjected || v.Ref == "" || !v.Receipt.Stored {
		t.Fatalf("want a projected, stored view; got %+v", v.Receipt)
	}
	got, err := store.ReadAll(context.Background(), st, v.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, in) {
		t.Fatal("stored bytes differ from the input")
	}
	if n := tokens.O200k().Count(v.Text); n > crumb.DefaultBudget || n != v.Receipt.ViewTokens {
		t.Fatalf("view has %d tokens (receipt says %d), budget %d", n, v.Receipt.ViewTokens, crumb.DefaultBudget)
	}
}

// failingStore fails every Put with err, as a full disk does.
type failingStore struct {
	store.Store
	err error
}

func (f failingStore) Put(ctx context.Context, r io.Reader, m store.Meta) (store.Info, error) {
	// Read a little, as a real store does before the disk fills up.
	io.CopyN(io.Discard, r, 4096)
	return store.Info{}, fmt.Errorf("store: writing result: %w", f.err)
}

// Invariant 2, when storing fails: the agent is told plainly and gets the
// input unchanged where that is safe; nothing is lost silently.
func TestStoreFailureIsToldPlainly(t *testing.T) {
	full := failingStore{Store: newStore(t), err: syscall.ENOSPC}
	t.Run("small enough to show whole", func(t *testing.T) {
		g := newGuard(t, crumb.Config{Store: full, HardCap: 1 << 20})
		in := logLines(3000)
		v, err := g.Project(context.Background(), crumb.Result{Reader: bytes.NewReader(in)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Receipt.Output != crumb.OutputFallback || v.Receipt.Stored || !strings.Contains(v.Receipt.StoreError, "no space left on device") {
			t.Fatalf("receipt does not report the failure: %+v", v.Receipt)
		}
		first, rest, _ := strings.Cut(v.Text, "\n")
		if !strings.Contains(first, "could not store") || !strings.Contains(first, "no space left on device") {
			t.Errorf("view does not say storing failed: %q", first)
		}
		if rest != string(in) {
			t.Error("the input was not passed through unchanged after the warning")
		}
	})
	t.Run("too large to show whole", func(t *testing.T) {
		g := newGuard(t, crumb.Config{Store: full, HardCap: 64 << 10})
		in := logLines(50000)
		v, err := g.Project(context.Background(), crumb.Result{Reader: bytes.NewReader(in)})
		if err != nil {
			t.Fatal(err)
		}
		if v.Receipt.Output != crumb.OutputFallback || v.Next != nil || v.Ref != "" {
			t.Fatalf("want a fallback view without continuation; got %+v next=%v", v.Receipt, v.Next)
		}
		if !strings.Contains(v.Text, "could not store this result") || !strings.Contains(v.Text, "cannot be read back") {
			t.Errorf("view does not say the omission is lost:\n%s", v.Text)
		}
		// The end of the output is still shown: it was kept in memory.
		last := in[bytes.LastIndexByte(in[:len(in)-1], '\n')+1 : len(in)-1]
		if !strings.Contains(v.Text, string(last)) {
			t.Errorf("the last line %q is missing from the fallback view", last)
		}
		if n := tokens.O200k().Count(v.Text); n > crumb.DefaultBudget {
			t.Errorf("fallback view has %d tokens", n)
		}
	})
}

// Invariant 3: the same result and configuration give a byte-identical view,
// whichever store holds it.
func TestViewsAreDeterministic(t *testing.T) {
	in := logLines(20000)
	var views []string
	for i := 0; i < 3; i++ {
		g := newGuard(t, crumb.Config{})
		v, err := g.Project(context.Background(), crumb.Result{Tool: "t", Body: in})
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, v.Text)
	}
	if views[0] != views[1] || views[1] != views[2] {
		t.Fatal("views differ between runs")
	}
}

// Invariant 4: following continuations from the first view reaches the end
// of the result with no gap and no overlap, and never shows the same page
// twice.
func TestContinuationsCoverTheResultExactly(t *testing.T) {
	cases := map[string][]byte{
		"lines":         plainLines(4000),
		"no final nl":   bytes.TrimSuffix(plainLines(5000), []byte("\n")),
		"long lines":    bytes.Repeat(append(bytes.Repeat([]byte("word "), 3000), '\n'), 40),
		"one long line": bytes.Repeat([]byte("abcdefgh "), 40000),
	}
	for name, in := range cases {
		for _, budget := range []int{150, 800, 2000} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				t.Parallel()
				st := newStore(t)
				g := newGuard(t, crumb.Config{Store: st, Budget: budget})
				v, err := g.Project(context.Background(), crumb.Result{Body: in, Kind: crumb.KindText})
				if err != nil {
					t.Fatal(err)
				}
				if v.Next == nil {
					t.Fatal("no continuation")
				}
				// The view shows the head [0,a) and the tail [b,size); the
				// continuation must address exactly [a,b).
				doc, err := st.Open(context.Background(), v.Ref)
				if err != nil {
					t.Fatal(err)
				}
				defer doc.Close()
				a, b := byteRange(t, doc, *v.Next)
				checkShown(t, v.Text, in[:a], in[b:])
				var got []byte
				req := *v.Next
				seen := map[string]bool{}
				for i := 0; ; i++ {
					if i > 10000 {
						t.Fatal("continuations do not end")
					}
					p, err := recall.Read(context.Background(), st, req, recall.Options{Budget: budget})
					if err != nil {
						t.Fatal(err)
					}
					if seen[p.Text] {
						t.Fatal("a continuation returned a page already seen")
					}
					seen[p.Text] = true
					if p.From != a+int64(len(got)) {
						t.Fatalf("page starts at %d, want %d (gap or overlap)", p.From, a+int64(len(got)))
					}
					if n := tokens.O200k().Count(p.Text); n > budget {
						t.Fatalf("page has %d tokens, budget %d", n, budget)
					}
					got = append(got, in[p.From:p.To]...)
					checkPageBody(t, p.Text, in[p.From:p.To])
					if p.Next == nil {
						break
					}
					req = *p.Next
				}
				if int64(len(got)) != b-a || !bytes.Equal(got, in[a:b]) {
					t.Fatalf("pages cover %d bytes, the omission is %d", len(got), b-a)
				}
			})
		}
	}
}

// byteRange converts a continuation to byte offsets.
func byteRange(t *testing.T, obj store.Object, r recall.Request) (int64, int64) {
	t.Helper()
	if r.Bytes != nil {
		return r.Bytes.From, r.Bytes.To
	}
	doc := recall.NewDoc(obj)
	a, err := doc.LineStart(r.Lines.From)
	if err != nil {
		t.Fatal(err)
	}
	total, _ := doc.Lines()
	b := doc.Size()
	if r.Lines.To < total {
		if b, err = doc.LineStart(r.Lines.To + 1); err != nil {
			t.Fatal(err)
		}
	}
	return a, b
}

// checkShown checks that a view shows head and tail: the lines of head
// right after the header, and the lines of tail at the end.
func checkShown(t *testing.T, view string, head, tail []byte) {
	t.Helper()
	body := view[strings.IndexByte(view, '\n')+1:]
	h := strings.TrimSuffix(strings.ReplaceAll(string(head), "\n", "\n"), "\n")
	if len(head) > 0 && !strings.HasPrefix(body, h) {
		// A cut line ends with " …".
		if !strings.HasPrefix(body, h[:max(0, len(h)-1)]) {
			t.Fatalf("view does not start with the head %.60q…\n%s", h, view)
		}
	}
	tl := strings.TrimSuffix(string(tail), "\n")
	if len(tail) > 0 && !strings.HasSuffix(body, tl) {
		t.Fatalf("view does not end with the tail …%.60q\n%s", tl[max(0, len(tl)-60):], view)
	}
}

// checkPageBody checks that a page's body is exactly the bytes it claims,
// for ASCII text (whose rendering is the identity).
func checkPageBody(t *testing.T, page string, want []byte) {
	t.Helper()
	lines := strings.Split(page, "\n")
	body := strings.Join(lines[1:len(lines)-1], "\n")
	w := strings.TrimSuffix(string(want), "\n")
	if strings.HasSuffix(body, " …") {
		body = strings.TrimSuffix(body, " …")
	}
	if body != w {
		t.Fatalf("page body differs from the bytes it claims:\n got %.80q\nwant %.80q", body, w)
	}
}

// Invariant 6: projecting costs memory proportional to the budget, not to
// the result.
func TestProjectingAStreamUsesBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race (sync.Pool drops items on purpose)")
	}
	g := newGuard(t, crumb.Config{})
	const size = 200 << 20
	src := &lineStream{left: size}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := g.Project(context.Background(), crumb.Result{Reader: src, Kind: crumb.KindText})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	if v.Receipt.Bytes != size {
		t.Fatalf("stored %d bytes, want %d", v.Receipt.Bytes, size)
	}
	if alloc > 64<<20 {
		t.Fatalf("projecting %d MB allocated %d MB: memory grows with the result", size>>20, alloc>>20)
	}
	t.Logf("projecting %d MB allocated %.1f MB in all", size>>20, float64(alloc)/(1<<20))
}

// lineStream generates distinct log lines without holding them.
type lineStream struct {
	left    int64
	n       int
	line    []byte // the current line
	pending []byte // what is left of it to hand out
}

func (s *lineStream) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	written := 0
	for written < len(p) && s.left > 0 {
		if len(s.pending) == 0 {
			s.n++
			s.line = fmt.Appendf(s.line[:0], "line %d: the quick brown fox jumps over the lazy dog\n", s.n)
			s.pending = s.line
		}
		k := copy(p[written:], s.pending)
		k = int(min(int64(k), s.left))
		s.pending = s.pending[k:]
		written += k
		s.left -= int64(k)
	}
	return written, nil
}

// Invariant 7/8: binary content never reaches a view as raw bytes, however
// small.
func TestBinaryIsDescribedNotShown(t *testing.T) {
	png, err := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	if err != nil {
		t.Skip(err)
	}
	g := newGuard(t, crumb.Config{})
	v, err := g.Project(context.Background(), crumb.Result{Tool: "read_file", Body: png})
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.Kind != crumb.KindBinary || v.Ref == "" {
		t.Fatalf("want a stored binary; got %+v", v.Receipt)
	}
	if strings.ContainsRune(v.Text, 0) || strings.Contains(v.Text, "IHDR") {
		t.Fatalf("raw bytes in the view: %q", v.Text)
	}
	if !strings.Contains(v.Text, "image/png") {
		t.Errorf("view does not name the type: %s", v.Text)
	}
}

// Base64 blobs inside text are stored apart and replaced by a reference.
func TestBase64BlobsAreExtracted(t *testing.T) {
	png, err := os.ReadFile("/usr/local/go/src/image/png/testdata/pngsuite/basn6a08.png")
	if err != nil {
		t.Skip(err)
	}
	st := newStore(t)
	g := newGuard(t, crumb.Config{Store: st, Budget: 500})
	body := append(logLines(200), []byte(`<img src="data:image/png;base64,`+base64.StdEncoding.EncodeToString(png)+`">`+"\n")...)
	body = append(body, logLines(5)...)
	v, err := g.Project(context.Background(), crumb.Result{Body: body, Kind: crumb.KindText})
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(v.Text, "[base64 image/png, 32x32")
	if i < 0 {
		t.Fatalf("blob not replaced:\n%s", v.Text)
	}
	ref := v.Text[strings.Index(v.Text[i:], "ref ")+i+4:][:16]
	got, err := store.ReadAll(context.Background(), st, store.Ref(ref))
	if err != nil || !bytes.Equal(got, png) {
		t.Fatalf("the blob's ref %s does not hold the decoded image (err %v)", ref, err)
	}
}

func TestContextLeftCapsTheBudget(t *testing.T) {
	g := newGuard(t, crumb.Config{})
	v, err := g.Project(context.Background(), crumb.Result{Body: logLines(3000)}, crumb.ContextLeft(300))
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.Budget != 300 || tokens.O200k().Count(v.Text) > 300 {
		t.Fatalf("budget %d, view %d tokens; want at most 300", v.Receipt.Budget, v.Receipt.ViewTokens)
	}
}

func TestToolPolicies(t *testing.T) {
	g := newGuard(t, crumb.Config{
		Exempt: []string{"crumb_*"},
		Tools:  []crumb.ToolPolicy{{Match: "github_*", Budget: 500}},
	})
	big := logLines(3000)
	v, err := g.Project(context.Background(), crumb.Result{Tool: "crumb_read", Body: big})
	if err != nil {
		t.Fatal(err)
	}
	if v.Text != string(big) || !v.Receipt.Exempt {
		t.Error("an exempt tool's result was projected")
	}
	v, err = g.Project(context.Background(), crumb.Result{Tool: "github_search", Body: big})
	if err != nil {
		t.Fatal(err)
	}
	if v.Receipt.Budget != 500 || v.Receipt.ViewTokens > 500 {
		t.Errorf("per-tool budget not applied: %+v", v.Receipt)
	}
	if _, err := crumb.New(crumb.Config{Store: newStore(t), Exempt: []string{"["}}); err == nil {
		t.Error("a malformed glob was accepted")
	}
}

// A stream that fails is an error, not a view of half a result.
func TestReadErrorIsReturned(t *testing.T) {
	g := newGuard(t, crumb.Config{})
	boom := errors.New("boom")
	_, err := g.Project(context.Background(), crumb.Result{Reader: io.MultiReader(bytes.NewReader(logLines(5000)), errReader{boom})})
	if !errors.Is(err, boom) {
		t.Fatalf("want the read error, got %v", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// commitFailingStore stages results but cannot commit them, as when the
// disk fills up at the final sync.
type commitFailingStore struct{ *store.Dir }

func (c commitFailingStore) Stage(ctx context.Context, r io.Reader, m store.Meta) (store.Staged, error) {
	st, err := c.Dir.Stage(ctx, r, m)
	if err != nil {
		return nil, err
	}
	return failingCommit{st}, nil
}

type failingCommit struct{ store.Staged }

func (f failingCommit) Commit(context.Context) (store.Info, error) {
	f.Staged.Abort()
	return store.Info{}, fmt.Errorf("store: writing result: %w", syscall.ENOSPC)
}

// A view computed while the result was being committed is not shown when
// the commit fails: the agent gets the fallback, which says so.
func TestFailedCommitDiscardsTheProjection(t *testing.T) {
	st := commitFailingStore{newStore(t)}
	g := newGuard(t, crumb.Config{Store: st, HardCap: 4 << 20})
	in := plainLines(20000)
	v, err := g.Project(context.Background(), crumb.Result{Body: in})
	if err != nil {
		t.Fatal(err)
	}
	if v.Ref != "" || v.Next != nil || v.Receipt.Stored || v.Receipt.Output != crumb.OutputFallback {
		t.Fatalf("a result whose commit failed was shown as stored: %+v", v.Receipt)
	}
	if !strings.Contains(v.Text, "no space left on device") || !strings.HasSuffix(v.Text, string(in)) {
		t.Errorf("the fallback does not say why or does not pass the result through")
	}
	if _, err := st.Stat(context.Background(), store.RefOf(store.Sum(in))); !errors.Is(err, store.ErrMissing) {
		t.Errorf("the result is in the store after a failed commit: %v", err)
	}
}
