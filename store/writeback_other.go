//go:build !linux

package store

import "os"

// startWriteback does nothing where the kernel offers no way to start
// writeback of a range early; the final fsync writes everything.
func startWriteback(f *os.File, off, n int64) {}
