package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// GCDue reports whether the last collection by any process sharing the
// directory started longer than GCEvery ago (or never happened). A
// short-lived program can use it to decide to start a detached collector.
func (d *Dir) GCDue() bool {
	fi, err := os.Lstat(d.gcStamp)
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
	f, _, err := openRegular(d.gcStamp, os.O_WRONLY|os.O_CREATE, 0o600)
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
		st, err := d.gc(context.Background(), d.maxBytes)
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
	fi, err := os.Lstat(d.blobPath(ref))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return e, stateUnreadable
	}
	if err != nil || checkBlob(ref, info, fi) != nil {
		e.size = d.blobSize(ref)
		return e, stateBroken
	}
	return e, stateLive
}

// blobSize returns the bytes the content file of ref takes (a symbolic
// link's own size, never its target's), or 0 when there is none.
func (d *Dir) blobSize(ref Ref) int64 {
	fi, err := os.Lstat(d.blobPath(ref))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// GC collects garbage: it removes expired results, then evicts the least
// recently used until the store fits MaxBytes (never the most recently
// used one), purges results whose record or content file is damaged, and
// removes the leftovers of interrupted writes: content files without a
// record and temp files that no writer holds. The temp files of writes in
// progress count against the cap; those of writers that died do not, and
// never push a finished result out. Only one process collects at a time: if
// another is collecting, GC returns at once with Skipped set. If ctx ends
// first, GC stops where it is and returns with Partial set.
func (d *Dir) GC(ctx context.Context) (GCStats, error) {
	if err := d.checkOpen(); err != nil {
		return GCStats{}, err
	}
	return d.gc(ctx, d.maxBytes)
}

// tempGrace is how old an empty temp file of a Put must be before GC asks
// whether its writer is alive: a Put locks its temp file right after
// creating it, before it writes a byte, and GC must not take the lock in
// between. A temp file that holds bytes is locked already, so GC asks at
// once: the bytes of a writer that died a moment ago never count as a write
// in progress.
const tempGrace = time.Minute

// tempFile is a file in tmp/.
type tempFile struct {
	path string
	size int64
	// dead means no writer holds it: a Put's temp file that is unlocked
	// and holds bytes or is older than tempGrace, or any other temp file (records and settings
	// are written under the commit lock, so they are dead once GC holds it
	// exclusively).
	dead bool
}

// storeScan is what a pass over the whole store found.
type storeScan struct {
	scanned               int
	live, expired, broken []gcEntry
	orphans               []gcEntry // content files without a record
	temps                 []tempFile
	usage                 int64 // the recorded usage when the scan began
}

// scan classifies every record, content file and temp file of the store,
// without the commit lock: every decision to delete is re-checked under it.
func (d *Dir) scan(ctx context.Context, now time.Time) (storeScan, error) {
	sc := storeScan{usage: d.readUsage()}
	records := make(map[Ref]bool)
	err := d.walkRecords(ctx, func(ref Ref, _ string) error {
		sc.scanned++
		records[ref] = true
		e, state := d.classify(ref, now)
		switch state {
		case stateLive:
			sc.live = append(sc.live, e)
		case stateExpired:
			sc.expired = append(sc.expired, e)
		case stateBroken:
			sc.broken = append(sc.broken, e)
		}
		return nil
	})
	if err != nil {
		return sc, err
	}
	err = d.walkShards(ctx, d.objects, func(name, path string) error {
		ref, err := ParseRef(name)
		if err != nil || string(ref) != name || records[ref] {
			return nil
		}
		if fi, err := os.Lstat(path); err == nil {
			sc.orphans = append(sc.orphans, gcEntry{ref: ref, size: fi.Size()})
		}
		return nil
	})
	if err != nil {
		return sc, err
	}
	ents, err := os.ReadDir(d.tmp)
	if err != nil {
		return sc, fmt.Errorf("store: listing %s: %w", d.tmp, err)
	}
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return sc, err
		}
		if fi, err := e.Info(); err == nil && !fi.IsDir() {
			path := filepath.Join(d.tmp, e.Name())
			sc.temps = append(sc.temps, tempFile{path: path, size: fi.Size(), dead: d.deadTemp(path, fi)})
		}
	}
	return sc, nil
}

// deadTemp reports whether no writer holds the temp file at path, as fi
// describes it. A Put locks its temp file before writing to it, so one that
// holds bytes and is unlocked belongs to a writer that died (or was
// killed), however young it is; only an empty one gets tempGrace. File ages
// are measured by the system clock, which set their modification times, not
// by DirOptions.Now.
func (d *Dir) deadTemp(path string, fi fs.FileInfo) bool {
	if !strings.HasPrefix(fi.Name(), "put-") || !fi.Mode().IsRegular() {
		return true
	}
	if fi.Size() == 0 && time.Since(fi.ModTime()) <= tempGrace {
		return false
	}
	f, _, err := openRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	ok, _ := tryLockFile(f)
	return ok
}

func sumSizes(list []gcEntry) int64 {
	var n int64
	for _, e := range list {
		n += e.size
	}
	return n
}

