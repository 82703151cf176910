package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// Settings are a store's lifecycle settings, which every process sharing
// it applies alike (see [DirOptions]).
type Settings struct {
	// TTL is how long a result is kept after its last use.
	TTL time.Duration
	// MaxBytes is the size cap.
	MaxBytes int64
}

// settingsFile is the JSON form of Settings in ROOT/settings.json, for
// example {"ttl": "48h0m0s", "max_bytes": 10737418240}. An absent field
// means the default.
type settingsFile struct {
	TTL      string `json:"ttl,omitempty"`
	MaxBytes int64  `json:"max_bytes,omitempty"`
}

// maxSettingsSize is the largest settings file the store reads.
const maxSettingsSize = 64 << 10

// Settings returns the lifecycle settings the store applies.
func (d *Dir) Settings() Settings { return Settings{TTL: d.ttl, MaxBytes: d.maxBytes} }

// applySettings sets the store's lifecycle settings: those given in opts,
// else those of the settings file, else the defaults. It writes the given
// ones to the settings file when they differ from what it holds.
func (d *Dir) applySettings(opts DirOptions) error {
	saved, err := d.readSettings()
	if err != nil {
		return fmt.Errorf("store: settings file %s: %w; correct it or delete it to use the defaults", d.settings, err)
	}
	want := saved
	if opts.TTL > 0 {
		want.TTL = opts.TTL
	}
	if opts.MaxBytes > 0 {
		want.MaxBytes = opts.MaxBytes
	}
	if want != saved {
		if err := d.writeSettings(want); err != nil {
			return fmt.Errorf("store: writing settings file %s: %w", d.settings, err)
		}
	}
	d.ttl, d.maxBytes = want.TTL, want.MaxBytes
	if d.ttl <= 0 {
		d.ttl = DefaultTTL
	}
	if d.maxBytes <= 0 {
		d.maxBytes = DefaultMaxBytes
	}
	return nil
}

// readSettings reads the settings file; a missing one holds no settings.
func (d *Dir) readSettings() (Settings, error) {
	f, fi, err := openRegular(d.settings, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, nil
	}
	if err != nil {
		return Settings{}, err
	}
	defer f.Close()
	if fi.Size() > maxSettingsSize {
		return Settings{}, fmt.Errorf("it holds %d bytes, more than a settings file can", fi.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsSize))
	if err != nil {
		return Settings{}, err
	}
	return ParseSettings(data)
}

// writeSettings durably replaces the settings file. It holds the commit lock
// shared, so that a collection (which holds it exclusively) never takes
// its temp file for a leftover.
func (d *Dir) writeSettings(s Settings) error {
	data := MarshalSettings(s)
	lk, err := lockPath(d.lockFile, false)
	if err != nil {
		return err
	}
	defer lk.Close()
	return d.replaceFile(d.settings, "set-*", append(data, '\n'), time.Time{})
}

// readUsage returns the usage the store recorded; 0 when none or unreadable.
func (d *Dir) readUsage() int64 {
	n, _ := d.changeUsage(nil)
	return n
}

// changeUsage replaces the recorded usage u with fn(u), under an exclusive
// lock of the usage file, and returns the new value (u itself when fn is
// nil). An unreadable value counts as 0; the next collection corrects it.
// The file is not synced: after a crash the next collection counts anew.
func (d *Dir) changeUsage(fn func(int64) int64) (int64, error) {
	f, _, err := openRegular(d.usage, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("store: usage file: %w", err)
	}
	defer f.Close()
	if err := lockFileExclusive(f); err != nil {
		return 0, err
	}
	var buf [24]byte
	n, _ := f.ReadAt(buf[:], 0)
	u, err := strconv.ParseInt(string(bytes.TrimSpace(buf[:n])), 10, 64)
	if err != nil || u < 0 {
		u = 0
	}
	if fn == nil {
		return u, nil
	}
	u = max(0, fn(u))
	out := strconv.AppendInt(buf[:0], u, 10)
	out = append(out, '\n')
	if _, err := f.WriteAt(out, 0); err != nil {
		return 0, fmt.Errorf("store: usage file: %w", err)
	}
	if err := f.Truncate(int64(len(out))); err != nil {
		return 0, fmt.Errorf("store: usage file: %w", err)
	}
	return u, nil
}
