package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// Defaults for the zero values of [DirOptions].
const (
	// DefaultTTL is how long a result is kept after its last use.
	DefaultTTL = 24 * time.Hour
	// DefaultMaxBytes is the size cap of a store.
	DefaultMaxBytes = 1 << 30
	// DefaultGCEvery is the least time between two automatic collections.
	DefaultGCEvery = 10 * time.Minute
)

// errNoLocks is returned by OpenDir on platforms without flock(2).
var errNoLocks = errors.New("store: the directory store needs flock(2), which this platform lacks")

// ErrNoStore is returned by OpenDir with DirOptions.NoCreate when the
// directory holds no store (it was never made, or it was deleted).
var ErrNoStore = errors.New("store: no store in this directory")

// errNotRegular means a file of the store is a symbolic link, a FIFO, a
// device or anything else but a regular file: the store never opens one.
var errNotRegular = errors.New("not a regular file")

// errUnsafeDir means other users could change the store's directory.
var errUnsafeDir = errors.New("store: the store directory is not safe to use")

// maxRecordSize is the largest record the store writes or reads. A record
// takes about 80 bytes per MiB stored plus its metadata, so this covers
// results of hundreds of gigabytes with large tool arguments.
const maxRecordSize = 64 << 20

// futureSlack is how far in the future a recorded use may lie (clocks of
// processes sharing a store differ a little) before the record is treated
// as expired: a use time far in the future would otherwise never expire.
const futureSlack = 5 * time.Minute

// recordVersion is the format version written in every record.
const recordVersion = 1

// DirOptions configures a [Dir]. The zero value of every field means its
// default.
//
// TTL and MaxBytes are the store's lifecycle settings, which every process
// sharing the directory must apply alike. A setting given here (non-zero) is
// used and written to the store's settings file (ROOT/settings.json), so
// that every later opener that leaves it zero uses it too; a zero setting
// takes the settings file's value, else the default. Delete the file to go
// back to the defaults.
type DirOptions struct {
	// TTL is how long a result is kept after its last use (default: the
	// store's settings file, else 24h).
	TTL time.Duration
	// MaxBytes is the size cap (default: the store's settings file, else 1
	// GiB): the bytes of stored results, of writes in progress and of
	// leftovers of interrupted ones. A Put that takes the store over it
	// evicts the least recently used results at once, down to 7/8 of the
	// cap, and GC evicts until the store fits. The most recently used result
	// is never evicted, so a single result larger than the cap stays
	// readable until something newer is stored or read.
	MaxBytes int64
	// GCEvery is the least time between two collections started by
	// [Dir.MaybeGC] (default 10 minutes).
	GCEvery time.Duration
	// ManualGC stops Put from calling [Dir.MaybeGC] after each commit. A
	// short-lived program sets it and asks [Dir.GCDue] instead, so that its
	// Close never waits for a collection. A Put that takes the store over
	// its size cap still evicts at once.
	ManualGC bool
	// NoCreate makes OpenDir fail with [ErrNoStore] instead of creating the
	// store when the directory or its subdirectories do not exist. A
	// collector sets it: collecting never creates a store.
	NoCreate bool
	// NoSync skips every fsync, trading durability for speed. It is meant
	// for tests and throwaway stores: after a crash of the machine a result
	// may read as missing or broken (never as wrong bytes, since every read
	// is verified).
	NoSync bool
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
	// Logger receives reports of background collections (default: none).
	Logger *slog.Logger
}

