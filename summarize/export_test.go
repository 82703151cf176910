package summarize

import "time"

// SetCacheClock sets the clock the Summarizer's cache reads, for the tests
// of expiry.
func SetCacheClock(s *Summarizer, now func() time.Time) { s.cache.now = now }
