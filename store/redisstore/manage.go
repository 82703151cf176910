package redisstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
)

// removeScript deletes a result and its index entries in one atomic step,
// and returns the bytes it freed. Given a use time, it deletes only a
// result not used since (a result that a Put or an Open just refreshed is
// never evicted), and returns -1 for one that was.
//
//	KEYS: data, lru, sizes, usage; ARGV: ref, latest use time (ms) or ""
var removeScript = redis.NewScript(`
if ARGV[2] ~= '' then
  local sc = redis.call('zscore', KEYS[2], ARGV[1])
  if sc and tonumber(sc) > tonumber(ARGV[2]) then return -1 end
end
redis.call('unlink', KEYS[1])
redis.call('zrem', KEYS[2], ARGV[1])
local old = tonumber(redis.call('hget', KEYS[3], ARGV[1]) or '0')
redis.call('hdel', KEYS[3], ARGV[1])
if old > 0 then redis.call('decrby', KEYS[4], old) end
return old
`)

// remove deletes ref from bucket b unless it was used after usedBefore
// (when not empty), and returns the bytes freed, or -1 when it was used
// since.
func (s *Store) remove(ctx context.Context, b bucket, ref store.Ref, usedBefore string) (int64, error) {
	n, err := removeScript.Run(ctx, s.c, []string{b.data(ref), b.lru(), b.sizes(), b.usage()},
		string(ref), usedBefore).Int64()
	if err != nil {
		return 0, s.fail("deleting "+string(ref), err)
	}
	if n > 0 {
		if err := s.c.DecrBy(ctx, s.totalKey(), n).Err(); err != nil {
			s.log.Warn("redisstore: counting the namespace's usage failed (the next GC recounts it)", "namespace", s.ns, "err", err)
		}
	}
	return n, nil
}

// Delete removes the result named by ref. Deleting a missing ref is not an
// error.
func (s *Store) Delete(ctx context.Context, ref store.Ref) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	ref, err := store.ParseRef(string(ref))
	if err != nil {
		return err
	}
	for _, b := range []bucket{s.bucketOf(ref), s.legacy()} {
		if _, err := s.remove(ctx, b, ref, ""); err != nil {
			return err
		}
	}
	return nil
}

