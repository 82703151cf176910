package summarize

import (
	"strings"
	"testing"
	"time"
)

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := newCache(2, time.Hour)
	c.put("a", &Summary{Model: "a"})
	c.put("b", &Summary{Model: "b"})
	c.get("a")
	c.put("c", &Summary{Model: "c"})
	if _, ok := c.get("b"); ok {
		t.Error("b should have been evicted")
	}
	if _, ok := c.get("a"); !ok {
		t.Error("a was used last and should stay")
	}
}

func TestQuoted(t *testing.T) {
	for _, c := range []struct {
		fact string
		want []string
	}{
		{`TestParseRef failed at ref_test.go:42`, []string{"TestParseRef", "ref_test.go:42"}},
		{`the build stops with "undefined: foo"`, []string{"undefined: foo"}},
		{`3 of 120 tests failed on 2026-11-29.`, []string{"3", "120", "2026-11-29"}},
		{`the config lives in /etc/crumb/config.toml`, []string{"/etc/crumb/config.toml"}},
		{`nothing failed`, nil},
		{`The Server restarted`, nil},
	} {
		got := named(c.fact)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("named(%q) = %q, want %q", c.fact, got, c.want)
		}
	}
}
