package tokens

import (
	"os"
	"strings"
	"testing"
)

func TestO200kCounts(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"Hello, world!", 4},
	}
	c := O200k()
	for _, tt := range tests {
		if got := c.Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	if c.Name() != "o200k_base" {
		t.Errorf("Name() = %q", c.Name())
	}
}

// The estimate is meant to land near the real count for ordinary text.
func TestEstimateIsNearTheRealCount(t *testing.T) {
	src, err := os.ReadFile("/usr/local/go/src/net/http/server.go")
	if err != nil {
		t.Skip(err)
	}
	samples := []string{string(src), strings.Repeat("2026-11-29 12:00:01 INFO request served path=/api/v1/items status=200\n", 500)}
	for _, s := range samples {
		real, est := O200k().Count(s), Estimate(s)
		if ratio := float64(est) / float64(real); ratio < 0.6 || ratio > 1.6 {
			t.Errorf("estimate %d vs real %d (ratio %.2f)", est, real, ratio)
		}
	}
}

func TestByName(t *testing.T) {
	for _, n := range []string{"o200k_base", "o200k", "estimate"} {
		if _, ok := ByName(n); !ok {
			t.Errorf("ByName(%q) not found", n)
		}
	}
	if _, ok := ByName("cl100k"); ok {
		t.Error("unknown name accepted")
	}
}

func BenchmarkO200k(b *testing.B) {
	src, err := os.ReadFile("/usr/local/go/src/net/http/server.go")
	if err != nil {
		b.Skip(err)
	}
	s := string(src[:8192])
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		O200k().Count(s)
	}
}

func BenchmarkEstimate(b *testing.B) {
	s := strings.Repeat("2026-11-29 12:00:01 INFO request served path=/api\n", 200)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Estimate(s)
	}
}

// AtMostBytes holds: the counters that declare it never count more tokens
// than bytes, on text of every sort.
func TestCountsAtMostBytes(t *testing.T) {
	texts := []string{"a", " ", "\n\n\n", "日本語のテキスト", "🙂🙂🙂", "\xff\xfe\x80", strings.Repeat("x", 1000), "héllo wörld, ça va?\t\r\n"}
	for _, c := range []Counter{O200k(), Estimator()} {
		if !AtMostBytes(c) {
			t.Errorf("%s: AtMostBytes = false", c.Name())
		}
		for _, s := range texts {
			if n := c.Count(s); n > len(s) {
				t.Errorf("%s: Count(%q) = %d, more than its %d bytes", c.Name(), s, n, len(s))
			}
		}
	}
}

// TestEstimateWriter: the estimate tallied over a text written in pieces,
// cut anywhere (inside a rune too), is Estimate of the whole text, valid
// UTF-8 or not.
func TestEstimateWriter(t *testing.T) {
	src, err := os.ReadFile("tokens.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "a", "héllo wörld — ünïcode", string(src), strings.Repeat("日本語のテキスト\n", 300), "\xff\xfe broken \x80\x80 utf-8 \xe6\x97", "\x80"} {
		for _, piece := range []int{1, 2, 3, 7, 4096} {
			var w EstimateWriter
			for i := 0; i < len(text); i += piece {
				w.Write([]byte(text[i:min(i+piece, len(text))]))
			}
			if got, want := w.Tokens(), Estimate(text); got != want {
				t.Errorf("%d bytes in pieces of %d: Tokens() = %d, Estimate = %d", len(text), piece, got, want)
			}
		}
	}
}
