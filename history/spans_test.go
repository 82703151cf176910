package history

import "testing"

// TestSpans checks the shapes of the running summary for every number of
// folded groups up to 5,000, with merges of 2, 3 and 8: each shape covers
// the groups in order with no gap, every block is s^L groups aligned on its
// size, the lazy shape has at most 2s-1 blocks a level and the strict one at
// most s-1, the tighter shapes shrink down to one block, and from one k to
// the next the lazy shape changes only in its newest blocks or by a merge.
func TestSpans(t *testing.T) {
	for _, s := range []int{2, 3, 8} {
		var prev []span
		for k := 1; k <= 5000; k++ {
			levels := 1
			for n := k; n >= s; n /= s {
				levels++
			}
			lazy := lazySpans(k, s)
			check(t, s, k, "lazy", lazy, true)
			if len(lazy) > (2*s-1)*levels {
				t.Fatalf("s=%d k=%d: %d lazy blocks over %d levels", s, k, len(lazy), levels)
			}
			tighter := tighterSpans(k, s)
			check(t, s, k, "strict", tighter[0], true)
			if len(tighter[0]) > (s-1)*levels {
				t.Fatalf("s=%d k=%d: %d strict blocks over %d levels", s, k, len(tighter[0]), levels)
			}
			for i, sp := range tighter[1:] {
				check(t, s, k, "merged", sp, false)
				if len(sp) >= len(tighter[i]) {
					t.Fatalf("s=%d k=%d: tighter shape %d has %d blocks, not fewer than %d", s, k, i+1, len(sp), len(tighter[i]))
				}
			}
			if last := tighter[len(tighter)-1]; len(last) != 1 {
				t.Fatalf("s=%d k=%d: the tightest shape has %d blocks", s, k, len(last))
			}
			// Growing by one group keeps every earlier block that is not
			// merged: the blocks of the previous shape up to the first
			// that changed are all either kept or inside one new block.
			for i, b := range prev {
				if i < len(lazy) && lazy[i] == b {
					continue
				}
				inside := false
				for _, n := range lazy {
					if n.from <= b.from && b.to <= n.to {
						inside = true
					}
				}
				if !inside {
					t.Fatalf("s=%d k=%d: block %v of k-1 is neither kept nor merged: %v -> %v", s, k, b, prev, lazy)
				}
			}
			prev = lazy
		}
	}
}

func check(t *testing.T, s, k int, name string, spans []span, aligned bool) {
	t.Helper()
	at := 0
	for _, sp := range spans {
		if sp.from != at || sp.to <= sp.from {
			t.Fatalf("s=%d k=%d %s: %v: a gap or an overlap at %d", s, k, name, spans, at)
		}
		if aligned {
			size := sp.to - sp.from
			p := 1
			for p < size {
				p *= s
			}
			if p != size || sp.from%size != 0 {
				t.Fatalf("s=%d k=%d %s: block %v is not s^L groups aligned on its size", s, k, name, sp)
			}
		}
		at = sp.to
	}
	if at != k {
		t.Fatalf("s=%d k=%d %s: the blocks cover %d groups", s, k, name, at)
	}
}
