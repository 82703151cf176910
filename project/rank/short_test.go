package rank

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestShortWordsParse checks that an intent keeps its two-letter words
// that name something ("gc", "io", "os", "v8") and drops those of prose
// and those that are only pieces of a compound key ("js" in "core-js").
func TestShortWordsParse(t *testing.T) {
	for _, c := range []struct {
		intent string
		want   []string
	}{
		{"Who last changed the gc function of the disk store", []string{"who", "last", "changed", "gc", "disk", "store"}},
		{"an io error or a db timeout", []string{"io", "error", "db", "timeout"}},
		{"which os is this go built for", []string{"os", "go", "built"}},
		{"is core-js locked", []string{"core", "locked"}},
		{"the v8 flags, at 10 MB", []string{"v8", "flags", "mb"}},
	} {
		var got []string
		for _, w := range Parse(c.intent).Words {
			got = append(got, w.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) words %q, want %q", c.intent, got, c.want)
		}
	}
}

// readLines returns the lines of a file of testdata/short (real outputs,
// see make.sh there).
func readLines(t *testing.T, name string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "short", name))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

// TestShortWordsLevels checks, over real output, that a two-letter word is
// met where a name or one part of a name is the word (SetGCPercent,
// GCStats, "gc-guide") and nowhere it is a piece of a longer word (gcc,
// GOGC, gccgo, GOOS, GOHOSTOS), and never at a level below Whole: a
// two-letter piece matches everywhere.
func TestShortWordsLevels(t *testing.T) {
	for _, c := range []struct {
		intent, file string
		met          []string // the starts of lines where the word must be met
		notMet       []string // the starts of lines where it must not be
	}{
		{"how to tune the gc", "debug-doc.txt",
			[]string{"func SetGCPercent(percent int) int", "func ReadGCStats(stats *GCStats)"},
			[]string{"    GOGC environment variable at startup"}},
		{"how to tune the gc", "go-env.txt", nil,
			[]string{"CC='gcc'", "GCCGO='gccgo'"}},
		{"which os is this", "go-env.txt", nil,
			[]string{"GOOS=", "GOHOSTOS="}},
	} {
		m := NewMatcher(Parse(c.intent))
		w := slices.IndexFunc(m.it.Words, func(w Word) bool { return w.Short() })
		if w < 0 {
			t.Fatalf("%q: no short word", c.intent)
		}
		lines := readLines(t, c.file)
		for _, l := range lines {
			if lv := m.Levels(l).At(w); lv != None && lv < Whole {
				t.Errorf("%q in %s: %q met at level %d, below Whole", c.intent, c.file, l, lv)
			}
		}
		// level returns the level of the word in the line that starts
		// with start.
		level := func(start string) Level {
			i := slices.IndexFunc(lines, func(l []byte) bool { return bytes.HasPrefix(l, []byte(start)) })
			if i < 0 {
				t.Fatalf("%s has no line %q (run make.sh again?)", c.file, start)
			}
			return m.Levels(lines[i]).At(w)
		}
		for _, l := range c.met {
			if lv := level(l); lv < Whole {
				t.Errorf("%q: %q met at level %d, want Whole or Exact", c.intent, l, lv)
			}
		}
		for _, l := range c.notMet {
			if lv := level(l); lv != None {
				t.Errorf("%q: %q met at level %d, want none", c.intent, l, lv)
			}
		}
	}
}

// TestShortWordsFilter checks that the one-pass filter finds short words
// wherever matching without it does, over every line of the real outputs
// and at the very end of a text (where the pass over three letters stops).
func TestShortWordsFilter(t *testing.T) {
	texts := slices.Concat(readLines(t, "debug-doc.txt"), readLines(t, "go-env.txt"),
		[][]byte{[]byte("gc"), []byte("run the gc"), []byte("GC"), []byte("x os"), []byte("g")})
	for _, intent := range []string{"how to tune the gc", "which os is this", "gc os io db v8 percent"} {
		fast, slow := NewMatcher(Parse(intent)), NewMatcher(Parse(intent))
		slow.noFilter = true
		for _, l := range texts {
			if a, b := fast.Levels(l), slow.Levels(l); a != b {
				t.Errorf("intent %q in %q: levels %x with the filter, %x without", intent, l, a, b)
			}
		}
	}
	m := NewMatcher(Parse("the gc"))
	for _, text := range []string{"gc", "run the gc", "dir_gc"} {
		if m.Levels([]byte(text)).At(0) < Whole {
			t.Errorf("gc not met whole in %q", text)
		}
	}
}
