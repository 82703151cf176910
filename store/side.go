package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// SideStore is implemented by stores that can keep small side entries
// beside the results, such as the summaries a summarizer verified, so that
// separate processes sharing one store reuse them. A side entry is not a
// result: it is not listed, counted in stats or verified by the store; the
// reader must check a value before trusting it. Stores without it simply do
// not share such entries.
type SideStore interface {
	// GetSide returns the value stored under key, or an error wrapping
	// ErrMissing when there is none or it has expired.
	GetSide(ctx context.Context, key string) ([]byte, error)
	// PutSide stores value under key, replacing any value there, to expire
	// after ttl (the store's own expiry when ttl is zero or less).
	PutSide(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// SideName is the name a store files a side entry's key under: its SHA-256
// in lowercase hex, so that any key is a safe file name or Redis key part
// of fixed length.
func SideName(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// SideTTL is how long a side entry put with ttl lives in a store whose own
// expiry is storeTTL: ttl when positive, else storeTTL when positive, else
// a day.
func SideTTL(ttl, storeTTL time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl
	case storeTTL > 0:
		return storeTTL
	}
	return 24 * time.Hour
}

// sidePath names the file of a side entry.
func (d *Dir) sidePath(key string) string {
	return filepath.Join(d.root, "side", SideName(key))
}

// GetSide returns the side entry under key; an entry whose modification
// time (its expiry) has passed counts as missing.
func (d *Dir) GetSide(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := d.sidePath(key)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: side entry: %w", ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("store: side entry: %w", err)
	}
	if !fi.ModTime().After(d.now()) {
		return nil, fmt.Errorf("store: side entry expired: %w", ErrMissing)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("store: side entry: %w", ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("store: side entry: %w", err)
	}
	return data, nil
}

// PutSide writes the side entry under key whole (a temp file renamed into
// place), its modification time set to its expiry.
func (d *Dir) PutSide(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ttl = SideTTL(ttl, d.ttl)
	p := d.sidePath(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("store: side entries: %w", err)
	}
	if err := d.replace(p, "side-*", value, d.now().Add(ttl), replaceContent); err != nil {
		return fmt.Errorf("store: writing side entry: %w", err)
	}
	return nil
}

var _ SideStore = (*Dir)(nil)

// collectSide removes the side entries whose expiry (their modification
// time) has passed, so that they do not pile up in the store.
func (d *Dir) collectSide(now time.Time, st *GCStats) {
	dir := filepath.Join(d.root, "side")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return // none yet, or unreadable: the next collection tries again
	}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().After(now) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			st.SideExpired++
			st.BytesFreed += fi.Size()
		}
	}
}
