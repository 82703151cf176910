//go:build linux || darwin

package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

// within runs fn and fails the test if it does not return within 10 s: a
// store that opens a FIFO would block forever.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10s (blocked on a FIFO?)", what)
	}
}

// TestNotRegularFiles replaces a record or a content file with what an
// attacker or an accident could put there: every read must answer broken at
// once, never block, never read a device, and never follow a link out of
// the store; List leaves the result out and GC purges it.
func TestNotRegularFiles(t *testing.T) {
	outside := t.TempDir()
	fifo := filepath.Join(outside, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type plant func(t *testing.T, path string)
	link := func(target string) plant {
		return func(t *testing.T, path string) {
			os.Remove(path)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyOut := func(t *testing.T, path string) { // the same bytes, linked from outside
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "copy")
		if err := os.WriteFile(out, data, 0o600); err != nil {
			t.Fatal(err)
		}
		link(out)(t, path)
	}
	mkfifo := func(t *testing.T, path string) {
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	huge := func(t *testing.T, path string) { // a sparse record of 65 MiB
		if err := os.Truncate(path, 65<<20); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		record bool // plant in the record, else in the content file
		plant  plant
		says   string
	}{
		{"record links to a FIFO", true, link(fifo), "regular file"},
		{"record is a FIFO", true, mkfifo, "regular file"},
		{"record links to /dev/zero", true, link("/dev/zero"), "regular file"},
		{"record links out of the store", true, copyOut, "regular file"},
		{"record larger than any record", true, huge, "more than a record may"},
		{"content links to a FIFO", false, link(fifo), "regular file"},
		{"content is a FIFO", false, mkfifo, "regular file"},
		{"content links to /dev/zero", false, link("/dev/zero"), "regular file"},
		{"content links out of the store", false, copyOut, "regular file"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDir(t, store.DirOptions{ManualGC: true, NoSync: true})
			ctx := context.Background()
			data := storetest.Content(uint64(700+i), 1000)
			info := putBytes(t, d, data)
			path := store.BlobPath(d, info.Ref)
			if tt.record {
				path = store.RecordPath(d, info.Ref)
			}
			tt.plant(t, path)
			within(t, "Open", func() {
				obj, err := d.Open(ctx, info.Ref)
				if err == nil {
					obj.Close()
				}
				wantIs(t, "Open", err, store.ErrBroken, tt.says)
			})
			within(t, "Stat", func() {
				_, err := d.Stat(ctx, info.Ref)
				wantIs(t, "Stat", err, store.ErrBroken)
			})
			within(t, "List", func() {
				if list, err := d.List(ctx); err != nil || len(list) != 0 {
					t.Errorf("List = %d results, %v; want none", len(list), err)
				}
			})
			within(t, "GC", func() {
				st, err := d.GC(ctx)
				if err != nil || st.BrokenPurged != 1 {
					t.Errorf("GC = %+v, %v; want the result purged", st, err)
				}
			})
			// Storing it again repairs it.
			putBytes(t, d, data)
			if got, err := store.ReadAll(ctx, d, info.Ref); err != nil || !bytes.Equal(got, data) {
				t.Errorf("ReadAll after storing again: %v", err)
			}
		})
	}
}

// TestLineIndexTampered is the report's case: lowering one count of the
// line index sent a read of line 320,000 to line 320,005, labelled 320,000.
func TestLineIndexTampered(t *testing.T) {
	d := openDir(t, store.DirOptions{ManualGC: true, NoSync: true})
	ctx := context.Background()
	var b bytes.Buffer
	for i := 1; i <= 400000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	info := putBytes(t, d, b.Bytes())
	readLine := func(n int64) (string, error) {
		obj, err := d.Open(ctx, info.Ref)
		if err != nil {
			return "", err
		}
		defer obj.Close()
		in := obj.Info()
		doc := lines.New(obj, obj.Size(), in.Newlines, in.ChunkNewlines, store.ChunkSize)
		off, err := doc.LineStart(n)
		if err != nil {
			return "", err
		}
		l, err := doc.ReadLine(off, 100)
		return string(l.Text), err
	}
	if got, err := readLine(320000); err != nil || got != "320000" {
		t.Fatalf("line 320000 = %q, %v before the edit", got, err)
	}
	c := 0 // the chunk that holds line 320,000
	for k, before := range info.ChunkNewlines {
		if before < 320000-1 {
			c = k
		}
	}
	if c == 0 {
		t.Fatal("line 320,000 is in the first chunk; the test needs it later")
	}
	editInfo(t, d, info.Ref, func(in *store.Info) { in.ChunkNewlines[c] -= 5 })
	got, err := readLine(320000)
	if !errors.Is(err, store.ErrBroken) {
		t.Errorf("line 320000 after lowering the index = %q, %v; want ErrBroken", got, err)
	}
}

// TestFutureUseRecord is the report's case of a record whose use time lies
// far in the future: it never expired, and ls showed it used "-2274781468s
// ago". It counts as expired, says why, and GC removes it.
func TestFutureUseRecord(t *testing.T) {
	d := openDir(t, store.DirOptions{ManualGC: true, NoSync: true})
	ctx := context.Background()
	info := putBytes(t, d, []byte("used in 2099"))
	future := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	editRecord(t, d, info.Ref, func(m map[string]any) { m["used"] = future.Format(time.RFC3339Nano) })
	_, err := d.Stat(ctx, info.Ref)
	wantIs(t, "Stat", err, store.ErrMissing, "in the future")
	if list, err := d.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List = %d results, %v; want none", len(list), err)
	}
	st, err := d.GC(ctx)
	if err != nil || st.Expired != 1 {
		t.Errorf("GC = %+v, %v; want it expired", st, err)
	}
}

func TestUnsafeDirectory(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, mode := range []os.FileMode{0o777, 0o770, 0o1777} {
		dir := filepath.Join(t.TempDir(), "store")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		_, err := store.OpenDir(dir, store.DirOptions{})
		if err == nil || !strings.Contains(err.Error(), "other users may write") || !strings.Contains(err.Error(), "chmod 700") {
			t.Errorf("OpenDir of a directory at %04o: %v; want a refusal that says what to do", mode, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "objects")); err == nil {
			t.Errorf("OpenDir of a directory at %04o created its subdirectories", mode)
		}
	}
	// A store reached through a symbolic link is fine.
	real := filepath.Join(t.TempDir(), "real")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	openDirAt(t, link, store.DirOptions{})
}

// TestNoCreate: a collector never creates a store, not even one that was
// there and was deleted.
func TestNoCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	if _, err := store.OpenDir(dir, store.DirOptions{NoCreate: true}); !errors.Is(err, store.ErrNoStore) {
		t.Errorf("OpenDir(NoCreate) of nothing: %v; want ErrNoStore", err)
	}
	d := openDirAt(t, dir, store.DirOptions{})
	putBytes(t, d, []byte("x"))
	d.Close()
	d2 := openDirAt(t, dir, store.DirOptions{NoCreate: true})
	if _, err := d2.GC(context.Background()); err != nil {
		t.Fatal(err)
	}
	d2.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := store.OpenDir(dir, store.DirOptions{NoCreate: true}); !errors.Is(err, store.ErrNoStore) {
		t.Errorf("OpenDir(NoCreate) of a deleted store: %v; want ErrNoStore", err)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Errorf("OpenDir(NoCreate) recreated the deleted store")
	}
}

