package project

import (
	"bytes"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/project/rank"
)

// Bundles: one result that holds many files, each in a region headed by
// its path: a concatenation with file headers (gitingest's "FILE: path",
// repomix's "File: path", "## File: path" and <file path="...">, head and
// tail's "==> path <=="), the filesystem server's read_multiple_files text
// ("path:" alone on a line), a git diff ("diff --git a/x b/x", "+++ b/x"),
// and grep -rn or a compiler's output, whose lines each start with
// "path:line:". When an intent names a path ("Equal in require/require.go",
// "the retry loop under net/http/"), the regions headed by the paths it
// names are where the view looks (rank.Intent.NamesPath): a function of the
// same name, or of a name that shares its start, in another file is not
// what was asked.

// bundleHeadBytes is how much of a result's start isBundle reads.
const bundleHeadBytes = 4 << 10

// isBundle reports whether a result's start (its first bundleHeadBytes)
// looks like a bundle: one of its first lines heads a file. diff reports a
// diff ("diff --git", "+++ b/"): a bundle whose every line is a change.
func isBundle(head []byte) (ok, diff bool) {
	for i := 0; i < 8 && len(head) > 0; i++ {
		line := head
		if j := bytes.IndexByte(head, '\n'); j >= 0 {
			line, head = head[:j], head[j+1:]
		} else {
			head = nil
		}
		if _, ok := bundleHeader(line); ok {
			return true, bytes.HasPrefix(line, []byte("diff --git ")) || bytes.HasPrefix(line, []byte("+++ "))
		}
	}
	return false, false
}

// diffWords name the act of changing rather than what changed: in a diff,
// every line is a change ("what changed in Equal", "the hunk of NoError").
var diffWords = map[string]bool{
	"change": true, "changed": true, "changes": true, "changing": true, "diff": true, "diffs": true,
	"hunk": true, "hunks": true, "modified": true, "modify": true, "modifies": true,
}

// bundleScoring returns the intent that ranks the lines of a bundle: without
// what only its paths name and, in a diff, without diffWords; the intent
// itself when nothing would be left.
func bundleScoring(it *rank.Intent, diff bool) *rank.Intent {
	s := it.WithoutPaths()
	if diff {
		s = s.Without(func(w rank.Word) bool { return diffWords[w.Text] })
	}
	if s.Empty() {
		return it
	}
	return s
}

// bundleRegions tracks, line by line, the regions of a bundle that an
// intent's paths name.
type bundleRegions struct {
	it *rank.Intent
	// cur is the path of the region the scan is in, named whether the
	// intent names it.
	cur   string
	named bool
	// regions are the named regions found: line ranges, inclusive, with
	// their paths.
	regions []bundleRegion
}

// bundleRegion is one region of a bundle that the intent names.
type bundleRegion struct {
	from, to int64
	path     string
}

// newBundleRegions returns a tracker for an intent's paths; nil when it
// names none.
func newBundleRegions(it *rank.Intent) *bundleRegions {
	if it == nil || len(it.Paths) == 0 {
		return nil
	}
	return &bundleRegions{it: it}
}

// line takes the next line (number n) and reports whether it is in a
// region the intent names.
func (b *bundleRegions) line(n int64, text []byte) bool {
	if b == nil {
		return false
	}
	if p, ok := bundleHeader(text); ok && p != b.cur {
		b.cur, b.named = p, b.it.NamesPath(p)
		if b.named {
			b.regions = append(b.regions, bundleRegion{from: n, to: n, path: p})
		}
	}
	if b.named {
		b.regions[len(b.regions)-1].to = n
	}
	return b.named
}

// found reports whether the intent names a region of the bundle.
func (b *bundleRegions) found() bool { return b != nil && len(b.regions) > 0 }

// at returns the path of the named region that holds a line, or "".
func (b *bundleRegions) at(line int64) string {
	if b == nil {
		return ""
	}
	for _, r := range b.regions {
		if r.from <= line && line <= r.to {
			return r.path
		}
	}
	return ""
}

var (
	// headerPatterns are the lines that head a file in a bundle; the
	// first group is its path.
	headerPatterns = []*lazyre.Regexp{
		lazyre.New(`^diff --git a/\S+ b/(\S+)$`),
		lazyre.New(`^\+\+\+ b/(\S+)`),
		lazyre.New(`^(?:#+ )?(?i:file): +(\S+)\s*$`),
		lazyre.New(`^<file path="([^"]+)">`),
		lazyre.New(`^==> (\S+) <==$`),
	}
	// pathColon is a line that is a path and a colon: read_multiple_files.
	pathColon = lazyre.New(`^(/?(?:[\w.@+-]+/)*[\w.@+-]+):$`)
	// pathLine is the start of a line that names its file and line: grep
	// -rn (":" on a match, "-" on a context line), a compiler's message.
	pathLine = lazyre.New(`^((?:\./)?(?:[\w.@+-]+/)*[\w@+-]+\.\w+)[:-]\d+[:-]`)
)

// bundleHeader returns the path a line heads, or names as its own.
func bundleHeader(text []byte) (string, bool) {
	text = bytes.TrimRight(text, "\r")
	if len(text) == 0 {
		return "", false
	}
	switch text[0] {
	case 'd', '+', 'F', 'f', '#', '<', '=':
		for _, re := range headerPatterns {
			if m := re.FindSubmatch(text); m != nil {
				return string(m[1]), true
			}
		}
	}
	if text[len(text)-1] == ':' {
		if m := pathColon.FindSubmatch(text); m != nil && looksLikePath(m[1]) {
			return string(m[1]), true
		}
	}
	if i := bytes.IndexByte(text, ':'); i > 0 && i < 512 {
		if m := pathLine.FindSubmatch(text); m != nil {
			return string(m[1]), true
		}
	}
	return "", false
}

// looksLikePath reports a token that names a file or directory: with a
// slash, or a name with an extension.
func looksLikePath(p []byte) bool {
	if bytes.IndexByte(p, '/') >= 0 {
		return true
	}
	i := bytes.LastIndexByte(p, '.')
	return i > 0 && i < len(p)-1
}

// regionHead reports a line of a command's output that heads one file's
// region of a bundle: a diff's "diff --git a/x b/x" or "diff -ruN old/x
// new/x" (diff -r), head and tail's "==> x <==". It costs a byte
// comparison for most lines, for it runs on every line of the output (see
// cmdRanker.add): a line found inside the region shows with the line that
// names its file.
func regionHead(t []byte) bool {
	if len(t) < 8 {
		return false
	}
	switch t[0] {
	case 'd':
		return bytes.HasPrefix(t, []byte("diff -")) // diff --git, diff -ruN
	case '=':
		return bytes.HasPrefix(t, []byte("==> ")) && bytes.HasSuffix(bytes.TrimRight(t, "\r"), []byte(" <=="))
	}
	return false
}
