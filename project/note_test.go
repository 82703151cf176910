package project

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// An omission note counts every line of the stretch that is like its
// samples, not only those of the longest run: here 2,997 "Downloading"
// lines in runs apart from each other by a block of other lines.
func TestOmissionNoteCountsEveryLikeLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("$ cargo build\n")
	for i := 1; i <= 1998; i++ {
		fmt.Fprintf(&b, "Downloading crate-%d v0.1.%d (registry)\n", i, i)
	}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "   Compiling unit %d of the workspace with %d features\n", i, i*3)
	}
	for i := 1; i <= 999; i++ {
		fmt.Fprintf(&b, "Downloading crate-%d v0.2.%d (registry)\n", i, i)
	}
	b.WriteString("error: build failed\n")
	out := projectCommandBody(t, b.Bytes())
	m := regexp.MustCompile(`lines ([0-9,]+)-([0-9,]+) omitted \([^;]*; (including )?([0-9,]+) lines like ` + "`Downloading").FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no note on the Downloading lines:\n%s", out)
	}
	from, to := atoi(t, m[1]), atoi(t, m[2])
	want := 0
	for i, l := range strings.Split(b.String(), "\n") {
		if n := i + 1; n >= from && n <= to && strings.HasPrefix(l, "Downloading") {
			want++
		}
	}
	if got := atoi(t, m[4]); got != want {
		t.Errorf("note says %d lines like the samples; lines %d-%d hold %d:\n%s", got, from, to, want, out)
	}
	if want < cmdNoteRun {
		t.Errorf("the stretch holds only %d Downloading lines:\n%s", want, out)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(strings.ReplaceAll(s, ",", ""), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// projectCommandBody projects b as a failed command's output at the default
// budget and returns the view.
func projectCommandBody(t *testing.T, b []byte) string {
	t.Helper()
	in := testInput(t, b, 2000)
	exit := 101
	in.ExitCode = &exit
	out, err := Project(context.Background(), KindCommand, in)
	if err != nil {
		t.Fatal(err)
	}
	return out.Text
}
