//go:build !race

package mcpproxy

// raceEnabled reports a -race build of the tests.
const raceEnabled = false

// hugeMB is the size of TestHugeResult's result in MB (see race_on_test.go).
const hugeMB = 50
