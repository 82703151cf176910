package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
)

// lookup reads and checks everything about ref short of reading its
// content, and returns its Info with the effective use time (the later of
// the record's and the use index's) and the bucket that holds it: its
// ref's bucket, else the legacy bucket (a namespace written by an earlier
// version of crumb), which is read only when the ref's bucket has no key
// of ref at all.
func (s *Store) lookup(ctx context.Context, ref store.Ref) (store.Info, bucket, error) {
	b := s.bucketOf(ref)
	info, absent, err := s.lookupIn(ctx, b, ref)
	if !absent {
		return info, b, err
	}
	linfo, _, lerr := s.lookupIn(ctx, s.legacy(), ref)
	if lerr == nil || !errors.Is(lerr, store.ErrMissing) {
		return linfo, s.legacy(), lerr
	}
	return info, b, err
}

// lookupIn is lookup in bucket b. absent reports that b holds no key of
// ref (err is then ErrMissing).
func (s *Store) lookupIn(ctx context.Context, b bucket, ref store.Ref) (_ store.Info, absent bool, _ error) {
	info, err := s.lookupKey(ctx, b, ref, &absent)
	return info, absent, err
}

func (s *Store) lookupKey(ctx context.Context, b bucket, ref store.Ref, absent *bool) (store.Info, error) {
	key := b.data(ref)
	var (
		rec   *redis.StringCmd
		n     *redis.IntCmd
		score *redis.FloatCmd
	)
	_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		rec = p.HGet(ctx, key, recField)
		n = p.HLen(ctx, key)
		score = p.ZScore(ctx, b.lru(), string(ref))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return store.Info{}, s.fail("reading the record of "+string(ref), err)
	}
	data, err := rec.Bytes()
	if errors.Is(err, redis.Nil) {
		if n.Val() > 0 {
			return store.Info{}, store.BrokenError(ref, "its record is missing")
		}
		*absent = true
		return store.Info{}, store.MissingError(ref, "")
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return store.Info{}, store.BrokenError(ref, fmt.Sprintf("its record is not valid JSON (%v)", err))
	}
	switch {
	case r.V > recordVersion:
		return store.Info{}, fmt.Errorf("store: ref %s: its record has format version %d, newer than this program's %d: upgrade crumb to read it", ref, r.V, recordVersion)
	case r.V != recordVersion:
		return store.Info{}, store.BrokenError(ref, fmt.Sprintf("its record has format version %d, want %d", r.V, recordVersion))
	}
	info := r.Info
	if err := store.CheckInfo(ref, info); err != nil {
		return store.Info{}, err
	}
	if got, want := n.Val(), int64(len(info.Chunks))+1; got != want {
		return store.Info{}, store.BrokenError(ref, fmt.Sprintf("it holds %d chunks, its record lists %d", got-1, want-1))
	}
	if sc, err := score.Result(); err == nil {
		if used := time.UnixMilli(int64(sc)); used.After(info.Used) {
			info.Used = used
		}
	}
	now := s.now()
	if info.Used.After(now.Add(store.FutureSlack)) {
		return store.Info{}, store.MissingError(ref, fmt.Sprintf("its last use is recorded as %s, in the future (the clock was set back, or the record edited), so it counts as expired",
			info.Used.UTC().Format(time.RFC3339)))
	}
	if info.Used.Add(s.ttl).Before(now) {
		return store.Info{}, store.MissingError(ref, fmt.Sprintf("it expired %s ago (unused for longer than %s)", now.Sub(info.Used.Add(s.ttl)).Round(time.Second), s.ttl))
	}
	if info.Used.After(now) {
		info.Used = now
	}
	return info, nil
}

// Stat describes the result named by ref without counting as a use. It
// checks the record and the number of chunks, but does not read the
// content.
func (s *Store) Stat(ctx context.Context, ref store.Ref) (store.Info, error) {
	if err := s.checkOpen(); err != nil {
		return store.Info{}, err
	}
	ref, err := store.ParseRef(string(ref))
	if err != nil {
		return store.Info{}, err
	}
	info, _, err := s.lookup(ctx, ref)
	return info, err
}

// refreshScript records a use of a result that still exists: it restarts
// its native expiry and sets its use time.
//
//	KEYS: data, lru; ARGV: ref, use time (ms), expiry (ms)
var refreshScript = redis.NewScript(`
if redis.call('pexpire', KEYS[1], ARGV[3]) == 1 then
  redis.call('zadd', KEYS[2], ARGV[2], ARGV[1])
  return 1
end
return 0
`)

