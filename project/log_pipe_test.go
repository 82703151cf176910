package project

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestLogPipeSameView checks that a log's view is the same whether its
// lines went through a pipe (classified and split on worker goroutines) or
// were added one by one: for the real logs, read whole and sampled (where
// records end at each window, inside a batch), with and without a prescan.
func TestLogPipeSameView(t *testing.T) {
	savedMin, savedSample := logPipeMin, logSample
	defer func() { logPipeMin, logSample = savedMin, savedSample }()
	inputs := map[string][]byte{}
	for _, f := range logFixtures(t) {
		inputs[f.name] = f.output
	}
	tb, err := os.ReadFile(filepath.Join("testdata", "log-traceback", "output"))
	if err != nil {
		t.Fatal(err)
	}
	inputs["log-traceback"] = tb
	for _, sample := range []struct {
		name               string
		full, ends, window int64
		windows            int
	}{
		{"whole", savedSample.full, savedSample.ends, savedSample.window, savedSample.windows},
		{"sampled", 256 << 10, 64 << 10, 8 << 10, 12},
	} {
		logSample.full, logSample.ends, logSample.window, logSample.windows = sample.full, sample.ends, sample.window, sample.windows
		for name, b := range inputs {
			logPipeMin = 1 << 62
			want := projectBytes(t, b, 2000)
			logPipeMin = 0
			if got := projectBytes(t, b, 2000); got.Text != want.Text {
				t.Fatalf("%s, %s: the view differs through a pipe:\n%s\n--- one by one:\n%s", sample.name, name, got.Text, want.Text)
			}
			if got, _ := prescanned(t, b, 5); got.Text != want.Text {
				t.Fatalf("%s, %s: the view differs through a prescan's pipe:\n%s\n--- one by one:\n%s", sample.name, name, got.Text, want.Text)
			}
		}
	}
}

// TestLogPipeEndsRecordAtWindow samples a real log (testdata/log-traceback)
// so that a window starts at the line after an ERROR line's traceback's
// first lines: the window's first line belongs to no record, as when its
// lines are added one by one, also when they go through a pipe.
func TestLogPipeEndsRecordAtWindow(t *testing.T) {
	savedMin, savedSample := logPipeMin, logSample
	defer func() { logPipeMin, logSample = savedMin, savedSample }()
	b, err := os.ReadFile(filepath.Join("testdata", "log-traceback", "output"))
	if err != nil {
		t.Fatal(err)
	}
	z := bytes.Index(b, []byte("\nZeroDivisionError"))
	r := bytes.LastIndex(b[:z], []byte(" ERROR "))
	if z < 0 || r < 0 {
		t.Fatal("the log lacks its one ZeroDivisionError after an ERROR line")
	}
	z++                                      // the line's start
	r = bytes.LastIndexByte(b[:r], '\n') + 1 // the ERROR line's start
	const w = 100                            // the window's width
	b = b[:2*z+w]                            // so that the one window starts at z
	logSample.full, logSample.ends, logSample.window, logSample.windows = 64<<10, int64(r)+1, w, 1
	if spans, _ := logPlan(int64(len(b))); spans[1].from != int64(z) {
		t.Fatalf("the window starts at %d, want %d", spans[1].from, z)
	}
	logPipeMin = 1 << 62
	want := projectBytes(t, b, 2000)
	logPipeMin = 0
	if got := projectBytes(t, b, 2000); got.Text != want.Text {
		t.Fatalf("the view differs through a pipe:\n%s\n--- one by one:\n%s", got.Text, want.Text)
	}
}
