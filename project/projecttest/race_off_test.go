//go:build !race

package projecttest_test

// raceStride is 1 without -race: every corpus case runs (see race_on_test.go).
const raceStride = 1
