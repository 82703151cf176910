package procmem

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

// Peak of this process is at least the memory it has just touched, and
// the same whether named by 0 or by its pid; a pid that is not running is
// ErrUnknown.
func TestPeak(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is Linux's")
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	self, err := Peak(0)
	if err != nil {
		t.Fatal(err)
	}
	byPid, err := Peak(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self < int64(len(buf)) || byPid < self {
		t.Errorf("peak %d (by pid %d), want at least the %d bytes touched", self, byPid, len(buf))
	}
	runtime.KeepAlive(buf)
	if _, err := Peak(1 << 30); !errors.Is(err, ErrUnknown) {
		t.Errorf("Peak of no process: %v, want ErrUnknown", err)
	}
}
