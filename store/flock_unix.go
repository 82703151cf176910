//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// locksSupported reports whether this platform has the advisory file locks
// that let several processes share one [Dir].
const locksSupported = true

// flockFile applies an flock(2) operation to f, retrying when a signal
// interrupts the call.
func flockFile(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// lockPath opens (creating it if needed) the lock file at path and takes a
// shared (exclusive false) or exclusive lock on it, waiting as long as it
// takes. Closing the returned file releases the lock.
//
// Every call opens the file anew: flock locks belong to an open file
// description, so two goroutines of one process that each open the file
// exclude each other exactly as two processes do.
func lockPath(path string, exclusive bool) (*os.File, error) {
	f, _, err := openRegular(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: opening lock file: %w", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := flockFile(f, how); err != nil {
		f.Close()
		return nil, fmt.Errorf("store: locking %s: %w", path, err)
	}
	return f, nil
}

// tryLockPath is like lockPath with an exclusive lock, but does not wait: it
// returns (nil, false, nil) when another holder has the lock.
func tryLockPath(path string) (*os.File, bool, error) {
	f, _, err := openRegular(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("store: opening lock file: %w", err)
	}
	ok, err := tryLockFile(f)
	if !ok || err != nil {
		f.Close()
		return nil, false, err
	}
	return f, true, nil
}

// tryLockFile takes an exclusive lock on f without waiting, reporting false
// when another holder has it.
func tryLockFile(f *os.File) (bool, error) {
	err := flockFile(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: locking %s: %w", f.Name(), err)
	}
	return true, nil
}

// lockFileExclusive takes an exclusive lock on an already open file, waiting
// as long as it takes.
func lockFileExclusive(f *os.File) error {
	if err := flockFile(f, syscall.LOCK_EX); err != nil {
		return fmt.Errorf("store: locking %s: %w", f.Name(), err)
	}
	return nil
}
