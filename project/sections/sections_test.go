package sections

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/project/rank"
)

// The fixtures under testdata are real documents, copied or rendered by
// testdata/make.sh: man pages rendered by man-db, HTML from the Python and
// libffi documentation, licences from /usr/share/common-licenses, a
// reStructuredText page of mypyc and the Markdown README of a Go module.

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with testdata/make.sh)", name, err)
	}
	return b
}

// segment runs a segmenter over a document, line by line, as the
// projectors do.
func segment(t testing.TB, name string, b []byte, intent string) Result {
	t.Helper()
	f, _ := Detect(name, b[:min(len(b), 8192)])
	return segmentAs(f, b, intent)
}

// segmentAs runs a segmenter for format f over a document, line by line.
func segmentAs(f Format, b []byte, intent string) Result {
	var m *rank.Matcher
	if intent != "" {
		m = rank.NewMatcher(rank.Parse(intent))
	}
	s := New(f, m)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := int64(0)
	for sc.Scan() {
		n++
		s.Line(n, sc.Bytes())
	}
	return s.Close(n)
}

// lineOf returns the number of the line of b that holds s after nth
// others that do, or 0.
func lineOf(b []byte, s string, nth int) int64 {
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			if nth == 0 {
				return int64(i + 1)
			}
			nth--
		}
	}
	return 0
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name string
		want Format
		doc  bool
	}{
		{"man-xz.txt", Man, true},
		{"man-scp.txt", Man, true},
		{"html-python-cmdline.html", HTML, true},
		{"licence-LGPL-3", Plain, true},
		{"rst-mypyc-performance.rst", Plain, true},
		{"text-sedfaq.txt", Plain, true},
		{"md-gjson-readme.md", Markdown, true},
	} {
		b := fixture(t, c.name)
		if f, ok := Detect(c.name, b); f != c.want || ok != c.doc {
			t.Errorf("Detect(%s) = %v, %v; want %v, %v", c.name, f, ok, c.want, c.doc)
		}
		// Without its name, a man page and an HTML page are still told.
		if c.want == Man || c.want == HTML {
			if f, ok := Detect("", b); f != c.want || !ok {
				t.Errorf("Detect(%s, no name) = %v, %v", c.name, f, ok)
			}
		}
	}
	if _, ok := Detect("", []byte("ok  \tgithub.com/x/y\t0.01s\nFAIL\n")); ok {
		t.Error("test output taken for a document")
	}
	if _, ok := Detect("config.yaml", []byte("# a comment\nkey: 1\n\n# another\nb: 2\n")); ok {
		t.Error("YAML comments taken for Markdown headings")
	}
}

