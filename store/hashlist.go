package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
)

// The digest of a stored result is a hash list: the SHA-256 of the
// concatenated SHA-256 digests of its ChunkSize chunks (the empty result has
// no chunks: its digest is the SHA-256 of nothing). Every byte is hashed once,
// chunks can be hashed in parallel as they are written, a read verifies just
// the chunks it touches, and a record's chunk list is checked against its
// digest without reading the content. Chunk boundaries are fixed, so equal
// content always has the same digest and two different lists of chunk
// digests never hash alike unless SHA-256 collides.

// Sum returns the digest a store gives to content b, in lowercase hex.
func Sum(b []byte) string {
	var chunks [][sha256.Size]byte
	for off := 0; off < len(b); off += ChunkSize {
		chunks = append(chunks, sha256.Sum256(b[off:min(off+ChunkSize, len(b))]))
	}
	return hex.EncodeToString(listDigest(chunks))
}

// listDigest returns the digest of a list of chunk digests.
func listDigest(chunks [][sha256.Size]byte) []byte {
	h := sha256.New()
	for i := range chunks {
		h.Write(chunks[i][:])
	}
	return h.Sum(nil)
}

// checkList checks that a record's chunk digests hash to its digest.
func checkList(info Info) error {
	chunks := make([][sha256.Size]byte, len(info.Chunks))
	var src [2 * sha256.Size]byte // each digest's hex, decoded without an allocation of its own
	for i, c := range info.Chunks {
		if len(c) != len(src) {
			return fmt.Errorf("its record's digest of chunk %d is malformed", i)
		}
		copy(src[:], c)
		if _, err := hex.Decode(chunks[i][:], src[:]); err != nil {
			return fmt.Errorf("its record's digest of chunk %d is malformed", i)
		}
	}
	if hex.EncodeToString(listDigest(chunks)) != info.Digest {
		return fmt.Errorf("its record's chunk digests do not hash to its digest")
	}
	return nil
}

// chunkHasher hashes chunks on worker goroutines while the caller goes on
// writing, and keeps their digests in order. Buffers handed to it come back
// through free once hashed. The zero value is not usable; see newChunkHasher.
type chunkHasher struct {
	jobs    chan hashJob
	done    chan hashJob
	digests [][sha256.Size]byte
	pending int
	started bool
	workers int
	free    func(*[]byte)
}

type hashJob struct {
	idx int
	buf *[]byte
	n   int
	sum [sha256.Size]byte
}

// newChunkHasher returns a hasher that gives each hashed buffer to free.
func newChunkHasher(free func(*[]byte)) *chunkHasher {
	return &chunkHasher{free: free, workers: max(1, min(runtime.GOMAXPROCS(0), 4))}
}

// add hashes (*buf)[:n] as the next chunk. The first chunk is hashed inline,
// so that small results cost no goroutine; later ones go to the workers, at
// most maxPending at a time.
func (c *chunkHasher) add(buf *[]byte, n int) {
	idx := len(c.digests)
	c.digests = append(c.digests, [sha256.Size]byte{})
	if idx == 0 {
		c.digests[0] = sha256.Sum256((*buf)[:n])
		c.free(buf)
		return
	}
	if !c.started {
		c.started = true
		c.jobs = make(chan hashJob, maxPending)
		c.done = make(chan hashJob, maxPending)
		for range c.workers {
			go func() {
				for j := range c.jobs {
					j.sum = sha256.Sum256((*j.buf)[:j.n])
					c.done <- j
				}
			}()
		}
	}
	for c.pending >= maxPending {
		c.collect()
	}
	c.jobs <- hashJob{idx: idx, buf: buf, n: n}
	c.pending++
}

// collect waits for one hashed chunk.
func (c *chunkHasher) collect() {
	j := <-c.done
	c.digests[j.idx] = j.sum
	c.free(j.buf)
	c.pending--
}

// wait waits for every chunk to be hashed and stops the workers. It may be
// called more than once.
func (c *chunkHasher) wait() {
	for c.pending > 0 {
		c.collect()
	}
	if c.started {
		close(c.jobs)
		c.started = false
	}
}

// maxPending is how many chunks may wait to be hashed: the buffers a Put
// holds are maxPending+1 chunks.
const maxPending = 3

// result returns the chunk digests in hex and the digest of the whole.
func (c *chunkHasher) result() ([]string, string) {
	hexes := make([]string, len(c.digests))
	for i := range c.digests {
		hexes[i] = hex.EncodeToString(c.digests[i][:])
	}
	return hexes, hex.EncodeToString(listDigest(c.digests))
}
