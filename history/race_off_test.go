//go:build !race

package history_test

// longTestTurns is the length of TestLongThreadMeetsBudget's thread: the
// issue's 10,000 turns (see race_on_test.go).
const longTestTurns = longTurns
