//go:build race

package bench

// raceEnabled reports a -race build, in which counting the tokens of the
// whole corpus's raw outputs takes minutes: TestCorpus estimates them.
const raceEnabled = true
