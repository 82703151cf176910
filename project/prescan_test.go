package project

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// prescanned projects b as a text result whose head a prescan read first,
// fed in pieces of random sizes (from seed) as a stream would give them. It
// returns the view and the prescan.
func prescanned(t *testing.T, b []byte, seed uint64) (Output, *Prescan) {
	t.Helper()
	return prescannedAs(t, KindText, testInput(t, b, 2000), b, seed)
}

// prescannedAs projects in, a result of this kind holding b, after a
// prescan read b in pieces of random sizes (from seed).
func prescannedAs(t *testing.T, kind Kind, in *Input, b []byte, seed uint64) (Output, *Prescan) {
	t.Helper()
	p := NewPrescan(kind, in.Args)
	if p == nil {
		t.Fatalf("no prescan for a %s result", kind)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for rest := b; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(600<<10))
		if rng.IntN(4) == 0 {
			n = min(len(rest), 1+rng.IntN(200)) // short reads, cutting lines
		}
		if k, err := p.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write: %d, %v", k, err)
		}
		rest = rest[n:]
	}
	p.Close()
	in.Prescan = p
	out, err := Project(context.Background(), kind, in)
	if err != nil {
		t.Fatal(err)
	}
	p.Release()
	<-p.done // a projector that did not use it need not have waited
	return out, p
}

// TestPrescanSameView checks that a log's view is the same whether its head
// was mined by a prescan while it streamed in or by the projector alone:
// for real logs read whole and for larger ones sampled, however the stream
// was cut, and that the prescan was used (its scan taken over) rather than
// ignored.
func TestPrescanSameView(t *testing.T) {
	saved := logSample
	defer func() { logSample = saved }()
	type input struct {
		name string
		b    []byte
	}
	var inputs []input
	for _, f := range logFixtures(t) {
		inputs = append(inputs, input{f.name, f.output})
	}
	inputs = append(inputs, input{"synthetic 3 MB", syntheticLog(t, 3<<20)})
	for _, sample := range []struct {
		name               string
		full, ends, window int64
		windows            int
	}{
		{"default sample", saved.full, saved.ends, saved.window, saved.windows},
		{"small sample", 1 << 20, 256 << 10, 64 << 10, 4},
	} {
		logSample.full, logSample.ends, logSample.window, logSample.windows = sample.full, sample.ends, sample.window, sample.windows
		for _, in := range inputs {
			want := projectBytes(t, in.b, 2000)
			for seed := range uint64(3) {
				got, p := prescanned(t, in.b, seed)
				if got.Text != want.Text {
					t.Fatalf("%s, %s, seed %d: the view differs with a prescan:\n%s\n--- without:\n%s", sample.name, in.name, seed, got.Text, want.Text)
				}
				if !logOf(p).isLog {
					continue // not a log: nothing to take over
				}
				if !p.taken.Load() || logOf(p).at == 0 {
					t.Errorf("%s, %s: the prescan was not used (taken %v, stopped at %d)", sample.name, in.name, p.taken.Load(), logOf(p).at)
				}
				if size := int64(len(in.b)); size > logSample.full && logOf(p).at < logSample.ends {
					t.Errorf("%s, %s: the prescan stopped at %d, before the head's end %d", sample.name, in.name, logOf(p).at, logSample.ends)
				}
			}
		}
	}
}

// TestPrescanNotALog checks that a prescan of a text that is no log (a
// real source file) gives way to the text projector, with the same view.
func TestPrescanNotALog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("prescan.go"))
	if err != nil {
		t.Fatal(err)
	}
	for len(b) < 200<<10 {
		b = append(b, b...)
	}
	want := projectBytes(t, b, 2000)
	got, p := prescanned(t, b, 1)
	if got.Text != want.Text {
		t.Fatalf("the view differs with a prescan:\n%s\n--- without:\n%s", got.Text, want.Text)
	}
	if logOf(p).isLog || p.taken.Load() {
		t.Errorf("a source file was taken for a log (isLog %v, taken %v)", logOf(p).isLog, p.taken.Load())
	}
}

