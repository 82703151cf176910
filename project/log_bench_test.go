package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// benchLog projects a log of about size bytes, made of the real fixtures
// repeated, and reports MB/s of input.
func benchLog(b *testing.B, size int) { benchLogIntent(b, size, "") }

// benchLogIntent is benchLog for a call with an intent.
func benchLogIntent(b *testing.B, size int, intent string) {
	data := syntheticLog(b, size)
	in := testInput(b, data, 2000)
	if intent != "" {
		in.Args = json.RawMessage(`{"intent": "` + intent + `"}`)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := Project(context.Background(), KindText, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLogProjectWhole projects a 40 MB log, which is read whole.
func BenchmarkLogProjectWhole(b *testing.B) { benchLog(b, 40<<20) }

// BenchmarkLogProjectSampled projects a 100 MB log, of which a 48 MB sample
// is read.
func BenchmarkLogProjectSampled(b *testing.B) { benchLog(b, 100<<20) }

// BenchmarkLogProjectIntent projects the 40 MB log for a call with an
// intent, whose words every line is searched for.
func BenchmarkLogProjectIntent(b *testing.B) {
	benchLogIntent(b, 40<<20, "why did the replication sync to the primary fail with connection refused")
}

// BenchmarkLogProjectAccess projects a real 5 MB nginx access log (the
// fixture under testdata/text), read whole: the shape of log the speed
// benchmark repeats.
func BenchmarkLogProjectAccess(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "text", "nginx-access", "output"))
	if err != nil {
		b.Skip("fixture missing:", err)
	}
	in := testInput(b, data, 2000)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := Project(context.Background(), KindText, in); err != nil {
			b.Fatal(err)
		}
	}
}
