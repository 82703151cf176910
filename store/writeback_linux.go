package store

import (
	"os"
	"syscall"
)

// startWriteback asks the kernel to start writing [off, off+n) of f to disk
// now, without waiting, so that the fsync that makes a result durable finds
// most of it written already and the writing overlaps the hashing.
func startWriteback(f *os.File, off, n int64) {
	syscall.SyncFileRange(int(f.Fd()), off, n, 2 /* SYNC_FILE_RANGE_WRITE */)
}