// TestSettingsShared: processes sharing a store share its lifecycle
// settings. Explicit options win and are written to the store's settings
// file; an opener without them takes the file's, else the defaults.
func TestSettingsShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	clock := storetest.NewClock(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	ctx := context.Background()
	want := func(d *store.Dir, who string, s store.Settings) {
		t.Helper()
		if got := d.Settings(); got != s {
			t.Errorf("%s: settings %+v, want %+v", who, got, s)
		}
	}
	plain := openDirAt(t, dir, store.DirOptions{Now: clock.Now, ManualGC: true})
	want(plain, "a store never configured", store.Settings{TTL: store.DefaultTTL, MaxBytes: store.DefaultMaxBytes})
	proxy := openDirAt(t, dir, store.DirOptions{Now: clock.Now, TTL: 48 * time.Hour, MaxBytes: 10 << 30})
	want(proxy, "the proxy", store.Settings{TTL: 48 * time.Hour, MaxBytes: 10 << 30})
	cli := openDirAt(t, dir, store.DirOptions{Now: clock.Now, ManualGC: true})
	want(cli, "a command opened after the proxy", store.Settings{TTL: 48 * time.Hour, MaxBytes: 10 << 30})

	// A result the proxy keeps for 48 hours survives the command line's
	// collection after 30 hours.
	info := putBytes(t, proxy, []byte("kept for two days"))
	clock.Advance(30 * time.Hour)
	if _, err := cli.GC(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Stat(ctx, info.Ref); err != nil {
		t.Errorf("after 30h and a collection by the command line: %v; the proxy keeps results 48h", err)
	}

	// Only the settings given are changed; a short TTL holds for every
	// reader.
	short := openDirAt(t, dir, store.DirOptions{Now: clock.Now, TTL: 3 * time.Second})
	want(short, "a proxy with ttl 3s", store.Settings{TTL: 3 * time.Second, MaxBytes: 10 << 30})
	reader := openDirAt(t, dir, store.DirOptions{Now: clock.Now, ManualGC: true})
	fresh := putBytes(t, short, []byte("expires in 3s"))
	clock.Advance(4 * time.Second)
	_, err := reader.Stat(ctx, fresh.Ref)
	wantIs(t, "a command's read of what the proxy calls expired", err, store.ErrMissing)

	// A malformed settings file is a clear error.
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"ttl": "soon"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = store.OpenDir(dir, store.DirOptions{})
	if err == nil || !strings.Contains(err.Error(), "settings.json") || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("OpenDir with a malformed settings file: %v; want an error naming the file and what to do", err)
	}
}

