package project

import (
	"bytes"
	"testing"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// memSource is an in-memory Source with the line index a store records, so
// projector tests need no store.
type memSource struct {
	*bytes.Reader
	info store.Info
}

func (m *memSource) Info() store.Info { return m.info }

func newMemSource(b []byte) *memSource {
	info := store.Info{Digest: store.Sum(b), Size: int64(len(b))}
	info.Ref = store.RefOf(info.Digest)
	var nl int64
	for off := 0; off < len(b); off += store.ChunkSize {
		info.ChunkNewlines = append(info.ChunkNewlines, nl)
		nl += int64(bytes.Count(b[off:min(off+store.ChunkSize, len(b))], []byte{'\n'}))
	}
	info.Newlines = &nl
	return &memSource{Reader: bytes.NewReader(b), info: info}
}

// testInput returns an input over b as if stored, with the o200k counter.
func testInput(t testing.TB, b []byte, budget int) *Input {
	t.Helper()
	src := newMemSource(b)
	return &Input{Source: src, Ref: src.info.Ref, Digest: src.info.Digest, Budget: budget, Counter: tokens.O200k()}
}
