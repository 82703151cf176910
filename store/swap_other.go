//go:build !linux

package store

import "os"

// swapInto moves the file tmp to path, replacing what is there.
func swapInto(tmp, path string) error { return os.Rename(tmp, path) }