// TestWritesInProgressCountAgainstCap: the temp file of a Put still
// streaming takes disk space, so GC counts it against the cap.
func TestWritesInProgressCountAgainstCap(t *testing.T) {
	d := openDir(t, store.DirOptions{MaxBytes: 2500, ManualGC: true, NoSync: true})
	ctx := context.Background()
	a := putBytes(t, d, storetest.Content(1, 1000))
	putBytes(t, d, storetest.Content(2, 1000))
	release := make(chan struct{})
	done := make(chan error, 1)
	slow := storetest.Content(3, 2000)
	go func() {
		_, err := d.Put(ctx, io.MultiReader(bytes.NewReader(slow[:1000]), &blockingReader{release, bytes.NewReader(slow[1000:])}), store.Meta{})
		done <- err
	}()
	waitForTemp(t, d, 1000)
	st, err := d.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Evicted != 1 || st.BytesInProgress != 1000 {
		t.Errorf("GC = %+v; want 1 evicted for the 1000 bytes in progress", st)
	}
	_, err = d.Stat(ctx, a.Ref)
	wantIs(t, "the least recently used result", err, store.ErrMissing)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestUsageCountsLeftovers: what killed writers leave (temp files, content
// files without a record) shows in Usage until GC removes it.
func TestUsageCountsLeftovers(t *testing.T) {
	d := openDir(t, store.DirOptions{ManualGC: true, NoSync: true})
	ctx := context.Background()
	putBytes(t, d, storetest.Content(1, 1000))
	orphan := storetest.RefFor([]byte("orphan"))
	p := store.BlobPath(d, orphan)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, make([]byte, 3000), 0o600); err != nil {
		t.Fatal(err)
	}
	temp := filepath.Join(d.Path(), "tmp", "put-killed")
	if err := os.WriteFile(temp, make([]byte, 5000), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-2 * time.Minute)
	os.Chtimes(temp, past, past)
	// A fresh empty temp file may be a writer that has yet to lock it (a
	// Put locks its temp file before it writes a byte).
	if err := os.WriteFile(filepath.Join(d.Path(), "tmp", "put-starting"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := d.Usage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.Usage{Results: 1, ResultBytes: 1000, Leftovers: 2, LeftoverBytes: 8000, InProgress: 1, InProgressBytes: 0}); u != want {
		t.Errorf("Usage = %+v, want %+v", u, want)
	}
	st, err := d.GC(ctx)
	if err != nil || st.Leftovers != 2 || st.BytesFreed != 8000 {
		t.Errorf("GC = %+v, %v; want 2 leftovers (8000 bytes) removed", st, err)
	}
	if u, err := d.Usage(ctx); err != nil || u.Leftovers != 0 {
		t.Errorf("Usage after GC = %+v, %v; want no leftovers", u, err)
	}
}

const killedWriterEnv = "CRUMB_STORE_TEST_WRITER_DIR"

// TestWriterProcess is the writer that TestKilledWriter kills: it stores its
// standard input. It does nothing in a normal run.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv(killedWriterEnv)
	if dir == "" {
		return
	}
	d, err := store.OpenDir(dir, store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	d.Put(context.Background(), os.Stdin, store.Meta{})
}

// TestKilledWriter: the temp file of a writer that was killed is a leftover
// that GC removes, while that of a live writer, however old, is kept. A
// writer holds an flock on its temp file, which the kernel releases when
// the writer dies.
func TestKilledWriter(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "" {
		t.Skip("in a writer")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := filepath.Join(t.TempDir(), "store")
	d := openDirAt(t, dir, store.DirOptions{ManualGC: true, NoSync: true})
	ctx := context.Background()
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
	if _, err := stdin.Write(make([]byte, 4000)); err != nil {
		t.Fatal(err)
	}
	temp := waitForTemp(t, d, 4000)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(temp, past, past)
	st, err := d.GC(ctx)
	if err != nil || st.Leftovers != 0 || st.BytesInProgress != 4000 {
		t.Errorf("GC while the writer lives = %+v, %v; want its 4000 bytes kept and counted", st, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	st, err = d.GC(ctx)
	if err != nil || st.Leftovers != 1 || st.BytesFreed != 4000 {
		t.Errorf("GC after the writer was killed = %+v, %v; want its temp file removed", st, err)
	}
	if _, err := os.Lstat(temp); err == nil {
		t.Errorf("the killed writer's temp file %s remains", temp)
	}
}
