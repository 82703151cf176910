package topk

import (
	"slices"
	"testing"
)

func less(a, b int) bool { return a < b }

// Keep keeps the k largest of any sequence, and Admits says beforehand
// what Keep will do.
func TestKeep(t *testing.T) {
	in := []int{5, 1, 9, 3, 7, 9, 2, 8, 6, 4, 0}
	for k := range 13 {
		var h []int
		for _, v := range in {
			admits := Admits(h, k, v, less)
			if kept := Keep(&h, k, v, less); kept != admits {
				t.Fatalf("k=%d, v=%d: Keep kept %v, Admits said %v", k, v, kept, admits)
			}
		}
		got := slices.Sorted(slices.Values(h))
		want := slices.Sorted(slices.Values(in))
		want = want[max(len(want)-k, 0):]
		if !slices.Equal(got, want) {
			t.Errorf("k=%d: kept %v, want %v", k, got, want)
		}
		if len(h) > 0 && h[0] != slices.Min(h) {
			t.Errorf("k=%d: the root %d is not the worst of %v", k, h[0], h)
		}
	}
}
