package projecttest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/tokens"
)

// A projector that holds its whole input is caught by the measure of the
// memory check, also where the heap has that much free before, and one that
// streams it is not.
func TestMeasureCatchesAProjectorThatHoldsItsInput(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 320 MB")
	}
	if raceEnabled {
		t.Skip("the memory check does not run under -race (see race_on.go)")
	}
	const size = MemoryLimit + 64<<20
	src := Synth(nil, func(i int64, b []byte) []byte { return fmt.Appendf(b, "line %012d\n", i) }, nil, size)
	holds := project.ProjectorFunc(func(_ context.Context, in *project.Input) (project.Output, error) {
		all := make([]byte, in.Source.Size())
		if _, err := in.Source.ReadAt(all, 0); err != nil && err != io.EOF {
			return project.Output{}, err
		}
		return project.Output{Text: fmt.Sprint(bytes.Count(all, []byte{'\n'}), " lines")}, nil
	})
	streams := project.ProjectorFunc(func(_ context.Context, in *project.Input) (project.Output, error) {
		n, err := io.Copy(io.Discard, io.NewSectionReader(in.Source, 0, in.Source.Size()))
		return project.Output{Text: fmt.Sprint(n, " bytes")}, err
	})
	for _, tc := range []struct {
		name   string
		p      project.Projector
		within bool
	}{
		{"holds", holds, false},
		{"streams", streams, true},
		// Now with the pages the first held free: taken again, they count.
		{"holds again", holds, false},
	} {
		m, err := measure(Suite{Projector: tc.p, Counter: tokens.Estimator()}, src, Case{})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.grew <= MemoryLimit; got != tc.within {
			t.Errorf("%s: the heap grew by %d MiB; within the limit of %d MiB: %v, want %v", tc.name, m.grew>>20, MemoryLimit>>20, got, tc.within)
		}
	}
}

// Synth makes the bytes its records say, at any offset, and counts their
// newlines as a store does.
func TestSynth(t *testing.T) {
	rec := func(i int64, b []byte) []byte { return fmt.Appendf(b, "r%03d\n", i) }
	src := Synth([]byte("head\n"), rec, []byte("tail"), 5+10*5+4)
	var want bytes.Buffer
	want.WriteString("head\n")
	for i := range 10 {
		want.Write(rec(int64(i), nil))
	}
	want.WriteString("tail")
	got := make([]byte, src.Size())
	if _, err := src.ReadAt(got, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("got %q, want %q", got, want.Bytes())
	}
	for off := range int64(len(got)) {
		p := make([]byte, 3)
		n, _ := src.ReadAt(p, off)
		if !bytes.Equal(p[:n], got[off:min(off+3, int64(len(got)))]) {
			t.Fatalf("at %d: %q", off, p[:n])
		}
	}
	info := src.Info()
	if *info.Newlines != 11 || *info.Lines != 12 {
		t.Errorf("newlines %d, lines %d; want 11 and 12", *info.Newlines, *info.Lines)
	}
}