// TestSegments checks headings of each format: their text, level, whether
// they are terms, and where they are.
func TestSegments(t *testing.T) {
	for _, c := range []struct {
		file, heading string
		at            string // the text of the heading's first line, when not the heading
		nth           int    // how many lines holding it come before (a table of contents)
		level         int
		term          bool
		parent        string // the heading of the section it is in
	}{
		{file: "man-xz.txt", heading: "OPTIONS", level: 1},
		{file: "man-xz.txt", heading: "Operation modifiers", level: 2, parent: "OPTIONS"},
		{file: "man-xz.txt", heading: "-k, --keep", level: 3, term: true, parent: "Operation modifiers"},
		{file: "man-xz.txt", heading: "-T threads, --threads=threads", level: 3, term: true},
		{file: "man-xz.txt", heading: "--fast, --best", at: "       --fast", level: 3, term: true},
		{file: "man-xz.txt", heading: "sha256", at: "sha256 Calculate", level: 4, term: true, parent: "-C check, --check=check"},
		{file: "man-strace.txt", heading: "-e expr", at: "       -e expr     A  qualifying", level: 3, term: true},
		{file: "man-strace.txt", heading: "-f, --follow-forks", at: "       -f", term: true},
		{file: "man-zstd.txt", heading: "-T#, --threads=#", at: "-T#, --threads=#: Compress", term: true},
		{file: "man-scp.txt", heading: "-l limit", at: "     -l limit", level: 2, term: true, parent: "DESCRIPTION"},
		{file: "html-python-cmdline.html", heading: "1.1.1. Interface options", at: `Interface options<a class`, level: 3},
		{file: "html-python-cmdline.html", heading: "-u", at: `id="cmdoption-u"`, level: 4, term: true, parent: "1.1.3. Miscellaneous options"},
		{file: "html-python-tempfile.html", heading: "tempfile.mkstemp(suffix=None, prefix=None, dir=None, text=False)", at: `id="tempfile.mkstemp"`, level: 2, term: true},
		{file: "html-libffi-closure.html", heading: "2.5 The Closure API", at: "2.5 The Closure API", level: 3},
		{file: "licence-LGPL-3", heading: "4. Combined Works.", level: 1},
		{file: "licence-MPL-1.1", heading: "8. TERMINATION.", level: 1},
		{file: "licence-GFDL-1.2", heading: "9. TERMINATION", level: 1},
		{file: "rst-mypyc-performance.rst", heading: "Performance tips and tricks", level: 1},
		{file: "rst-mypyc-performance.rst", heading: "Adjusting garbage collection", level: 2, parent: "Performance tips and tricks"},
		{file: "text-sedfaq.txt", heading: "5.8. Does sed issue an exit code?", level: 2},
		{file: "text-sedfaq.txt", heading: "2.3.1. Books", nth: 1, level: 3, parent: "2.3. Where can I learn to use sed?"},
		{file: "md-gjson-readme.md", heading: "Modifiers and path chaining", level: 2},
		{file: "md-gjson-readme.md", heading: "Custom modifiers", level: 3, parent: "Modifiers and path chaining"},
	} {
		b := fixture(t, c.file)
		res := segment(t, c.file, b, "")
		at := c.at
		if at == "" {
			at = c.heading
		}
		want := lineOf(b, at, c.nth)
		if want == 0 {
			t.Fatalf("%s: no line holds %q", c.file, at)
		}
		var got *Section
		for i := range res.Sections {
			if s := &res.Sections[i]; s.Heading == c.heading && s.Line == want {
				got = s
			}
		}
		if got == nil {
			var near []string
			for _, s := range res.Sections {
				if s.Line >= want-3 && s.Line <= want+3 {
					near = append(near, s.Heading)
				}
			}
			t.Errorf("%s: no section %q at line %d (near it: %q)", c.file, c.heading, want, near)
			continue
		}
		if c.level > 0 && got.Level != c.level || got.Term != c.term {
			t.Errorf("%s: %q is level %d, term %v; want %d, %v", c.file, c.heading, got.Level, got.Term, c.level, c.term)
		}
		if got.End < got.Line || got.Last < got.End || got.Body <= got.Line {
			t.Errorf("%s: %q spans lines %d (body %d), end %d, last %d", c.file, c.heading, got.Line, got.Body, got.End, got.Last)
		}
		if c.parent != "" {
			var parent *Section
			for i := range res.Sections {
				if s := &res.Sections[i]; s.Line < got.Line && s.Last >= got.Line && s.Level < got.Level {
					parent = s // the innermost, being the last
				}
			}
			if parent == nil || parent.Heading != c.parent {
				t.Errorf("%s: %q is in %v, want %q", c.file, c.heading, parent, c.parent)
			}
		}
	}
}

// TestSegmentsTOC checks that the links of an HTML table of contents are
// not taken for the terms they point to.
func TestSegmentsTOC(t *testing.T) {
	res := segment(t, "toc.html", []byte(`<!DOCTYPE html>
<h1>Manual</h1>
<dl class="toc"><dt><span class="sect1"><a href="#a">1. Running</a></span></dt>
<dt><span class="sect1"><a href="#b">2. Options</a></span></dt></dl>
<h2 id="a">1. Running</h2>
<p>Text.</p>
<dl><dt id="opt-v"><code>--verbose</code> <a href="#opt-v">¶</a></dt><dd>More.</dd></dl>
`), "")
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.Heading+"@"+s.Anchor)
	}
	if want := "Manual@ 1. Running@a --verbose@opt-v"; strings.Join(got, " ") != want {
		t.Errorf("sections %q, want %q", strings.Join(got, " "), want)
	}
}

