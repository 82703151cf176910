//go:build !race

package projecttest

// raceEnabled reports a -race build (see race_on.go).
const raceEnabled = false
