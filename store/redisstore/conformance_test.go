package redisstore

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

var (
	sharedOnce sync.Once
	shared     *redistest.Server
)

// sharedServer returns one server for the conformance tests, each of which
// works in a namespace of its own. It stops when the package's tests end.
func sharedServer(t *testing.T) *redistest.Server {
	t.Helper()
	redistest.Need(t)
	sharedOnce.Do(func() { shared = redistest.StartShared(t, mkdirTemp(t)) })
	if shared == nil || !shared.Running() {
		t.Fatal("the shared redis-server did not start")
	}
	return shared
}

func openTest(t *testing.T, srv *redistest.Server, opts Options) *Store {
	t.Helper()
	return openURL(t, srv.URL(0), opts)
}

// openURL opens the store at url in a namespace of its own unless opts
// names one, and closes it when the test ends.
func openURL(t *testing.T, url string, opts Options) *Store {
	t.Helper()
	if opts.Namespace == "" {
		opts.Namespace = redistest.Namespace()
	}
	s, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// backend is the conformance backend of the stores that open opens (on
// the shared server, or the shared cluster).
func backend(open func(t *testing.T, opts Options) *Store) storetest.Backend {
	return storetest.Backend{
		New: func(t *testing.T) store.Store { return open(t, Options{}) },
		Clocked: func(t *testing.T, now func() time.Time, ttl time.Duration) store.Store {
			return open(t, Options{Now: now, TTL: ttl})
		},
		Capped: func(t *testing.T, maxBytes int64) store.Store {
			return open(t, Options{MaxBytes: maxBytes})
		},
		Shared: func(t *testing.T) (store.Store, store.Store) {
			ns := redistest.Namespace()
			return open(t, Options{Namespace: ns}), open(t, Options{Namespace: ns})
		},
		Tenants: func(t *testing.T) (store.Store, store.Store) {
			return open(t, Options{}), open(t, Options{})
		},
		Corrupt: func(t *testing.T, st store.Store, ref store.Ref, off int64) {
			s := st.(*Store)
			ctx := context.Background()
			field := strconv.FormatInt(off/store.ChunkSize, 10)
			b, err := s.c.HGet(ctx, s.dataKey(ref), field).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			b[off%store.ChunkSize] ^= 0xff
			if err := s.c.HSet(ctx, s.dataKey(ref), field, b).Err(); err != nil {
				t.Fatal(err)
			}
		},
		EditInfo: func(t *testing.T, st store.Store, ref store.Ref, fn func(*store.Info)) {
			s := st.(*Store)
			ctx := context.Background()
			b, err := s.c.HGet(ctx, s.dataKey(ref), recField).Bytes()
			if err != nil {
				t.Fatal(err)
			}
			var r record
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			fn(&r.Info)
			if b, err = json.Marshal(r); err != nil {
				t.Fatal(err)
			}
			if err := s.c.HSet(ctx, s.dataKey(ref), recField, b).Err(); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.RunBackend(t, backend(func(t *testing.T, opts Options) *Store { return openTest(t, sharedServer(t), opts) }))
}
