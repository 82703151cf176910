package store_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

// openDir opens a new store in a fresh temp directory and closes it when the
// test ends.
func openDir(t testing.TB, opts store.DirOptions) *store.Dir {
	t.Helper()
	return openDirAt(t, filepath.Join(t.TempDir(), "store"), opts)
}

func openDirAt(t testing.TB, path string, opts store.DirOptions) *store.Dir {
	t.Helper()
	d, err := store.OpenDir(path, opts)
	if err != nil {
		t.Fatalf("OpenDir: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// flipByte inverts the byte at off in the file at path.
func flipByte(t testing.TB, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	storetest.RunBackend(t, storetest.Backend{
		New: func(t *testing.T) store.Store { return openDir(t, store.DirOptions{}) },
		Clocked: func(t *testing.T, now func() time.Time, ttl time.Duration) store.Store {
			return openDir(t, store.DirOptions{Now: now, TTL: ttl})
		},
		Corrupt: func(t *testing.T, s store.Store, ref store.Ref, off int64) {
			flipByte(t, store.BlobPath(s.(*store.Dir), ref), off)
		},
		// ManualGC, as the command line runs: the cap must hold anyway.
		Capped: func(t *testing.T, maxBytes int64) store.Store {
			return openDir(t, store.DirOptions{MaxBytes: maxBytes, ManualGC: true, NoSync: true})
		},
		EditInfo: func(t *testing.T, s store.Store, ref store.Ref, fn func(*store.Info)) {
			editInfo(t, s.(*store.Dir), ref, fn)
		},
		Shared: func(t *testing.T) (store.Store, store.Store) {
			a := openDir(t, store.DirOptions{})
			b, err := store.OpenDir(a.Path(), store.DirOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return a, b
		},
	})
}

// editInfo rewrites the Info in the record of ref through fn.
func editInfo(t *testing.T, d *store.Dir, ref store.Ref, fn func(*store.Info)) {
	t.Helper()
	editRecord(t, d, ref, func(m map[string]any) {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var info store.Info
		if err := json.Unmarshal(data, &info); err != nil {
			t.Fatal(err)
		}
		fn(&info)
		if data, err = json.Marshal(info); err != nil {
			t.Fatal(err)
		}
		v := m["v"]
		clear(m)
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m["v"] = v
	})
}

func TestConformanceNoSync(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openDir(t, store.DirOptions{NoSync: true}) })
}

func putBytes(t testing.TB, s store.Store, data []byte) store.Info {
	t.Helper()
	info, err := s.Put(context.Background(), bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatalf("Put: %v", err)
	}
	return info
}

// editRecord rewrites the JSON record of ref through fn.
func editRecord(t *testing.T, d *store.Dir, ref store.Ref, fn func(m map[string]any)) {
	t.Helper()
	path := store.RecordPath(d, ref)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	data, err = json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	// Atomically, as a background collection may be reading it.
	tmp := filepath.Join(t.TempDir(), "record")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func wantIs(t *testing.T, what string, err, target error, msgs ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error = %v, want one wrapping %q", what, err, target)
		return
	}
	for _, m := range msgs {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%s: error %q does not say %q", what, err, m)
		}
	}
}

func TestTamper(t *testing.T) {
	const C = store.ChunkSize
	data := storetest.Content(1, 3*C-100) // chunks 0, 1 and a short 2
	tests := []struct {
		name    string
		tamper  func(t *testing.T, d *store.Dir, ref store.Ref)
		openErr string // non-empty: Open and Stat fail with ErrBroken saying this
		bad     []int  // chunks whose reads fail with ErrBroken
		copyErr string // non-empty: Copy fails with ErrBroken saying this
	}{
		{
			name:    "flipped byte in middle chunk",
			tamper:  func(t *testing.T, d *store.Dir, ref store.Ref) { flipByte(t, store.BlobPath(d, ref), C+12345) },
			bad:     []int{1},
			copyErr: "chunk 1",
		},
		{
			name: "flipped last byte",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				flipByte(t, store.BlobPath(d, ref), int64(len(data)-1))
			},
			bad:     []int{2},
			copyErr: "chunk 2",
		},
		{
			name: "same-size content swapped",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				if err := os.WriteFile(store.BlobPath(d, ref), storetest.Content(2, len(data)), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			bad:     []int{0, 1, 2},
			copyErr: "chunk 0",
		},
		{
			name: "record digest changed inside the ref",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) { m["digest"] = flipHex(m["digest"].(string), 3) })
			},
			openErr: "digest does not match the ref",
		},
		{
			name: "record digest changed past the ref",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) { m["digest"] = flipHex(m["digest"].(string), 40) })
			},
			// The chunk digests no longer hash to the digest: found on open.
			openErr: "do not hash to its digest",
		},
		{
			name: "record chunk digest changed",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) {
					ch := m["chunks"].([]any)
					ch[1] = flipHex(ch[1].(string), 0)
				})
			},
			openErr: "do not hash to its digest",
		},
		{
			name: "record chunk list shortened",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) { m["chunks"] = m["chunks"].([]any)[:2] })
			},
			openErr: "lists 2 chunk digests",
		},
		{
			name: "record names another ref",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) { m["ref"] = "0123456789abcdef" })
			},
			openErr: "names ref",
		},
		{
			name: "record size changed",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				editRecord(t, d, ref, func(m map[string]any) { m["size"] = float64(len(data) + 1) })
			},
			openErr: "record says",
		},
		{
			name: "garbage record",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				if err := os.WriteFile(store.RecordPath(d, ref), []byte("{not json"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			openErr: "not valid JSON",
		},
		{
			name: "empty record",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				if err := os.WriteFile(store.RecordPath(d, ref), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			openErr: "not valid JSON",
		},
		{
			name: "truncated content",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				if err := os.Truncate(store.BlobPath(d, ref), int64(len(data)-1)); err != nil {
					t.Fatal(err)
				}
			},
			openErr: "holds",
		},
		{
			name: "content file removed",
			tamper: func(t *testing.T, d *store.Dir, ref store.Ref) {
				if err := os.Remove(store.BlobPath(d, ref)); err != nil {
					t.Fatal(err)
				}
			},
			openErr: "content file is missing",
		},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := openDir(t, store.DirOptions{ManualGC: true})
			info := putBytes(t, d, data)
			tt.tamper(t, d, info.Ref)

			obj, err := d.Open(ctx, info.Ref)
			_, serr := d.Stat(ctx, info.Ref)
			if tt.openErr != "" {
				wantIs(t, "Open", err, store.ErrBroken, tt.openErr, "run the tool again")
				wantIs(t, "Stat", serr, store.ErrBroken, tt.openErr, "run the tool again")
				if obj != nil {
					t.Error("Open returned an object as well as an error")
				}
			} else {
				if err != nil {
					t.Fatalf("Open: %v; want success, damage found only on read", err)
				}
				defer obj.Close()
				if serr != nil {
					t.Errorf("Stat: %v; want success (Stat does not hash)", serr)
				}
				for chunk := range 3 {
					off := int64(chunk*C + 7)
					p := make([]byte, 100)
					n, err := obj.ReadAt(p, off)
					if slices.Contains(tt.bad, chunk) {
						wantIs(t, fmt.Sprintf("ReadAt in chunk %d", chunk), err, store.ErrBroken,
							fmt.Sprintf("chunk %d", chunk), "run the tool again")
					} else if err != nil || n != len(p) || !bytes.Equal(p, data[off:off+100]) {
						t.Errorf("ReadAt in untouched chunk %d = %d, %v; want the stored bytes", chunk, n, err)
					}
				}
				_, err = store.Copy(ctx, obj, io.Discard)
				wantIs(t, "Copy", err, store.ErrBroken, tt.copyErr, "run the tool again")
			}
			b, err := store.ReadAll(ctx, d, info.Ref)
			if b != nil {
				t.Errorf("ReadAll returned %d bytes of a damaged result", len(b))
			}
			wantIs(t, "ReadAll", err, store.ErrBroken)

			// Storing the same bytes again repairs it.
			putBytes(t, d, data)
			if got, err := store.ReadAll(ctx, d, info.Ref); err != nil || !bytes.Equal(got, data) {
				t.Errorf("ReadAll after storing again = %d bytes, %v; want the stored bytes", len(got), err)
			}
		})
	}
}

