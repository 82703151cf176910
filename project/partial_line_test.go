package project_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/kindtest"
	"github.com/crumb-dev/crumb/tokens"
)

// TestPartialLineOnlyWhenLong checks, over the text and command fixtures
// at small budgets, that a view shows a line in part (ending in " …") only
// when the line alone would take much of the budget: a view at --budget 600
// cut its first line mid-line and went on by bytes (issue 23, item 9),
// where the line whole, or the lines around it, fitted.
func TestPartialLineOnlyWhenLong(t *testing.T) {
	count := tokens.O200k()
	checked := 0
	for _, kind := range []string{"text", "command"} {
		dirs, err := filepath.Glob(filepath.Join("testdata", kind, "*"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no %s fixtures: %v", kind, err)
		}
		for _, dir := range dirs {
			raw, err := os.ReadFile(filepath.Join(dir, "output"))
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Tool     string          `json:"tool"`
				Args     json.RawMessage `json:"args"`
				Command  []string        `json:"command"`
				ExitCode *int            `json:"exit_code"`
			}
			if b, err := os.ReadFile(filepath.Join(dir, "meta.json")); err == nil {
				if err := json.Unmarshal(b, &meta); err != nil {
					t.Fatalf("%s/meta.json: %v", dir, err)
				}
			}
			lines := strings.Split(string(raw), "\n")
			for _, budget := range []int{300, 600, 1000} {
				t.Run(fmt.Sprintf("%s/%d", dir, budget), func(t *testing.T) {
					in := kindtest.Input(t, raw, budget)
					in.Tool, in.Args, in.Command, in.ExitCode = meta.Tool, meta.Args, meta.Command, meta.ExitCode
					out, err := project.Project(t.Context(), project.Kind(kind), in)
					if err != nil {
						t.Fatal(err)
					}
					for _, l := range strings.Split(out.Text, "\n") {
						if !strings.HasSuffix(l, " …") {
							continue
						}
						whole, ok := wholeLine(l, lines)
						if !ok {
							continue
						}
						checked++
						if c := count.Count(whole); c*2 <= budget {
							t.Errorf("a line is shown in part at budget %d, though it costs %d tokens whole:\n%s", budget, c, l)
						}
					}
				})
			}
		}
	}
	t.Logf("lines shown in part and checked: %d", checked)
}

// wholeLine returns the whole of the line a view shows in part as l: the
// line its number names in a numbered view ("N\tprefix …"), else the first
// line of the result that starts with l's text; ok is false when l is no
// part of a line of the result (a marker of the view's own).
func wholeLine(l string, lines []string) (string, bool) {
	if num, text, ok := strings.Cut(l, "\t"); ok {
		if n, err := strconv.Atoi(strings.ReplaceAll(strings.TrimSpace(num), ",", "")); err == nil {
			if n < 1 || n > len(lines) || !strings.HasPrefix(lines[n-1], strings.TrimSuffix(text, " …")) {
				return "", false
			}
			return num + "\t" + lines[n-1], true
		}
	}
	part := strings.TrimSuffix(l, " …")
	for _, raw := range lines {
		if raw != part && strings.HasPrefix(raw, part) {
			return raw, true
		}
	}
	return "", false
}
