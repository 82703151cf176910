package project

import (
	"bytes"

	"github.com/crumb-dev/crumb/store"
)

// bytesSource is an in-memory Source, with the line index a store keeps.
type bytesSource struct {
	*bytes.Reader
	info store.Info
}

func (b *bytesSource) Info() store.Info { return b.info }

// BytesSource returns data as a [Source] with the Info a store gives it
// (digest, ref, newline counts): the input of a projector's tests, for a
// kind in a package of its own.
func BytesSource(data []byte) Source { return newBytesSource(data) }

func newBytesSource(data []byte) *bytesSource {
	// The digest a store gives these bytes, so that reads of the copy
	// stored apart carry the revision the store checks.
	info := store.Info{Digest: store.Sum(data), Size: int64(len(data))}
	info.Ref = store.RefOf(info.Digest)
	var nl int64
	for off := 0; off < len(data); off += store.ChunkSize {
		info.ChunkNewlines = append(info.ChunkNewlines, nl)
		nl += int64(bytes.Count(data[off:min(off+store.ChunkSize, len(data))], []byte{'\n'}))
	}
	info.Newlines = &nl
	return &bytesSource{Reader: bytes.NewReader(data), info: info}
}
