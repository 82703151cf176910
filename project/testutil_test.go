package project

import (
	"testing"

	"github.com/crumb-dev/crumb/tokens"
)

// memSource is the in-memory Source projectors use for bytes they store
// apart (see newBytesSource), so projector tests need no store.
type memSource = bytesSource

func newMemSource(b []byte) *memSource { return newBytesSource(b) }

// testInput returns an input over b as if stored, with the o200k counter.
func testInput(t testing.TB, b []byte, budget int) *Input {
	t.Helper()
	src := newMemSource(b)
	return &Input{Source: src, Ref: src.info.Ref, Digest: src.info.Digest, Budget: budget, Counter: tokens.O200k()}
}
