package store

import (
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// No byte is hashed twice by one process. A chunk of a content file read
// and found to match its digest is remembered, with the state of the file
// it was read from (which file, its size, its modification time); a later
// read of that chunk, by any object of this process, reads just the bytes
// it needs and checks that the file is still in that state instead of
// hashing the whole chunk again. A change to the file moves its
// modification time, so the chunk is hashed again and damage is caught.
//
// A write lands in the same modification time as an earlier one only if the
// file system's clock has not ticked in between, so a verification made
// within a tick of the file's last change is not remembered ("racy", as git
// calls it): it guards only the read that made it. A file whose timestamps
// have whole seconds is taken to keep no finer time.
//
// A staged object trusts, in the same way, the chunks its own process
// hashed while writing them (see newWrittenObject).

// verifiedMax bounds the chunks remembered: 4,096 chunks of 1 MiB (4 GiB
// of results), for about a megabyte of memory.
const verifiedMax = 4096

// racyMargin is how long after a file's last change its verified chunks
// must be read before they are remembered, on a file system with
// sub-second timestamps; racyMarginCoarse applies to whole-second ones.
const (
	racyMargin       = 20 * time.Millisecond
	racyMarginCoarse = 2 * time.Second
)

// chunkVerifications counts the chunks hashed to check a read.
var chunkVerifications atomic.Int64

// ChunkVerifications returns how many chunks this process has hashed to
// check reads of stored results. Tests and benchmarks use it to show that a
// chunk is verified once however often it is read.
func ChunkVerifications() int64 { return chunkVerifications.Load() }

// verifiedKey names one chunk of one result, and the line index its
// record gives it (see checkChunkLines): a record that says otherwise of the
// same bytes has them checked again.
type verifiedKey struct {
	ref    Ref
	idx    int64
	digest string
	lines  struct {
		indexed       bool
		before, after int64 // newlines before the chunk and after it
		total         int64 // lines in all, for the last chunk
	}
}

// verifiedCache is the process's memory of verified chunks, bounded to
// verifiedMax entries; the oldest are forgotten first.
type verifiedCache struct {
	mu    sync.Mutex
	state map[verifiedKey]os.FileInfo
	order []verifiedKey // ring of keys in insertion order
	next  int           // where the next key goes in order
}

var verified = &verifiedCache{state: make(map[verifiedKey]os.FileInfo)}

// remember records that chunk k read from a file in state fi matched its
// digest, the check having started at checked.
func (c *verifiedCache) remember(k verifiedKey, fi os.FileInfo, checked time.Time) {
	if racy(fi, checked) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.state[k]; ok {
		c.state[k] = fi
		return
	}
	if len(c.order) < verifiedMax {
		c.order = append(c.order, k)
	} else {
		delete(c.state, c.order[c.next])
		c.order[c.next] = k
		c.next = (c.next + 1) % verifiedMax
	}
	c.state[k] = fi
}

// lookup returns the state of the file chunk k was verified in, if known.
func (c *verifiedCache) lookup(k verifiedKey) (os.FileInfo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fi, ok := c.state[k]
	return fi, ok
}

// racy reports whether a check started at checked of a file in state fi
// could miss a later change that keeps the file's modification time.
func racy(fi os.FileInfo, checked time.Time) bool {
	m := fi.ModTime()
	margin := racyMargin
	if m.Nanosecond() == 0 {
		margin = racyMarginCoarse
	}
	return checked.Sub(m) < margin
}

// sameState reports whether a file is still in the state it was in: the
// same file, of the same size, with the same modification time.
func sameState(was, now os.FileInfo) bool {
	return os.SameFile(was, now) && was.Size() == now.Size() && was.ModTime().Equal(now.ModTime())
}
