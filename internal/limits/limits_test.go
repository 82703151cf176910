package limits

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the table in docs/limits.md")

const (
	docPath    = "../../docs/limits.md"
	tableStart = "<!-- limits table: written by `go test ./internal/limits -update` from internal/limits -->\n"
	tableEnd   = "<!-- end of the limits table -->\n"
)

// TestDocTable: docs/limits.md holds the table of every limit exactly as
// the code checks them.
func TestDocTable(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no table between %q and %q", docPath, tableStart, tableEnd)
	}
	want := doc[:i+len(tableStart)] + Markdown() + doc[j:]
	if *update {
		if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("the table in %s is not the one the code checks; run go test ./internal/limits -update\nwant:\n%s", docPath, Markdown())
	}
}

func TestCheckAndParse(t *testing.T) {
	for _, c := range []struct {
		lim  Limit
		in   string
		want int64
		msg  string // "" for valid
	}{
		{Budget, "1", 1, ""},
		{Budget, "1000000", 1_000_000, ""},
		{Budget, "1048576", 0, "1,048,576 is out of range: want 1 to 1,000,000 (tokens)"},
		{Budget, "0", 0, "0 is out of range: want 1 to 1,000,000 (tokens)"},
		{Budget, "many", 0, `want a whole number from 1 to 1,000,000 (tokens), got "many"`},
		{Budget, "99999999999999999999", 0, "want a whole number from 1 to 1,000,000 (tokens)"},
		{Skip, "2147483647", 2147483647, ""},
		{Skip, "1099511627777", 0, "1,099,511,627,777 is out of range: want 0 to 1,099,511,627,776 (matches)"},
		{ExitCode, "99999999999", 0, "99,999,999,999 is out of range: want 0 to 255 (exit status)"},
		{ExitCode, "-1", 0, "-1 is out of range: want 0 to 255 (exit status)"},
		{ExitCode, " 7 ", 7, ""},
		{Context, "1001", 0, "want 0 to 1,000 (lines)"},
	} {
		n, err := c.lim.Parse(c.in)
		switch {
		case c.msg == "" && (err != nil || n != c.want):
			t.Errorf("%s.Parse(%q) = %d, %v; want %d", c.lim.Name, c.in, n, err, c.want)
		case c.msg != "" && (err == nil || !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%s.Parse(%q) = %d, %v; want an ErrRange error with %q", c.lim.Name, c.in, n, err, c.msg)
		}
	}
}

// TestTableSound: every limit has a name, a unit and the surfaces it is
// taken on, and a range that the sums crumb makes of them cannot overflow.
func TestTableSound(t *testing.T) {
	names := map[string]bool{}
	for _, l := range All {
		if l.Name == "" || l.Unit == "" || l.Where == "" || names[l.Name] {
			t.Errorf("limit %+v: want a unique name, a unit and where it is taken", l)
		}
		names[l.Name] = true
		if l.Min < 0 || l.Min > l.Max || l.Max > 1<<60 {
			t.Errorf("limit %s: range %s", l.Name, l.Range())
		}
		if l.Min == 0 && l.Zero == "" && strings.Contains(l.Unit, "tokens") {
			t.Errorf("limit %s takes 0 tokens without saying what 0 means", l.Name)
		}
	}
}