// Dir is the default [Store]: a directory on disk that several goroutines
// and several processes may share. Create one with [OpenDir].
//
// On-disk layout of a Dir rooted at ROOT (every directory 0700, every file
// 0600; "ab" stands for the first two hex digits of a ref):
//
//	ROOT/objects/ab/<ref>       blob: exactly the stored bytes, nothing else
//	ROOT/meta/ab/<ref>.json     record: the Info as JSON (format version "v",
//	                            full digest, size, per-chunk digests, created,
//	                            used, meta). Its presence means "committed".
//	                            Its modification time is the last use when that
//	                            is later than the "used" field: Open refreshes
//	                            the use by touching it, which is atomic, cheap
//	                            and safe across processes.
//	ROOT/meta/ab/<ref>.tally    counts added since the record was written
//	                            (Tally: the pages read back of it), which
//	                            Stat, Open and List add to its Meta.Attrs
//	ROOT/tmp/put-*              a Put streaming in; flock'ed by its writer
//	ROOT/tmp/rec-*              a record being written (under the commit lock)
//	ROOT/tmp/tal-*              a tally being written (likewise)
//	ROOT/tmp/set-*              a settings file being written (likewise)
//	ROOT/lock                   commit lock: Put and Open hold it shared while
//	                            they commit or open; Delete and GC hold it
//	                            exclusive while they delete, and GC re-checks
//	                            each record under it, so a result that a Put
//	                            or an Open just refreshed is never deleted.
//	ROOT/tally.lock             held by the one process replacing a tally
//	ROOT/gc.lock                held (LOCK_NB) by the one process collecting
//	ROOT/gc.stamp               its modification time is when GC last ran
//	ROOT/settings.json          the lifecycle settings (see DirOptions)
//	ROOT/usage                  the bytes the store holds, as last counted by
//	                            GC plus what Puts added since: an estimate
//	                            that lets a Put see it went over the cap
//
// The store opens only regular files (never a symbolic link, FIFO or
// device), reads no record larger than 64 MiB, and refuses a directory that
// other users may write to.
//
// Put writes the blob to a temp file while hashing it, then under the shared
// commit lock fsyncs it while it writes and fsyncs the record's temp file,
// renames the blob into objects/ (always, so a damaged blob is replaced by
// storing the same bytes again), fsyncs the directory, renames the record
// into meta/, fsyncs that directory and releases the lock.
// Deletion removes the record first and the blob second, so a reader never
// sees a record without its blob unless something outside the store removed
// it.
type Dir struct {
	root     string
	objects  string
	meta     string
	tmp      string
	lockFile string
	gcLock   string
	gcStamp  string
	settings string
	usage    string

	ttl      time.Duration
	maxBytes int64
	gcEvery  time.Duration
	manualGC bool
	noSync   bool
	now      func() time.Time
	log      *slog.Logger

	bufs sync.Pool // *[]byte of ChunkSize, used by Put

	syncs  atomic.Int64      // fsyncs made, of files and of directories (for tests)
	onSync func(name string) // called with a file's base name before it is synced (for tests)

	closed atomic.Bool
	mu     sync.Mutex    // guards gcDone and the closing handshake
	gcDone chan struct{} // closed when the background collection ends; nil if none
}

var _ Store = (*Dir)(nil)

// DefaultPath returns the directory the store uses unless told otherwise:
// $CRUMB_STORE when it is set, else "crumb" in the user's cache directory.
func DefaultPath() (string, error) {
	if p := os.Getenv("CRUMB_STORE"); p != "" {
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("store: finding the user cache directory: %w; set CRUMB_STORE to a writable directory", err)
	}
	return filepath.Join(cache, "crumb"), nil
}

// OpenDir opens the store in the directory at path, creating it (mode 0700)
// and its subdirectories as needed unless DirOptions.NoCreate is set. It
// refuses a directory that other users may write to, and applies the
// store's settings file as DirOptions describes.
func OpenDir(path string, opts DirOptions) (*Dir, error) {
	if !locksSupported {
		return nil, fmt.Errorf("store: opening %s: %w", path, errNoLocks)
	}
	if path == "" {
		return nil, errors.New("store: no store directory given")
	}
	if scheme := URLScheme(path); scheme != "" {
		if err := CheckLocation(path); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("store: %s:// names a store of another backend, not a directory; open it with that backend", scheme)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: store directory %q: %w", path, err)
	}
	d := &Dir{
		root:     abs,
		objects:  filepath.Join(abs, "objects"),
		meta:     filepath.Join(abs, "meta"),
		tmp:      filepath.Join(abs, "tmp"),
		lockFile: filepath.Join(abs, "lock"),
		gcLock:   filepath.Join(abs, "gc.lock"),
		gcStamp:  filepath.Join(abs, "gc.stamp"),
		settings: filepath.Join(abs, "settings.json"),
		usage:    filepath.Join(abs, "usage"),
		gcEvery:  opts.GCEvery,
		manualGC: opts.ManualGC,
		noSync:   opts.NoSync,
		now:      opts.Now,
		log:      opts.Logger,
	}
	if d.gcEvery <= 0 {
		d.gcEvery = DefaultGCEvery
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	d.bufs.New = func() any { b := make([]byte, ChunkSize); return &b }

	for _, dir := range []string{abs, d.objects, d.meta, d.tmp} {
		if opts.NoCreate {
			if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s does not exist", ErrNoStore, dir)
			}
		} else if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("store: cannot create store directory: %w; choose a writable directory (CRUMB_STORE)", err)
		}
		stat := os.Lstat // no symbolic links inside the store
		if dir == abs {
			stat = os.Stat // the store itself may be reached through one
		}
		fi, err := stat(dir)
		if err != nil {
			return nil, fmt.Errorf("store: store directory: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("store: store path %s is not a directory; choose a writable directory (CRUMB_STORE)", dir)
		}
		if dir == abs {
			if err := checkPerm(abs, fi); err != nil {
				return nil, err
			}
		}
	}
	// Make sure the lock file can be created now rather than on first use.
	f, _, err := openRegular(d.lockFile, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: cannot use store directory: %w; choose a writable directory (CRUMB_STORE)", err)
	}
	f.Close()
	if err := d.applySettings(opts); err != nil {
		return nil, err
	}
	return d, nil
}

// Path returns the absolute path of the store's directory.
func (d *Dir) Path() string { return d.root }

// Close waits for a background collection to finish and marks the store
// closed: later calls return [ErrClosed]. Objects already open stay
// readable. Closing twice is not an error.
func (d *Dir) Close() error {
	d.mu.Lock()
	d.closed.Store(true)
	d.mu.Unlock()
	d.Wait()
	return nil
}

