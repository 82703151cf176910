package sections

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitFixture reads real git output of the crumb repository's history, as
// the project package's git tests do (../testdata/git/make.sh makes it).
func gitFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "git", name, "output"))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with ../testdata/git/make.sh)", name, err)
	}
	return b
}

// TestGitSections checks the records of real git log output: every commit
// is a section of level 1 whose heading takes its header lines and the
// blank line after them, so that its body starts at its subject; every
// file's diff under it is a section of level 2, its header lines (index,
// ---, +++) part of its heading; and git diff alone or head's output is not
// git log's.
func TestGitSections(t *testing.T) {
	for _, name := range []string{"log-fuller", "log-p"} {
		b := gitFixture(t, name)
		if !IsGit(b[:min(len(b), 4096)]) {
			t.Fatalf("%s: not told as git's output", name)
		}
		lines := strings.Split(string(b), "\n")
		res := segmentAs(Git, b, "")
		var commits, diffs int
		for _, s := range res.Sections {
			head := lines[s.Line-1]
			switch {
			case strings.HasPrefix(head, "commit "):
				commits++
				if s.Level != 1 {
					t.Errorf("%s: commit at line %d has level %d", name, s.Line, s.Level)
				}
				if body := lines[s.Body-1]; !strings.HasPrefix(body, "    ") || lines[s.Body-2] != "" {
					t.Errorf("%s: the commit at line %d has its body at line %d, %q, not its subject", name, s.Line, s.Body, body)
				}
			case strings.HasPrefix(head, "diff --git "):
				diffs++
				if s.Level != 2 || strings.HasPrefix(lines[s.Body-1], "+++ ") || strings.HasPrefix(lines[s.Body-1], "index ") {
					t.Errorf("%s: diff at line %d: level %d, body %q", name, s.Line, s.Level, lines[s.Body-1])
				}
			default:
				t.Errorf("%s: a section at line %d heads %q", name, s.Line, head)
			}
		}
		if want := strings.Count(string(b), "\ncommit ") + 1; commits != want {
			t.Errorf("%s: %d commits found, want %d", name, commits, want)
		}
		if want := strings.Count(string(b), "\ndiff --git "); diffs != want {
			t.Errorf("%s: %d diffs found, want %d", name, diffs, want)
		}
	}
	for _, name := range []string{"diff-rank", "head-rank"} {
		if b := gitFixture(t, name); IsGit(b[:min(len(b), 4096)]) {
			t.Errorf("%s told as git log's output", name)
		}
	}
}

// TestGitRanked checks that an intent that paraphrases a commit ranks that
// commit, or a file's diff inside it, first.
func TestGitRanked(t *testing.T) {
	for _, c := range []struct {
		name, intent, commit string
	}{
		{"log-fuller", "When did rank start weighing a key met whole by how rare it is", "commit 6d6be599146627d8367259456d148787c636eff7"},
		{"log-p", "Which commit stopped checking the redis namespace with a regular expression", "commit 5ea97545e9d35ad831c9c0747e098d7486497458"},
	} {
		b := gitFixture(t, c.name)
		res := segmentAs(Git, b, c.intent)
		if len(res.Ranked) == 0 {
			t.Fatalf("%s: nothing ranked", c.name)
		}
		at := lineOf(b, c.commit, 0)
		var sec Section
		for _, s := range res.Sections {
			if s.Line == at {
				sec = s
			}
		}
		if best := res.Ranked[0]; sec.Line == 0 || best.Line < sec.Line || best.Line > sec.Last {
			t.Errorf("%s: %q (line %d) ranks first, not %s (lines %d-%d)", c.name, best.Heading, best.Line, c.commit, sec.Line, sec.Last)
		}
	}
}
