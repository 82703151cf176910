package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestYAMLKeysAreDefinitions checks that a YAML document that is a mapping
// (a linter configuration, a CI workflow: real files from Go modules, see
// testdata/yamldoc/make.sh) is outlined by its keys that open blocks, and
// that an intent naming one is answered with that key's block, not with a
// line that mentions its words.
func TestYAMLKeysAreDefinitions(t *testing.T) {
	for _, c := range []struct {
		file, intent string
		focus, shows string
	}{
		{"otel-golangci.yml", "how is perfsprint configured", "perfsprint:", "    strconcat: true"},
		{"go-redis-build.yml", "the redis versions the test-redis-ce job runs on", "test-redis-ce:", `- "8.10.x" # Redis CE 8.10`},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "yamldoc", c.file))
			if err != nil {
				t.Fatal(err)
			}
			in := testInput(t, b, 600)
			in.Args, _ = json.Marshal(map[string]string{"path": c.file, "intent": c.intent})
			out, err := Project(context.Background(), KindFile, in)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.Text, "[focus: "+c.focus) || !strings.Contains(out.Text, c.shows) {
				t.Errorf("want the focus on %s and its block (%q):\n%s", c.focus, c.shows, out.Text)
			}
		})
	}
	// A document that is a sequence of records repeats its keys in every
	// record: it is not outlined by them.
	if langOf("tests.yaml", []byte("- name: one\n  args:\n    - x\n")) != nil {
		t.Error("a sequence document is outlined by its keys")
	}
	if langOf("openapi.yaml", []byte("# c\nopenapi: 3.0.3\npaths:\n")) != langYm {
		t.Error("a mapping document is not outlined by its keys")
	}
}
