//go:build !race

package crumb_test

// raceEnabled reports a -race build, whose sync.Pool drops items at random
// and so allocates more than a normal build does.
const raceEnabled = false
