package crumb_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// pressure starts writers that fill a Redis server with keys that expire
// (so that both volatile-lru and allkeys-lru evict them, and crumb's
// results beside them) until the test ends.
func pressure(t *testing.T, srv *redistest.Server, writers int) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
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

// evictionRuns is how many results a test under eviction projects: at
// least 200 (issue 20), fewer under -short.
func evictionRuns() int {
	if testing.Short() {
		return 40
	}
	return 200
}

// TestGuardUnderEviction projects results of several chunks through a Guard
// on a Redis near its maxmemory, with writers evicting keys all along, for
// each eviction policy that evicts results: every Project returns a view,
// and every view shows the output's first and last lines; one that could not
// keep its result says so (a fallback that names why).
func TestGuardUnderEviction(t *testing.T) {
	for _, policy := range []string{"volatile-lru", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			srv := redistest.Start(t, "--maxmemory", "24mb", "--maxmemory-policy", policy, "--maxmemory-samples", "10")
			pressure(t, srv, 3)
			st, err := redisstore.Open(context.Background(), srv.URL(0)+"?namespace="+redistest.Namespace(), redisstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			g := newGuard(t, crumb.Config{Store: st, Budget: 400})
			runs := evictionRuns()
			var lost, fallbacks, stored atomic.Int64
			var wg sync.WaitGroup
			sem := make(chan struct{}, 4)
			for i := range runs {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					first, last := fmt.Sprintf("run %d begins", i), fmt.Sprintf("run %d ends with status %d", i, i%3)
					var b bytes.Buffer
					b.WriteString(first + "\n")
					for j := 0; b.Len() < 3*store.ChunkSize; j++ {
						fmt.Fprintf(&b, "run %d step %d: compiling a module of the build\n", i, j)
					}
					b.WriteString(last + "\n")
					code := i % 3
					v, err := g.Project(context.Background(), crumb.Result{Tool: "run", Kind: crumb.KindCommand, Reader: bytes.NewReader(b.Bytes()), ExitCode: &code})
					switch {
					case err != nil:
						lost.Add(1)
						t.Errorf("run %d: Project: %v", i, err)
						return
					case !strings.Contains(v.Text, first) || !strings.Contains(v.Text, last):
						lost.Add(1)
						t.Errorf("run %d: the view lost the output's first or last line (%s):\n%.600s", i, v.Receipt.Output, v.Text)
					case v.Receipt.Stored:
						stored.Add(1)
					case v.Receipt.Output != crumb.OutputFallback || v.Receipt.StoreError == "" || !strings.Contains(v.Text, "could not"):
						lost.Add(1)
						t.Errorf("run %d: a view of a result not kept does not say why (%s, %q):\n%.600s", i, v.Receipt.Output, v.Receipt.StoreError, v.Text)
					default:
						if fallbacks.Add(1) == 1 {
							t.Logf("%.400s", v.Text)
						}
					}
				}()
			}
			wg.Wait()
			t.Logf("%s: %d runs: %d stored, %d fallbacks (not kept, and said so), %d lost", policy, runs, stored.Load(), fallbacks.Load(), lost.Load())
		})
	}
}
