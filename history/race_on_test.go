//go:build race

package history_test

// longTestTurns is the length of TestLongThreadMeetsBudget's thread under
// -race, which makes the 10,000 turns of longTurns take most of go test's
// ten minutes (and 2,500 took 182 s on 2 cores). 1,200 turns still merge
// their blocks over three levels (blocks of about 15, 117 and 936
// messages, two of the largest at the tight budget). .ci/run runs the
// test at full length without -race.
const longTestTurns = 1200
