//go:build race

package projecttest_test

// raceStride is how many corpus cases of a kind stand for one under -race:
// the race detector makes each projection many times slower, and the whole
// corpus runs in the suite's run without it (.ci/run runs both).
const raceStride = 8