func (d *Dir) checkOpen() error {
	if d.closed.Load() {
		return ErrClosed
	}
	return nil
}

// lockRef begins an operation on one stored result: it checks that the
// Dir is open, that ref is well formed and that ctx is live, then takes the
// commit lock shared, which keeps GC and Delete from removing the result
// until the returned lock is closed. op names the operation in the error
// of a context that has ended.
func (d *Dir) lockRef(ctx context.Context, ref Ref, op string) (Ref, *os.File, error) {
	if err := d.checkOpen(); err != nil {
		return "", nil, err
	}
	ref, err := checkRef(ref)
	if err != nil {
		return "", nil, err
	}
	if err := ctx.Err(); err != nil {
		return "", nil, fmt.Errorf("store: %s cancelled: %w", op, err)
	}
	lk, err := lockPath(d.lockFile, false)
	if err != nil {
		return "", nil, err
	}
	return ref, lk, nil
}

func (d *Dir) shard(ref Ref) string { return string(ref[:2]) }

func (d *Dir) blobPath(ref Ref) string {
	return filepath.Join(d.objects, d.shard(ref), string(ref))
}

func (d *Dir) recordPath(ref Ref) string {
	return filepath.Join(d.meta, d.shard(ref), string(ref)+".json")
}

// checkRef validates a ref handed to a method, so that nothing but a
// well-formed ref ever reaches a path.
func checkRef(ref Ref) (Ref, error) {
	return ParseRef(string(ref))
}

// record is the JSON document kept beside each blob.
type record struct {
	V int `json:"v"`
	Info
}

// ingest is what Put learned while streaming a result in.
type ingest struct {
	digest     string
	chunks     []string
	size       int64
	sourceSize int64
	lines      lineIndex
}

// Put streams r into the store and returns the stored result's Info once the
// blob and its record are durably on disk. Memory use is bounded by four
// chunk buffers (4 MiB) and the list of chunk digests (64 bytes per MiB stored). If ctx ends
// while r is being read, Put returns its error and leaves nothing behind; a
// Read that blocks is not interrupted, so cancel the source too if it may
// block.
func (d *Dir) Put(ctx context.Context, r io.Reader, meta Meta) (Info, error) {
	st, err := d.stage(ctx, r, meta, false)
	if err != nil {
		return Info{}, err
	}
	return st.Commit(ctx)
}

var _ Stager = (*Dir)(nil)

// Stage streams r into a temporary file of the store, hashing it as Put
// does, and returns it uncommitted with an Object that reads it. See Stager.
func (d *Dir) Stage(ctx context.Context, r io.Reader, meta Meta) (Staged, error) {
	return d.stage(ctx, r, meta, true)
}

// dirStaged is a result written to a locked temporary file, not yet durable
// or visible.
type dirStaged struct {
	d       *Dir
	tf      *os.File
	info    Info
	obj     *dirObject
	mu      sync.Mutex
	done    bool // committed or aborted
	renamed bool // the temp file became the blob
}

func (d *Dir) stage(ctx context.Context, r io.Reader, meta Meta, withObject bool) (*dirStaged, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: put cancelled: %w", err)
	}
	tf, err := os.CreateTemp(d.tmp, "put-*")
	if err != nil {
		return nil, fmt.Errorf("store: writing result: %w", err)
	}
	st := &dirStaged{d: d, tf: tf}
	ok := false
	defer func() {
		if !ok {
			st.Abort()
		}
	}()
	// The flock tells GC that this temp file is alive however long the
	// source takes, and until the staged result is committed.
	if locked, err := tryLockFile(tf); err != nil || !locked {
		if err == nil {
			err = errors.New("temp file is locked by someone else")
		}
		return nil, fmt.Errorf("store: writing result: %w", err)
	}
	in, err := d.ingest(ctx, r, tf, meta.Limit)
	if err != nil {
		return nil, err
	}
	now := d.now()
	st.info = Info{
		Ref:     RefOf(in.digest),
		Digest:  in.digest,
		Size:    in.size,
		Chunks:  in.chunks,
		Created: now,
		Used:    now,
		Meta:    meta,
	}
	in.lines.fill(&st.info)
	st.info.Meta.Limit = 0
	if meta.Limit > 0 && in.sourceSize > in.size {
		st.info.Truncated = true
		st.info.SourceSize = in.sourceSize
	}
	if withObject {
		// A second descriptor, so reads go on while Commit syncs, renames
		// and closes the first.
		f, err := os.Open(tf.Name())
		if err != nil {
			return nil, fmt.Errorf("store: reading back a staged result: %w", err)
		}
		if st.obj, err = newWrittenObject(f, st.info); err != nil {
			f.Close()
			return nil, err
		}
	}
	ok = true
	return st, nil
}

func (s *dirStaged) Info() Info { return s.info }

