package crumb_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/crumb-dev/crumb"
)

// BenchmarkProject measures the whole path of a result: pass-through check,
// streaming store (hashing, fsync, rename) and projection. Throughput is in
// MB/s of input; allocated bytes per op must not grow with the input.
func BenchmarkProject(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"1KB", 1 << 10}, {"1MB", 1 << 20}, {"100MB", 100 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			body := sizedLog(size.n)
			g := newGuard(b, crumb.Config{})
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Project(context.Background(), crumb.Result{Body: body, Kind: crumb.KindText}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPassThrough measures a small result passing through untouched.
func BenchmarkPassThrough(b *testing.B) {
	body := sizedLog(1 << 10)
	g := newGuard(b, crumb.Config{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		v, err := g.Project(context.Background(), crumb.Result{Body: body})
		if err != nil || v.Receipt.Output != crumb.OutputExact {
			b.Fatal(err, v.Receipt.Output)
		}
	}
}

// sizedLog returns about n bytes of distinct log lines.
func sizedLog(n int) []byte {
	var b bytes.Buffer
	b.Grow(n + 100)
	lines := logLines(1000)
	for b.Len() < n {
		b.Write(lines)
	}
	return b.Bytes()[:n]
}
