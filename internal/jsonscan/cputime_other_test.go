//go:build !unix

package jsonscan

import "time"

// cpuTime is not measured here; benchmarks then report no cpu-MB/s.
func cpuTime() time.Duration { return 0 }
