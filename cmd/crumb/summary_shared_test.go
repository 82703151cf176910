package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/internal/llmtest"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
)

// TestSummaryShared runs crumb project --summarize as two separate
// processes against one store, the default file store and a real Redis:
// the second reuses the summary the first had checked, through the store,
// and the model is asked once. A summary tampered with in the store is
// checked again, refused and replaced: the model is asked again.
func TestSummaryShared(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "command-go-test-v-deep-fail", "output"))
	if err != nil {
		t.Fatal(err)
	}
	bin, err := exec.LookPath("crumb")
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]func(t *testing.T) string{
		"dir": func(t *testing.T) string { return t.TempDir() },
		// Skipped without redis-server (required in CI), the file store's
		// case still running.
		"redis": func(t *testing.T) string { return redistest.Start(t).URL(0) + "?namespace=" + redistest.Namespace() },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			e := llmtest.Start(t, "openai", deepFailAnswer)
			project := func() string {
				t.Helper()
				cmd := exec.Command(bin, "project", "--kind", "command", "--exit-code", "1", "--summarize")
				cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "CRUMB_STORE=" + st, "CRUMB_GC=off",
					"CRUMB_SUMMARY_API=openai", "CRUMB_SUMMARY_URL=" + e.BaseURL, "CRUMB_SUMMARY_MODELS=ok", "CRUMB_SUMMARY_KEY=" + llmtest.Key}
				cmd.Stdin = strings.NewReader(string(out))
				view, err := cmd.Output()
				if err != nil {
					t.Fatalf("crumb project --summarize: %v\n%s", err, view)
				}
				if !strings.Contains(string(view), `✓ L2502: "--- FAIL: TestTour/tour_2"`) {
					t.Fatalf("no checked summary:\n%.2000s", view)
				}
				return string(view)
			}
			first := project()
			second := project()
			if n := e.Calls(); n != 1 {
				t.Errorf("two processes over one store asked the model %d times, want 1", n)
			}
			if first != second {
				t.Errorf("the shared summary's view differs:\n%s\n---\n%s", first, second)
			}
			if name != "dir" {
				return
			}
			// A wrong answer in the store, as a corrupted or hostile entry
			// would be: checked again, it fails its check, the model is
			// asked, and its answer replaces the entry.
			sides, _ := filepath.Glob(filepath.Join(st, "side", "*"))
			if len(sides) != 1 {
				t.Fatalf("side entries in the file store: %v, want 1", sides)
			}
			bad := `{"model":"ok","text":"{\"overview\":\"all passed\",\"critical_facts\":[{\"fact\":\"all passed\",\"quotes\":[\"PASS: every test\"]}]}"}`
			if err := os.WriteFile(sides[0], []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(sides[0], time.Now(), time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if third := project(); third != first {
				t.Errorf("after the entry was tampered with, the view is\n%s", third)
			}
			if n := e.Calls(); n != 2 {
				t.Errorf("a tampered entry: the model was asked %d times in all, want 2 (the entry refused)", n)
			}
			if b, _ := os.ReadFile(sides[0]); string(b) == bad {
				t.Error("the refused entry was not replaced by the model's checked answer")
			}
		})
	}
}