func (s *dirStaged) Object() Object {
	if s.obj == nil {
		return nil
	}
	return s.obj
}

func (s *dirStaged) Commit(ctx context.Context) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return Info{}, errors.New("store: staged result already committed or aborted")
	}
	s.done = true
	d := s.d
	defer func() {
		// Removed before the flock is released: a collection takes an
		// unlocked temp file with bytes in it for a dead writer's.
		if !s.renamed {
			os.Remove(s.tf.Name())
		}
		s.tf.Close() // also releases the flock
	}()
	info := s.info
	for _, dir := range []string{filepath.Join(d.objects, d.shard(info.Ref)), filepath.Join(d.meta, d.shard(info.Ref))} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Info{}, fmt.Errorf("store: writing result: %w", err)
		}
	}
	// The shared commit lock keeps deletions out from here on, the
	// record's temp file included (GC removes any other temp file it
	// finds).
	lk, err := lockPath(d.lockFile, false)
	if err != nil {
		return Info{}, err
	}
	locked := true
	defer func() {
		if locked {
			lk.Close()
		}
	}()
	d.keepCreated(&info, info.Created)
	// The record does not depend on the blob being durable, only its
	// rename does: its temp file is written and synced beside the blob's
	// sync, so that the commit waits for one sync of a file, not two.
	type recTemp struct {
		name string
		err  error
	}
	recDone := make(chan recTemp, 1)
	go func() {
		name, err := d.recordTemp(info.Ref, info, info.Created)
		recDone <- recTemp{name, err}
	}()
	syncErr := d.sync(s.tf)
	rt := <-recDone
	if rt.err == nil {
		defer func() {
			if rt.name != "" {
				os.Remove(rt.name)
			}
		}()
	}
	if syncErr != nil {
		return Info{}, fmt.Errorf("store: writing result: %w", syncErr)
	}
	if rt.err != nil {
		return Info{}, fmt.Errorf("store: writing result: %w", rt.err)
	}
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("store: put cancelled: %w", err)
	}
	added, err := d.commit(s.tf.Name(), rt.name, info.Ref, info.Size)
	if err != nil {
		return Info{}, err
	}
	rt.name = "" // renamed into place
	s.renamed = true
	lk.Close() // before a collection, which takes the lock exclusive
	locked = false
	d.enforceCap(ctx, added)
	if !d.manualGC {
		d.MaybeGC()
	}
	return info, nil
}

// enforceCap adds the bytes a commit added to the store's recorded usage
// and, when that takes the store over its size cap, collects at once,
// evicting down to 7/8 of the cap so that the next few Puts do not have to
// collect again. Errors only go to the log: the result is stored.
func (d *Dir) enforceCap(ctx context.Context, added int64) {
	u, err := d.changeUsage(func(u int64) int64 { return u + added })
	if err != nil {
		d.log.Warn("store: cannot record the store's usage", "dir", d.root, "err", err)
		return
	}
	if u <= d.maxBytes {
		return
	}
	if _, err := d.gc(ctx, d.maxBytes-d.maxBytes/8); err != nil {
		d.log.Warn("store: collection over the size cap failed", "dir", d.root, "err", err)
	}
}

func (s *dirStaged) Abort() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return nil
	}
	s.done = true
	// Removed while still locked, as in Commit.
	err := os.Remove(s.tf.Name())
	s.tf.Close()
	return err
}

// keepCreated gives info the creation time of a live record of the same
// content, when there is one: storing bytes again keeps when they were
// first stored. now is the time of the commit.
func (d *Dir) keepCreated(info *Info, now time.Time) {
	if rec, mtime, err := d.readRecord(info.Ref); err == nil {
		if old, err := validate(info.Ref, rec, mtime); err == nil && old.Digest == info.Digest &&
			!d.expired(old, now) && old.Created.Before(info.Created) {
			info.Created = old.Created
		}
	}
}

// recordTemp writes the record of ref, describing info and used at used,
// to a durable temp file, for commit to rename into place, and returns its
// name.
func (d *Dir) recordTemp(ref Ref, info Info, used time.Time) (string, error) {
	data, err := d.marshalRecord(info)
	if err != nil {
		return "", err
	}
	return d.writeTemp("rec-*", data, used, true)
}

// commit moves the temp file at blobTmp into place as the blob of ref, of
// size bytes, then the durable temp file at recTmp as its record, making
// each rename durable before the next: a record is never found without
// its blob. The caller holds the commit lock shared, so that no deletion
// interleaves. The blob is always replaced, so that storing the same bytes
// again repairs a damaged copy. It returns the bytes the store grew by:
// the size, unless a content file was there already.
func (d *Dir) commit(blobTmp, recTmp string, ref Ref, size int64) (int64, error) {
	blob := d.blobPath(ref)
	added := size
	if _, err := os.Lstat(blob); err == nil {
		added = 0
	}
	if err := os.Rename(blobTmp, blob); err != nil {
		return 0, fmt.Errorf("store: writing result: %w", err)
	}
	if err := d.syncDir(filepath.Dir(blob)); err != nil {
		return 0, fmt.Errorf("store: writing result: %w", err)
	}
	rp := d.recordPath(ref)
	if err := os.Rename(recTmp, rp); err != nil {
		return 0, fmt.Errorf("store: writing result: %w", err)
	}
	if err := d.syncDir(filepath.Dir(rp)); err != nil {
		return 0, fmt.Errorf("store: writing result: %w", err)
	}
	return added, nil
}

