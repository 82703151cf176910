package redisstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// The benchmarks run the Redis store and the disk store side by side on the
// same results, so one run gives their ratio: go test -run '^$' -bench .
// ./store/redisstore

var benchSizes = []int{4 << 10, 1 << 20, 16 << 20}

func benchStores(b *testing.B) map[string]store.Store {
	srv := redistest.Start(b)
	rs, err := Open(context.Background(), srv.URL(0), Options{Namespace: redistest.Namespace()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rs.Close() })
	d, err := store.OpenDir(b.TempDir(), store.DirOptions{ManualGC: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	return map[string]store.Store{"redis": rs, "disk": d}
}

func benchName(backend string, size int) string {
	if size >= 1<<20 {
		return fmt.Sprintf("%s/%dMB", backend, size>>20)
	}
	return fmt.Sprintf("%s/%dKB", backend, size>>10)
}

// BenchmarkPut stores distinct results of each size.
func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	stores := benchStores(b)
	for _, backend := range []string{"disk", "redis"} {
		for _, size := range benchSizes {
			b.Run(benchName(backend, size), func(b *testing.B) {
				st := stores[backend]
				data := storetest.Content(1, size)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					binary.LittleEndian.PutUint64(data, uint64(i)) // distinct content
					info, err := st.Put(ctx, bytes.NewReader(data), store.Meta{})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					st.Delete(ctx, info.Ref) // keep the memory and disk use flat
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkOpenRead opens a stored result and reads it whole, verified.
func BenchmarkOpenRead(b *testing.B) {
	ctx := context.Background()
	stores := benchStores(b)
	for _, backend := range []string{"disk", "redis"} {
		for _, size := range benchSizes {
			b.Run(benchName(backend, size), func(b *testing.B) {
				st := stores[backend]
				data := storetest.Content(2, size)
				info, err := st.Put(ctx, bytes.NewReader(data), store.Meta{})
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					obj, err := st.Open(ctx, info.Ref)
					if err != nil {
						b.Fatal(err)
					}
					var buf bytes.Buffer
					buf.Grow(size)
					if _, err := store.Copy(ctx, obj, &buf); err != nil {
						b.Fatal(err)
					}
					obj.Close()
				}
			})
		}
	}
}
