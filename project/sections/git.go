package sections

// The records of git's output: git log and git show print each commit as
// a heading ("commit <sha>", then header lines such as "Author:" and
// "Date:") over its message, indented, and its changes; git diff (and log
// -p, show) print each file's changes under "diff --git a/x b/x" and its
// header lines ("index", "---", "+++"). A commit is a section of level 1,
// a file's changes one of level 2 under it: a hit inside a commit's
// message or its diff shows with the heading that identifies it.

import (
	"bytes"
	"path"
	"strings"
)

// gitLookahead is how many lines past a record's first one its heading
// may take: a merge commit's "Merge:", "Author:", "AuthorDate:", "Commit:"
// and "CommitDate:" lines and the blank line after them.
const gitLookahead = 8

// IsGit reports output of git log or git show: its first line that is
// not blank opens a commit ("commit <sha>"). A diff alone is a bundle of
// files' changes, ranked line by line (project/bundle.go); under a commit,
// a file's changes are a section of its own.
func IsGit(head []byte) bool {
	head = bytes.TrimLeft(head, "\r\n")
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return IsCommit(bytes.TrimRight(head, "\r"))
}

// IsCommit reports a line that opens a commit in git log's or git show's
// output: "commit", its hash (7 to 64 hexadecimal digits) and, maybe, its
// decorations ("(HEAD -> main)").
func IsCommit(t []byte) bool {
	rest, ok := bytes.CutPrefix(t, []byte("commit "))
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || rest[n] >= 'a' && rest[n] <= 'f') {
		n++
	}
	return n >= 7 && n <= 64 && (n == len(rest) || rest[n] == ' ')
}

// IsCommitHeader reports a line of a commit's header, after its commit
// line: unindented, a name, a colon and a value ("Author: A <a@x>",
// "CommitDate: ...", "Merge: a b").
func IsCommitHeader(t []byte) bool {
	i := bytes.IndexByte(t, ':')
	if i <= 0 || i > 20 || i+1 < len(t) && t[i+1] != ' ' {
		return false
	}
	for _, c := range t[:i] {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-') {
			return false
		}
	}
	return true
}

// gitDiffHeaderLine reports a line of a file's diff header, between its
// "diff --git" line and its first hunk.
func gitDiffHeaderLine(l line) bool {
	if l.indent != 0 {
		return false
	}
	for _, p := range []string{"index ", "--- ", "+++ ", "new file mode ", "deleted file mode ", "old mode ", "new mode ",
		"similarity index ", "dissimilarity index ", "rename from ", "rename to ", "copy from ", "copy to ", "Binary files "} {
		if bytes.HasPrefix(l.t, []byte(p)) {
			return true
		}
	}
	return false
}

// gitHeading finds the records of git's output: a commit with its header
// lines and the blank line after them, so that its first line of text is
// its message's subject, which says what the commit is (counted as its
// name); a file's changes with their header lines.
func (s *Segmenter) gitHeading(cur *line, next []line) (heading, bool) {
	if cur.indent != 0 {
		return heading{}, false
	}
	switch {
	case IsCommit(cur.t):
		span := 1
		for span-1 < len(next) && next[span-1].indent == 0 && IsCommitHeader(next[span-1].t) {
			span++
		}
		if span-1 < len(next) && next[span-1].blank() {
			span++
		}
		s.headLevel = 1
		return heading{text: string(cur.t), level: 1, span: span, describe: true}, true
	case bytes.HasPrefix(cur.t, []byte("diff --git ")):
		span := 1
		for span-1 < len(next) && gitDiffHeaderLine(next[span-1]) {
			span++
		}
		h := heading{text: string(cur.t), level: 2, span: span}
		if f := strings.Fields(string(cur.t)); len(f) == 4 {
			// The file's name, without its directory and extension: an
			// intent word equal to it names the file exactly.
			base := path.Base(strings.TrimPrefix(f[3], "b/"))
			if name := strings.TrimSuffix(base, path.Ext(base)); name != "" {
				h.names = []string{name}
			}
		}
		return h, true
	}
	return heading{}, false
}
