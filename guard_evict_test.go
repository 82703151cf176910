//go:build linux

package crumb_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/storefault"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
)

// TestGuardUnderEviction projects results of several chunks through a Guard
// on a Redis near its maxmemory, with writers evicting keys all along, for
// each eviction policy that evicts results: every Project returns a view,
// and every view states the command's exit status and shows the output's
// first and last lines; one that could not keep its result says so (a
// fallback that names why).
func TestGuardUnderEviction(t *testing.T) {
	for _, policy := range []string{"volatile-lru", "allkeys-lru"} {
		t.Run(policy, func(t *testing.T) {
			st, err := redisstore.Open(context.Background(), storefault.EvictingWith(t, policy, 24, 3), redisstore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			g := newGuard(t, crumb.Config{Store: st, Budget: 400})
			runs := storefault.EvictionRuns()
			var lost, fallbacks, stored atomic.Int64
			storefault.Runs(runs, 4, func(i int) {
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
				case !strings.Contains(v.Text, fmt.Sprintf("exit status %d", code)):
					lost.Add(1)
					t.Errorf("run %d: the view does not say the command's exit status %d (%s):\n%.600s", i, code, v.Receipt.Output, v.Text)
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
			})
			t.Logf("%s: %d runs: %d stored, %d fallbacks (not kept, and said so), %d lost", policy, runs, stored.Load(), fallbacks.Load(), lost.Load())
		})
	}
}
