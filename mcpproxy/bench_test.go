package mcpproxy

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The benchmarks measure what crumb adds to a call: the same in-process
// upstream (the fake, over pipes), called by the SDK's client directly and
// through the proxy. The proxy reads both sides as `crumb mcp` does: the
// client through Stdio, the upstream through the connection it reads a
// server run as a command with. Run them with
//
//	go test ./mcpproxy -run '^$' -bench SmallCall -benchtime 3000x
//	go test ./mcpproxy -run '^$' -bench LargeCall -benchtime 20x
//
// and compare the time per call.

func benchDirect(b *testing.B) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(context.Background(), inProcessFake(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchProxied(b *testing.B) *mcp.ClientSession {
	cs := connectSDK(b, testConfig(b, 2000), inProcessUpstream(), nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
	return cs
}

func benchCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any) {
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || len(res.Content) == 0 {
			b.Fatalf("%s: %v", name, err)
		}
	}
}

// BenchmarkDirectSmallCall is a small tool call (three lines) without crumb.
func BenchmarkDirectSmallCall(b *testing.B) {
	benchCall(b, benchDirect(b), "big", map[string]any{"lines": 3})
}

// BenchmarkProxySmallCall is the same call through crumb: it passes through.
func BenchmarkProxySmallCall(b *testing.B) {
	benchCall(b, benchProxied(b), "big", map[string]any{"lines": 3})
}

// BenchmarkDirectLargeCall is a 1.2 MB result without crumb: the client
// receives all of it.
func BenchmarkDirectLargeCall(b *testing.B) {
	benchCall(b, benchDirect(b), "big", map[string]any{"lines": 20000})
}

// BenchmarkProxyLargeCall is the same result through crumb: stored, then
// projected to a view of at most 2,000 tokens.
func BenchmarkProxyLargeCall(b *testing.B) {
	benchCall(b, benchProxied(b), "big", map[string]any{"lines": 20000})
}

// BenchmarkSmallCallRatio times small calls direct and through the proxy
// in turns, a round of each per iteration (each first in turn), and reports the median time of
// a call each way and their ratio (the target is at most 1.2): on a busy
// machine the turns share its slow spells, which separate benchmarks run
// one after the other do not.
func BenchmarkSmallCallRatio(b *testing.B) {
	const round = 50
	ctx := context.Background()
	params := &mcp.CallToolParams{Name: "big", Arguments: map[string]any{"lines": 3}}
	sessions := []*mcp.ClientSession{benchDirect(b), benchProxied(b)}
	var times [2][]float64
	b.ResetTimer()
	for n := 0; b.Loop(); n++ {
		for j := range sessions {
			i := (j + n) % 2 // each goes first in turn
			cs := sessions[i]
			start := time.Now()
			for range round {
				if res, err := cs.CallTool(ctx, params); err != nil || len(res.Content) == 0 {
					b.Fatal(err)
				}
			}
			times[i] = append(times[i], float64(time.Since(start).Nanoseconds())/round)
		}
	}
	direct, proxied := medianOf(times[0]), medianOf(times[1])
	b.ReportMetric(direct, "direct-ns/call")
	b.ReportMetric(proxied, "proxy-ns/call")
	b.ReportMetric(proxied/direct, "proxy/direct")
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkProxyBulkStructured is a result whose structuredContent is 20
// MB of small objects through crumb: projected apart as a JSON result read
// as a stream (see spillResult.structured). B/op is what the proxy, the
// fake and the client allocate for it; the proxy's peak memory on such a
// result is measured by TestPeakRSS.
func BenchmarkProxyBulkStructured(b *testing.B) {
	benchCall(b, benchProxied(b), "bulk", map[string]any{"mb": 20})
}

// BenchmarkProxyHTTPLargeCall is a 20 MB text result from a server reached
// by URL (the SDK's, in-process, over SSE) through crumb: spooled to a
// file before the SDK reads it (see httpSpools), stored and projected.
func BenchmarkProxyHTTPLargeCall(b *testing.B) {
	cs := connectSDK(b, testConfig(b, 2000), &HTTPTransport{Endpoint: httpBigServer(b, false)}, nil)
	benchCall(b, cs, "text", map[string]any{"mb": 20})
}
