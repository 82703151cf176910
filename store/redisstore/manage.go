package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"

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

// remove deletes ref unless it was used after usedBefore (when not empty),
// and returns the bytes freed, or -1 when it was used since.
func (s *Store) remove(ctx context.Context, ref store.Ref, usedBefore string) (int64, error) {
	n, err := removeScript.Run(ctx, s.c, []string{s.dataKey(ref), s.lruKey(), s.sizesKey(), s.usageKey()},
		string(ref), usedBefore).Int64()
	if err != nil {
		return 0, s.fail("deleting "+string(ref), err)
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
	_, err = s.remove(ctx, ref, "")
	return err
}

// refs returns the refs the namespace's size index holds.
func (s *Store) refs(ctx context.Context) ([]store.Ref, error) {
	var out []store.Ref
	iter := s.c.HScan(ctx, s.sizesKey(), 0, "", 1000).Iterator()
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
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("store: listing results: %w", err)
		}
		info, err := s.lookup(ctx, ref)
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
// interrupted writes need no collection: they expire.
func (s *Store) GC(ctx context.Context) (store.GCStats, error) {
	var st store.GCStats
	if err := s.checkOpen(); err != nil {
		return st, err
	}
	// Results of the index: expired, dropped by Redis, or broken.
	refs, err := s.refs(ctx)
	if err != nil {
		return st, err
	}
	lru, err := s.c.ZRange(ctx, s.lruKey(), 0, -1).Result()
	if err != nil {
		return st, s.fail("listing results", err)
	}
	seen := make(map[store.Ref]bool, len(refs))
	for _, ref := range refs {
		seen[ref] = true
	}
	for _, m := range lru {
		if ref, err := store.ParseRef(m); err == nil && !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	for _, ref := range refs {
		if err := ctx.Err(); err != nil {
			st.Partial = true
			return st, nil
		}
		st.Scanned++
		_, err := s.lookup(ctx, ref)
		switch {
		case err == nil:
			continue
		case errors.Is(err, ErrRedis):
			return st, err
		}
		freed, rerr := s.remove(ctx, ref, "")
		if rerr != nil {
			return st, rerr
		}
		if errors.Is(err, store.ErrBroken) {
			st.BrokenPurged++
		} else {
			st.Expired++
		}
		st.BytesFreed += max(0, freed)
	}
	// Results the index lost.
	iter := s.c.Scan(ctx, 0, s.prefix+"r:*", 1000).Iterator()
	for iter.Next(ctx) {
		ref, err := store.ParseRef(iter.Val()[len(s.prefix)+2:])
		if err != nil || seen[ref] {
			continue
		}
		st.Scanned++
		info, err := s.lookup(ctx, ref)
		switch {
		case errors.Is(err, ErrRedis):
			return st, err
		case err != nil:
			if _, rerr := s.remove(ctx, ref, ""); rerr != nil {
				return st, rerr
			}
			if errors.Is(err, store.ErrBroken) {
				st.BrokenPurged++
			}
			continue
		}
		if err := adoptScript.Run(ctx, s.c, []string{s.dataKey(ref), s.lruKey(), s.sizesKey(), s.usageKey()},
			string(ref), info.Size, info.Used.UnixMilli()).Err(); err != nil {
			return st, s.fail("indexing "+string(ref), err)
		}
	}
	if err := iter.Err(); err != nil {
		return st, s.fail("listing results", err)
	}
	if err := recountScript.Run(ctx, s.c, []string{s.sizesKey(), s.usageKey()}).Err(); err != nil {
		return st, s.fail("counting the usage", err)
	}
	newest, err := s.c.ZRange(ctx, s.lruKey(), -1, -1).Result()
	if err != nil {
		return st, s.fail("listing results", err)
	}
	keep := store.Ref("")
	if len(newest) == 1 {
		keep = store.Ref(newest[0])
	}
	if _, err := s.evict(ctx, s.maxBytes, keep, &st); err != nil {
		return st, err
	}
	usage, err := s.usage(ctx)
	if err != nil {
		return st, err
	}
	kept, err := s.c.HLen(ctx, s.sizesKey()).Result()
	if err != nil {
		return st, s.fail("counting results", err)
	}
	st.BytesKept, st.ResultsKept = usage, int(kept)
	return st, nil
}

// usage returns the bytes the namespace holds, as its usage key counts.
func (s *Store) usage(ctx context.Context) (int64, error) {
	u, err := s.c.Get(ctx, s.usageKey()).Int64()
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
		oldest, err := s.c.ZRangeWithScores(ctx, s.lruKey(), 0, 15).Result()
		if err != nil {
			return freed, s.fail("finding results to evict", err)
		}
		progress := false
		for _, z := range oldest {
			m, _ := z.Member.(string)
			if store.Ref(m) == keep {
				continue
			}
			n, err := s.remove(ctx, store.Ref(m), strconv.FormatInt(int64(z.Score), 10))
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
	key := s.dataKey(ref)
	for range 10 {
		err := s.c.Watch(ctx, func(tx *redis.Tx) error {
			info, err := s.lookup(ctx, ref)
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
