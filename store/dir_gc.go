package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// GCDue reports whether the last collection by any process sharing the
// directory started longer than GCEvery ago (or never happened). A
// short-lived program can use it to decide to start a detached collector.
func (d *Dir) GCDue() bool {
	fi, err := os.Stat(d.gcStamp)
	if err != nil {
		return true
	}
	age := d.now().Sub(fi.ModTime())
	// A stamp far in the future means the clock was set back: do not let it
	// stop collection until the clock catches up.
	return age >= d.gcEvery || age < -d.gcEvery
}

// touchStamp records that a collection starts now.
func (d *Dir) touchStamp(now time.Time) error {
	f, err := os.OpenFile(d.gcStamp, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	return os.Chtimes(d.gcStamp, now, now)
}

// MaybeGC starts a collection in a background goroutine if one is due (see
// [Dir.GCDue]) and none is running in this process, and reports whether it
// started one. It never blocks on a collection. Put calls it after every
// commit unless DirOptions.ManualGC is set.
func (d *Dir) MaybeGC() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed.Load() || d.gcDone != nil || !d.GCDue() {
		return false
	}
	// Claim this period now, so that other processes' MaybeGC stay quiet.
	if err := d.touchStamp(d.now()); err != nil {
		d.log.Warn("store: cannot start a collection", "dir", d.root, "err", err)
		return false
	}
	done := make(chan struct{})
	d.gcDone = done
	go func() {
		defer close(done)
		st, err := d.gc(context.Background())
		d.mu.Lock()
		d.gcDone = nil
		d.mu.Unlock()
		if err != nil {
			d.log.Warn("store: collection failed", "dir", d.root, "err", err)
			return
		}
		d.log.Debug("store: collected", "dir", d.root, "stats", st)
	}()
	return true
}

// Wait waits for a collection that MaybeGC started to finish.
func (d *Dir) Wait() {
	d.mu.Lock()
	done := d.gcDone
	d.mu.Unlock()
	if done != nil {
		<-done
	}
}

// entryState is what GC makes of a record.
type entryState int

const (
	stateLive entryState = iota
	stateGone
	stateExpired
	stateBroken
	stateUnreadable // an I/O error other than absence: leave it alone
)

type gcEntry struct {
	ref  Ref
	used time.Time
	size int64
}

// classify reads the record of ref and checks it and its blob's size.
// For a broken entry, size is the size of whatever blob is there.
func (d *Dir) classify(ref Ref, now time.Time) (gcEntry, entryState) {
	e := gcEntry{ref: ref}
	rec, mtime, err := d.readRecord(ref)
	var re *recordError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return e, stateGone
	case errors.As(err, &re):
		e.size = d.blobSize(ref)
		return e, stateBroken
	case err != nil:
		return e, stateUnreadable
	}
	info, err := validate(ref, rec, mtime)
	if errors.As(err, &re) && re.newer {
		return e, stateUnreadable // a newer program's: not ours to judge
	}
	if err != nil {
		e.size = d.blobSize(ref)
		return e, stateBroken
	}
	e.used, e.size = info.Used, info.Size
	if d.expired(info, now) {
		e.size = d.blobSize(ref)
		return e, stateExpired
	}
	fi, err := os.Stat(d.blobPath(ref))
	if err != nil || fi.Size() != info.Size {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return e, stateUnreadable
		}
		e.size = d.blobSize(ref)
		return e, stateBroken
	}
	return e, stateLive
}

