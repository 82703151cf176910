// Package procmem reads a process's peak resident memory from Linux's
// /proc, for the benchmarks and the tests that bound crumb's memory.
package procmem

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// ErrUnknown means the process's peak memory cannot be read: not Linux, the
// process has ended, or its status has no VmHWM line.
var ErrUnknown = errors.New("procmem: peak memory unknown")

// Peak returns the peak resident memory (VmHWM) of the process pid, in
// bytes; a pid of 0 means this process. VmHWM belongs to the process's own
// address space, made new at exec, unlike the maxrss of the rusage a parent
// gets from wait, which Linux starts at the high-water mark of the process
// that forked the child.
func Peak(pid int) (int64, error) {
	name := "/proc/self/status"
	if pid != 0 {
		name = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrUnknown, err)
	}
	_, rest, ok := bytes.Cut(b, []byte("VmHWM:"))
	if !ok {
		return 0, fmt.Errorf("%w: no VmHWM in %s", ErrUnknown, name)
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(line), []byte("kB")))), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: VmHWM %q: %w", ErrUnknown, line, err)
	}
	return kb << 10, nil
}
