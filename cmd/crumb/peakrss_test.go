package main

import (
	"os/exec"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/procmem"
)

// runPeak runs cmd and returns its peak resident memory in bytes: the
// highest VmHWM its /proc/PID/status showed while it ran, read every
// millisecond. The rusage that Wait reports is no measure of a child here:
// Linux starts an exec'd child's maxrss at the high-water mark of the
// process that forked it (Go forks with CLONE_VM), so a test process that
// once grew to 2 GB would see 2 GB for every child it starts after that.
// VmHWM (procmem.Peak) belongs to the child's own address space, made
// new at exec.
func runPeak(t *testing.T, cmd *exec.Cmd) (int64, error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if hwm, _ := procmem.Peak(cmd.Process.Pid); hwm > peak {
			peak = hwm
		}
		select {
		case err := <-done:
			if peak == 0 {
				t.Logf("%s ended before its memory could be read", cmd.Path)
			}
			return peak, err
		case <-tick.C:
		}
	}
}