func (d *Dir) blobSize(ref Ref) int64 {
	fi, err := os.Stat(d.blobPath(ref))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// GC collects garbage: it removes expired results, then evicts the least
// recently used until the stored bytes fit MaxBytes (never the most recently
// used one), removes content files without a record and temp files left for
// more than an hour (by the system clock), and purges results whose record or
// content file is damaged. Only one process collects at a time: if another is collecting, GC
// returns at once with Skipped set. If ctx ends first, GC stops where it is
// and returns with Partial set.
func (d *Dir) GC(ctx context.Context) (GCStats, error) {
	if err := d.checkOpen(); err != nil {
		return GCStats{}, err
	}
	return d.gc(ctx)
}

func (d *Dir) gc(ctx context.Context) (GCStats, error) {
	var st GCStats
	gl, ok, err := tryLockPath(d.gcLock)
	if err != nil {
		return st, fmt.Errorf("store: gc: %w", err)
	}
	if !ok {
		st.Skipped = true
		return st, nil
	}
	defer gl.Close()
	now := d.now()
	if err := d.touchStamp(now); err != nil {
		return st, fmt.Errorf("store: gc: %w", err)
	}

	// Scan without the commit lock; every decision is re-checked under it.
	var live, expired, broken []gcEntry
	records := make(map[Ref]bool)
	err = d.walkRecords(ctx, func(ref Ref, _ string) error {
		st.Scanned++
		records[ref] = true
		e, state := d.classify(ref, now)
		switch state {
		case stateLive:
			live = append(live, e)
		case stateExpired:
			expired = append(expired, e)
		case stateBroken:
			broken = append(broken, e)
		}
		return nil
	})
	if ctx.Err() != nil {
		st.Partial = true
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: gc: %w", err)
	}
	var orphans []gcEntry
	err = d.walkShards(ctx, d.objects, func(name, path string) error {
		ref, err := ParseRef(name)
		if err != nil || string(ref) != name || records[ref] {
			return nil
		}
		if fi, err := os.Lstat(path); err == nil && time.Since(fi.ModTime()) > orphanAge {
			orphans = append(orphans, gcEntry{ref: ref, size: fi.Size()})
		}
		return nil
	})
	if ctx.Err() != nil {
		st.Partial = true
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: gc: %w", err)
	}
	d.removeStaleTemps()

	var total int64
	for _, e := range live {
		total += e.size
	}
	if len(expired)+len(broken)+len(orphans) > 0 || total > d.maxBytes {
		lk, err := lockPath(d.lockFile, true)
		if err != nil {
			return st, fmt.Errorf("store: gc: %w", err)
		}
		defer lk.Close()
		now = d.now()
		if err := d.collect(ctx, &st, now, &live, expired, broken, orphans); err != nil {
			return st, err
		}
	}
	for _, e := range live {
		st.ResultsKept++
		st.BytesKept += e.size
	}
	return st, nil
}

// collect deletes, under the exclusive commit lock, whatever still deserves
// it once re-checked. live is updated to what is kept.
func (d *Dir) collect(ctx context.Context, st *GCStats, now time.Time, live *[]gcEntry, expired, broken, orphans []gcEntry) error {
	// purge deletes the entries of list that are still in state, counting
	// them in *n; one stored again since the scan is live again.
	purge := func(list []gcEntry, state entryState, n *int) (bool, error) {
		for _, e := range list {
			if ctx.Err() != nil {
				st.Partial = true
				return false, nil
			}
			cur, got := d.classify(e.ref, now)
			switch got {
			case state:
				if err := d.remove(e.ref); err != nil {
					return false, fmt.Errorf("store: gc: %w", err)
				}
				*n++
				st.BytesFreed += cur.size
			case stateLive:
				*live = append(*live, cur)
			}
		}
		return true, nil
	}
	if ok, err := purge(expired, stateExpired, &st.Expired); !ok {
		return err
	}
	if ok, err := purge(broken, stateBroken, &st.BrokenPurged); !ok {
		return err
	}

	// Evict least recently used first, never the most recently used.
	l := *live
	slices.SortFunc(l, func(a, b gcEntry) int { return a.used.Compare(b.used) })
	var total int64
	for _, e := range l {
		total += e.size
	}
	kept := l[:0:0]
	for i, e := range l {
		if total <= d.maxBytes || i == len(l)-1 {
			kept = append(kept, l[i:]...)
			break
		}
		if ctx.Err() != nil {
			st.Partial = true
			kept = append(kept, l[i:]...)
			break
		}
		cur, state := d.classify(e.ref, now)
		switch {
		case state == stateLive && cur.used.Equal(e.used):
			if err := d.remove(e.ref); err != nil {
				return fmt.Errorf("store: gc: %w", err)
			}
			st.Evicted++
			st.BytesFreed += e.size
			total -= e.size
		case state == stateLive: // used since the scan: now the most recent
			kept = append(kept, cur)
		case state == stateGone:
			total -= e.size
		default:
			kept = append(kept, e)
		}
	}
	*live = kept

	for _, e := range orphans {
		if ctx.Err() != nil {
			st.Partial = true
			return nil
		}
		if _, err := os.Lstat(d.recordPath(e.ref)); !errors.Is(err, fs.ErrNotExist) {
			continue // committed since the scan
		}
		path := d.blobPath(e.ref)
		if fi, err := os.Lstat(path); err != nil || time.Since(fi.ModTime()) <= orphanAge {
			continue
		}
		if err := os.Remove(path); err == nil {
			st.BytesFreed += e.size
		}
	}
	return nil
}

// removeStaleTemps removes temp files older than orphanAge that no Put holds
// locked. File ages are measured by the system clock, which set their
// modification times, not by DirOptions.Now.
func (d *Dir) removeStaleTemps() {
	ents, err := os.ReadDir(d.tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) <= orphanAge {
			continue
		}
		path := filepath.Join(d.tmp, e.Name())
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if ok, _ := tryLockFile(f); ok {
			os.Remove(path)
		}
		f.Close()
	}
}