// TestPrescanWrongGuess checks that a prescan whose guess of the format
// differs from the projector's, or that read more than the stored result
// holds, is not used, and that its state is handed over once only.
func TestPrescanWrongGuess(t *testing.T) {
	b := syntheticLog(t, 1<<20)
	p := NewPrescan(KindText, nil)
	p.Write(b)
	p.Close()
	ctx := context.Background()
	<-p.done
	if !logOf(p).isLog {
		t.Fatal("the synthetic log is not taken for a log")
	}
	other := logOf(p).f
	other.keywords = !other.keywords
	if s, _ := takeLog(ctx, p, other, int64(len(b))); s != nil {
		t.Error("a scan made in another format was taken over")
	}
	if s, _ := takeLog(ctx, p, logOf(p).f, logOf(p).at-1); s != nil {
		t.Error("a scan of more than the stored result was taken over")
	}
	if s, _ := takeLog(ctx, p, logOf(p).f, int64(len(b))); s == nil {
		t.Fatal("the scan was not taken over")
	}
	if s, _ := takeLog(ctx, p, logOf(p).f, int64(len(b))); s != nil {
		t.Error("the scan was taken over twice")
	}
	if NewPrescan(KindBinary, nil) != nil || NewPrescan(KindText, []byte(`{"intent": "why did the sync fail"}`)) != nil {
		t.Error("a prescan for a binary result or for a text with an intent")
	}
	var none *Prescan
	if n, err := none.Write(b); n != len(b) || err != nil {
		t.Errorf("a nil prescan's Write: %d, %v", n, err)
	}
	none.Close()
}

// TestPrescanStopsInARecord stops the prescan at a line that continues a
// record (a Python traceback after its ERROR line, in a real log made by
// testdata/log-traceback/make.sh): the projector must go on with the
// record the prescan saw last, as its own scan would have.
func TestPrescanStopsInARecord(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "log-traceback", "output"))
	if err != nil {
		t.Fatal(err)
	}
	saved := logSample
	defer func() { logSample = saved }()
	var cuts []int64
	for off := 0; len(cuts) < 6; {
		i := bytes.Index(b[off:], []byte("\nTraceback"))
		if i < 0 {
			break
		}
		off += i + 1
		cuts = append(cuts, int64(off))
		if j := bytes.Index(b[off:], []byte("\n  File")); j >= 0 {
			cuts = append(cuts, int64(off+j+1))
		}
	}
	// The one line of its kind, which a view shows with its record.
	if i := bytes.Index(b, []byte("\nZeroDivisionError")); i >= 0 {
		cuts = append(cuts, int64(i+1))
	}
	if len(cuts) < 7 {
		t.Fatal("the log lacks its tracebacks")
	}
	for _, cut := range cuts {
		// Read whole, and sampled with the head ending at the cut.
		for _, full := range []int64{saved.full, cut + 64<<10} {
			logSample.full, logSample.ends, logSample.window, logSample.windows = full, cut, 16<<10, 4
			want := projectBytes(t, b, 2000)
			got, p := prescanned(t, b, uint64(cut))
			if got.Text != want.Text {
				t.Fatalf("head cut at byte %d, read whole up to %d: the view differs with a prescan:\n%s\n--- without:\n%s", cut, full, got.Text, want.Text)
			}
			if logOf(p).at != cut {
				t.Errorf("the prescan stopped at byte %d, want %d", logOf(p).at, cut)
			}
		}
	}
}

// TestPrescanLongLineAtTheHeadsEnd puts a line longer than the prescan
// reads past the head's end (real lines of a log joined into one) where
// the head ends: the prescan stops at that line's start, which the
// projector reads, and the view is the same as without a prescan.
func TestPrescanLongLineAtTheHeadsEnd(t *testing.T) {
	saved := logSample
	defer func() { logSample = saved }()
	b, err := os.ReadFile(filepath.Join("testdata", "log-traceback", "output"))
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.IndexByte(b[100<<10:], '\n') + 100<<10 + 1
	long := bytes.ReplaceAll(b[:200<<10], []byte{'\n'}, []byte{' '})
	in := append(append(append([]byte{}, b[:at]...), long...), '\n')
	in = append(in, b[at:]...)
	for _, full := range []int64{saved.full, 256 << 10} {
		logSample.full, logSample.ends, logSample.window, logSample.windows = full, int64(at)+1, 16<<10, 4
		want := projectBytes(t, in, 2000)
		got, p := prescanned(t, in, 3)
		if got.Text != want.Text {
			t.Fatalf("read whole up to %d: the view differs with a prescan:\n%s\n--- without:\n%s", full, got.Text, want.Text)
		}
		if logOf(p).at != int64(at) || !p.taken.Load() {
			t.Errorf("the prescan stopped at byte %d (taken %v), want %d", logOf(p).at, p.taken.Load(), at)
		}
	}
}