// flipHex changes the hex digit at i of s.
func flipHex(s string, i int) string {
	b := []byte(s)
	if b[i] == '0' {
		b[i] = '1'
	} else {
		b[i] = '0'
	}
	return string(b)
}

func TestChunkCache(t *testing.T) {
	// A verified chunk is kept: reading it again does not read the file
	// again (so damage after the check goes unseen), and moving to another
	// chunk drops it (so coming back reads and checks it again). The
	// object keeps the chunk when its verification is not remembered, as
	// for a file that changed within the racy margin: here one whose
	// modification time is ahead of the clock.
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(3, 2*store.ChunkSize)
	info := putBytes(t, d, data)
	ahead := func(h time.Duration) {
		t.Helper()
		at := time.Now().Add(h)
		if err := os.Chtimes(store.BlobPath(d, info.Ref), at, at); err != nil {
			t.Fatal(err)
		}
	}
	ahead(time.Hour)
	obj, err := d.Open(context.Background(), info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	p := make([]byte, 10)
	if _, err := obj.ReadAt(p, 0); err != nil {
		t.Fatal(err)
	}
	flipByte(t, store.BlobPath(d, info.Ref), 5)
	ahead(2 * time.Hour)
	if _, err := obj.ReadAt(p, 100); err != nil {
		t.Errorf("second read in the same chunk: %v; want it served from the verified chunk", err)
	}
	if _, err := obj.ReadAt(p, store.ChunkSize); err != nil {
		t.Fatal(err)
	}
	_, err = obj.ReadAt(p, 0)
	wantIs(t, "reading the damaged chunk again", err, store.ErrBroken, "chunk 0")
}

func TestExpiry(t *testing.T) {
	clock := storetest.NewClock(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
	d := openDir(t, store.DirOptions{Now: clock.Now, TTL: time.Hour, ManualGC: true})
	ctx := context.Background()
	data := []byte("short-lived")
	info := putBytes(t, d, data)
	clock.Advance(time.Hour)
	if _, err := d.Stat(ctx, info.Ref); err != nil {
		t.Errorf("Stat exactly at the TTL: %v; want found", err)
	}
	clock.Advance(time.Minute)
	obj, err := d.Open(ctx, info.Ref)
	if obj != nil {
		t.Fatal("Open of an expired result returned an object")
	}
	wantIs(t, "Open", err, store.ErrMissing, "expired", "run the tool again")
	_, err = d.Stat(ctx, info.Ref)
	wantIs(t, "Stat", err, store.ErrMissing, "expired")
	// The files are still there until GC runs, yet no read finds them.
	if _, err := os.Stat(store.BlobPath(d, info.Ref)); err != nil {
		t.Fatalf("expected the content file to remain until GC: %v", err)
	}
	st, err := d.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Expired != 1 || st.BytesFreed != int64(len(data)) || st.ResultsKept != 0 {
		t.Errorf("GC = %+v; want 1 expired, %d bytes freed, none kept", st, len(data))
	}
	for _, p := range []string{store.BlobPath(d, info.Ref), store.RecordPath(d, info.Ref)} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("after GC, %s: %v; want it removed", p, err)
		}
	}
	_, err = d.Open(ctx, info.Ref)
	wantIs(t, "Open after GC", err, store.ErrMissing)
}

