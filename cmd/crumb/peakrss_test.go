package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runPeak runs cmd and returns its peak resident memory in bytes: the
// highest VmHWM its /proc/PID/status showed while it ran, read every
// millisecond. The rusage that Wait reports is no measure of a child here:
// Linux starts an exec'd child's maxrss at the high-water mark of the
// process that forked it (Go forks with CLONE_VM), so a test process that
// once grew to 2 GB would see 2 GB for every child it starts after that.
// VmHWM belongs to the child's own address space, made new at exec.
func runPeak(t *testing.T, cmd *exec.Cmd) (int64, error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if hwm := vmHWM(status); hwm > peak {
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

// vmHWM reads the VmHWM line of a /proc/PID/status file, in bytes; 0 when
// it cannot be read (the process has ended, or is not yet exec'd).
func vmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(line)), "kB")), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}
