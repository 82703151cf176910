package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/crumb-dev/crumb/store"
)

func TestURLScheme(t *testing.T) {
	for _, c := range []struct{ loc, want string }{
		{"redis://127.0.0.1:6379/0", "redis"},
		{"REDISS://u:p@h:1/0", "rediss"},
		{"redis+cluster://127.0.0.1:17301?x=1", "redis+cluster"},
		{"redsi://h", "redsi"},
		{"/var/cache/crumb", ""},
		{"dir:with:colons/store", ""},
		{"C://store", ""},   // a drive letter, not a scheme
		{"1abc://x", ""},    // a scheme starts with a letter
		{"a_b://x", ""},     // "_" is not in a scheme
		{"./redis://x", ""}, // a relative path
		{"", ""},
	} {
		if got := store.URLScheme(c.loc); got != c.want {
			t.Errorf("URLScheme(%q) = %q, want %q", c.loc, got, c.want)
		}
	}
}

// TestOpenDirRefusesURL: a location of the form scheme://... never becomes
// a directory named after its scheme.
func TestOpenDirRefusesURL(t *testing.T) {
	wd := t.TempDir()
	t.Chdir(wd)
	for _, loc := range []string{"redis+cluster://127.0.0.1:17301?route_randomly=true", "redsi://127.0.0.1:6379/0"} {
		d, err := store.OpenDir(loc, store.DirOptions{})
		if err == nil {
			d.Close()
			t.Errorf("OpenDir(%q) succeeded", loc)
			continue
		}
		if !errors.Is(err, store.ErrUnknownScheme) {
			t.Errorf("OpenDir(%q) = %v, want an error wrapping ErrUnknownScheme", loc, err)
		}
		if err := store.CheckLocation(loc); !errors.Is(err, store.ErrUnknownScheme) {
			t.Errorf("CheckLocation(%q) = %v, want ErrUnknownScheme", loc, err)
		}
	}
	if ents, _ := os.ReadDir(wd); len(ents) != 0 {
		t.Errorf("OpenDir of URLs created %v in the working directory", ents[0].Name())
	}
	if err := store.CheckLocation(filepath.Join(wd, "a:b")); err != nil {
		t.Errorf("CheckLocation of a directory with a colon: %v", err)
	}
}
