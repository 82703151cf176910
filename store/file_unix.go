//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens the file at path with flag (and perm when it creates
// one) and returns it with its description, but only if it is a regular file
// of the store itself: a symbolic link in its last component is not followed,
// and opening a FIFO or a device neither blocks nor reads from it. Anything
// else returns an error wrapping errNotRegular.
func openRegular(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
	if err != nil {
		// O_NOFOLLOW reports a symbolic link as ELOOP (EMLINK on FreeBSD).
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			return nil, nil, fmt.Errorf("%s: %w (a symbolic link)", path, errNotRegular)
		}
		// A FIFO opened for writing with no reader.
		if errors.Is(err, syscall.ENXIO) {
			return nil, nil, fmt.Errorf("%s: %w (a FIFO)", path, errNotRegular)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (%s)", path, errNotRegular, fi.Mode().Type())
	}
	return f, fi, nil
}

// checkPerm returns an error when the directory described by fi may be
// written by users other than its owner: anyone who can write to a store
// can plant files that its readers open, or remove results.
func checkPerm(path string, fi fs.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: %s has mode %04o: other users may write to it; run 'chmod 700 %s'", errUnsafeDir, path, perm, path)
	}
	return nil
}