// gc collects, evicting down to target bytes.
func (d *Dir) gc(ctx context.Context, target int64) (GCStats, error) {
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
	sc, err := d.scan(ctx, now)
	st.Scanned = sc.scanned
	if ctx.Err() != nil {
		st.Partial = true
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("store: gc: %w", err)
	}
	d.collectSide(now, &st)
	var tempBytes int64
	dead := false
	for _, t := range sc.temps {
		tempBytes += t.size
		dead = dead || t.dead
	}
	live := sc.live
	if dead || len(sc.expired)+len(sc.broken)+len(sc.orphans) > 0 || sumSizes(live)+tempBytes > target {
		lk, err := lockPath(d.lockFile, true)
		if err != nil {
			return st, fmt.Errorf("store: gc: %w", err)
		}
		defer lk.Close()
		now = d.now()
		if tempBytes, err = d.collect(ctx, &st, now, &live, sc, target); err != nil {
			return st, err
		}
	}
	st.ResultsKept = len(live)
	st.BytesKept = sumSizes(live)
	st.BytesInProgress = tempBytes
	if !st.Partial {
		// What Puts added since the scan began is not in the count.
		kept := st.BytesKept + tempBytes
		if _, err := d.changeUsage(func(u int64) int64 { return kept + max(0, u-sc.usage) }); err != nil {
			d.log.Warn("store: cannot record the store's usage", "dir", d.root, "err", err)
		}
	}
	return st, nil
}

// collect deletes, under the exclusive commit lock, whatever still deserves
// it once re-checked, and evicts down to target bytes. live is updated to
// what is kept; it returns the bytes of the temp files kept.
func (d *Dir) collect(ctx context.Context, st *GCStats, now time.Time, live *[]gcEntry, sc storeScan, target int64) (int64, error) {
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
	var tempBytes int64
	for _, t := range sc.temps {
		tempBytes += t.size
	}
	if ok, err := purge(sc.expired, stateExpired, &st.Expired); !ok {
		return tempBytes, err
	}
	if ok, err := purge(sc.broken, stateBroken, &st.BrokenPurged); !ok {
		return tempBytes, err
	}

	// Leftovers. Every Put commits under the shared commit lock, so while
	// GC holds it exclusively a content file without a record belongs to
	// no writer.
	for _, e := range sc.orphans {
		if ctx.Err() != nil {
			st.Partial = true
			return tempBytes, nil
		}
		if _, err := os.Lstat(d.recordPath(e.ref)); !errors.Is(err, fs.ErrNotExist) {
			continue // committed since the scan
		}
		if err := os.Remove(d.blobPath(e.ref)); err == nil {
			st.Leftovers++
			st.BytesFreed += e.size
		}
	}
	for _, t := range sc.temps {
		if !t.dead {
			continue
		}
		// Re-check: a file may have been replaced under the same name.
		if fi, err := os.Lstat(t.path); err != nil || fi.IsDir() || !d.deadTemp(t.path, fi) {
			continue
		}
		if err := os.Remove(t.path); err == nil {
			st.Leftovers++
			st.BytesFreed += t.size
			tempBytes -= t.size
		}
	}

	// Evict least recently used first, never the most recently used. The
	// temp files of writes in progress count against the cap.
	l := *live
	slices.SortFunc(l, func(a, b gcEntry) int { return a.used.Compare(b.used) })
	total := sumSizes(l) + tempBytes
	kept := l[:0:0]
	for i, e := range l {
		if total <= target || i == len(l)-1 {
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
				return tempBytes, fmt.Errorf("store: gc: %w", err)
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
	return tempBytes, nil
}

// Usage describes the disk space a store takes.
type Usage struct {
	// Results and ResultBytes count the results it holds.
	Results     int   `json:"results"`
	ResultBytes int64 `json:"result_bytes"`
	// Leftovers and LeftoverBytes count the files that hold no readable
	// result: temp files of interrupted writes, content files without a
	// record, expired and damaged results. They count against the size cap
	// until a collection removes them.
	Leftovers     int   `json:"leftovers"`
	LeftoverBytes int64 `json:"leftover_bytes"`
	// InProgress and InProgressBytes count the temp files of writes still
	// in progress, which count against the size cap too.
	InProgress      int   `json:"in_progress"`
	InProgressBytes int64 `json:"in_progress_bytes"`
}

// Usage counts what the store holds on disk, results and leftovers.
func (d *Dir) Usage(ctx context.Context) (Usage, error) {
	if err := d.checkOpen(); err != nil {
		return Usage{}, err
	}
	sc, err := d.scan(ctx, d.now())
	if err != nil {
		return Usage{}, fmt.Errorf("store: counting usage: %w", err)
	}
	u := Usage{Results: len(sc.live), ResultBytes: sumSizes(sc.live)}
	for _, list := range [][]gcEntry{sc.expired, sc.broken, sc.orphans} {
		u.Leftovers += len(list)
		u.LeftoverBytes += sumSizes(list)
	}
	for _, t := range sc.temps {
		if t.dead {
			u.Leftovers++
			u.LeftoverBytes += t.size
		} else {
			u.InProgress++
			u.InProgressBytes += t.size
		}
	}
	return u, nil
}