// Open returns the result named by ref, ready to read. It counts as a use.
// The returned object reads one chunk at a time from Redis and verifies
// every chunk it reads.
func (s *Store) Open(ctx context.Context, ref store.Ref) (store.Object, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	ref, err := store.ParseRef(string(ref))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: open cancelled: %w", err)
	}
	info, b, err := s.lookup(ctx, ref)
	if err != nil {
		return nil, err
	}
	now := s.now()
	found, err := refreshScript.Run(ctx, s.c, []string{b.data(ref), b.lru()},
		string(ref), now.UnixMilli(), s.expiry().Milliseconds()).Int()
	if err != nil {
		return nil, s.fail("recording a use of "+string(ref), err)
	}
	if found == 0 {
		return nil, store.MissingError(ref, "it was deleted, expired or evicted as it was opened")
	}
	if now.After(info.Used) {
		info.Used = now
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, store.ErrClosed
	}
	s.open++
	s.mu.Unlock()
	return &object{s: s, key: b.data(ref), info: info, cached: -1}, nil
}

// object is an open result of a [Store]. It keeps the last chunk it
// verified, so sequential reads fetch and hash every chunk once.
type object struct {
	s   *Store
	key string // the result's key
	// stagingKey, if set, gives the key of a staged result not yet known
	// to be published ("" once it is): it is read first, then key. onClose,
	// if set, is called on Close.
	stagingKey func() string
	onClose    func()

	mu     sync.Mutex
	info   store.Info
	buf    []byte
	cached int64
	closed bool
}

func (o *object) Info() store.Info { return o.info }
func (o *object) Size() int64      { return o.info.Size }

// Close releases the object.
func (o *object) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	o.buf = nil
	if o.onClose != nil {
		o.onClose()
	}
	o.s.objectClosed()
	return nil
}

// ReadAt reads len(p) bytes at off, verifying every chunk it reads from. It
// follows io.ReaderAt: fewer than len(p) bytes come with an error, io.EOF at
// the end of the result. A request to Redis that fails returns an error
// wrapping ErrRedis.
func (o *object) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return 0, fmt.Errorf("store: reading %s: %w", o.info.Ref, os.ErrClosed)
	}
	return store.ReadChunked(o.info.Ref, o.info.Size, p, off, func(dst []byte, pos, idx int64) (int, error) {
		chunk, err := o.chunk(idx)
		if err != nil {
			return 0, err
		}
		return copy(dst, chunk[pos-idx*store.ChunkSize:]), nil
	})
}

// chunk returns chunk idx, fetched and verified (or cached).
func (o *object) chunk(idx int64) ([]byte, error) {
	if o.cached == idx {
		return o.buf, nil
	}
	o.cached = -1
	b, err := o.fetch(idx)
	if err != nil {
		return nil, err
	}
	if err := store.VerifyChunk(o.info, idx, b); err != nil {
		return nil, err
	}
	o.buf, o.cached = b, idx
	return b, nil
}

// fetch returns the stored bytes of chunk idx, unverified.
//
// A staged object reads the staging key until Commit has returned. A
// staging key that is gone was renamed to the result's key by
// publishScript, which Redis runs atomically, so the result's key holds
// every chunk from that moment on, though Commit may not have returned yet
// (its reply still on its way): the chunk is read there. A staging key gone
// for another reason (it expired) leaves the result's key missing too,
// unless the same content was stored since, whose chunks verify the same.
func (o *object) fetch(idx int64) ([]byte, error) {
	if o.stagingKey != nil {
		if key := o.stagingKey(); key != "" {
			b, err := o.fetchFrom(key, idx)
			if !errors.Is(err, store.ErrMissing) {
				return b, err
			}
		}
	}
	return o.fetchFrom(o.key, idx)
}

func (o *object) fetchFrom(key string, idx int64) ([]byte, error) {
	ctx := context.Background()
	ref := o.info.Ref
	field := strconv.FormatInt(idx, 10)
	b, err := o.s.c.HGet(ctx, key, field).Bytes()
	if errors.Is(err, redis.Nil) {
		// Deleted, or damaged? Ask again, atomically: the result may have
		// been deleted and stored again since.
		var get *redis.StringCmd
		var exists *redis.IntCmd
		_, err = o.s.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			get = p.HGet(ctx, key, field)
			exists = p.Exists(ctx, key)
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, o.s.fail(fmt.Sprintf("reading chunk %d of %s", idx, ref), err)
		}
		b, err = get.Bytes()
		if errors.Is(err, redis.Nil) {
			if exists.Val() == 0 {
				return nil, store.MissingError(ref, "it was deleted, expired or evicted while it was being read")
			}
			return nil, store.BrokenError(ref, fmt.Sprintf("chunk %d is missing", idx))
		}
	}
	if err != nil {
		return nil, o.s.fail(fmt.Sprintf("reading chunk %d of %s", idx, ref), err)
	}
	return b, nil
}
