package store_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

// TestKilledWriterEvictsNothing: the temp file of a writer killed with
// SIGKILL a moment ago (well inside the grace a Put's temp file gets
// before its lock is asked) holds no write in progress: it does not count
// against the size cap, no finished result is evicted to make room for it,
// and a collection removes it. A live writer's temp file, young as it is,
// still counts.
func TestKilledWriterEvictsNothing(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "" {
		t.Skip("in a writer")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	const capBytes = 10_000
	dir := filepath.Join(t.TempDir(), "store")
	d := openDirAt(t, dir, store.DirOptions{ManualGC: true, NoSync: true, MaxBytes: capBytes})
	ctx := context.Background()
	a, b := storetest.Content(1, 4000), storetest.Content(2, 4000)
	var refs []store.Ref
	for _, data := range [][]byte{a, b} {
		info, err := d.Put(ctx, bytes.NewReader(data), store.Meta{Tool: "t"})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, info.Ref)
	}

	cmd := exec.Command(exe, "-test.run=^TestWriterProcess$", "-test.count=1", "-test.timeout=1m")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if _, err := stdin.Write(storetest.Content(3, 6000)); err != nil {
		t.Fatal(err)
	}
	temp := waitForTemp(t, d, 6000)
	if u, err := d.Usage(ctx); err != nil || u.InProgress != 1 || u.InProgressBytes != 6000 {
		t.Errorf("Usage while the writer lives = %+v, %v; want its 6000 bytes in progress", u, err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Lstat(temp); err != nil {
		t.Fatalf("the killed writer left no temp file: %v", err)
	}
	if u, err := d.Usage(ctx); err != nil || u.InProgress != 0 || u.Leftovers != 1 || u.LeftoverBytes != 6000 {
		t.Errorf("Usage after the writer was killed = %+v, %v; want its 6000 bytes a leftover, not in progress", u, err)
	}

	st, err := d.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Evicted != 0 || st.BytesInProgress != 0 || st.ResultsKept != 2 || st.Leftovers != 1 {
		t.Errorf("GC after the writer was killed = %+v; want nothing evicted, 2 results kept, its temp file removed", st)
	}
	for i, data := range [][]byte{a, b} {
		got, err := store.ReadAll(ctx, d, refs[i])
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("result %d after GC: %v; a finished result was pushed out by a dead writer's bytes", i, err)
		}
	}
	if _, err := os.Lstat(temp); err == nil {
		t.Errorf("the killed writer's temp file %s remains", temp)
	}
}