func TestEviction(t *testing.T) {
	type step struct {
		put  string // put content named so
		open string // open it
	}
	tests := []struct {
		name     string
		maxBytes int64
		steps    []step
		evicted  []string
		expired  []string
	}{
		{"fits", 400, []step{{put: "a"}, {put: "b"}, {put: "c"}, {put: "d"}}, nil, nil},
		{"oldest first", 250, []step{{put: "a"}, {put: "b"}, {put: "c"}, {put: "d"}}, []string{"a", "b"}, nil},
		{"open refreshes", 250, []step{{put: "a"}, {put: "b"}, {put: "c"}, {put: "d"}, {open: "a"}}, []string{"b", "c"}, nil},
		{"put refreshes", 250, []step{{put: "a"}, {put: "b"}, {put: "c"}, {put: "d"}, {put: "b"}}, []string{"a", "c"}, nil},
		{"never the newest", 50, []step{{put: "a"}, {put: "b"}, {put: "c"}}, []string{"a", "b"}, nil},
		{"expired first", 250, []step{{put: "old"}, {put: "a"}, {put: "b"}, {put: "c"}}, []string{"a"}, []string{"old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			clock := storetest.NewClock(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
			// Stored under a cap they fit, so that no Put evicts, then
			// collected under the cap of the test.
			dir := filepath.Join(t.TempDir(), "store")
			d := openDirAt(t, dir, store.DirOptions{Now: clock.Now, TTL: time.Hour, MaxBytes: 1 << 20, ManualGC: true})
			content := func(name string) []byte { return bytes.Repeat([]byte(name[:1]), 100) }
			names := map[string]bool{}
			for _, s := range tt.steps {
				if s.put != "" {
					c := content(s.put)
					if s.put == "old" {
						c = []byte("this one expires")
					}
					putBytes(t, d, c)
					names[s.put] = true
				} else {
					obj, err := d.Open(ctx, storetest.RefFor(content(s.open)))
					if err != nil {
						t.Fatal(err)
					}
					obj.Close()
				}
				if s.put == "old" { // past its TTL by the time of the GC
					clock.Advance(61 * time.Minute)
				} else {
					clock.Advance(time.Minute)
				}
			}
			d.Close()
			d = openDirAt(t, dir, store.DirOptions{Now: clock.Now, TTL: time.Hour, MaxBytes: tt.maxBytes, ManualGC: true})
			st, err := d.GC(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Evicted != len(tt.evicted) || st.Expired != len(tt.expired) {
				t.Errorf("GC = %+v; want %d evicted, %d expired", st, len(tt.evicted), len(tt.expired))
			}
			for name := range names {
				c := content(name)
				if name == "old" {
					c = []byte("this one expires")
				}
				_, err := d.Stat(ctx, storetest.RefFor(c))
				gone := slices.Contains(tt.evicted, name) || slices.Contains(tt.expired, name)
				if gone {
					wantIs(t, "Stat of "+name, err, store.ErrMissing)
				} else if err != nil {
					t.Errorf("Stat of %s: %v; want it kept", name, err)
				}
			}
			var kept int64
			for name := range names {
				if !slices.Contains(tt.evicted, name) && !slices.Contains(tt.expired, name) {
					kept += 100
				}
			}
			if st.BytesKept != kept {
				t.Errorf("GC BytesKept = %d, want %d", st.BytesKept, kept)
			}
		})
	}
}

func TestGCThrottle(t *testing.T) {
	clock := storetest.NewClock(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "store")
	opts := store.DirOptions{Now: clock.Now, TTL: time.Hour, GCEvery: 10 * time.Minute, ManualGC: true}
	d := openDirAt(t, path, opts)
	other := openDirAt(t, path, opts) // another process sharing the directory
	ctx := context.Background()
	info := putBytes(t, d, []byte("expires"))
	clock.Advance(2 * time.Hour)

	if !d.GCDue() {
		t.Fatal("GCDue = false in a store never collected")
	}
	if !d.MaybeGC() {
		t.Fatal("first MaybeGC did not start a collection")
	}
	if d.MaybeGC() {
		t.Error("second MaybeGC right after the first started another collection")
	}
	if other.MaybeGC() {
		t.Error("MaybeGC of another instance right after the first started another collection")
	}
	d.Wait()
	if _, err := os.Stat(store.RecordPath(d, info.Ref)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the background collection did not remove the expired result: %v", err)
	}
	if d.GCDue() || other.GCDue() {
		t.Error("GCDue = true right after a collection")
	}
	clock.Advance(9 * time.Minute)
	if d.MaybeGC() {
		t.Error("MaybeGC started a collection 9 minutes after the last, with GCEvery 10 minutes")
	}
	clock.Advance(2 * time.Minute)
	if !other.GCDue() {
		t.Error("GCDue = false 11 minutes after the last collection")
	}
	if !other.MaybeGC() {
		t.Error("MaybeGC did not start a collection 11 minutes after the last")
	}
	other.Wait()
	// A direct GC is never throttled.
	if st, err := d.GC(ctx); err != nil || st.Skipped {
		t.Errorf("GC = %+v, %v; want it to run", st, err)
	}
}

func TestPutTriggersGC(t *testing.T) {
	clock := storetest.NewClock(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
	d := openDir(t, store.DirOptions{Now: clock.Now, TTL: time.Hour})
	old := putBytes(t, d, []byte("old"))
	d.Wait()
	clock.Advance(2 * time.Hour)
	putBytes(t, d, []byte("new")) // GC is due: Put starts one
	d.Wait()
	if _, err := os.Stat(store.RecordPath(d, old.Ref)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Put did not trigger a collection of the expired result: %v", err)
	}
	m := openDir(t, store.DirOptions{Now: clock.Now, TTL: time.Hour, ManualGC: true})
	old = putBytes(t, m, []byte("old"))
	clock.Advance(2 * time.Hour)
	putBytes(t, m, []byte("new"))
	m.Wait()
	if _, err := os.Stat(store.RecordPath(m, old.Ref)); err != nil {
		t.Errorf("with ManualGC, Put collected anyway: %v", err)
	}
}

func TestCloseWaitsForGC(t *testing.T) {
	var buf lockedBuffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d, err := store.OpenDir(filepath.Join(t.TempDir(), "s"), store.DirOptions{Logger: logger, ManualGC: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		putBytes(t, d, []byte(fmt.Sprint(i)))
	}
	if !d.MaybeGC() {
		t.Fatal("MaybeGC did not start")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "collected") {
		t.Errorf("Close returned before the background collection ended; log: %q", buf.String())
	}
	if d.MaybeGC() {
		t.Error("MaybeGC started a collection after Close")
	}
	if d.GCDue() {
		t.Error("GCDue after a collection")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestGCRace runs Put of a result that GC is about to delete, concurrently
// with that GC, many times: the result must always survive, because GC
// re-checks each deletion under the commit lock that Put holds.
func TestGCRace(t *testing.T) {
	iters := 100
	if testing.Short() {
		iters = 30
	}
	ctx := context.Background()
	for _, mode := range []string{"expired", "evicted"} {
		t.Run(mode, func(t *testing.T) {
			clock := storetest.NewClock(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))
			d := openDir(t, store.DirOptions{Now: clock.Now, TTL: time.Hour, MaxBytes: 1500, ManualGC: true})
			for i := range iters {
				a := storetest.Content(uint64(i), 1000)
				b := storetest.Content(uint64(i+1<<20), 1000)
				putBytes(t, d, a)
				clock.Advance(time.Minute)
				putBytes(t, d, b) // a is now the least recently used
				if mode == "expired" {
					clock.Advance(2 * time.Hour) // both expired
				} else {
					clock.Advance(time.Minute) // over MaxBytes: a must go
				}
				var wg sync.WaitGroup
				wg.Go(func() {
					if _, err := d.Put(ctx, bytes.NewReader(a), store.Meta{}); err != nil {
						t.Error(err)
					}
				})
				wg.Go(func() {
					if _, err := d.GC(ctx); err != nil {
						t.Error(err)
					}
				})
				wg.Wait()
				if got, err := store.ReadAll(ctx, d, storetest.RefFor(a)); err != nil || !bytes.Equal(got, a) {
					t.Fatalf("iteration %d: a result stored concurrently with GC was lost: %v", i, err)
				}
				d.Delete(ctx, storetest.RefFor(a))
				d.Delete(ctx, storetest.RefFor(b))
			}
		})
	}
}

func TestGCPurgesBrokenAndOrphans(t *testing.T) {
	clock := storetest.NewClock(time.Now())
	d := openDir(t, store.DirOptions{Now: clock.Now, ManualGC: true})
	ctx := context.Background()
	healthy := putBytes(t, d, []byte("healthy"))
	garbage := putBytes(t, d, []byte("garbage record"))
	noBlob := putBytes(t, d, []byte("content file removed"))
	short := putBytes(t, d, []byte("content file cut short"))
	os.WriteFile(store.RecordPath(d, garbage.Ref), []byte("]["), 0o600)
	os.Remove(store.BlobPath(d, noBlob.Ref))
	os.Truncate(store.BlobPath(d, short.Ref), 3)

	// An orphan content file and stale temp files, and fresh ones.
	oldOrphan := storetest.RefFor([]byte("old orphan"))
	newOrphan := storetest.RefFor([]byte("new orphan"))
	for _, ref := range []store.Ref{oldOrphan, newOrphan} {
		p := store.BlobPath(d, ref)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte("orphan"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	oldTemp := filepath.Join(d.Path(), "tmp", "put-stale")
	newTemp := filepath.Join(d.Path(), "tmp", "put-fresh")
	recTemp := filepath.Join(d.Path(), "tmp", "rec-left")
	os.WriteFile(oldTemp, []byte("x"), 0o600)
	os.WriteFile(newTemp, nil, 0o600) // a Put yet to lock it has written nothing
	os.WriteFile(recTemp, []byte("x"), 0o600)
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(store.BlobPath(d, oldOrphan), past, past)
	os.Chtimes(oldTemp, past, past)

	// A Put in progress whose temp file looks stale: it is locked, so kept.
	release := make(chan struct{})
	putDone := make(chan error, 1)
	slowData := storetest.Content(5, 1000)
	go func() {
		_, err := d.Put(ctx, io.MultiReader(bytes.NewReader(slowData[:500]), &blockingReader{release, bytes.NewReader(slowData[500:])}), store.Meta{})
		putDone <- err
	}()
	inflight := waitForTemp(t, d, 500)
	os.Chtimes(inflight, past, past)

	st, err := d.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.BrokenPurged != 3 || st.ResultsKept != 1 || st.Scanned != 4 || st.Leftovers != 4 {
		t.Errorf("GC = %+v; want 3 broken purged, 1 kept of 4 scanned, 4 leftovers removed", st)
	}
	if st.BytesInProgress != 500 {
		t.Errorf("GC BytesInProgress = %d, want the 500 bytes of the Put in progress (the fresh empty temp file holds none)", st.BytesInProgress)
	}
	for _, ref := range []store.Ref{garbage.Ref, noBlob.Ref, short.Ref} {
		_, err := d.Stat(ctx, ref)
		wantIs(t, "Stat of a purged result", err, store.ErrMissing)
		if _, err := os.Stat(store.BlobPath(d, ref)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("content file of purged %s remains", ref)
		}
	}
	for path, want := range map[string]bool{
		// Under the exclusive commit lock no writer owns a content file
		// without a record, however new; a Put's temp file is a leftover
		// once unlocked and holding bytes or older than a minute, any
		// other at once.
		store.BlobPath(d, oldOrphan): false, store.BlobPath(d, newOrphan): false,
		oldTemp: false, newTemp: true, inflight: true, recTemp: false,
	} {
		_, err := os.Stat(path)
		if got := err == nil; got != want {
			t.Errorf("after GC, %s exists = %v, want %v", path, got, want)
		}
	}
	close(release)
	if err := <-putDone; err != nil {
		t.Errorf("Put whose temp file GC saw: %v", err)
	}
	if got, err := store.ReadAll(ctx, d, storetest.RefFor(slowData)); err != nil || !bytes.Equal(got, slowData) {
		t.Errorf("ReadAll after the slow Put: %v", err)
	}
	if _, err := d.Stat(ctx, healthy.Ref); err != nil {
		t.Errorf("healthy result: %v", err)
	}
}

func TestNewerRecordFormat(t *testing.T) {
	// A record written by a newer program is neither missing nor broken,
	// and GC leaves it alone.
	d := openDir(t, store.DirOptions{ManualGC: true})
	ctx := context.Background()
	info := putBytes(t, d, []byte("from the future"))
	editRecord(t, d, info.Ref, func(m map[string]any) { m["v"] = 99 })
	_, err := d.Open(ctx, info.Ref)
	if err == nil || errors.Is(err, store.ErrBroken) || errors.Is(err, store.ErrMissing) || !strings.Contains(err.Error(), "upgrade") {
		t.Errorf("Open of a newer record: %v; want an error saying to upgrade", err)
	}
	st, err := d.GC(ctx)
	if err != nil || st.BrokenPurged != 0 {
		t.Errorf("GC = %+v, %v; want nothing purged", st, err)
	}
	if _, err := os.Stat(store.RecordPath(d, info.Ref)); err != nil {
		t.Errorf("GC removed a newer program's record: %v", err)
	}
}

// blockingReader waits for release before reading from r.
type blockingReader struct {
	release chan struct{}
	r       io.Reader
}

func (b *blockingReader) Read(p []byte) (int, error) {
	<-b.release
	return b.r.Read(p)
}

// waitForTemp waits until a temp file of at least n bytes appears in d's
// tmp directory and returns its path.
func waitForTemp(t *testing.T, d *store.Dir, n int64) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(filepath.Join(d.Path(), "tmp"))
		for _, e := range ents {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "put-") && fi.Size() >= n && !strings.Contains(e.Name(), "stale") && !strings.Contains(e.Name(), "fresh") {
				return filepath.Join(d.Path(), "tmp", e.Name())
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no temp file appeared")
	return ""
}

// files lists the regular files under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestAtomicity(t *testing.T) {
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	data := storetest.Content(6, 2*store.ChunkSize+5)
	stored := func() []string {
		return slices.Concat(files(t, filepath.Join(d.Path(), "objects")), files(t, filepath.Join(d.Path(), "meta")))
	}

	// While a Put streams, nothing of it is visible but its temp file.
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := d.Put(ctx, io.MultiReader(bytes.NewReader(data[:store.ChunkSize+10]), &blockingReader{release, bytes.NewReader(data[store.ChunkSize+10:])}), store.Meta{})
		done <- err
	}()
	waitForTemp(t, d, store.ChunkSize+10)
	if got := stored(); len(got) != 0 {
		t.Errorf("while a Put streams, the store shows %v", got)
	}
	if _, err := d.Stat(ctx, storetest.RefFor(data)); !errors.Is(err, store.ErrMissing) {
		t.Errorf("Stat during Put: %v, want ErrMissing", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := stored(); len(got) != 2 {
		t.Errorf("after Put, the store holds %v; want one content file and one record", got)
	}
	if got := files(t, filepath.Join(d.Path(), "tmp")); len(got) != 0 {
		t.Errorf("after Put, temp files remain: %v", got)
	}

	// A cancelled Put and a failed source leave nothing at all.
	d2 := openDir(t, store.DirOptions{ManualGC: true})
	cctx, cancel := context.WithCancel(ctx)
	n := 0
	src := readerFunc(func(p []byte) (int, error) {
		n++
		if n == 20 {
			cancel()
		}
		return copy(p, data[:min(len(p), 1000)]), nil
	})
	if _, err := d2.Put(cctx, src, store.Meta{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Put: %v", err)
	}
	failing := io.MultiReader(bytes.NewReader(data), readerFunc(func([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }))
	if _, err := d2.Put(ctx, failing, store.Meta{}); !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "store: reading result") {
		t.Errorf("Put from a failing source: %v", err)
	}
	if got := files(t, d2.Path()); len(slices.DeleteFunc(got, func(s string) bool { return s == "lock" })) != 0 {
		t.Errorf("after a cancelled and a failed Put, the store directory holds %v", got)
	}
}

type readerFunc func(p []byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestOpenDirErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{file, filepath.Join(file, "store")} {
		_, err := store.OpenDir(path, store.DirOptions{})
		if err == nil {
			t.Errorf("OpenDir(%s) succeeded; want an error", path)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "store: ") || !strings.Contains(msg, "not a directory") || !strings.Contains(msg, "writable directory") {
			t.Errorf("OpenDir(%s) error %q: want it to say what is wrong and what to do", path, msg)
		}
	}
	if _, err := store.OpenDir("", store.DirOptions{}); err == nil {
		t.Error("OpenDir(\"\") succeeded")
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("CRUMB_STORE", "/some/where")
	if p, err := store.DefaultPath(); err != nil || p != "/some/where" {
		t.Errorf("DefaultPath with CRUMB_STORE set = %q, %v", p, err)
	}
	t.Setenv("CRUMB_STORE", "")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no user cache directory:", err)
	}
	if p, err := store.DefaultPath(); err != nil || p != filepath.Join(cache, "crumb") {
		t.Errorf("DefaultPath = %q, %v; want %q", p, err, filepath.Join(cache, "crumb"))
	}
}

// genReader produces n deterministic bytes without holding them: a 64 KiB
// random block stamped with its block number.
type genReader struct {
	block []byte
	off   int64
	n     int64
}

func newGenReader(n int64) *genReader {
	return &genReader{block: storetest.Content(42, 64<<10), n: n}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.n {
		return 0, io.EOF
	}
	total := 0
	for len(p) > 0 && g.off < g.n {
		bi, bo := g.off/int64(len(g.block)), g.off%int64(len(g.block))
		k := copy(p[:min(int64(len(p)), g.n-g.off)], g.block[bo:])
		for j := 0; j < k; j++ {
			if pos := bo + int64(j); pos < 8 {
				p[j] = byte(bi >> (8 * pos))
			} else {
				break
			}
		}
		p, g.off, total = p[k:], g.off+int64(k), total+k
	}
	return total, nil
}

func TestLargeStreamBoundedMemory(t *testing.T) {
	size := int64(300 << 20)
	if testing.Short() {
		size = 40 << 20
	}
	ctx := context.Background()
	d := openDir(t, store.DirOptions{ManualGC: true})
	want := listDigestOf(t, newGenReader(size))

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	info, err := d.Put(ctx, newGenReader(size), store.Meta{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest != want || info.Size != size {
		t.Fatalf("Put of a %d MB stream: digest %.12s size %d; want %.12s %d", size>>20, info.Digest, info.Size, want, size)
	}
	const bound = 8 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("Put of a %d MB stream allocated %d MB; want under %d MB", size>>20, alloc>>20, bound>>20)
	}

	runtime.ReadMemStats(&before)
	obj, err := d.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	got := make(chan string)
	go func() { got <- listDigestOf(t, pr) }()
	n, err := store.Copy(ctx, obj, pw)
	pw.Close()
	obj.Close()
	runtime.ReadMemStats(&after)
	if err != nil || n != size || <-got != want {
		t.Fatalf("Copy = %d, %v; want %d verified bytes", n, err, size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("Open and Copy of a %d MB result allocated %d MB; want under %d MB", size>>20, alloc>>20, bound>>20)
	}

	// Reading a page from the middle costs about one chunk.
	runtime.ReadMemStats(&before)
	for range 5 {
		obj, err := d.Open(ctx, info.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := obj.ReadAt(make([]byte, 64<<10), size/2); err != nil {
			t.Fatal(err)
		}
		obj.Close()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 5; per > store.ChunkSize+512<<10 {
		t.Errorf("Open and ReadAt of 64 KB allocated %d KB; want about one chunk (%d KB)", per>>10, store.ChunkSize>>10)
	}
}

// listDigestOf computes the store's digest of a stream, independently of the
// store: the SHA-256 of the SHA-256 digests of its chunks.
func listDigestOf(t testing.TB, r io.Reader) string {
	t.Helper()
	outer := sha256.New()
	buf := make([]byte, store.ChunkSize)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			s := sha256.Sum256(buf[:n])
			outer.Write(s[:])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return hex.EncodeToString(outer.Sum(nil))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
