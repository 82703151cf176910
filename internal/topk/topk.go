// Package topk keeps the best k values offered one at a time, in a heap
// whose root is the worst kept, ready to be replaced: the one bounded
// selection every view uses (the longest runs of a command's output, the
// evidence it ranks, a listing's shallowest paths, the best matches of each
// word of an intent, the definitions an outline lists).
//
// The heap is a plain slice the caller owns and may range over, clone or
// sort; only Keep reorders it. Its order is the one container/heap gives,
// so the same offers always leave the same slice.
package topk

import "container/heap"

// Admits reports whether [Keep] would keep v in h, a heap of at most k
// values by worse: h has room, or v is better than the worst it holds. A
// caller that must build part of v at a cost (a string, a copy) asks first.
func Admits[T any](h []T, k int, v T, worse func(a, b T) bool) bool {
	return len(h) < k || k > 0 && len(h) > 0 && worse(h[0], v)
}

// Keep offers v to h, a heap of at most k values by worse, where worse(a,
// b) reports that a ranks below b: it adds v while h holds fewer than k,
// else puts v in place of the worst when v is better than it. It reports
// whether v was kept.
func Keep[T any](h *[]T, k int, v T, worse func(a, b T) bool) bool {
	hp := heapOf[T]{s: h, worse: worse}
	switch {
	case len(*h) < k:
		heap.Push(hp, v)
	case k > 0 && len(*h) > 0 && worse((*h)[0], v):
		(*h)[0] = v
		heap.Fix(hp, 0)
	default:
		return false
	}
	return true
}

// heapOf is h as a container/heap, its root the worst by worse.
type heapOf[T any] struct {
	s     *[]T
	worse func(a, b T) bool
}

func (h heapOf[T]) Len() int           { return len(*h.s) }
func (h heapOf[T]) Less(i, j int) bool { return h.worse((*h.s)[i], (*h.s)[j]) }
func (h heapOf[T]) Swap(i, j int)      { s := *h.s; s[i], s[j] = s[j], s[i] }
func (h heapOf[T]) Push(x any)         { *h.s = append(*h.s, x.(T)) }
func (h heapOf[T]) Pop() any {
	s := *h.s
	x := s[len(s)-1]
	*h.s = s[:len(s)-1]
	return x
}