// writeSize is the most bytes Put reads and writes at once.
const writeSize = 256 << 10

// writebackEvery is how often, in bytes written, Put asks the kernel to
// start writing what it has so far, so that the final fsync has little left.
const writebackEvery = 8 << 20

// ingest copies r to w (at most limit bytes when limit > 0, draining and
// counting the rest) one chunk at a time, while worker goroutines hash the
// chunks already written, and counts newlines for the line index. Memory
// stays at maxPending+1 chunk buffers whatever the size.
func (d *Dir) ingest(ctx context.Context, r io.Reader, w io.Writer, limit int64) (ingest, error) {
	var held []*[]byte // buffers taken from the pool, all returned at the end
	free := make(chan *[]byte, maxPending+1)
	hasher := newChunkHasher(func(b *[]byte) { free <- b })
	defer func() {
		hasher.wait()
		for _, b := range held {
			d.bufs.Put(b)
		}
	}()
	next := func() *[]byte {
		select {
		case b := <-free:
			return b
		default:
		}
		if len(held) < maxPending+1 {
			b := d.bufs.Get().(*[]byte)
			held = append(held, b)
			return b
		}
		return <-free
	}
	var in ingest
	var flushed int64      // bytes handed to the kernel's writeback
	buf, fill := next(), 0 // the chunk being filled
	for {
		if err := ctx.Err(); err != nil {
			return ingest{}, fmt.Errorf("store: put cancelled: %w", err)
		}
		// Write what arrives as it arrives, in pieces small enough to stay
		// in the processor's cache (writes of 1 MiB run several times
		// slower than writes of 256 KiB); hash a chunk once it is whole.
		n, rerr := r.Read((*buf)[fill:min(fill+writeSize, ChunkSize)])
		in.sourceSize += int64(n)
		keep := int64(n)
		if limit > 0 {
			keep = max(0, min(keep, limit-in.size))
		}
		if keep > 0 {
			data := (*buf)[fill : fill+int(keep)]
			if fill == 0 {
				in.lines.startChunk()
			}
			if _, err := w.Write(data); err != nil {
				return ingest{}, fmt.Errorf("store: writing result: %w", err)
			}
			in.lines.add(data)
			in.size += keep
			fill += int(keep)
			if f, ok := w.(*os.File); ok && !d.noSync && in.size-flushed >= writebackEvery {
				startWriteback(f, flushed, in.size-flushed)
				flushed = in.size
			}
			if fill == ChunkSize {
				hasher.add(buf, fill)
				buf, fill = next(), 0
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return ingest{}, fmt.Errorf("store: reading result: %w", rerr)
		}
	}
	if fill > 0 {
		hasher.add(buf, fill)
	}
	hasher.wait()
	in.chunks, in.digest = hasher.result()
	return in, nil
}

// writeRecord replaces the record of ref, with used as its modification
// time, as durably as mode says (see replace).
func (d *Dir) writeRecord(ref Ref, info Info, used time.Time, mode int) error {
	data, err := d.marshalRecord(info)
	if err != nil {
		return err
	}
	return d.replace(d.recordPath(ref), "rec-*", data, used, mode)
}

// marshalRecord returns the record that describes info.
func (d *Dir) marshalRecord(info Info) ([]byte, error) {
	data, err := json.Marshal(record{V: recordVersion, Info: info})
	if err != nil {
		return nil, err
	}
	if len(data) > maxRecordSize {
		return nil, fmt.Errorf("its record would take %d bytes, more than the %d a record may (are its tool arguments that large?)", len(data), maxRecordSize)
	}
	return data, nil
}

// replaceFile durably replaces the file at path with data, through a temp
// file named like pattern in tmp/, and sets its modification time to mtime
// unless it is zero.
func (d *Dir) replaceFile(path, pattern string, data []byte, mtime time.Time) error {
	return d.replace(path, pattern, data, mtime, replaceDurable)
}

// How replace makes a replacement durable.
const (
	// replaceDurable: the new content and the rename survive a crash.
	replaceDurable = iota
	// replaceContent: the new content is durable before the rename, which
	// a crash may lose, leaving the old file whole: for a file whose old
	// version is sound too (a record that Annotate adds facts to).
	replaceContent
	// replaceNothing: nothing is made durable, for a file whose loss in a
	// crash costs nothing but figures.
	replaceNothing
)

// replace is replaceFile, making the replacement as durable as mode says.
func (d *Dir) replace(path, pattern string, data []byte, mtime time.Time, mode int) error {
	name, err := d.writeTemp(pattern, data, mtime, mode != replaceNothing)
	if err != nil {
		return err
	}
	move := os.Rename
	if mode == replaceNothing {
		move = swapInto
	}
	if err := move(name, path); err != nil {
		os.Remove(name)
		return err
	}
	if mode != replaceDurable {
		return nil
	}
	return d.syncDir(filepath.Dir(path))
}

// writeTemp writes data to a new temp file named like pattern in tmp/,
// synced when durable is set, with mtime as its modification time unless
// it is zero, and returns its name.
func (d *Dir) writeTemp(pattern string, data []byte, mtime time.Time, durable bool) (string, error) {
	f, err := os.CreateTemp(d.tmp, pattern)
	if err != nil {
		return "", err
	}
	name := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(name)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if durable {
		if err := d.sync(f); err != nil {
			return "", err
		}
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(name, mtime, mtime); err != nil {
			os.Remove(name)
			ok = true
			return "", err
		}
	}
	ok = true
	return name, nil
}

// sync makes f's content durable, unless DirOptions.NoSync is set.
func (d *Dir) sync(f *os.File) error {
	if d.noSync {
		return nil
	}
	d.syncs.Add(1)
	if d.onSync != nil {
		d.onSync(filepath.Base(f.Name()))
	}
	return f.Sync()
}

// syncDir makes a rename or removal in dir durable, unless
// DirOptions.NoSync is set.
func (d *Dir) syncDir(dir string) error {
	if d.noSync {
		return nil
	}
	d.syncs.Add(1)
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRecord reads and parses the record of ref, without validating it. It
// returns an error wrapping fs.ErrNotExist when there is none, and the
// record's modification time. A record that is not a regular file, or is
// larger than any record the store writes, is a recordError.
func (d *Dir) readRecord(ref Ref) (record, time.Time, error) {
	f, fi, err := openRegular(d.recordPath(ref), os.O_RDONLY, 0)
	if errors.Is(err, errNotRegular) {
		return record{}, time.Time{}, &recordError{detail: "its record is not a regular file"}
	}
	if err != nil {
		return record{}, time.Time{}, err
	}
	defer f.Close()
	if fi.Size() > maxRecordSize {
		return record{}, fi.ModTime(), &recordError{detail: fmt.Sprintf("its record holds %d bytes, more than a record may", fi.Size())}
	}
	// One read of the size the file has: a record of a large result holds
	// a digest per chunk (some 77 KB for 1 GB), which io.ReadAll would read
	// in a dozen growing steps.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxRecordSize+1)); err != nil {
		return record{}, time.Time{}, err
	}
	data := buf.Bytes()
	if len(data) > maxRecordSize {
		return record{}, fi.ModTime(), &recordError{detail: "its record is larger than a record may be"}
	}
	var rec record
	if err := decodeRecord(data, &rec); err != nil {
		return record{}, fi.ModTime(), &recordError{detail: fmt.Sprintf("its record is not valid JSON (%v)", err)}
	}
	return rec, fi.ModTime(), nil
}

// recordError describes a record that does not make sense, or that a newer
// version of the store wrote.
type recordError struct {
	detail string
	newer  bool
}

func (e *recordError) Error() string { return e.detail }

// validate checks that rec is a sound record for ref and returns its Info with
// the effective use time (the later of the recorded one and mtime).
func validate(ref Ref, rec record, mtime time.Time) (Info, error) {
	info := rec.Info
	switch {
	case rec.V > recordVersion:
		return info, &recordError{detail: fmt.Sprintf("its record has format version %d, newer than this program's %d", rec.V, recordVersion), newer: true}
	case rec.V != recordVersion:
		return info, &recordError{detail: fmt.Sprintf("its record has format version %d, want %d", rec.V, recordVersion)}
	case info.Ref != ref:
		return info, &recordError{detail: fmt.Sprintf("its record names ref %q", textfmt.Clip(string(info.Ref), 20, "..."))}
	case !isHex(info.Digest, sha256.Size*2):
		return info, &recordError{detail: "its record's digest is malformed"}
	case !strings.HasPrefix(info.Digest, string(ref)):
		return info, &recordError{detail: "its record's digest does not match the ref"}
	case info.Size < 0:
		return info, &recordError{detail: "its record's size is negative"}
	case int64(len(info.Chunks)) != (info.Size+ChunkSize-1)/ChunkSize:
		return info, &recordError{detail: fmt.Sprintf("its record lists %d chunk digests for %d bytes", len(info.Chunks), info.Size)}
	case info.Truncated && info.SourceSize <= info.Size, !info.Truncated && info.SourceSize != 0, info.SourceSize < 0:
		return info, &recordError{detail: fmt.Sprintf("its record's source size %d does not fit its size %d", info.SourceSize, info.Size)}
	}
	for i, c := range info.Chunks {
		if !isHex(c, sha256.Size*2) {
			return info, &recordError{detail: fmt.Sprintf("its record's digest of chunk %d is malformed", i)}
		}
	}
	if err := checkList(info); err != nil {
		return info, &recordError{detail: err.Error()}
	}
	if err := checkLineIndex(info); err != nil {
		return info, &recordError{detail: "its record's line index " + err.Error()}
	}
	if mtime.After(info.Used) {
		info.Used = mtime
	}
	return info, nil
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		// A table, as the comparisons took twice as long: a record of 1 GB
		// has 65,536 digits to check at every read.
		if !lowerHex[s[i]] {
			return false
		}
	}
	return true
}

