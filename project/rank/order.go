package rank

import "slices"

// SortBest sorts units best first by better, a strict order (a better
// than b); units neither better than the other keep their order, so that
// the result does not depend on the sort.
func SortBest[T any](units []T, better func(a, b T) bool) {
	slices.SortStableFunc(units, func(a, b T) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
}
