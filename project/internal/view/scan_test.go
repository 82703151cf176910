package view

import (
	"context"
	"strings"
	"testing"
)

func TestLineScannerLongLines(t *testing.T) {
	long := strings.Repeat("x", 3*scanBuffer+17)
	src := "a\r\n" + long + "\n\nlast"
	s := NewLineScanner(context.Background(), strings.NewReader(src), int64(len(src)), 100)
	var got []string
	var cuts []bool
	var offs []int64
	for s.Scan() {
		got = append(got, string(s.Text))
		cuts = append(cuts, s.Cut)
		offs = append(offs, s.Off)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", long[:100], "", "last"}
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d = %.20q, want %.20q", i+1, got[i], want[i])
		}
	}
	if !cuts[1] || cuts[0] || cuts[2] {
		t.Errorf("cut = %v", cuts)
	}
	if wantOff := []int64{0, 3, int64(4 + len(long)), int64(5 + len(long))}; offs[1] != wantOff[1] || offs[2] != wantOff[2] || offs[3] != wantOff[3] {
		t.Errorf("offsets %v, want %v", offs, wantOff)
	}
}