var lowerHex = [256]bool{
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true,
}

// expired reports whether the result info describes has gone unused for
// longer than the TTL, or claims a use so far in the future (beyond
// futureSlack) that it would never expire: such a time comes from a clock
// set back or an edited record, and counts as expired.
func (d *Dir) expired(info Info, now time.Time) bool {
	return info.Used.Add(d.ttl).Before(now) || futureUse(info, now)
}

func futureUse(info Info, now time.Time) bool { return info.Used.After(now.Add(futureSlack)) }

// clampUse returns info with a use time a little ahead of now (within
// futureSlack: another process's clock) set to now, so that no reader sees
// a result used in the future.
func clampUse(info Info, now time.Time) Info {
	if info.Used.After(now) {
		info.Used = now
	}
	return info
}

func missingErr(ref Ref) error {
	return fmt.Errorf("%w: ref %s: run the tool again to get the result", ErrMissing, ref)
}

func brokenErr(ref Ref, detail string) error {
	return fmt.Errorf("%w: ref %s: %s: the stored copy is damaged; run the tool again", ErrBroken, ref, detail)
}

// lookup reads and checks everything about ref short of hashing its content.
// It returns the Info with the effective use time, and the attributes of the
// record alone: without the tally (see addTally), so that what a caller
// writes back to the record does not count the tally twice.
func (d *Dir) lookup(ref Ref) (Info, error) {
	rec, mtime, err := d.readRecord(ref)
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, missingErr(ref)
	}
	var re *recordError
	if errors.As(err, &re) {
		return Info{}, brokenErr(ref, re.detail)
	}
	if err != nil {
		return Info{}, fmt.Errorf("store: reading record of %s: %w", ref, err)
	}
	info, err := validate(ref, rec, mtime)
	if errors.As(err, &re) && re.newer {
		return Info{}, fmt.Errorf("store: ref %s: %s: upgrade crumb to read it", ref, re.detail)
	}
	if err != nil {
		return Info{}, brokenErr(ref, err.Error())
	}
	now := d.now()
	if futureUse(info, now) {
		return Info{}, fmt.Errorf("%w: ref %s: its last use is recorded as %s, in the future (the clock was set back, or the record edited), so it counts as expired; run the tool again to get the result",
			ErrMissing, ref, info.Used.UTC().Format(time.RFC3339))
	}
	if d.expired(info, now) {
		return Info{}, fmt.Errorf("%w: ref %s expired %s ago (unused for longer than %s); run the tool again to get the result",
			ErrMissing, ref, now.Sub(info.Used.Add(d.ttl)).Round(time.Second), d.ttl)
	}
	return clampUse(info, now), nil
}