// TestRankSections checks that the section an intent asks for, in words of
// its own rather than its heading's, ranks first, and that its first line
// of text is where its body starts.
func TestRankSections(t *testing.T) {
	for _, c := range []struct {
		file, intent, heading, first string
	}{
		{"man-xz.txt", "keep the input files", "-k, --keep", "Don't delete the input files."},
		{"man-diff.txt", "ignore changes in the amount of white space", "-b, --ignore-space-change", "ignore changes in the amount of white space"},
		{"man-zstd.txt", "the number of worker threads", "-T#, --threads=#", "If"},
		{"man-strace.txt", "follow child processes created by fork", "-f, --follow-forks", "Trace child processes as"},
		{"man-scp.txt", "limit the bandwidth used", "-l limit", "Limits the used bandwidth"},
		{"html-python-cmdline.html", "force the stdout and stderr streams to be unbuffered", "-u", "Force the stdout and stderr streams to be unbuffered."},
		{"html-python-tempfile.html", "create a named temporary file that is deleted when closed", "tempfile.NamedTemporaryFile(", "This function operates exactly as"},
		{"html-libffi-closure.html", "free a closure", "Function: void ffi_closure_free (void *writable)", "Free memory allocated using"},
		{"licence-LGPL-3", "conveying a combined work", "4. Combined Works.", "You may convey a Combined Work"},
		{"licence-MPL-1.1", "when the licence terminates", "8. TERMINATION.", "This License and the rights granted hereunder will terminate"},
		{"licence-GFDL-1.2", "copying in quantity", "3. COPYING IN QUANTITY", "If you publish printed copies"},
		{"rst-mypyc-performance.rst", "garbage collection", "Adjusting garbage collection", "Compilation does not speed up cyclic garbage collection."},
		{"text-sedfaq.txt", "does sed return an exit code", "5.8. Does sed issue an exit code?", "Most versions of sed do not"},
		{"text-sedfaq.txt", "how to do a case-insensitive search", "4.10. How do I perform a case-insensitive search?", "Several versions of sed support case-insensitive matching"},
		{"md-gjson-readme.md", "how to check that a document is valid json", "Validate JSON", "The `Get*` and `Parse*` functions expects"},
	} {
		b := fixture(t, c.file)
		res := segment(t, c.file, b, c.intent)
		if len(res.Ranked) == 0 {
			t.Errorf("%s, %q: no section ranked", c.file, c.intent)
			continue
		}
		best := res.Ranked[0]
		if !strings.HasPrefix(best.Heading, c.heading) {
			var got []string
			for _, r := range res.Ranked[:min(3, len(res.Ranked))] {
				got = append(got, r.Heading)
			}
			t.Errorf("%s, %q: best %q, want %q", c.file, c.intent, got, c.heading)
			continue
		}
		lines := strings.Split(string(b), "\n")
		found := false
		for n := best.Line; n <= min(best.Body+3, best.Last); n++ {
			found = found || strings.Contains(lines[n-1], c.first)
		}
		if !found {
			t.Errorf("%s, %q: %q is not in the first lines of %q (lines %d-%d)", c.file, c.intent, c.first, best.Heading, best.Line, best.Last)
		}
	}
}

// TestExactOptionOutranks checks that an option the intent names exactly
// outranks options whose names merely hold it, and sections that mention it.
func TestExactOptionOutranks(t *testing.T) {
	for _, c := range []struct{ file, intent, want string }{
		{"man-zstd.txt", "what --threads does", "-T#, --threads=#"},
		{"man-xz.txt", "the --memlimit option", "-M limit, --memlimit=limit, --memory=limit"},
		{"html-python-cmdline.html", "what -X does", "-X"},
	} {
		res := segment(t, c.file, fixture(t, c.file), c.intent)
		if len(res.Ranked) == 0 || !strings.HasPrefix(res.Ranked[0].Heading, c.want) {
			var got []string
			for _, r := range res.Ranked[:min(3, len(res.Ranked))] {
				got = append(got, r.Heading)
			}
			t.Errorf("%s, %q: best %q, want %q", c.file, c.intent, got, c.want)
		}
	}
}

