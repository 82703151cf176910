package kindtest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kit"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// Fixture is a tool result recorded by scripts/fixtures/filedir.sh.
type Fixture struct {
	// Dir is the fixture's folder, where its golden views go.
	Dir string
	// Output is the result the tool printed.
	Output []byte
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
}

// LoadFixture reads the fixture testdata/KIND/NAME: its output and its
// meta.json (the tool and the arguments of the call).
func LoadFixture(t testing.TB, kind, name string) Fixture {
	t.Helper()
	dir := filepath.Join("testdata", kind, name)
	out, err := os.ReadFile(filepath.Join(dir, "output"))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with scripts/fixtures/filedir.sh)", dir, err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	fx := Fixture{Dir: dir, Output: out}
	if err := json.Unmarshal(meta, &fx); err != nil {
		t.Fatalf("%s/meta.json: %v", dir, err)
	}
	return fx
}

// Project runs a projector over b as if it had been stored.
func Project(t testing.TB, k project.Kind, b []byte, tool string, args json.RawMessage, budget int) (project.Output, *project.Input) {
	t.Helper()
	in := Input(t, b, budget)
	in.Tool, in.Args = tool, args
	out, err := project.Project(context.Background(), k, in)
	if err != nil {
		t.Fatalf("projecting: %v", err)
	}
	return out, in
}

// object makes a Source a store.Object, for following continuations.
type object struct{ project.Source }

func (object) Close() error { return nil }

// CheckView checks what every view must hold: the budget, a header,
// and a first continuation that reads exactly what follows the first shown
// excerpt, after which the pages advance without gap or overlap to the end.
func CheckView(t *testing.T, in *project.Input, out project.Output, followPages bool) {
	t.Helper()
	if n := tokens.O200k().Count(out.Text); n > in.Budget {
		t.Errorf("view takes %d tokens, over the budget of %d", n, in.Budget)
	}
	if !strings.HasPrefix(out.Text, "[crumb ") {
		t.Errorf("view does not start with a crumb header: %.80q", out.Text)
	}
	if out.Complete != (out.Next == nil) {
		t.Errorf("Complete = %v but Next = %v", out.Complete, out.Next)
	}
	if out.Next == nil {
		return
	}
	if err := out.Next.Validate(); err != nil {
		t.Fatalf("invalid continuation %+v: %v", out.Next, err)
	}
	if out.Next.Rev != in.Rev() {
		t.Errorf("continuation carries rev %q, want %q", out.Next.Rev, in.Rev())
	}
	if !strings.Contains(out.Text, recall.CLIHint(*out.Next)) {
		t.Errorf("the view does not give its continuation %q", recall.CLIHint(*out.Next))
	}
	if !followPages {
		return
	}
	// The continuation reads the first omitted stretch; its pages follow
	// each other without gap or overlap to the stretch's end.
	obj := object{in.Source}
	doc := in.Doc()
	var from, end int64
	switch {
	case out.Next.Lines != nil:
		var err error
		if from, err = doc.LineStart(out.Next.Lines.From); err != nil {
			t.Fatal(err)
		}
		end = in.Source.Size()
		if total, _ := doc.Lines(); out.Next.Lines.To != 0 && out.Next.Lines.To < total {
			end, _ = doc.LineStart(out.Next.Lines.To + 1)
		}
	case out.Next.Bytes != nil:
		from, end = out.Next.Bytes.From, out.Next.Bytes.To
	default:
		t.Fatalf("continuation %v is neither lines nor bytes", out.Next.Argv())
	}
	req := *out.Next
	pos := from
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatal("continuations do not reach the end")
		}
		p, err := recall.ReadObject(context.Background(), obj, req, recall.Options{Budget: 2000})
		if err != nil {
			t.Fatalf("reading %v: %v", req.Argv(), err)
		}
		if p.From != pos {
			t.Fatalf("page %d starts at byte %d, want %d", i, p.From, pos)
		}
		if p.To <= p.From {
			t.Fatalf("page %d does not advance: [%d, %d)", i, p.From, p.To)
		}
		pos = p.To
		if p.Next == nil || !followPages {
			break
		}
		req = *p.Next
	}
	if followPages && pos != end {
		t.Errorf("following the continuation ends at byte %d, want %d", pos, end)
	}
}

// ShownNumbered returns the numbers of the lines a numbered view shows whole.
func ShownNumbered(view string) map[int64]string {
	out := map[int64]string{}
	for _, l := range strings.Split(view, "\n") {
		num, text, ok := strings.Cut(l, "\t")
		if !ok || strings.HasSuffix(text, " …") {
			continue
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(num), ",", ""), 10, 64)
		if err == nil {
			out[n] = text
		}
	}
	return out
}

// FuzzCheckView checks a view made from any input: the budget, a valid
// continuation that reads something, and, for numbered views, one that does
// not start at a line the view shows.
func FuzzCheckView(t *testing.T, in *project.Input, out project.Output, numbered bool) {
	t.Helper()
	if n := tokens.O200k().Count(out.Text); n > in.Budget {
		t.Fatalf("view takes %d tokens, over the budget of %d:\n%s", n, in.Budget, out.Text)
	}
	if out.Next == nil {
		if !out.Complete {
			t.Fatal("nothing to read next, but the view is not complete")
		}
		return
	}
	if err := out.Next.Validate(); err != nil {
		t.Fatalf("invalid continuation: %v", err)
	}
	p, err := recall.ReadObject(context.Background(), object{in.Source}, *out.Next, recall.Options{Budget: 500})
	if errors.Is(err, recall.ErrBinary) {
		return // binary content is projected by kind binary, never as a file
	}
	if err != nil {
		t.Fatalf("reading %v: %v", out.Next.Argv(), err)
	}
	if p.To <= p.From {
		t.Fatalf("the continuation reads nothing: [%d, %d)", p.From, p.To)
	}
	if numbered && out.Next.Lines != nil {
		e, err := kit.NewExcerptor(in, true)
		if err != nil {
			t.Fatal(err)
		}
		if nb, _ := view.DetectNumbering(e); nb.On {
			return
		}
		if _, ok := ShownNumbered(out.Text)[out.Next.Lines.From]; ok {
			t.Fatalf("the continuation starts at line %d, which the view shows", out.Next.Lines.From)
		}
	}
}

// Bench projects data as kind k with the call's arguments args, at a
// budget of 2,000 tokens, reporting bytes and allocations per view.
func Bench(b *testing.B, k project.Kind, data []byte, args json.RawMessage) {
	in := Input(b, data, 2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in := *in
		in.Args = args
		if _, err := project.Project(context.Background(), k, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// FileLines returns the lines of b, without the newline after the last.
func FileLines(b []byte) []string {
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