// blobMissing turns a missing blob into the right error: ErrMissing when the
// record went too (a concurrent Delete or GC), ErrBroken when it is still
// there.
func (d *Dir) blobMissing(ref Ref) error {
	if _, err := os.Lstat(d.recordPath(ref)); errors.Is(err, fs.ErrNotExist) {
		return missingErr(ref)
	}
	return brokenErr(ref, "its content file is missing")
}

// Stat describes the result named by ref without counting as a use. It
// checks the record and the content's size, but does not hash the content.
func (d *Dir) Stat(ctx context.Context, ref Ref) (Info, error) {
	if err := d.checkOpen(); err != nil {
		return Info{}, err
	}
	ref, err := checkRef(ref)
	if err != nil {
		return Info{}, err
	}
	info, err := d.lookup(ref)
	if err != nil {
		return Info{}, err
	}
	fi, err := os.Lstat(d.blobPath(ref))
	if errors.Is(err, fs.ErrNotExist) {
		return Info{}, d.blobMissing(ref)
	}
	if err != nil {
		return Info{}, fmt.Errorf("store: stat of %s: %w", ref, err)
	}
	if err := checkBlob(ref, info, fi); err != nil {
		return Info{}, err
	}
	d.addTally(ref, &info)
	return info, nil
}

// checkBlob checks that fi describes a content file that can hold the
// result info describes: a regular file of exactly its size.
func checkBlob(ref Ref, info Info, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return brokenErr(ref, fmt.Sprintf("its content file is not a regular file (%s)", fi.Mode().Type()))
	}
	if fi.Size() != info.Size {
		return brokenErr(ref, fmt.Sprintf("its content file holds %d bytes, its record says %d", fi.Size(), info.Size))
	}
	return nil
}

