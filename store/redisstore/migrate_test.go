package redisstore

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// TestClusterMigratingSlot reads and puts results of one bucket while its
// slot is half-way through a migration, as redis-cli --cluster reshard
// leaves it: the slot MIGRATING on its primary and IMPORTING on another,
// the keys of some of its results already MIGRATEd. A read answers exact,
// missing or an error, never other bytes and never broken; a result none
// of whose keys moved still reads exact; a put stores the result whole or
// fails. Once the migration ends, every acknowledged result reads exact.
// The test makes a cluster of its own (3 primaries, no replicas), since it
// changes a slot's state.
func TestClusterMigratingSlot(t *testing.T) {
	redistest.Need(t)
	cl := redistest.StartCluster(t, t.TempDir(), 3, 0)
	t.Cleanup(cl.Stop)
	ctx := context.Background()
	s := openURL(t, cl.URL(), Options{})

	// Results whose refs fall in one bucket, so their keys share a slot.
	const bucketNo = 5
	var results [][]byte
	for seed := uint64(1); len(results) < 12; seed++ {
		data := storetest.Content(seed, 1+int(seed*7919)%(3*store.ChunkSize))
		var x store.Indexer
		for off := 0; off < len(data); off += store.ChunkSize {
			x.AddChunk(data[off:min(off+store.ChunkSize, len(data))])
		}
		var info store.Info
		x.Fill(&info)
		ref := info.Ref
		if n, _ := strconv.ParseUint(string(ref[:2]), 16, 8); int(n)%buckets == bucketNo {
			results = append(results, data)
		}
	}
	acked := map[store.Ref][]byte{}
	for _, data := range results[:8] {
		info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		acked[info.Ref] = data
	}

	// The slot's primary (the source) and another (the target).
	b := s.bucketN(bucketNo)
	node := redis.NewClient(&redis.Options{Addr: cl.Nodes[0].Addr()})
	defer node.Close()
	slot, err := node.ClusterKeySlot(ctx, b.lru()).Result()
	if err != nil {
		t.Fatal(err)
	}
	slots, err := node.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	var srcAddr string
	for _, r := range slots {
		if int64(r.Start) <= slot && slot <= int64(r.End) {
			srcAddr = r.Nodes[0].Addr
		}
	}
	var src, dst *redistest.Server
	for _, srv := range cl.Primaries() {
		switch {
		case srv.Addr() == srcAddr:
			src = srv
		case dst == nil:
			dst = srv
		}
	}
	if src == nil || dst == nil {
		t.Fatalf("slot %d is served by %q; no source and target among the primaries", slot, srcAddr)
	}
	srcID, err := src.NodeID()
	if err != nil {
		t.Fatal(err)
	}
	dstID, err := dst.NodeID()
	if err != nil {
		t.Fatal(err)
	}
	srcC, dstC := src.Client(t), dst.Client(t)
	dstHost, dstPort, _ := strings.Cut(dst.Addr(), ":")
	do := func(c *redis.Client, args ...any) {
		t.Helper()
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	migrate := func(keys []string) {
		t.Helper()
		if len(keys) == 0 {
			return
		}
		args := []any{"MIGRATE", dstHost, dstPort, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		if r, err := srcC.Do(ctx, args...).Result(); err != nil || r != "OK" {
			t.Fatalf("MIGRATE of %d keys to %s: %v %v", len(keys), dst.Addr(), r, err)
		}
	}
	do(dstC, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID)
	do(srcC, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID)

	// Half-way: the keys of the first 4 results moved, their index keys
	// and the other results not.
	var refs []store.Ref
	for ref := range acked {
		refs = append(refs, ref)
	}
	moved := map[store.Ref]bool{}
	var keys []string
	for _, ref := range refs[:4] {
		moved[ref] = true
		keys = append(keys, b.data(ref))
	}
	migrate(keys)

	var exact, missing, failed int
	check := func(ref store.Ref, data []byte) error {
		got, err := store.ReadAll(ctx, s, ref)
		switch {
		case err == nil && !bytes.Equal(got, data):
			t.Errorf("%s read %d bytes that are not the %d stored", ref, len(got), len(data))
		case errors.Is(err, store.ErrBroken):
			t.Errorf("%s reads broken while its slot migrates: %v", ref, err)
		case err == nil:
			exact++
		case errors.Is(err, store.ErrMissing):
			missing++
		default:
			failed++
		}
		return err
	}
	for _, ref := range refs {
		err := check(ref, acked[ref])
		t.Logf("while migrating, %s (moved %v): %v", ref, moved[ref], err)
		if !moved[ref] && err != nil {
			t.Errorf("%s, none of whose keys moved, read %v while its slot migrates; want it exact", ref, err)
		}
	}
	// Puts into the migrating slot: stored whole, or failed.
	var putFails int
	for _, data := range results[8:] {
		info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
		if err != nil {
			putFails++
			t.Logf("while migrating, a put failed: %v", err)
			continue
		}
		acked[info.Ref] = data
		check(info.Ref, data)
	}
	t.Logf("while slot %d migrates from %s to %s: %d reads exact, %d missing, %d failed; %d of 4 puts failed",
		slot, src.Addr(), dst.Addr(), exact, missing, failed, putFails)

	// The migration ends: the rest of the slot's keys move, and every
	// node learns the slot's new primary.
	for {
		rest, err := srcC.ClusterGetKeysInSlot(ctx, int(slot), 100).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(rest) == 0 {
			break
		}
		migrate(rest)
	}
	for _, srv := range cl.Primaries() {
		do(srv.Client(t), "CLUSTER", "SETSLOT", slot, "NODE", dstID)
	}
	if err := cl.WaitOK(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	for ref, data := range acked {
		got, err := store.ReadAll(ctx, s, ref)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("after the migration, %s: %d bytes, %v; want the %d stored", ref, len(got), err, len(data))
		}
	}
	if n, err := dstC.ClusterCountKeysInSlot(ctx, int(slot)).Result(); err != nil || n == 0 {
		t.Errorf("the target holds %d keys of slot %d (%v); the migration moved nothing", n, slot, err)
	}
}
