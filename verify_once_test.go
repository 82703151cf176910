package crumb_test

import (
	"context"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/bench"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
)

// TestProjectionVerifiesEachChunkOnce projects large results of the speed
// benchmark's kinds through a disk store and counts the chunks hashed to
// check reads: the projection's random line reads may verify a chunk once,
// never again.
func TestProjectionVerifiesEachChunkOnce(t *testing.T) {
	const size = 12 << 20
	for _, tt := range []struct {
		kind     string
		resKind  project.Kind
		boundary string
	}{
		{bench.SpeedLog, project.KindText, "\n"},
		{bench.SpeedCommand, project.KindCommand, "\n"},
		{bench.SpeedJSON, project.KindJSON, "\n}\n"},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			src, err := bench.LoadSource("testdata/corpus", tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			g := newGuard(t, crumb.Config{})
			before := store.ChunkVerifications()
			v, err := g.Project(context.Background(), crumb.Result{Tool: "t", Kind: tt.resKind, Reader: bench.Repeat(src, tt.boundary, size)})
			if err != nil {
				t.Fatal(err)
			}
			if !v.Receipt.Stored || v.Receipt.Bytes < size/2 {
				t.Fatalf("receipt %+v: want a stored result of about %d bytes", v.Receipt, size)
			}
			chunks := (v.Receipt.Bytes + store.ChunkSize - 1) / store.ChunkSize
			if got := store.ChunkVerifications() - before; got > chunks {
				t.Errorf("projecting a %d-chunk %s result verified %d chunks; want each at most once", chunks, tt.kind, got)
			}
		})
	}
}
