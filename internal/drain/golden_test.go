package drain

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestGoldenTemplates holds what the tokenizer and the miner make of the
// real logs under project/testdata/text: the masked form of each log's first
// lines and every cluster mined from the whole log. A change to masking,
// splitting, routing or joining shows here line by line (go test -update
// rewrites testdata/templates.golden after a change meant to be made).
func TestGoldenTemplates(t *testing.T) {
	paths, _ := filepath.Glob("../../project/testdata/text/*/output")
	if len(paths) == 0 {
		t.Skip("no fixtures under project/testdata/text")
	}
	var out strings.Builder
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		m := New(Options{})
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		fmt.Fprintf(&out, "== %s\n", filepath.Base(filepath.Dir(p)))
		var n int64
		for sc.Scan() {
			line := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
			if n < 200 {
				fmt.Fprintf(&out, "line %d: %s\n", n+1, m.Template(line))
			}
			m.Add(line, n+1)
			n++
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Clusters() {
			fmt.Fprintf(&out, "cluster %d ×%d lines %d-%d: %s\n", c.ID, c.Count, c.First, c.Last, c.Template)
		}
		fmt.Fprintf(&out, "other: %d\n", m.OtherTotal())
	}
	golden := filepath.Join("testdata", "templates.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got := out.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < min(len(gl), len(wl)); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("templates differ from %s at line %d:\ngot  %s\nwant %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("templates differ from %s: %d lines, want %d", golden, len(gl), len(wl))
	}
}

// TestBatchSameClusters checks that lines split in batches, of any size,
// and then added join the same clusters as the same lines added one by one,
// with the default options and with options that fill the miner and cut
// lines short.
func TestBatchSameClusters(t *testing.T) {
	lines := fixtureLines(t, 1<<30)
	for _, opts := range []Options{{}, {MaxClusters: 40, MaxTokens: 6}} {
		one := New(opts)
		for i, l := range lines {
			s, e, ok := Timestamp(l)
			if !ok {
				e = 0
			}
			one.AddStamped(uint8(i%3), l, s, e, int64(i))
		}
		batched := New(opts)
		b := NewBatch(opts)
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < len(lines); {
			n := min(len(lines)-i, 1+rng.IntN(500))
			b.Reset()
			for _, l := range lines[i : i+n] {
				s, e, ok := Timestamp(l)
				if !ok {
					e = 0
				}
				b.AddStamped(l, s, e)
			}
			if b.Len() != n {
				t.Fatalf("a batch of %d lines has %d", n, b.Len())
			}
			for k := range n {
				batched.AddBatched(uint8((i+k)%3), b, k, int64(i+k))
			}
			i += n
		}
		if a, b := fmt.Sprint(one.Clusters(), one.OtherTotal()), fmt.Sprint(batched.Clusters(), batched.OtherTotal()); a != b {
			t.Errorf("options %+v: batched lines give other clusters", opts)
		}
	}
}
