package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// crumb project --json gives in "view" exactly what crumb project prints,
// byte for byte, for results that pass through and for projected ones.
func TestProjectJSONViewIsThePlainView(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "CRUMB_STORE":
			return dir
		case "CRUMB_GC":
			return "off"
		}
		return ""
	}
	var big strings.Builder
	for i := 1; i <= 30000; i++ {
		fmt.Fprintf(&big, "%d\n", i)
	}
	for name, in := range map[string]string{"projected": big.String(), "passed through": "a\nb\n", "no final newline": "a\nb"} {
		t.Run(name, func(t *testing.T) {
			for _, kind := range []string{"text", "command"} {
				var plain, asJSON, stderr bytes.Buffer
				if rc := run(context.Background(), []string{"project", "--kind", kind}, strings.NewReader(in), &plain, &stderr, getenv); rc != 0 {
					t.Fatalf("exit %d: %s", rc, stderr.String())
				}
				if rc := run(context.Background(), []string{"project", "--kind", kind, "--json"}, strings.NewReader(in), &asJSON, &stderr, getenv); rc != 0 {
					t.Fatalf("exit %d: %s", rc, stderr.String())
				}
				var v struct {
					View string `json:"view"`
				}
				if err := json.Unmarshal(asJSON.Bytes(), &v); err != nil {
					t.Fatal(err)
				}
				if v.View != plain.String() {
					t.Errorf("--kind %s: the JSON view (%d bytes, ends %q) is not the plain view (%d bytes, ends %q)",
						kind, len(v.View), v.View[max(0, len(v.View)-10):], plain.Len(), plain.String()[max(0, plain.Len()-10):])
				}
			}
		})
	}
}
