package store_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

func TestParseRef(t *testing.T) {
	good := map[string]store.Ref{
		"0123456789abcdef":         "0123456789abcdef",
		" 0123456789abcdef\n":      "0123456789abcdef",
		"crumb:0123456789abcdef":   "0123456789abcdef",
		"\tcrumb:fedcba9876543210": "fedcba9876543210",
	}
	for in, want := range good {
		if got, err := store.ParseRef(in); err != nil || got != want {
			t.Errorf("ParseRef(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "../../etc/passwd", "0123456789abcde/", "crumb:", "01234567\x0089abcdef", "0123456789abcdeg"} {
		if _, err := store.ParseRef(in); !errors.Is(err, store.ErrBadRef) {
			t.Errorf("ParseRef(%q) = %v, want ErrBadRef", in, err)
		}
	}
}

// FuzzParseRef: whatever the input, a ref that parses is exactly 16
// lowercase hex digits (so it can never name a path), and parses to itself.
func FuzzParseRef(f *testing.F) {
	f.Add("0123456789abcdef")
	f.Add("crumb:0123456789abcdef")
	f.Add("../0123456789abcd")
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := store.ParseRef(s)
		if err != nil {
			if !errors.Is(err, store.ErrBadRef) {
				t.Fatalf("error does not wrap ErrBadRef: %v", err)
			}
			return
		}
		if len(ref) != store.RefLen || strings.Trim(string(ref), "0123456789abcdef") != "" {
			t.Fatalf("ParseRef(%q) accepted %q", s, ref)
		}
		if again, err := store.ParseRef(string(ref)); err != nil || again != ref {
			t.Fatalf("ref %q does not parse to itself", ref)
		}
	})
}
