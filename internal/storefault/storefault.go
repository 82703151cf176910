//go:build linux

// Package storefault makes the stores crumb must survive, for the
// fault-injection tests of every surface (the library's Guard, crumb project
// and run, crumb serve, crumb mcp): a store that is unavailable, one that is
// full, one that is read-only and one that evicts results as they are
// written. Each is real: a stopped redis-server, a small tmpfs filled to the
// last block, a read-only mount, a redis-server under maxmemory with writers
// filling it. Each fault gives the value a --store flag (or CRUMB_STORE)
// takes.
//
// The full and read-only stores are mounts, which need root: without it
// their tests are skipped with a message that says so.
package storefault

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// A Fault makes a store that fails in one way.
type Fault struct {
	// Name names the fault: "unavailable", "full", "read-only", "evicting".
	Name string
	// Make makes the store for a test and returns its --store value; it
	// skips the test when the fault cannot be made here.
	Make func(t testing.TB) string
	// MayKeep reports that the store may still keep some results (an
	// evicting Redis keeps those it does not evict); the others keep none.
	MayKeep bool
}

// Faults are the four faults, in a fixed order.
var Faults = []Fault{
	{Name: "unavailable", Make: Unavailable},
	{Name: "full", Make: Full},
	{Name: "read-only", Make: ReadOnly},
	{Name: "evicting", Make: Evicting, MayKeep: true},
}

// Unavailable returns the URL of a Redis that does not answer: a
// redis-server started on a loopback port and stopped again, so that
// nothing listens there.
func Unavailable(t testing.TB) string {
	t.Helper()
	srv := redistest.Start(t)
	url := srv.URL(0)
	srv.Stop()
	return url
}

// mount mounts a tmpfs of size bytes at a new directory and unmounts it
// when the test ends. It skips the test when this process may not mount.
func mount(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("SKIP: a full or read-only store is a tmpfs mount, which needs root (euid %d)", os.Geteuid())
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("SKIP: mounting a tmpfs for a full or read-only store is not permitted here: %v", err)
		}
		t.Fatalf("mounting a tmpfs at %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// newStoreDir makes a directory store at dir, as a first use of it would,
// and closes it.
func newStoreDir(t testing.TB, dir string) {
	t.Helper()
	d, err := store.OpenDir(dir, store.DirOptions{ManualGC: true})
	if err != nil {
		t.Fatalf("making the store at %s: %v", dir, err)
	}
	d.Close()
}

// Full returns a store directory on a disk with no room left: a store made
// on a 512 KiB tmpfs, and the rest of the tmpfs taken by a file beside it.
// It opens, and every result it is asked to keep fails to be written.
func Full(t testing.TB) string {
	t.Helper()
	mnt := mount(t, 512<<10)
	dir := filepath.Join(mnt, "store")
	newStoreDir(t, dir)
	f, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4<<10)
	for i := 0; i < 1<<10; i++ {
		if _, err := f.Write(block); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return dir
			}
			t.Fatal(err)
		}
	}
	t.Fatalf("the tmpfs at %s did not fill up", mnt)
	return ""
}

// ReadOnly returns a store directory on a read-only mount: a store made on
// a tmpfs that was then remounted read-only.
func ReadOnly(t testing.TB) string {
	t.Helper()
	mnt := mount(t, 4<<20)
	dir := filepath.Join(mnt, "store")
	newStoreDir(t, dir)
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NODEV, ""); err != nil {
		t.Fatalf("remounting %s read-only: %v", mnt, err)
	}
	return dir
}

// Evicting returns the URL of a Redis near its maxmemory (16 MB, policy
// allkeys-lru), with three writers filling it with keys that expire until
// the test ends: a result of a few MiB is evicted often, while it is
// written or while its view is built, and kept sometimes.
func Evicting(t testing.TB) string {
	t.Helper()
	return EvictingWith(t, "allkeys-lru", 16, 3)
}

// EvictingWith is Evicting with a maxmemory-policy, a maxmemory in MB and a
// number of writers.
func EvictingWith(t testing.TB, policy string, mb, writers int) string {
	t.Helper()
	srv := redistest.Start(t, "--maxmemory", fmt.Sprintf("%dmb", mb), "--maxmemory-policy", policy, "--maxmemory-samples", "10")
	Pressure(t, srv.Addr(), writers)
	return srv.URL(0) + "?namespace=" + redistest.Namespace()
}

// Pressure starts writers that fill the Redis at addr with keys of 256 KiB
// that expire (so that volatile-lru evicts them as well as allkeys-lru,
// and crumb's results beside them) until the test ends.
func Pressure(t testing.TB, addr string, writers int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			val := make([]byte, 256<<10)
			rand.Read(val)
			for i := 0; ctx.Err() == nil; i++ {
				// An OOM answer (nothing left to evict) is part of the
				// pressure, not a failure of the writer.
				c.Set(ctx, fmt.Sprintf("filler:%d:%d", w, i), val, time.Hour)
			}
		}()
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		c.Close()
	})
}

// Open opens the store a --store value names, as crumb's commands do, or,
// when it cannot be opened, the stand-in that says why
// (store.Unavailable). It closes the store when the test ends.
func Open(t testing.TB, where string) store.Store {
	t.Helper()
	var (
		st interface {
			store.Store
			Close() error
		}
		err error
	)
	if redisstore.IsURL(where) {
		st, err = redisstore.Open(context.Background(), where, redisstore.Options{})
	} else {
		st, err = store.OpenDir(where, store.DirOptions{ManualGC: true})
	}
	if err != nil {
		return store.NewUnavailable(where, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// EvictionRuns is how many results a test under eviction pressure puts
// through crumb: 200 (issue 20), 40 with -short, and 50 under -race, which
// makes each run and the writers' pressure beside it about 14 times slower
// (200 runs of the Guard's test took 346 s on 2 cores); .ci/run runs the
// eviction tests at 200 without -race.
func EvictionRuns() int {
	switch {
	case testing.Short():
		return 40
	case raceRuns:
		return 50
	}
	return 200
}

// Runs calls f(i) for every i from 0 to n-1, at most at of them at once,
// and returns when all have returned: the concurrent callers of a test
// under eviction pressure.
func Runs(n, at int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, at)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			f(i)
		}()
	}
	wg.Wait()
}