// TestSectionsBounded checks that the sections listed and the candidates
// held stay bounded on a document with more headings than that.
func TestSectionsBounded(t *testing.T) {
	m := rank.NewMatcher(rank.Parse("needle"))
	s := New(Markdown, m)
	n := int64(0)
	for i := 0; i < MaxSections+100; i++ {
		n++
		s.Line(n, []byte("## heading"))
		n++
		s.Line(n, []byte("a needle here"))
	}
	res := s.Close(n)
	if len(res.Sections) != MaxSections || res.Total != MaxSections+100 {
		t.Errorf("listed %d of %d sections, want %d of %d", len(res.Sections), res.Total, MaxSections, MaxSections+100)
	}
	if len(res.Ranked) != MaxRanked || len(s.cands) > maxCands {
		t.Errorf("ranked %d, held %d", len(res.Ranked), len(s.cands))
	}
}

// FuzzSegment checks that any text segments without a panic into sections
// that are in order, within the text, and nested.
func FuzzSegment(f *testing.F) {
	f.Add("NAME\n       x - y\n\n       -k, --keep\n              Keep.\n", uint8(Man))
	f.Add("# T\n\ntext\n\nSub\n---\n```\n# no\n```\n", uint8(Markdown))
	f.Add("<h2 id=x>A\n</h2><dt>b</dt>\n<script>\n<h1>no</h1></script>", uint8(HTML))
	f.Add("  8. Termination.\n\nTitle\n=====\n\nSECTION 4\n", uint8(Plain))
	f.Add("commit 0123456789abcdef\nMerge: a b\nAuthor: A <a@x>\nDate:   now\n\n    keep it\n\ndiff --git a/k b/k\nindex 1..2\n--- a/k\n+++ b/k\n@@ -1 +1 @@\n-x\n+keep\ncommit 1234567\n", uint8(Git))
	f.Fuzz(func(t *testing.T, text string, format uint8) {
		s := New(Format(format%6), rank.NewMatcher(rank.Parse("keep termination")))
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			s.Line(int64(i+1), []byte(l))
		}
		res := s.Close(int64(len(lines)))
		prev := int64(0)
		for _, sec := range res.Sections {
			if sec.Line <= prev || sec.End < sec.Line || sec.Last < sec.End || sec.Last > int64(len(lines)) || sec.Level < 1 {
				t.Fatalf("bad section %+v after line %d of %d", sec, prev, len(lines))
			}
			prev = sec.Line
		}
		for _, r := range res.Ranked {
			if r.Line < 1 || r.Last > int64(len(lines)) || r.Score <= 0 {
				t.Fatalf("bad ranked section %+v", r)
			}
		}
	})
}

// BenchmarkSegment measures one ranked pass over a man page.
func BenchmarkSegment(b *testing.B) {
	doc := fixture(b, "man-xz.txt")
	lines := bytes.Split(doc, []byte("\n"))
	m := rank.NewMatcher(rank.Parse("keep the input files"))
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		s := New(Man, m)
		for i, l := range lines {
			s.Line(int64(i+1), l)
		}
		s.Close(int64(len(lines)))
	}
}

// TestBlocks checks that text without headings is read as blocks between
// blank lines, a long one cut every MaxBlock lines, and that the block the
// intent asks for ranks first.
func TestBlocks(t *testing.T) {
	b := fixture(t, "licence-Artistic")
	if res := segment(t, "licence-Artistic", b, ""); res.Total != 0 {
		t.Fatalf("the Artistic licence has %d headings, want none", res.Total)
	}
	m := rank.NewMatcher(rank.Parse("may I charge a fee for distributing it"))
	s := New(Blocks, m)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		s.Line(int64(i+1), []byte(l))
	}
	res := s.Close(int64(len(lines)))
	want := lineOf(b, "5. You may charge a reasonable copying fee", 0)
	if len(res.Ranked) == 0 || res.Ranked[0].Line != want {
		t.Fatalf("best block %+v, want the one at line %d", res.Ranked[:min(1, len(res.Ranked))], want)
	}
	prev := int64(0)
	for _, sec := range res.Sections {
		if sec.Line > 1 && lines[sec.Line-2] != "" && sec.Line-prev != MaxBlock {
			t.Errorf("block %+v starts neither after a blank line nor %d lines after the last", sec, MaxBlock)
		}
		prev = sec.Line
	}
	s = New(Blocks, nil)
	for i := range 3 * MaxBlock {
		s.Line(int64(i+1), []byte("a line"))
	}
	if res := s.Close(3 * MaxBlock); res.Total != 3 {
		t.Errorf("%d lines without a blank one make %d blocks, want 3", 3*MaxBlock, res.Total)
	}
}
