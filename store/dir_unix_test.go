//go:build linux || darwin

package store_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

func TestPermissions(t *testing.T) {
	// With no umask, every mode is what the store asked for.
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	info := putBytes(t, d, storetest.Content(1, store.ChunkSize+1))
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	if !d.MaybeGC() {
		t.Fatal("MaybeGC did not start")
	}
	d.Wait()
	seen := map[string]bool{}
	err = filepath.WalkDir(d.Path(), func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.Path(), p)
		seen[filepath.Base(rel)] = true
		want := fs.FileMode(0o600)
		if fi.IsDir() {
			want = fs.ModeDir | 0o700
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", rel, fi.Mode(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".", "objects", "meta", "tmp", "lock", "gc.lock", "gc.stamp", string(info.Ref), string(info.Ref) + ".json"} {
		if !seen[name] {
			t.Errorf("%s not found in the store directory; the check did not cover it", name)
		}
	}
}

func TestGCSkippedWhenBusy(t *testing.T) {
	d := openDir(t, store.DirOptions{ManualGC: true})
	f, err := os.OpenFile(filepath.Join(d.Path(), "gc.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	st, err := d.GC(context.Background())
	if err != nil || !st.Skipped {
		t.Errorf("GC while another process collects = %+v, %v; want Skipped", st, err)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	st, err = d.GC(context.Background())
	if err != nil || st.Skipped {
		t.Errorf("GC once the other process is done = %+v, %v; want it to run", st, err)
	}
}

func TestFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("needs root on Linux to mount a 1 MB tmpfs")
	}
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 1 MB tmpfs (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	d := openDirAt(t, filepath.Join(mnt, "store"), store.DirOptions{ManualGC: true})
	ctx := context.Background()
	_, err := d.Put(ctx, newGenReader(4<<20), store.Meta{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Put of 4 MB into 1 MB: %v; want ENOSPC", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "store: writing result: ") || !strings.Contains(msg, "no space left on device") {
		t.Errorf("Put error %q: want \"store: writing result: ... no space left on device\"", msg)
	}
	if got := files(t, d.Path()); len(got) != 1 || got[0] != "lock" {
		t.Errorf("after the failed Put, the store directory holds %v; want only the lock file", got)
	}
	// The space is back: a small result fits.
	small := []byte("fits")
	putBytes(t, d, small)
	if got, err := store.ReadAll(ctx, d, storetest.RefFor(small)); err != nil || !bytes.Equal(got, small) {
		t.Errorf("ReadAll after the failed Put: %q, %v", got, err)
	}
}

const (
	helperDirEnv    = "CRUMB_STORE_HELPER_DIR"
	helperWorkerEnv = "CRUMB_STORE_HELPER_WORKER"
	helperForEnv    = "CRUMB_STORE_HELPER_FOR"
	helperMaxBytes  = 3 << 20
)

// helperContents are the results the cross-process test shares: small ones
// and ones of several chunks, about 7 MB in all, over the helpers' cap.
func helperContents() [][]byte {
	sizes := []int{10, 1000, 50_000, store.ChunkSize - 1, store.ChunkSize + 1, 3 * store.ChunkSize / 2, 300, 2*store.ChunkSize + 7}
	var out [][]byte
	for i, n := range sizes {
		out = append(out, storetest.Content(uint64(500+i), n))
	}
	return out
}

// exercise runs random operations on the shared directory until a deadline
// (and at least 100 of them), checking every read is found and exact, or
// missing: never torn or broken.
func exercise(t *testing.T, d *store.Dir, seed uint64, until time.Time, collect bool) (found, missing, evicted int) {
	ctx := context.Background()
	contents := helperContents()
	r := rand.New(rand.NewPCG(seed, 7))
	for ops := 0; ops < 100 || time.Now().Before(until); ops++ {
		c := contents[r.IntN(len(contents))]
		ref := storetest.RefFor(c)
		switch op := r.IntN(20); {
		case op < 7:
			info, err := d.Put(ctx, bytes.NewReader(c), store.Meta{Tool: fmt.Sprint(seed)})
			if err != nil || info.Ref != ref {
				t.Errorf("Put: %v, %v", info.Ref, err)
			}
		case op < 12:
			got, err := store.ReadAll(ctx, d, ref)
			switch {
			case errors.Is(err, store.ErrMissing):
				missing++
			case err != nil:
				t.Errorf("ReadAll(%s): %v; want found or missing", ref, err)
			case !bytes.Equal(got, c):
				t.Errorf("ReadAll(%s): torn read: %d bytes differ from the %d stored", ref, len(got), len(c))
			default:
				found++
			}
		case op < 16:
			obj, err := d.Open(ctx, ref)
			if errors.Is(err, store.ErrMissing) {
				missing++
				continue
			}
			if err != nil {
				t.Errorf("Open(%s): %v; want found or missing", ref, err)
				continue
			}
			off := r.Int64N(int64(len(c)))
			p := make([]byte, min(64<<10, int64(len(c))-off))
			time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond) // let others delete and rewrite it
			n, err := obj.ReadAt(p, off)
			obj.Close()
			if err != nil && n != len(p) || !bytes.Equal(p[:n], c[off:off+int64(n)]) {
				t.Errorf("ReadAt(%s, %d): %d, %v; want the stored bytes", ref, off, n, err)
			} else {
				found++
			}
		case op < 17:
			if err := d.Delete(ctx, ref); err != nil {
				t.Errorf("Delete: %v", err)
			}
		default:
			if collect {
				st, err := d.GC(ctx)
				if err != nil {
					t.Errorf("GC: %v", err)
				}
				evicted += st.Evicted
			}
		}
	}
	return found, missing, evicted
}

// TestHelperProcess is one of the processes of TestCrossProcess; it does
// nothing in a normal run.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		return
	}
	worker, _ := strconv.Atoi(os.Getenv(helperWorkerEnv))
	dur, _ := time.ParseDuration(os.Getenv(helperForEnv))
	d, err := store.OpenDir(dir, store.DirOptions{ManualGC: true, MaxBytes: helperMaxBytes})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	found, missing, evicted := exercise(t, d, uint64(worker), time.Now().Add(dur), worker == 0)
	fmt.Printf("helper %d: found=%d missing=%d evicted=%d\n", worker, found, missing, evicted)
}

