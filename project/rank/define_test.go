package rank

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefines checks, over real grep -n output of Python and Go source
// (testdata/define/make.sh), that the lines that define the name an intent
// names are told from those that only use it: "def parse_args(self, ...)"
// among calls of parser.parse_args(), "func (b *Buffer) Grow(n int)" and
// "func (b *Buffer) grow(n int) int" among b.grow(n), growSlice and
// tryGrowByReslice.
func TestDefines(t *testing.T) {
	for _, c := range []struct {
		file, intent string
		defs         []string // the lines (by a part of each) that define the name
	}{
		{"grep-argparse.txt", "where is parse_args defined", []string{"def parse_args(self"}},
		{"grep-buffer.txt", "how does the buffer Grow", []string{"func (b *Buffer) grow(n int) int", "func (b *Buffer) Grow(n int)"}},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "define", c.file))
		if err != nil {
			t.Fatal(err)
		}
		m := NewMatcher(Parse(c.intent))
		found := 0
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			want := false
			for _, d := range c.defs {
				want = want || strings.Contains(l, d)
			}
			if want {
				found++
			}
			if got := m.Defines([]byte(l), m.Levels([]byte(l))) != 0; got != want {
				t.Errorf("%s, intent %q: Defines(%q) = %v, want %v", c.file, c.intent, l, got, want)
			}
		}
		if found != len(c.defs) {
			t.Fatalf("%s holds %d of its %d definitions (run testdata/define/make.sh)", c.file, found, len(c.defs))
		}
	}
	// An anonymous function defines nothing; a receiver is passed over.
	m := NewMatcher(Parse("the gc"))
	for text, want := range map[string]bool{
		"func (d *Dir) gc(ctx context.Context) (GCStats, error) {": true,
		"defer func(gc int) {}":                       false,
		"\treturn fmt.Errorf(\"store: gc: %w\", err)": false,
		"def gc():": true,
	} {
		if got := m.Defines([]byte(text), m.Levels([]byte(text))) != 0; got != want {
			t.Errorf("Defines(%q) = %v, want %v", text, got, want)
		}
	}
}