// refs returns the refs that the size indexes of every bucket hold.
func (s *Store) refs(ctx context.Context) ([]store.Ref, error) {
	var out []store.Ref
	for _, b := range s.allBuckets() {
		refs, err := s.refsIn(ctx, b)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// refsIn returns the refs the size index of bucket b holds.
func (s *Store) refsIn(ctx context.Context, b bucket) ([]store.Ref, error) {
	var out []store.Ref
	iter := s.c.HScan(ctx, b.sizes(), 0, "", 1000).Iterator()
	for i := 0; iter.Next(ctx); i++ {
		if i%2 == 1 { // values
			continue
		}
		if ref, err := store.ParseRef(iter.Val()); err == nil && string(ref) == iter.Val() {
			out = append(out, ref)
		}
	}
	if err := iter.Err(); err != nil {
		return nil, s.fail("listing results", err)
	}
	return out, nil
}

// List describes every result of the namespace that has not expired, most
// recently used first. Results that do not verify (their record, their
// number of chunks) are left out; GC purges them. It does not read the
// content.
func (s *Store) List(ctx context.Context) ([]store.Info, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	refs, err := s.refs(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.Info
	seen := make(map[store.Ref]bool, len(refs))
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("store: listing results: %w", err)
		}
		if seen[ref] { // in its bucket and the legacy one
			continue
		}
		seen[ref] = true
		info, _, err := s.lookup(ctx, ref)
		if errors.Is(err, ErrRedis) {
			return nil, err
		}
		if err == nil {
			out = append(out, info)
		}
	}
	store.SortByUse(out)
	return out, nil
}

// adoptScript adds a result the index lost (under an allkeys-*
// maxmemory-policy Redis may evict the index keys) back to it.
//
//	KEYS: data, lru, sizes, usage; ARGV: ref, size, use time (ms)
var adoptScript = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('hset', KEYS[3], ARGV[1], ARGV[2])
redis.call('incrby', KEYS[4], ARGV[2])
redis.call('zadd', KEYS[2], 'NX', ARGV[3], ARGV[1])
return 1
`)

// recountScript sets the usage to the sum of the sizes index.
//
//	KEYS: sizes, usage
var recountScript = redis.NewScript(`
local t = 0
for _, v in ipairs(redis.call('hvals', KEYS[1])) do t = t + tonumber(v) end
redis.call('set', KEYS[2], t)
return t
`)

// GC removes expired results and the index entries of results Redis
// dropped (natively expired or evicted), purges results that do not
// verify, re-indexes results the index lost, and then evicts the least
// recently used until the namespace fits its size cap. Staged leftovers of
// interrupted writes need no collection: they expire. It works bucket by
// bucket, and finds results the index lost with a SCAN of every primary.
func (s *Store) GC(ctx context.Context) (store.GCStats, error) {
	var st store.GCStats
	if err := s.checkOpen(); err != nil {
		return st, err
	}
	seen := map[string]bool{} // data keys indexed
	for _, b := range s.allBuckets() {
		if err := s.collect(ctx, b, seen, &st); err != nil || st.Partial {
			return st, err
		}
	}
	// Results the index lost.
	lost := func(key string) error {
		if seen[key] {
			return nil
		}
		b, ref, ok := s.parseDataKey(key)
		if !ok {
			return nil
		}
		st.Scanned++
		info, _, err := s.lookupIn(ctx, b, ref)
		switch {
		case errors.Is(err, ErrRedis):
			return err
		case err != nil:
			if _, rerr := s.remove(ctx, b, ref, ""); rerr != nil {
				return rerr
			}
			if errors.Is(err, store.ErrBroken) {
				st.BrokenPurged++
			}
			return nil
		}
		if err := adoptScript.Run(ctx, s.c, []string{b.data(ref), b.lru(), b.sizes(), b.usage()},
			string(ref), info.Size, info.Used.UnixMilli()).Err(); err != nil {
			return s.fail("indexing "+string(ref), err)
		}
		return nil
	}
	for _, pattern := range []string{"crumb:{" + s.ns + ":*}:r:*", s.prefix + "r:*"} {
		if err := s.scan(ctx, pattern, lost); err != nil {
			return st, err
		}
	}
	var total int64
	for _, b := range s.allBuckets() {
		u, err := recountScript.Run(ctx, s.c, []string{b.sizes(), b.usage()}).Int64()
		if err != nil {
			return st, s.fail("counting the usage", err)
		}
		total += u
	}
	kept, err := s.count(ctx)
	if err != nil {
		return st, err
	}
	if err := s.c.Set(ctx, s.totalKey(), total, 0).Err(); err != nil {
		return st, s.fail("counting the usage", err)
	}
	oldest, err := s.oldest(ctx, -1)
	if err != nil {
		return st, err
	}
	keep := store.Ref("")
	if len(oldest) > 0 {
		keep = oldest[len(oldest)-1].ref
	}
	if _, err := s.evict(ctx, s.maxBytes, keep, &st); err != nil {
		return st, err
	}
	usage, err := s.usage(ctx)
	if err != nil {
		return st, err
	}
	if st.Evicted > 0 {
		if kept, err = s.count(ctx); err != nil {
			return st, err
		}
	}
	st.BytesKept, st.ResultsKept = usage, int(kept)
	return st, nil
}

// collect removes from bucket b the results of its index that expired,
// that Redis dropped, or that are broken, and marks the data keys it keeps
// in seen.
func (s *Store) collect(ctx context.Context, b bucket, seen map[string]bool, st *store.GCStats) error {
	refs, err := s.refsIn(ctx, b)
	if err != nil {
		return err
	}
	lru, err := s.c.ZRange(ctx, b.lru(), 0, -1).Result()
	if err != nil {
		return s.fail("listing results", err)
	}
	for _, m := range lru {
		if ref, err := store.ParseRef(m); err == nil && string(ref) == m {
			refs = append(refs, ref)
		}
	}
	for _, ref := range refs {
		if seen[b.data(ref)] {
			continue
		}
		seen[b.data(ref)] = true
		if err := ctx.Err(); err != nil {
			st.Partial = true
			return nil
		}
		st.Scanned++
		_, _, err := s.lookupIn(ctx, b, ref)
		switch {
		case err == nil:
			continue
		case errors.Is(err, ErrRedis):
			return err
		}
		freed, rerr := s.remove(ctx, b, ref, "")
		if rerr != nil {
			return rerr
		}
		if errors.Is(err, store.ErrBroken) {
			st.BrokenPurged++
		} else {
			st.Expired++
		}
		st.BytesFreed += max(0, freed)
	}
	return nil
}

// parseDataKey returns the bucket and the ref of a result's key of the
// namespace.
func (s *Store) parseDataKey(key string) (bucket, store.Ref, bool) {
	i := strings.LastIndex(key, ":r:")
	if i < 0 {
		return "", "", false
	}
	b, r := bucket(key[:i+1]), key[i+3:]
	ref, err := store.ParseRef(r)
	if err != nil || string(ref) != r || (b != s.legacy() && b != s.bucketOf(ref)) {
		return "", "", false
	}
	return b, ref, true
}

// scan calls fn with every key that matches pattern, on every primary of a
// cluster (a SCAN visits one node).
func (s *Store) scan(ctx context.Context, pattern string, fn func(key string) error) error {
	each := func(ctx context.Context, c redis.Cmdable) error {
		iter := c.Scan(ctx, 0, pattern, 1000).Iterator()
		for iter.Next(ctx) {
			if err := fn(iter.Val()); err != nil {
				return err
			}
		}
		if err := iter.Err(); err != nil {
			return s.fail("listing results", err)
		}
		return nil
	}
	if cc, ok := s.c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return each(ctx, c) })
	}
	return each(ctx, s.c)
}

// count returns the number of results the size indexes of every bucket
// hold.
func (s *Store) count(ctx context.Context) (int64, error) {
	var lens []*redis.IntCmd
	if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, b := range s.allBuckets() {
			lens = append(lens, p.HLen(ctx, b.sizes()))
		}
		return nil
	}); err != nil {
		return 0, s.fail("counting results", err)
	}
	var n int64
	for _, l := range lens {
		n += l.Val()
	}
	return n, nil
}

// used is a result in the use index of its bucket.
type used struct {
	b     bucket
	ref   store.Ref
	score float64
}

// oldest returns the least recently used results of every bucket, up to
// 16 of each, oldest first; with n < 0, the most recently used of each.
func (s *Store) oldest(ctx context.Context, n int64) ([]used, error) {
	lo, hi := int64(0), int64(15)
	if n < 0 {
		lo, hi = -1, -1
	}
	bs := s.allBuckets()
	cmds := make([]*redis.ZSliceCmd, len(bs))
	if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			cmds[i] = p.ZRangeWithScores(ctx, b.lru(), lo, hi)
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return nil, s.fail("finding results to evict", err)
	}
	var out []used
	for i, c := range cmds {
		for _, z := range c.Val() {
			m, _ := z.Member.(string)
			out = append(out, used{b: bs[i], ref: store.Ref(m), score: z.Score})
		}
	}
	slices.SortFunc(out, func(a, b used) int { return cmp.Compare(a.score, b.score) })
	return out, nil
}

// usage returns the bytes the namespace holds, as its total key counts.
func (s *Store) usage(ctx context.Context) (int64, error) {
	u, err := s.c.Get(ctx, s.totalKey()).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail("reading the usage", err)
	}
	return u, nil
}

// evict removes the least recently used results, never keep, until the
// namespace holds at most target bytes, and returns the bytes it freed.
func (s *Store) evict(ctx context.Context, target int64, keep store.Ref, st *store.GCStats) (int64, error) {
	var freed int64
	for {
		u, err := s.usage(ctx)
		if err != nil || u <= target {
			return freed, err
		}
		oldest, err := s.oldest(ctx, 16)
		if err != nil {
			return freed, err
		}
		progress := false
		for _, z := range oldest {
			if z.ref == keep {
				continue
			}
			n, err := s.remove(ctx, z.b, z.ref, strconv.FormatInt(int64(z.score), 10))
			if err != nil {
				return freed, err
			}
			if n < 0 {
				continue // used since: look again
			}
			progress = true
			freed += n
			if st != nil {
				st.Evicted++
				st.BytesFreed += n
			}
			if u -= n; u <= target {
				break
			}
		}
		if !progress {
			return freed, nil
		}
	}
}

// Annotate merges attrs into the Meta.Attrs of a stored result's record. It
// does not count as a use. It returns an error wrapping ErrMissing when ref
// is not stored.
func (s *Store) Annotate(ctx context.Context, ref store.Ref, attrs map[string]string) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	ref, err := store.ParseRef(string(ref))
	if err != nil {
		return err
	}
	for range 10 {
		_, b, err := s.lookup(ctx, ref)
		if err != nil {
			return err
		}
		key := b.data(ref)
		err = s.c.Watch(ctx, func(tx *redis.Tx) error {
			info, _, err := s.lookupIn(ctx, b, ref)
			if err != nil {
				return err
			}
			info.Attrs = maps.Clone(info.Attrs)
			if info.Attrs == nil {
				info.Attrs = map[string]string{}
			}
			maps.Copy(info.Attrs, attrs)
			data, err := json.Marshal(record{V: recordVersion, Info: info})
			if err != nil {
				return fmt.Errorf("store: annotating %s: %w", ref, err)
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, key, recField, data)
				return nil
			})
			return err
		}, key)
		if errors.Is(err, redis.TxFailedErr) {
			continue // the result changed meanwhile: look again
		}
		if err != nil && !errors.Is(err, store.ErrMissing) && !errors.Is(err, store.ErrBroken) && !errors.Is(err, ErrRedis) {
			return s.fail("annotating "+string(ref), err)
		}
		return err
	}
	return fmt.Errorf("%w: annotating %s: the result kept changing", ErrRedis, ref)
}

var _ store.Checker = (*Store)(nil)

// Check asks the server whether it answers (PING).
func (s *Store) Check(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := s.c.Ping(ctx).Err(); err != nil {
		return s.fail("checking that the server answers", err)
	}
	return nil
}

// Usage counts the results of the namespace and their bytes, as its
// indexes hold them (results expired or dropped by Redis count until GC),
// without listing them: one HLEN per bucket, pipelined, and the total.
func (s *Store) Usage(ctx context.Context) (store.Usage, error) {
	if err := s.checkOpen(); err != nil {
		return store.Usage{}, err
	}
	n, err := s.count(ctx)
	if err != nil {
		return store.Usage{}, err
	}
	b, err := s.usage(ctx)
	if err != nil {
		return store.Usage{}, err
	}
	return store.Usage{Results: int(n), ResultBytes: b}, nil
}
