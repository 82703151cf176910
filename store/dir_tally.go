package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

var _ Tallier = (*Dir)(nil)

// maxTallySize bounds the tally file read beside a record: a few counts.
const maxTallySize = 4 << 10

// tallyMu serializes the tallies of one process; the tally lock file
// serializes those of several.
var tallyMu sync.Mutex

func (d *Dir) tallyPath(ref Ref) string {
	return filepath.Join(d.meta, d.shard(ref), string(ref)+".tally")
}

// Tally adds deltas to counts of a stored result (see [Tallier]). A Dir
// keeps them beside the record, in ROOT/meta/ab/<ref>.tally, a JSON object
// of integers that Stat, Open and List add to the record's Meta.Attrs of
// the same names: a read is charged without rewriting the record, which
// holds a digest for every chunk (some 77 KB for a 1 GB result). The file
// is replaced by a rename and not synced: a crash may lose the last counts,
// and a tally file that cannot be read counts as none. It does not count as
// a use.
func (d *Dir) Tally(ctx context.Context, ref Ref, deltas map[string]int64) error {
	// The shared commit lock keeps Delete and GC from removing the record
	// (and the tally with it) while the tally is replaced.
	ref, lk, err := d.lockRef(ctx, ref, "tally")
	if err != nil {
		return err
	}
	defer lk.Close()
	if _, err := os.Lstat(d.recordPath(ref)); errors.Is(err, fs.ErrNotExist) {
		return missingErr(ref)
	} else if err != nil {
		return fmt.Errorf("store: tallying %s: %w", ref, err)
	}
	tallyMu.Lock()
	defer tallyMu.Unlock()
	tl, err := lockPath(filepath.Join(d.root, "tally.lock"), true)
	if err != nil {
		return err
	}
	defer tl.Close()
	counts := d.readTally(ref)
	if counts == nil {
		counts = map[string]int64{}
	}
	for k, n := range deltas {
		counts[k] += n
	}
	data, err := json.Marshal(counts)
	if err == nil {
		err = d.replace(d.tallyPath(ref), "tal-*", data, time.Time{}, replaceNothing)
	}
	if err != nil {
		return fmt.Errorf("store: tallying %s: %w", ref, err)
	}
	return nil
}

// readTally returns the counts of the tally file of ref; nil when there is
// none, or it cannot be read or makes no sense.
func (d *Dir) readTally(ref Ref) map[string]int64 {
	f, fi, err := openRegular(d.tallyPath(ref), os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi.Size() > maxTallySize {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTallySize+1))
	if err != nil || len(data) > maxTallySize {
		return nil
	}
	var counts map[string]int64
	if json.Unmarshal(data, &counts) != nil {
		return nil
	}
	return counts
}

// addTally adds the counts of ref's tally file to info's attributes.
func (d *Dir) addTally(ref Ref, info *Info) {
	counts := d.readTally(ref)
	if len(counts) == 0 {
		return
	}
	attrs := maps.Clone(info.Attrs)
	if attrs == nil {
		attrs = map[string]string{}
	}
	for k, n := range counts {
		was, _ := strconv.ParseInt(attrs[k], 10, 64)
		attrs[k] = strconv.FormatInt(max(0, was)+max(0, n), 10)
	}
	info.Attrs = attrs
}
