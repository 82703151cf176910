package project

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// catN numbers the lines of b as cat -n does.
func catN(b []byte) []byte {
	var out bytes.Buffer
	for i, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 {
			fmt.Fprintf(&out, "%6d\t%s", i+1, l)
		}
	}
	return out.Bytes()
}

// TestLogHandOver checks the one step by which a text reaches the log
// view: a log projected as text is the view Project(KindLog) gives it, with
// the format the sniff found or, when the log kind is named without one,
// the format the log view finds itself; and the hand-over leaves the
// caller's input as it was. Each log is tried as it was written and as
// cat -n numbers it, a format the view must know to read the levels.
func TestLogHandOver(t *testing.T) {
	ctx := context.Background()
	logs := 0
	type sample struct {
		name   string
		output []byte
	}
	var samples []sample
	for _, f := range logFixtures(t) {
		samples = append(samples, sample{f.name, f.output}, sample{f.name + " | cat -n", catN(f.output)})
	}
	for _, f := range samples {
		in := testInput(t, f.output, 2000)
		s, err := sniffDoc(in.Doc())
		if err != nil {
			t.Fatal(err)
		}
		if !s.isLog {
			continue
		}
		logs++
		asText, err := Project(ctx, KindText, in)
		if err != nil {
			t.Fatal(err)
		}
		if in.Detected != nil {
			t.Errorf("%s: the hand-over set the caller's Input.Detected to %v", f.name, in.Detected)
		}
		named, err := Project(ctx, KindLog, testInput(t, f.output, 2000))
		if err != nil {
			t.Fatal(err)
		}
		if named.Text != asText.Text {
			t.Errorf("%s: Project(KindLog) without a detected format differs from the text's view:\n%s\n---\n%s", f.name, named.Text, asText.Text)
		}
	}
	if logs == 0 {
		t.Fatal("no fixture under testdata/text is a log")
	}
}
