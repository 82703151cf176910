package store

// Hooks for the external tests in package store_test.

// BlobPath returns the path of the content file of ref in d.
func BlobPath(d *Dir, ref Ref) string { return d.blobPath(ref) }

// RecordPath returns the path of the record of ref in d.
func RecordPath(d *Dir, ref Ref) string { return d.recordPath(ref) }

// Syncs returns how many fsyncs d has made.
func Syncs(d *Dir) int64 { return d.syncs.Load() }

// TallyPath returns the path of the tally file of ref in d.
func TallyPath(d *Dir, ref Ref) string { return d.tallyPath(ref) }

// OnSync makes d call fn with the base name of each file it is about to
// fsync (not of directories), on the goroutine that syncs it.
func OnSync(d *Dir, fn func(name string)) { d.onSync = fn }
