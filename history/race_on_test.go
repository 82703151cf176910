//go:build race

package history_test

// longTestTurns is the length of TestLongThreadMeetsBudget's thread under
// -race, which makes the 10,000 turns of longTurns take most of go test's
// ten minutes; 2,500 turns still merge their blocks over several levels.
// .ci/run runs the test at full length without -race.
const longTestTurns = 2500
