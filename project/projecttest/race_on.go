//go:build race

package projecttest

// raceEnabled reports a -race build. Its shadow memory and its slower
// execution make a heap measure of a 1 GB projection meaningless and slow,
// so the memory check does not run in it.
const raceEnabled = true
