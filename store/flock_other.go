//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package store

import "os"

const locksSupported = false

func lockPath(path string, exclusive bool) (*os.File, error) { return nil, errNoLocks }

func tryLockPath(path string) (*os.File, bool, error) { return nil, false, errNoLocks }

func tryLockFile(f *os.File) (bool, error) { return false, errNoLocks }

func lockFileExclusive(f *os.File) error { return errNoLocks }
