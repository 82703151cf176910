package store

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Checker is implemented by stores that can tell whether they can take a
// result now: a health check (crumb serve's /healthz) asks it. Check
// returns nil when the store can be written, else an error that says why
// not (a server that does not answer, a full or read-only disk).
type Checker interface {
	Check(ctx context.Context) error
}

var (
	_ Checker = (*Dir)(nil)
	_ Checker = (*Unavailable)(nil)
)

// checkBytes is the size of the file Dir.Check writes: enough to need a
// block of the disk, so that a full one fails.
const checkBytes = 4 << 10

// Check writes a small file among the store's temporary files and removes
// it: it fails when the directory cannot be written (read-only, full, its
// permissions changed) or the store is closed.
func (d *Dir) Check(ctx context.Context) error {
	if d.closed.Load() {
		return ErrClosed
	}
	name, err := d.writeTemp("check-*", make([]byte, checkBytes), time.Time{}, false)
	if err != nil {
		return fmt.Errorf("store: %s cannot take a result: %w", d.root, err)
	}
	os.Remove(name)
	return nil
}

// Check returns the reason the store could not be opened.
func (u *Unavailable) Check(context.Context) error { return u.err }
