package bench

import (
	"context"
	"testing"
)

// TestMeasureMCPSmall times small calls through the MCP proxy and
// directly, and checks what it reports: the 1 KB head of the log passed
// through, each way timed.
func TestMeasureMCPSmall(t *testing.T) {
	r, err := MeasureOne(context.Background(), OneSpec{Mode: ModeMCPSmall, Corpus: corpusDir, Dir: t.TempDir(), Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 3*mcpSmallRound || r.Bytes <= 0 || r.Bytes > PassThroughBytes || r.Seconds <= 0 || r.BaseSeconds <= 0 || r.BaseName != "direct call" {
		t.Errorf("small calls: %+v", r)
	}
}

// TestMCPSmallTarget sets the small-call row beside its target.
func TestMCPSmallTarget(t *testing.T) {
	for _, tc := range []struct {
		proxied, direct float64
		measured        string
		met             bool
	}{
		{110e-6, 100e-6, "1.10× (110.0 µs vs 100.0 µs)", true},
		{120e-6, 100e-6, "1.20× (120.0 µs vs 100.0 µs)", true},
		{220e-6, 100e-6, "2.20× (220.0 µs vs 100.0 µs)", false},
	} {
		rep := SpeedReport{MCPSmall: OneResult{Bytes: 996, Seconds: tc.proxied, BaseSeconds: tc.direct, Runs: 100}}
		ts := Targets(rep)
		if len(ts) != 1 || ts[0].Measured != tc.measured || ts[0].Met != tc.met || ts[0].Target != "≤ 1.2×" {
			t.Errorf("%v vs %v: %+v", tc.proxied, tc.direct, ts)
		}
	}
}
