package drain

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
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
