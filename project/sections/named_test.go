package sections

import "testing"

// TestNamedOptionFirst checks, on real man pages, that the option an
// intent names by its long name ranks first, though other sections say the
// same word and say it more often ("--format" among the many sections of xz
// that mention a format, "--summary" of strace, "--exclude" of diff): a
// unit named by a word weighs by how few units are so named, not by how
// many hold the word.
func TestNamedOptionFirst(t *testing.T) {
	for _, c := range []struct {
		file, name string
	}{
		{"man-xz.txt", "format"},
		{"man-xz.txt", "files"},
		{"man-xz.txt", "memlimit"},
		{"man-strace.txt", "summary"},
		{"man-diff.txt", "exclude"},
		{"man-zstd.txt", "decompress"},
	} {
		b := fixture(t, c.file)
		intent := "how do I set the " + c.name
		res := segment(t, c.file, b, intent)
		if len(res.Ranked) == 0 {
			t.Fatalf("%s: nothing ranked for %q", c.file, intent)
		}
		best := res.Ranked[0]
		named := false
		for _, n := range best.Names {
			named = named || n == c.name
		}
		if !named {
			t.Errorf("%s, intent %q: %q (line %d) ranks first, not the option named %s", c.file, intent, best.Heading, best.Line, c.name)
		}
	}
}
