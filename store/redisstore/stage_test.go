package redisstore

import (
	"os"
	"strconv"
	"testing"

	"github.com/crumb-dev/crumb/store/storetest"
)

// stageRounds is the number of rounds of TestStageCommitWhileReading:
// $CRUMB_STAGE_ROUNDS, else a number CI runs in seconds.
func stageRounds(t *testing.T) int {
	t.Helper()
	v := os.Getenv("CRUMB_STAGE_ROUNDS")
	if v == "" {
		return 300
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("CRUMB_STAGE_ROUNDS=%q: want a positive number of rounds", v)
	}
	return n
}

// TestStageCommitWhileReading commits staged results while their objects
// are read, round after round, against a real redis-server: every read
// sees all of the staged bytes, never a short read or a missing result
// (issue 23). Set CRUMB_STAGE_ROUNDS for a longer run.
func TestStageCommitWhileReading(t *testing.T) {
	t.Parallel()
	storetest.StageWhileReading(t, openTest(t, sharedServer(t), Options{}), stageRounds(t))
}
