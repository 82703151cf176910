//go:build race

package storefault

// raceRuns is EvictionRuns under -race.
const raceRuns = true
