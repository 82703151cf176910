package redisstore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// loadStats are the outcomes of a load of puts and reads.
type loadStats struct {
	mu                     sync.Mutex
	acked                  map[store.Ref][]byte
	puts, putFails         int
	reads, missing, broken int
	wrong, readFails       int
	lastErr                error
	latencies              []time.Duration
}

func (ls *loadStats) add(f func(ls *loadStats)) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	f(ls)
}

// check reads ref and counts the outcome: exact, missing, broken, failed,
// or wrong (bytes returned without error that are not the ones stored).
func (ls *loadStats) check(ctx context.Context, s store.Store, ref store.Ref, want []byte) {
	got, err := store.ReadAll(ctx, s, ref)
	ls.add(func(ls *loadStats) {
		ls.reads++
		switch {
		case err == nil && !bytes.Equal(got, want):
			ls.wrong++
		case errors.Is(err, store.ErrMissing):
			ls.missing++
		case errors.Is(err, store.ErrBroken):
			ls.broken++
		case err != nil:
			ls.readFails++
			ls.lastErr = err
		}
	})
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[int(float64(len(d)-1)*p)]
}

// runLoad runs clients goroutines over the stores for d, each putting
// results of up to 200 KB and reading back acknowledged ones, and calls
// mid once, halfway.
func runLoad(t *testing.T, stores []*Store, clients int, d time.Duration, mid func()) *loadStats {
	ls := &loadStats{acked: map[store.Ref][]byte{}}
	ctx := context.Background()
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			s := stores[i%len(stores)]
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for j := 0; time.Now().Before(stop); j++ {
				data := storetest.Content(uint64(i)<<32|uint64(j), 1+rng.IntN(200_000))
				start := time.Now()
				info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
				el := time.Since(start)
				ls.add(func(ls *loadStats) {
					ls.puts++
					ls.latencies = append(ls.latencies, el)
					if err != nil {
						ls.putFails++
					} else {
						ls.acked[info.Ref] = data
					}
				})
				if err == nil && j%2 == 1 {
					start := time.Now()
					ls.check(ctx, stores[(i+1)%len(stores)], info.Ref, data)
					el := time.Since(start)
					ls.add(func(ls *loadStats) { ls.latencies = append(ls.latencies, el) })
				}
			}
		})
	}
	if mid != nil {
		time.Sleep(d / 2)
		mid()
	}
	wg.Wait()
	return ls
}

// TestClusterFailover puts and reads under load from 3 stores (as 3
// sidecars) on a cluster of its own while one primary is killed and its
// replica promoted: every acknowledged ref then reads back exact or
// missing, none wrong. CRUMB_FAILOVER_DURATION lengthens the load
// (default 10s); the test reports the p99 latency of the operations.
//
// It takes a minute or more (a cluster of its own, the failover, the
// reads after), so it runs only with CRUMB_FAILOVER=1 (.ci/run sets it).
func TestClusterFailover(t *testing.T) {
	if os.Getenv("CRUMB_FAILOVER") == "" {
		t.Skip("SKIP: set CRUMB_FAILOVER=1 to kill a primary of a Redis Cluster under load")
	}
	d := 10 * time.Second
	if v := os.Getenv("CRUMB_FAILOVER_DURATION"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	redistest.Need(t)
	cl := redistest.StartCluster(t, t.TempDir(), 3, 1)
	t.Cleanup(cl.Stop)
	ns := redistest.Namespace()
	var stores []*Store
	for range 3 {
		stores = append(stores, openURL(t, cl.URL(), Options{Namespace: ns}))
	}
	var killed string
	ls := runLoad(t, stores, 30, d, func() {
		for _, srv := range cl.Nodes {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
			role, err := c.Do(context.Background(), "ROLE").Slice()
			c.Close()
			if err == nil && len(role) > 0 && role[0] == "master" {
				killed = srv.Addr()
				srv.Stop()
				return
			}
		}
		t.Error("no primary to kill")
	})
	t.Logf("killed primary %s mid-run; %d puts (%d failed, %d acknowledged), %d reads during the load: %d missing, %d broken, %d failed, %d wrong; p50 %v, p99 %v",
		killed, ls.puts, ls.putFails, len(ls.acked), ls.reads, ls.missing, ls.broken, ls.readFails, ls.wrong,
		percentile(ls.latencies, 0.5), percentile(ls.latencies, 0.99))
	// After the failover, every acknowledged ref: exact or missing.
	ctx := context.Background()
	if err := cl.WaitOK(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	after := &loadStats{}
	for ref, data := range ls.acked {
		after.check(ctx, stores[0], ref, data)
	}
	if after.readFails > 0 {
		// A client learns the new slot map from its failures, and on a
		// loaded machine it may take some seconds to stop dialling the
		// dead node: count the reads that fail, and read everything again
		// until none fails (for 30 s at the most). A failed read is a
		// clear error, never wrong bytes, which every round checks.
		t.Logf("%d reads failed right after the failover: the last with %v", after.readFails, after.lastErr)
		for deadline := time.Now().Add(30 * time.Second); after.readFails > 0 && time.Now().Before(deadline); {
			time.Sleep(500 * time.Millisecond)
			again := &loadStats{}
			for ref, data := range ls.acked {
				again.check(ctx, stores[0], ref, data)
			}
			ls.wrong += again.wrong
			after = again
		}
	}
	t.Logf("after the failover, %d acknowledged refs read back: %d exact, %d missing, %d broken, %d failed, %d wrong",
		after.reads, after.reads-after.missing-after.broken-after.readFails-after.wrong, after.missing, after.broken, after.readFails, after.wrong)
	if ls.wrong+after.wrong != 0 || after.broken != 0 || after.readFails != 0 {
		t.Errorf("%d reads returned wrong bytes, %d broken, %d failed after the failover; want none", ls.wrong+after.wrong, after.broken, after.readFails)
	}
	if len(ls.acked) == 0 {
		t.Error("no put was acknowledged")
	}
}

// TestClusterScale measures the throughput (puts and reads of results of
// up to 200 KB, 30 clients) of 3 stores on the shared 3-primary cluster
// against 1 store on the shared single server, in the same run, and
// reports their ratio. It runs only with CRUMB_REDIS_SCALE=1; the figure
// depends on the machine's cores (every server and client share them).
func TestClusterScale(t *testing.T) {
	if os.Getenv("CRUMB_REDIS_SCALE") == "" {
		t.Skip("SKIP: set CRUMB_REDIS_SCALE=1 to compare the cluster's throughput with one server's")
	}
	const d = 5 * time.Second
	one := runLoad(t, []*Store{openTest(t, sharedServer(t), Options{})}, 30, d, nil)
	ns := redistest.Namespace()
	var three []*Store
	for range 3 {
		three = append(three, openCluster(t, Options{Namespace: ns}))
	}
	cl := runLoad(t, three, 30, d, nil)
	ops := func(ls *loadStats) float64 { return float64(ls.puts+ls.reads) / d.Seconds() }
	t.Logf("1 store on one server: %.0f ops/s (p99 %v); 3 stores on the 3-primary cluster: %.0f ops/s (p99 %v); ratio %.2f; %d cores",
		ops(one), percentile(one.latencies, 0.99), ops(cl), percentile(cl.latencies, 0.99), ops(cl)/ops(one), runtime.NumCPU())
	if one.wrong+cl.wrong != 0 || one.putFails+cl.putFails != 0 {
		t.Errorf("%d wrong reads, %d failed puts; want none", one.wrong+cl.wrong, one.putFails+cl.putFails)
	}
}