// TestCrossProcess runs helper processes that store, read and delete the same
// and different results in one directory while this process collects.
func TestCrossProcess(t *testing.T) {
	if os.Getenv(helperDirEnv) != "" {
		t.Skip("in a helper")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dur := 2 * time.Second
	if testing.Short() {
		dur = time.Second
	}
	dir := filepath.Join(t.TempDir(), "shared")
	d := openDirAt(t, dir, store.DirOptions{ManualGC: true, MaxBytes: helperMaxBytes})
	const workers = 3
	outs := make([]bytes.Buffer, workers)
	cmds := make([]*exec.Cmd, workers)
	for i := range workers {
		cmd := exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.count=1", "-test.timeout=2m")
		cmd.Env = append(os.Environ(), helperDirEnv+"="+dir, fmt.Sprintf("%s=%d", helperWorkerEnv, i), helperForEnv+"="+dur.String())
		cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i, cmd := range cmds {
		wg.Go(func() { errs[i] = cmd.Wait() })
	}
	found, missing, evicted := exercise(t, d, 99, time.Now().Add(dur), true)
	wg.Wait()
	re := regexp.MustCompile(`found=(\d+) missing=(\d+) evicted=(\d+)`)
	for i := range workers {
		out := outs[i].String()
		if errs[i] != nil {
			t.Errorf("helper %d: %v\n%s", i, errs[i], out)
			continue
		}
		m := re.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("helper %d printed no counts:\n%s", i, out)
			continue
		}
		f, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		e, _ := strconv.Atoi(m[3])
		found, missing, evicted = found+f, missing+mi, evicted+e
	}
	t.Logf("%d processes: %d reads found and exact, %d missing, %d evictions", workers+1, found, missing, evicted)
	if found == 0 || missing == 0 || evicted == 0 {
		t.Errorf("the test did not exercise both outcomes and eviction (found %d, missing %d, evicted %d)", found, missing, evicted)
	}
	// What is left is sound.
	list, err := d.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range list {
		if _, err := store.ReadAll(context.Background(), d, info.Ref); err != nil {
			t.Errorf("after the run, %s: %v", info.Ref, err)
		}
	}
	if got := files(t, filepath.Join(dir, "tmp")); len(got) != 0 {
		t.Errorf("temp files left: %v", got)
	}
}
