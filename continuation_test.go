package crumb_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/bench"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/projecttest"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// crossKindLimit is the largest corpus output projected as every kind, not
// only as its own; larger ones are projected as their own kind only, which
// keeps the test quick enough for CI while every kind's projector meets
// outputs of every kind.
const crossKindLimit = 256 << 10

// Invariant 4, over the whole corpus: following next from the first view,
// then from each page, reads every line the view omits exactly once, in
// order, to the end; what the view shows and what the pages read make the
// whole result. Every case is projected as its own kind and (up to
// crossKindLimit) as every other kind, into one store, so that the same
// bytes stored as several kinds keep every view's continuations working.
func TestContinuationsReadEveryOmittedLineOnce(t *testing.T) {
	cases, err := bench.LoadCorpus("testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no corpus cases")
	}
	st := newStore(t)
	g := newGuard(t, crumb.Config{Store: st})
	for _, c := range cases {
		for _, k := range project.Kinds {
			if k != c.Kind && len(c.Output) > crossKindLimit {
				continue
			}
			t.Run(c.Name+"/"+string(k), func(t *testing.T) {
				v, err := g.Project(context.Background(), corpusResult(c, k))
				if err != nil {
					t.Fatal(err)
				}
				checkContinuation(t, st, v)
			})
		}
	}
}

// checkContinuation follows a view's continuation to its end and checks that
// the pages read exactly the ranges it names, once each and in order, and
// that the view shows every line outside them.
func checkContinuation(t *testing.T, st store.Store, v *crumb.View) {
	t.Helper()
	ctx := context.Background()
	if v.Next == nil {
		switch {
		case v.Receipt.Output == crumb.OutputExact:
		case v.Receipt.Kind == crumb.KindBinary:
			// Binary content is never shown as lines; the view names the
			// read of its exact bytes instead.
			if !strings.Contains(v.Text, "--all") {
				t.Errorf("a binary view names no way to the bytes:\n%.400s", v.Text)
			}
		case strings.Contains(v.Text, "omitted") && v.Receipt.Kind != crumb.KindMCP:
			t.Errorf("a view that omits material has no continuation:\n%.600s", v.Text)
		}
		return
	}
	obj, err := st.Open(ctx, v.Next.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	doc := recall.NewDoc(obj)
	want, err := projecttest.Spans(doc, *v.Next)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatalf("continuation %q names nothing", v.Next.Argv())
	}

	// What the view shows: every line outside the continuation's ranges.
	if v.Next.Ref == v.Ref {
		render := crumb.LineRenderer(ctx, st)
		pos := int64(0)
		for _, s := range append(want, recall.Span{From: doc.Size(), To: doc.Size()}) {
			if err := projecttest.InView(doc, v.Text, pos, s.From, render); err != nil {
				t.Fatal(err)
			}
			pos = s.To
		}
	}

	// Pages are counted with o200k_base, as the command line counts them;
	// under the race detector, whose cost falls on the tokenizer, with the
	// estimate, which keeps the walk over the whole corpus quick and
	// leaves the property (every omitted byte once, in order) the same.
	counter := tokens.O200k()
	if raceEnabled {
		counter = tokens.Estimator()
	}
	req := *v.Next
	var got []recall.Span
	for i := 0; ; i++ {
		if i > 20000 {
			t.Fatal("continuations do not end")
		}
		// One open object for all pages, as its verified chunks stay
		// verified: the read itself is Read's.
		p, err := recall.ReadObject(ctx, obj, req, recall.Options{Line: crumb.LineRenderer(ctx, st), Counter: counter})
		if err != nil {
			t.Fatalf("reading %q: %v", req.Argv(), err)
		}
		if len(p.Shown) == 0 {
			t.Fatalf("page of %q shows nothing:\n%s", req.Argv(), p.Text)
		}
		if n := counter.Count(p.Text); n > recall.DefaultBudget {
			t.Fatalf("page of %q has %d tokens, budget %d", req.Argv(), n, recall.DefaultBudget)
		}
		for _, s := range p.Shown {
			if len(got) > 0 && s.From < got[len(got)-1].To {
				t.Fatalf("page of %q reads bytes %d-%d again (the pages before read up to %d)", req.Argv(), s.From, s.To, got[len(got)-1].To)
			}
			got = projecttest.AppendSpan(got, s)
		}
		if p.Next == nil {
			break
		}
		req = *p.Next
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the pages read bytes %v; the view omits %v", got, want)
	}
}

// A budget far beyond any context (2^59 tokens) once overflowed the sizes
// derived from it and panicked; it is brought within recall.MaxBudget.
func TestHugeBudgetDoesNotCrash(t *testing.T) {
	g := newGuard(t, crumb.Config{Budget: 576460752303423488})
	var b strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	v, err := g.Project(context.Background(), crumb.Result{Reader: strings.NewReader(b.String())})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.Text, "\n20000") {
		t.Errorf("view of the whole result lacks its last line:\n%.300s", v.Text)
	}
}

