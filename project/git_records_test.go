package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGitRecords checks that a hit inside a record of a command's output
// shows with the heading that identifies the record, on real output of
// git and head over the crumb repository's own history and files (see
// testdata/git/make.sh): a commit of git log (fuller), found by its
// message, shows its "commit <sha>" line, its date and its subject; a line
// of a commit's diff (log -p, show) shows with its commit's heading and its
// file's "diff --git" line; a function added in one file of a git diff
// shows with that file's "diff --git" line, and of diff -ruN with its
// "diff -ruN" line; a function in one file of head over several, with its
// "==> path <==" line. And that a line that defines a name the intent names
// (git blame's line of "func (m *Matcher) Levels(") shows, among the many
// that use the name.
func TestGitRecords(t *testing.T) {
	fixtures := loadCommandFixtures(t, filepath.Join("testdata", "git"), 4, "testdata/git/make.sh")
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", "git", f.name, "meta.json"))
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Intent string `json:"intent"`
			}
			if err := json.Unmarshal(b, &meta); err != nil || meta.Intent == "" {
				t.Fatalf("meta.json of %s: no intent (%v)", f.name, err)
			}
			for _, nd := range f.meta.Needles {
				if !strings.Contains(string(f.output), nd.Text) {
					t.Fatalf("the fixture lacks its needle %q (run testdata/git/make.sh)", nd.Text)
				}
			}
			in := f.input(t, 2000)
			if in.Args, err = json.Marshal(map[string]string{"command": strings.Join(f.meta.Command, " "), "description": meta.Intent}); err != nil {
				t.Fatal(err)
			}
			out, err := Project(context.Background(), KindCommand, in)
			if err != nil {
				t.Fatal(err)
			}
			checkCommandView(t, in, out)
			for _, nd := range f.meta.Needles {
				if !strings.Contains(out.Text, nd.Text) {
					t.Errorf("intent %q: the view lacks %s, %q:\n%s", meta.Intent, nd.Why, nd.Text, out.Text)
				}
			}
			if n, raw := in.Counter.Count(out.Text), in.Counter.Count(string(f.output)); n > raw {
				t.Errorf("the view takes %d tokens, the output %d", n, raw)
			}
		})
	}
}
