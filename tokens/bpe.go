package tokens

import (
	_ "embed"
	"math"
	"unicode/utf8"
)

//go:generate go run gen_o200k.go

// o200kTable is the o200k_base vocabulary as gen_o200k.go lays it out: a
// hash table over the tokens, read in place, so that counting needs no
// loading step (building the vocabulary as a map takes some 30 ms).
//
//go:embed o200k_base.tok
var o200kTable string

func u32(s string, i int) uint32 {
	return uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24
}

// vocab reads the table's parts.
type vocab struct {
	n, slots  uint32
	offs      int // where the offsets start
	table     int // where the hash slots start
	data      int // where the token bytes start
	tableData string
}

var o200kVocab = func() vocab {
	t := o200kTable
	n, slots := u32(t, 0), u32(t, 4)
	v := vocab{n: n, slots: slots, offs: 8, tableData: t}
	v.table = v.offs + 4*int(n+1)
	v.data = v.table + 4*int(slots)
	return v
}()

// token returns the bytes of the token of the given rank.
func (v *vocab) token(rank uint32) string {
	o := v.offs + 4*int(rank)
	return v.tableData[v.data+int(u32(v.tableData, o)) : v.data+int(u32(v.tableData, o+4))]
}

// rank returns the rank of the token s, if s is one.
func (v *vocab) rank(s string) (uint32, bool) {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	mask := v.slots - 1
	for i := h & mask; ; i = (i + 1) & mask {
		r := u32(v.tableData, v.table+4*int(i))
		if r == 0 {
			return 0, false
		}
		if v.token(r-1) == s {
			return r - 1, true
		}
	}
}

// countBPE returns the number of o200k_base tokens of s: each piece of the
// pre-tokenizer (pieceEnd) is one token when it is one, else the number of
// parts that byte-pair merging leaves of it. Invalid UTF-8 counts as the
// tokenizer reads it: each bad byte as U+FFFD.
func countBPE(s string) int {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	n := 0
	for i := 0; i < len(s); {
		e := pieceEnd(s, i)
		if e == i { // no piece holds this rune
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			continue
		}
		piece := s[i:e]
		if _, ok := o200kVocab.rank(piece); ok {
			n++
		} else {
			n += mergeCount(piece)
		}
		i = e
	}
	return n
}

const noRank = math.MaxUint32

// mergeCount merges the bytes of piece as byte-pair encoding does, the
// pair of lowest rank first (the leftmost of equals), and returns how many
// parts are left.
func mergeCount(piece string) int {
	if len(piece) > longPiece {
		return mergeCountLong(piece)
	}
	return mergeCountScan(piece)
}

// mergeCountScan is mergeCount for short pieces: it finds each merge by a
// scan of the pairs.
func mergeCountScan(piece string) int {
	// starts[i] is where part i begins; ranks[i] the rank of part i joined
	// with part i+1.
	var sbuf, rbuf [64]uint32
	starts, ranks := sbuf[:0], rbuf[:0]
	for i := 0; i <= len(piece); i++ {
		starts = append(starts, uint32(i))
	}
	pairRank := func(i int) uint32 {
		if i+2 >= len(starts) {
			return noRank
		}
		if r, ok := o200kVocab.rank(piece[starts[i]:starts[i+2]]); ok {
			return r
		}
		return noRank
	}
	for i := 0; i+1 < len(starts); i++ {
		ranks = append(ranks, pairRank(i))
	}
	for len(starts) > 2 {
		best, at := uint32(noRank), -1
		for i, r := range ranks[:len(ranks)-1] {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		// Join parts at and at+1.
		starts = append(starts[:at+1], starts[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pairRank(at)
		if at > 0 {
			ranks[at-1] = pairRank(at - 1)
		}
	}
	return len(starts) - 1
}

// longPiece is the length from which a piece is merged with a heap: the
// scan costs O(n) a merge, the heap O(log n).
const longPiece = 128

// mergeCountLong is mergeCount for long pieces. Boundaries between parts
// form a linked list; a heap holds the candidate merges by (rank,
// position), and a candidate whose boundary has gone or changed rank is
// skipped when it comes up.
func mergeCountLong(piece string) int {
	type node struct {
		prev, next int32
		rank       uint32 // of this part joined with the next
		gone       bool
	}
	n := int32(len(piece))
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		if r, ok := o200kVocab.rank(piece[i:nodes[j].next]); ok {
			return r
		}
		return noRank
	}
	h := &mergeHeap{}
	for i := int32(0); i+2 <= n; i++ {
		if r := rankAt(i); r != noRank {
			nodes[i].rank = r
			h.push(candidate{r, i})
		}
	}
	parts := int(n)
	for len(h.c) > 0 {
		c := h.pop()
		if nodes[c.pos].gone || nodes[c.pos].rank != c.rank {
			continue
		}
		j := nodes[c.pos].next
		k := nodes[j].next
		nodes[j].gone = true
		nodes[c.pos].next = k
		nodes[k].prev = c.pos
		parts--
		r := rankAt(c.pos)
		nodes[c.pos].rank = r
		if r != noRank {
			h.push(candidate{r, c.pos})
		}
		if p := nodes[c.pos].prev; p >= 0 {
			r := rankAt(p)
			nodes[p].rank = r
			if r != noRank {
				h.push(candidate{r, p})
			}
		}
	}
	return parts
}

type candidate struct {
	rank uint32
	pos  int32
}

func (a candidate) less(b candidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// mergeHeap is a binary min-heap of candidates.
type mergeHeap struct{ c []candidate }

func (h *mergeHeap) push(x candidate) {
	h.c = append(h.c, x)
	for i := len(h.c) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.c[i].less(h.c[p]) {
			break
		}
		h.c[i], h.c[p] = h.c[p], h.c[i]
		i = p
	}
}

func (h *mergeHeap) pop() candidate {
	top := h.c[0]
	last := len(h.c) - 1
	h.c[0] = h.c[last]
	h.c = h.c[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h.c) && h.c[l].less(h.c[m]) {
			m = l
		}
		if r < len(h.c) && h.c[r].less(h.c[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.c[i], h.c[m] = h.c[m], h.c[i]
		i = m
	}
	return top
}