// Views and reads agree on text: a command's output of random bytes, and
// text with NUL bytes, invalid UTF-8 and escape sequences, are shown as
// lines by their views, and every read and search the view names reads
// them as lines. Storing the same bytes again as binary changes nothing for
// the first view's reads.
func TestViewsAndReadsAgreeOnText(t *testing.T) {
	random := make([]byte, 256<<10)
	var x uint64 = 88172645463325252
	for i := range random {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		random[i] = byte(x)
	}
	var dirty strings.Builder
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&dirty, "\x1b[1;31mstep %d\x1b[0m \x00 done \xff\xfe\n", i)
	}
	exit := 0
	for name, res := range map[string]crumb.Result{
		"random command output": {Body: random, Kind: crumb.KindCommand, ExitCode: &exit, Command: []string{"head", "-c", "262144", "/dev/urandom"}},
		"dirty text":            {Body: []byte(dirty.String()), Kind: crumb.KindText},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := newStore(t)
			g := newGuard(t, crumb.Config{Store: st})
			v, err := g.Project(ctx, res)
			if err != nil {
				t.Fatal(err)
			}
			if v.Next == nil {
				t.Fatalf("no continuation:\n%.500s", v.Text)
			}
			// The same bytes stored again as binary.
			again := res
			again.Kind, again.ExitCode, again.Command = crumb.KindBinary, nil, nil
			if _, err := g.Project(ctx, again); err != nil {
				t.Fatal(err)
			}
			for _, r := range namedReads(t, v.Text) {
				if _, err := recall.Read(ctx, st, r, recall.Options{}); err != nil {
					t.Errorf("%q, named by the view: %v", r.Argv(), err)
				}
			}
			checkContinuation(t, st, v)
		})
	}
}

// namedReads returns the reads and searches a view names as crumb command
// lines.
func namedReads(t *testing.T, view string) []recall.Request {
	t.Helper()
	var out []recall.Request
	for _, line := range strings.Split(view, "crumb ")[1:] {
		end := strings.IndexAny(line, "];")
		if end < 0 {
			continue
		}
		argv := strings.Fields(line[:end])
		for i, a := range argv {
			argv[i] = strings.Trim(a, "'")
		}
		if r, err := recall.ParseArgv(argv); err == nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		t.Fatalf("the view names no read:\n%.500s", view)
	}
	return out
}

// When storing fails and the result is too large to keep whole, the view
// says what is known (the bytes and lines seen while streaming) and numbers
// the lines it shows as they were in the stream.
func TestLostViewSaysWhatIsKnown(t *testing.T) {
	full := failingStore{Store: newStore(t), err: syscall.ENOSPC}
	g := newGuard(t, crumb.Config{Store: full})
	var b strings.Builder
	for i := 1; i <= 700000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	in := b.String()
	v, err := g.Project(context.Background(), crumb.Result{Reader: strings.NewReader(in), Kind: crumb.KindText})
	if err != nil {
		t.Fatal(err)
	}
	header, body, _ := strings.Cut(v.Text, "\n")
	for _, want := range []string{"700,000 lines", textfmtSize(len(in)), "no space left on device", "cannot be read back"} {
		if !strings.Contains(header, want) {
			t.Errorf("header lacks %q: %s", want, header)
		}
	}
	if v.Receipt.Lines == nil || *v.Receipt.Lines != 700000 || v.Receipt.Bytes != int64(len(in)) {
		t.Errorf("receipt: lines %v, bytes %d", v.Receipt.Lines, v.Receipt.Bytes)
	}
	// Every line shown is labelled by its number in the stream: seq's lines
	// are their own numbers.
	m := regexp.MustCompile(`shown: lines 1-([0-9,]+) and ([0-9,]+)-700,000;`).FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("header does not name the lines shown by their numbers in the stream: %s", header)
	}
	lines := strings.Split(body, "\n")
	headEnd, tailStart := strings.ReplaceAll(m[1], ",", ""), strings.ReplaceAll(m[2], ",", "")
	i := slices.Index(lines, headEnd)
	if i < 0 || lines[0] != "1" || !strings.HasPrefix(lines[i+1], "[… lines ") || lines[i+2] != tailStart || lines[len(lines)-1] != "700000" {
		t.Errorf("the lines shown are not those the header names (%s and %s-700000):\n%.300s\n…\n%s", headEnd, tailStart, body, body[max(0, len(body)-200):])
	}
	if n := tokens.O200k().Count(v.Text); n > crumb.DefaultBudget {
		t.Errorf("view has %d tokens", n)
	}
}

func textfmtSize(n int) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// corpusResult is the result of corpus case c, as kind k.
func corpusResult(c *bench.Case, k crumb.Kind) crumb.Result {
	res := crumb.Result{Tool: c.Tool, Args: c.Args, Kind: k, Body: c.Output, ExitCode: c.ExitCode, Command: c.Command,
		OutputSchema: c.OutputSchema}
	if res.Body == nil {
		res.Body = []byte{}
	}
	return res
}
