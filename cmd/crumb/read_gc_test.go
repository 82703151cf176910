package main

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
)

// A page read and a search raise GOGC so that they finish before the
// collector first runs; a jq query, which decodes its whole result, keeps
// the default.
func TestReadsCollectLess(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runCrumb(t, dir, strings.NewReader(strings.Repeat("{\"a\": 1}\n", 20_000)), "project", "--kind", "json", "--json")
	var view struct {
		Ref string `json:"ref"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &view) != nil || view.Ref == "" {
		t.Fatalf("project: exit %d: %s%s", code, out, errs)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tt := range []struct {
		args []string
		gogc int
	}{
		{[]string{"read", view.Ref, "--lines", "10:20"}, 400},
		{[]string{"grep", view.Ref, "a"}, 400},
		{[]string{"read", view.Ref, "--jq", ".[0]"}, 100},
	} {
		debug.SetGCPercent(100)
		if code, out, errs := runCrumb(t, dir, nil, tt.args...); code != 0 {
			t.Fatalf("%q: exit %d: %s%s", tt.args, code, out, errs)
		}
		if got := debug.SetGCPercent(100); got != tt.gogc {
			t.Errorf("%q: GOGC %d, want %d", tt.args, got, tt.gogc)
		}
	}
}
