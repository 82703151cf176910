//go:build race

package mcpproxy

// raceEnabled reports a -race build of the tests.
const raceEnabled = true

// hugeMB is the size of TestHugeResult's result in MB. Under -race, where
// 50 MB took 96 s on 2 cores, it is 16 MB: still over the stdio spool (1 MB)
// and the size at which structured content is spilled (8 MB). .ci/run runs
// the test at 50 MB without -race.
const hugeMB = 16