// Open returns the result named by ref, ready to read. It counts as a use.
// The returned object verifies every chunk it reads.
func (d *Dir) Open(ctx context.Context, ref Ref) (Object, error) {
	// The shared lock keeps GC and Delete from deleting between our reading
	// the record and refreshing its use.
	ref, lk, err := d.lockRef(ctx, ref, "open")
	if err != nil {
		return nil, err
	}
	defer lk.Close()
	info, err := d.lookup(ref)
	if err != nil {
		return nil, err
	}
	f, fi, err := openRegular(d.blobPath(ref), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, d.blobMissing(ref)
	}
	if errors.Is(err, errNotRegular) {
		return nil, brokenErr(ref, "its content file is not a regular file")
	}
	if err != nil {
		return nil, fmt.Errorf("store: opening %s: %w", ref, err)
	}
	if err := checkBlob(ref, info, fi); err != nil {
		f.Close()
		return nil, err
	}
	now := d.now()
	if err := os.Chtimes(d.recordPath(ref), now, now); err == nil && now.After(info.Used) {
		info.Used = now
	}
	lk.Close()
	d.addTally(ref, &info)
	return &dirObject{f: f, info: info, cached: -1}, nil
}

// List describes every result the store holds that has not expired, most
// recently used first. Records that cannot be read, and results whose
// content file is not a regular file of the recorded size, are left out (GC
// purges them); List does not hash the content.
func (d *Dir) List(ctx context.Context) ([]Info, error) {
	if err := d.checkOpen(); err != nil {
		return nil, err
	}
	var out []Info
	now := d.now()
	err := d.walkRecords(ctx, func(ref Ref, _ string) error {
		rec, mtime, err := d.readRecord(ref)
		if err != nil {
			return nil
		}
		info, err := validate(ref, rec, mtime)
		if err != nil || d.expired(info, now) {
			return nil
		}
		if fi, err := os.Lstat(d.blobPath(ref)); err != nil || checkBlob(ref, info, fi) != nil {
			return nil
		}
		d.addTally(ref, &info)
		out = append(out, clampUse(info, now))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: listing results: %w", err)
	}
	sortByUse(out)
	return out, nil
}

// sortByUse sorts most recently used first, then by ref.
func sortByUse(infos []Info) {
	slices.SortFunc(infos, func(a, b Info) int {
		if c := b.Used.Compare(a.Used); c != 0 {
			return c
		}
		return strings.Compare(string(a.Ref), string(b.Ref))
	})
}

// walkRecords calls fn for every file in meta/ named like a record.
func (d *Dir) walkRecords(ctx context.Context, fn func(ref Ref, path string) error) error {
	return d.walkShards(ctx, d.meta, func(name, path string) error {
		base, ok := strings.CutSuffix(name, ".json")
		if !ok {
			return nil
		}
		ref, err := ParseRef(base)
		if err != nil || string(ref) != base {
			return nil
		}
		return fn(ref, path)
	})
}

// walkShards calls fn for every file in the two-hex-digit subdirectories
// of top that is not a directory. The store makes only regular files there;
// fn must treat anything else (a symbolic link, a FIFO) as damage.
func (d *Dir) walkShards(ctx context.Context, top string, fn func(name, path string) error) error {
	shards, err := os.ReadDir(top)
	if err != nil {
		return fmt.Errorf("store: listing %s: %w", top, err)
	}
	for _, sh := range shards {
		if !sh.IsDir() || !isHex(sh.Name(), 2) {
			continue
		}
		dir := filepath.Join(top, sh.Name())
		ents, err := os.ReadDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("store: listing %s: %w", dir, err)
		}
		for _, e := range ents {
			if err := ctx.Err(); err != nil {
				return err
			}
			if e.IsDir() {
				continue
			}
			if err := fn(e.Name(), filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Delete removes the result named by ref: its record, then its content.
// Deleting a missing ref is not an error.
func (d *Dir) Delete(ctx context.Context, ref Ref) error {
	if err := d.checkOpen(); err != nil {
		return err
	}
	ref, err := checkRef(ref)
	if err != nil {
		return err
	}
	lk, err := lockPath(d.lockFile, true)
	if err != nil {
		return err
	}
	defer lk.Close()
	fi, statErr := os.Lstat(d.blobPath(ref))
	if err := d.remove(ref); err != nil {
		return err
	}
	if statErr == nil {
		if _, err := d.changeUsage(func(u int64) int64 { return u - fi.Size() }); err != nil {
			d.log.Warn("store: cannot record the store's usage", "dir", d.root, "err", err)
		}
	}
	return nil
}

// remove deletes the record of ref and then its blob. The caller holds the
// commit lock exclusively.
func (d *Dir) remove(ref Ref) error {
	rp := d.recordPath(ref)
	if err := os.Remove(rp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: deleting %s: %w", ref, err)
	}
	if err := d.syncDir(filepath.Dir(rp)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: deleting %s: %w", ref, err)
	}
	if err := os.Remove(d.tallyPath(ref)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: deleting %s: %w", ref, err)
	}
	if err := os.Remove(d.blobPath(ref)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("store: deleting %s: %w", ref, err)
	}
	return nil
}
