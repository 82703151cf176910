package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/tokens"
)

func TestPartOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Part
	}{
		// The first bytes of their SHA-256: 0x36 and 0xb8.
		{"text-nginx-access", PartDev},
		{"command-order-test", PartSealed},
		{"text-a", PartSealed},
		{"text-b", PartDev},
	} {
		if got := PartOf(tc.name); got != tc.want {
			t.Errorf("PartOf(%q) = %s (first byte %#x), want %s", tc.name, got, sha256.Sum256([]byte(tc.name))[0], tc.want)
		}
	}
	// About two thirds of any set of names are dev.
	dev := 0
	const n = 6000
	for i := range n {
		if PartOf(fmt.Sprintf("command-case-%d", i)) == PartDev {
			dev++
		}
	}
	if pct := 100 * float64(dev) / n; pct < 64 || pct > 70 {
		t.Errorf("%.1f%% of %d names are dev, want about 66.8%%", pct, n)
	}
}

// TestRunParts checks that Run sums each part of the corpus apart, that the
// parts add up to the whole, and that the tables name each part.
func TestRunParts(t *testing.T) {
	dir := t.TempDir()
	long := numbered(3000, 50) + "--- FAIL: TestDeep (0.01s)\n    deep_test.go:12: want 3, got 4\nFAIL\n"
	writeCase(t, dir, "command-deep", `{"kind": "command", "tool": "bash", "exit_code": 1, "needles": [
		{"text": "--- FAIL: TestDeep", "why": "the test"}, {"text": "line 1500 ", "why": "the middle"}]}`, []byte(long))
	writeCase(t, dir, "text-b", `{"kind": "text", "needles": [{"text": "ok", "why": "w"}]}`, []byte("all ok\n"))
	writeCase(t, dir, "text-a", `{"kind": "text", "needles": [{"text": "line 2000 ", "why": "w"}, {"text": "line 0010 ", "why": "w"}]}`, []byte(numbered(3000, 50)))
	cases, err := LoadCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	reps, sums, err := Run(context.Background(), cases, []string{NameRaw, NameHeadTail, NameCrumb}, RunOptions{Counter: tokens.Estimator()})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range sums {
		if s.Dev == nil || s.Sealed == nil {
			t.Fatalf("%s: no parts: %+v", s.Strategy, s)
		}
		d, x := *s.Dev, *s.Sealed
		if d.Cases != 2 || x.Cases != 1 || d.Needles != 3 || x.Needles != 2 {
			t.Errorf("%s: dev %d cases %d needles, sealed %d cases %d needles; want 2, 3, 1, 2", s.Strategy, d.Cases, d.Needles, x.Cases, x.Needles)
		}
		if d.Visible+x.Visible != s.Visible || d.FirstTokens+x.FirstTokens != s.FirstTokens || d.Found+x.Found != s.Found ||
			d.TokensRead+x.TokensRead != s.TokensRead {
			t.Errorf("%s: the parts do not add up: dev %+v, sealed %+v, all %+v", s.Strategy, d, x, s)
		}
		if got := reps[i].Part(PartSealed); len(got.Cases) != 1 || got.Cases[0].Case != "text-a" || got.Total.Needles != 2 {
			t.Errorf("%s: the sealed report is %+v", s.Strategy, got)
		}
	}
	// headtail misses the middle of the sealed case: its part says so.
	if ht := PartSummaries(sums, PartSealed)[1]; ht.Strategy != NameHeadTail || ht.Visible != 1 {
		t.Errorf("headtail's sealed summary: %+v", ht)
	}
	for _, md := range []bool{false, true} {
		var out bytes.Buffer
		if err := WriteParts(&out, sums, md); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		dev, sealed := strings.Index(s, "dev: 2 cases, 3 needles"), strings.Index(s, "sealed: 1 cases, 2 needles")
		if dev < 0 || sealed < dev || strings.Count(s, "headtail") != 2 {
			t.Errorf("WriteParts (markdown %v):\n%s", md, s)
		}
	}
	if got := PartSummaries([]Summary{{Strategy: "x"}}, PartDev); len(got) != 1 || got[0].Strategy != "x" || got[0].Cases != 0 {
		t.Errorf("a summary without parts gives %+v", got)
	}
}