// TestPrescanCommandSameView checks that a command's view is the same
// whether the start of its output was scanned by a prescan while it
// streamed in or by the projector alone: for real outputs read whole and
// sampled (the sample made small, so that most are sampled), however the
// stream was cut, and that the prescan's scan was taken over.
func TestPrescanCommandSameView(t *testing.T) {
	fixtures := commandFixtures(t)
	var all []byte
	for _, f := range fixtures {
		all = append(all, f.output...)
	}
	for _, shrink := range []bool{false, true} {
		if shrink {
			shrinkCmdSample(t, 4, 4<<10)
		}
		for i, f := range fixtures {
			output := f.output
			if i == 0 {
				output = all // one larger output, of every fixture's lines
			}
			input := func() *Input {
				in := f.input(t, 2000)
				in.Source = testInput(t, output, 2000).Source
				return in
			}
			want, err := Project(context.Background(), KindCommand, input())
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(2) {
				got, p := prescannedAs(t, KindCommand, input(), output, seed)
				if got.Text != want.Text {
					t.Fatalf("%s (%d bytes, sample shrunk %v), seed %d: the view differs with a prescan:\n%s\n--- without:\n%s",
						f.name, len(output), shrink, seed, got.Text, want.Text)
				}
				if !p.taken.Load() {
					t.Errorf("%s (sample shrunk %v): the prescan was not used", f.name, shrink)
				}
			}
		}
	}
}

// TestPrescanJSONSameView checks that a JSON document's view is the same
// whether its pass ran in a prescan while it streamed in or in the
// projector alone: for real documents (one truncated), a stream of them
// made several windows long, read whole and sampled (the sample made small:
// documents larger than its first part but not sampled, and sampled ones),
// with the bytes kept for reading back made small too, however the stream
// was cut; and that the prescan's pass was taken over.
func TestPrescanJSONSameView(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "json", "*", "output"))
	if err != nil || len(paths) < 8 {
		t.Fatalf("found %d JSON fixtures: %v", len(paths), err)
	}
	type doc struct {
		name string
		b    []byte
	}
	var docs []doc
	var stream, mid []byte // mid: the first documents, over 1 MB
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(p))
		docs = append(docs, doc{name, b})
		if name != "go-list-truncated" {
			stream = append(stream, b...)
			if len(mid) < 1<<20 {
				mid = append(mid, b...)
			}
		}
	}
	if len(mid) >= 2<<20 {
		t.Fatalf("the first documents take %d bytes, over the small sample's threshold", len(mid))
	}
	for len(stream) < 5<<20 {
		stream = append(stream, stream...)
	}
	docs = append(docs, doc{"a stream of the documents", stream}, doc{"its first documents, over 1 MB", mid})
	savedHead, savedBack := jsonKeepHead, jsonKeepBack
	defer func() { jsonKeepHead, jsonKeepBack = savedHead, savedBack }()
	for _, c := range []struct {
		name       string
		small      bool // sample documents over 2 MB: the first 1 MB and the last 256 KB
		head, back int64
	}{
		{"default sample", false, savedHead, savedBack},
		{"small sample", true, savedHead, savedBack},
		{"small sample, little kept", true, 0, 64 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.small {
				withSample(t, 2<<20, 1<<20, 256<<10, 1<<20)
			}
			jsonKeepHead, jsonKeepBack = c.head, c.back
			for _, d := range docs {
				want, err := Project(context.Background(), KindJSON, testInput(t, d.b, 2000))
				if err != nil {
					t.Fatal(err)
				}
				for seed := range uint64(2) {
					got, p := prescannedAs(t, KindJSON, testInput(t, d.b, 2000), d.b, seed)
					if got.Text != want.Text {
						t.Fatalf("%s (%d bytes), seed %d: the view differs with a prescan:\n%s\n--- without:\n%s", d.name, len(d.b), seed, got.Text, want.Text)
					}
					if !p.taken.Load() || jsonOf(p).pass == nil || jsonOf(p).err != nil {
						t.Errorf("%s: the prescan's pass was not used (taken %v, error %v)", d.name, p.taken.Load(), jsonOf(p).err)
					}
				}
			}
		})
	}
}

// logOf returns the log scanner of a prescan of text.
func logOf(p *Prescan) *logPrescan { return p.Scanner().(*logPrescan) }

// jsonOf returns the scanner of a prescan of JSON.
func jsonOf(p *Prescan) *jsonPrescan { return p.Scanner().(*jsonPrescan) }
