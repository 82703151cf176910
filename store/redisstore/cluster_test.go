package redisstore

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

var (
	sharedClOnce sync.Once
	sharedCl     *redistest.Cluster
	sharedClDir  string
)

// sharedCluster returns one Redis Cluster of 3 primaries and 3 replicas
// for the package's tests, each of which works in a namespace of its own.
// It stops when the package's tests end.
func sharedCluster(t *testing.T) *redistest.Cluster {
	t.Helper()
	redistest.Need(t)
	sharedClOnce.Do(func() {
		dir, err := os.MkdirTemp("", "crumb-redis-cluster-*")
		if err != nil {
			t.Fatal(err)
		}
		sharedClDir = dir
		sharedCl = redistest.StartCluster(t, dir, 3, 1)
	})
	if sharedCl == nil {
		t.Fatal("the shared Redis Cluster did not start")
	}
	return sharedCl
}

func openCluster(t *testing.T, opts Options) *Store {
	t.Helper()
	return openURL(t, sharedCluster(t).URL(), opts)
}

// TestClusterConformance runs the conformance suite on a Redis Cluster of
// 3 primaries and 3 replicas, as on one server.
func TestClusterConformance(t *testing.T) {
	storetest.RunBackend(t, backend(openCluster))
}

// TestClusterSpread stores 1,000 results in one namespace of the cluster:
// their keys land on every primary, none holding more than half of them,
// and List, GC and a lowered cap see all of them across the shards.
func TestClusterSpread(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	s := openCluster(t, Options{})
	const n = 1000
	var total int64
	for i := range n {
		data := storetest.Content(uint64(10_000+i), 100+i)
		if _, err := s.Put(ctx, bytes.NewReader(data), store.Meta{}); err != nil {
			t.Fatal(err)
		}
		total += int64(len(data))
	}
	c := cl.Client(t)
	var mu sync.Mutex
	perPrimary := map[string]int{}
	err := c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys := 0
		iter := node.Scan(ctx, 0, "crumb:{"+s.ns+":*", 1000).Iterator()
		for iter.Next(ctx) {
			keys++
		}
		mu.Lock()
		perPrimary[node.Options().Addr] = keys
		mu.Unlock()
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, k := range perPrimary {
		sum += k
	}
	t.Logf("keys of %d results per primary: %v (of %d)", n, perPrimary, sum)
	if len(perPrimary) != 3 {
		t.Fatalf("%d primaries; want 3", len(perPrimary))
	}
	for addr, k := range perPrimary {
		if k == 0 || 2*k > sum {
			t.Errorf("primary %s holds %d of the %d keys; want some, and at most half", addr, k, sum)
		}
	}
	if u, err := s.Usage(ctx); err != nil || u.Results != n || u.ResultBytes != total {
		t.Errorf("Usage = %+v, %v; want %d results of %d bytes", u, err, n, total)
	}
	if list, err := s.List(ctx); err != nil || len(list) != n {
		t.Fatalf("List = %d results, %v; want %d", len(list), err, n)
	}
	st, err := s.GC(ctx)
	if err != nil || st.ResultsKept != n || st.BytesKept != total {
		t.Fatalf("GC = %+v, %v; want %d results of %d bytes kept", st, err, n, total)
	}
	small := openCluster(t, Options{Namespace: s.ns, MaxBytes: total / 2})
	if st, err = small.GC(ctx); err != nil || st.BytesKept > total/2 || st.Evicted == 0 {
		t.Fatalf("GC under half the cap = %+v, %v; want evictions down to %d bytes", st, err, total/2)
	}
	if list, err := s.List(ctx); err != nil || len(list) != st.ResultsKept {
		t.Errorf("List after eviction = %d results, %v; want the %d kept", len(list), err, st.ResultsKept)
	}
}

// TestClusterLargeResult stores a result of many chunks, whose staging key
// moves to its ref's bucket on another shard, and reads it back exact; no
// staging key is left on any primary.
func TestClusterLargeResult(t *testing.T) {
	cl := sharedCluster(t)
	ctx := context.Background()
	s := openCluster(t, Options{})
	data := storetest.Content(77, 5*store.ChunkSize/2)
	info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if !wantFoundOrMissing(t, s, info.Ref, data) {
		t.Fatalf("the result is missing")
	}
	c := cl.Client(t)
	var left []string
	var mu sync.Mutex
	if err := c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, "crumb:{"+s.ns+":*}:s:*").Result()
		mu.Lock()
		left = append(left, keys...)
		mu.Unlock()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("staging keys left: %s", strings.Join(left, ", "))
	}
}
