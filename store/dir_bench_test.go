package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/storetest"
)

var benchSizes = []int{1 << 10, 1 << 20, 100 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkPut stores distinct results of each size (fsync'ed, committed).
func BenchmarkPut(b *testing.B) { benchmarkPut(b, benchSizes, store.DirOptions{ManualGC: true}) }

// BenchmarkPutNoSync is BenchmarkPut with DirOptions.NoSync.
func BenchmarkPutNoSync(b *testing.B) {
	benchmarkPut(b, benchSizes[:2], store.DirOptions{ManualGC: true, NoSync: true})
}

func benchmarkPut(b *testing.B, sizes []int, opts store.DirOptions) {
	ctx := context.Background()
	for _, size := range sizes {
		b.Run(sizeName(size), func(b *testing.B) {
			d := openDir(b, opts)
			data := storetest.Content(1, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				binary.LittleEndian.PutUint64(data, uint64(i)) // distinct content
				info, err := d.Put(ctx, bytes.NewReader(data), store.Meta{})
				if err != nil {
					b.Fatal(err)
				}
				if size >= 1<<20 { // keep the disk use flat
					b.StopTimer()
					d.Delete(ctx, info.Ref)
					b.StartTimer()
				}
			}
		})
	}
}

// BenchmarkCopyBaseline writes the same bytes to a temp file in a store's
// directory and fsyncs it: the least a durable Put can cost.
func BenchmarkCopyBaseline(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			d := openDir(b, store.DirOptions{ManualGC: true})
			dir := filepath.Join(d.Path(), "tmp")
			data := storetest.Content(1, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				binary.LittleEndian.PutUint64(data, uint64(i))
				f, err := os.CreateTemp(dir, "copy-*")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.Write(data); err != nil {
					b.Fatal(err)
				}
				if err := f.Sync(); err != nil {
					b.Fatal(err)
				}
				f.Close()
				b.StopTimer()
				os.Remove(f.Name())
				b.StartTimer()
			}
		})
	}
}

// BenchmarkReadPage opens a 100 MB result and reads a verified 64 KB page
// from its middle, as a paging read of a large result does.
func BenchmarkReadPage(b *testing.B) {
	ctx := context.Background()
	const size = 100 << 20
	d := openDir(b, store.DirOptions{ManualGC: true})
	info := putBytes(b, d, storetest.Content(2, size))
	page := make([]byte, 64<<10)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj, err := d.Open(ctx, info.Ref)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := obj.ReadAt(page, size/2+int64(i%7)*4096); err != nil {
			b.Fatal(err)
		}
		obj.Close()
	}
}
