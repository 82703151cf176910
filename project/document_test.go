package project

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The documents are real ones, from project/sections/testdata (see its
// make.sh): man pages rendered by man-db, HTML of the Python documentation,
// licences and reStructuredText.

func docFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("sections", "testdata", name))
	if err != nil {
		t.Fatalf("fixture %s: %v (regenerate with sections/testdata/make.sh)", name, err)
	}
	return b
}

// lineHolding returns the whole line of b that holds s.
func lineHolding(t *testing.T, b []byte, s string) string {
	t.Helper()
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			return strings.TrimRight(l, "\r")
		}
	}
	t.Fatalf("no line holds %q", s)
	return ""
}

// TestDocumentSections checks that a document read, or printed by a
// command, with an intent shows the section asked for: its heading and its
// first lines, whole, in the first view, with a continuation that reads on.
func TestDocumentSections(t *testing.T) {
	for _, c := range []struct {
		name, fixture string
		kind          Kind
		args          map[string]any
		want          []string // parts of the lines the view must show whole
	}{
		{"html option", "html-python-cmdline.html", KindFile,
			map[string]any{"path": "/usr/share/doc/python3-doc/html/using/cmdline.html", "intent": "force the stdout and stderr streams to be unbuffered"},
			[]string{`id="cmdoption-u"`, "Force the stdout and stderr streams to be unbuffered."}},
		{"html function", "html-python-tempfile.html", KindFile,
			map[string]any{"path": "tempfile.html", "intent": "create a named temporary file that is deleted when closed"},
			[]string{`id="tempfile.NamedTemporaryFile"`, "This function operates exactly as"}},
		{"licence clause", "licence-MPL-1.1", KindFile,
			map[string]any{"path": "/usr/share/common-licenses/MPL-1.1", "intent": "when the licence terminates"},
			[]string{"8. TERMINATION.", "This License and the rights granted hereunder will terminate"}},
		{"rst title", "rst-mypyc-performance.rst", KindFile,
			map[string]any{"file_path": "doc/performance_tips_and_tricks.rst", "intent": "garbage collection"},
			[]string{"Adjusting garbage collection", "Compilation does not speed up cyclic garbage collection."}},
		{"man option", "man-strace.txt", KindCommand,
			map[string]any{"command": "MANWIDTH=80 man -P cat strace", "description": "How to follow child processes created by fork"},
			[]string{"       -f", "       --follow-forks", "Trace child processes as"}},
		{"man option beside", "man-scp.txt", KindCommand,
			map[string]any{"command": "man scp", "description": "limit the bandwidth scp uses"},
			[]string{"     -l limit", "Limits the used bandwidth"}},
		{"man page as text", "man-xz.txt", KindText,
			map[string]any{"intent": "keep the input files"},
			[]string{"       -k, --keep", "Don't delete the input files."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := docFixture(t, c.fixture)
			args, _ := json.Marshal(c.args)
			out, in := fdProject(t, c.kind, b, "read_file", args, 2000)
			checkViewBasics(t, in, out, false)
			checkReadsTheRest(t, in, out)
			if !strings.Contains(out.Text, "[focus: ") {
				t.Errorf("no focus note in the view:\n%.600s", out.Text)
			}
			for _, w := range c.want {
				if l := lineHolding(t, b, w); !strings.Contains(out.Text, l) {
					t.Errorf("the view does not show the line %q:\n%s", l, out.Text)
				}
			}
		})
	}
}

// TestTextBlocks checks that text without headings, read for an intent,
// shows the block of lines that best matches it.
func TestTextBlocks(t *testing.T) {
	b := docFixture(t, "licence-Artistic")
	args, _ := json.Marshal(map[string]string{"intent": "may I charge a fee for distributing it"})
	out, in := fdProject(t, KindText, b, "", args, 800)
	checkViewBasics(t, in, out, false)
	checkReadsTheRest(t, in, out)
	if l := lineHolding(t, b, "5. You may charge a reasonable copying fee"); !strings.Contains(out.Text, l) || !strings.Contains(out.Text, "[focus: ") {
		t.Errorf("the view does not show the line %q:\n%s", l, out.Text)
	}
	if strings.HasPrefix(out.Text, "[crumb text: text") {
		t.Errorf("the header names the kind twice: %.80s", out.Text)
	}
}

// TestDocumentSectionMatch checks that in a section too long for the view,
// the line that holds most of the intent is shown too.
func TestDocumentSectionMatch(t *testing.T) {
	b := docFixture(t, "licence-GFDL-1.2")
	args, _ := json.Marshal(map[string]string{"path": "/usr/share/common-licenses/GFDL-1.2", "intent": "preserve the section entitled History"})
	out, in := fdProject(t, KindFile, b, "read_file", args, 700)
	checkViewBasics(t, in, out, false)
	checkReadsTheRest(t, in, out)
	for _, w := range []string{"4. MODIFICATIONS", `I. Preserve the section Entitled "History"`} {
		if l := lineHolding(t, b, w); !strings.Contains(out.Text, l) {
			t.Errorf("the view does not show the line %q:\n%s", l, out.Text)
		}
	}
}

// TestDocumentOutline checks that a document read without an intent keeps
// its head and tail and lists the headings between them.
func TestDocumentOutline(t *testing.T) {
	b := docFixture(t, "man-xz.txt")
	args, _ := json.Marshal(map[string]string{"path": "xz.1.txt"})
	out, in := fdProject(t, KindFile, b, "read_file", args, 2000)
	checkViewBasics(t, in, out, false)
	checkReadsTheRest(t, in, out)
	for _, w := range []string{"man page", "[outline of the omitted lines: ", " OPTIONS", "XZ(1)"} {
		if !strings.Contains(out.Text, w) {
			t.Errorf("the view lacks %q:\n%s", w, out.Text)
		}
	}
	if tail := lineHolding(t, b, "Tukaani"); !strings.Contains(out.Text, tail) {
		t.Errorf("the view lacks the last line %q", tail)
	}
}

// TestDocumentCommandWithoutIntent checks that a man page printed by a
// command for no stated purpose keeps its head and tail, with the outline of
// its sections and options between them; and that a failed command keeps
// the command's view.
func TestDocumentCommandWithoutIntent(t *testing.T) {
	b := docFixture(t, "man-strace.txt")
	args, _ := json.Marshal(map[string]string{"command": "man strace"})
	out, in := fdProject(t, KindCommand, b, "bash", args, 2000)
	checkViewBasics(t, in, out, false)
	checkReadsTheRest(t, in, out)
	for _, w := range []string{"[crumb command: ", "man page", "$ man strace", "[outline of the omitted lines: ", "STRACE(1)"} {
		if !strings.Contains(out.Text, w) {
			t.Errorf("the view lacks %q:\n%.1500s", w, out.Text)
		}
	}
	in = testInput(t, b, 2000)
	in.Tool, in.Args, in.ExitCode = "bash", args, new(int)
	*in.ExitCode = 16
	out, err := Project(context.Background(), KindCommand, in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "man page") {
		t.Errorf("a failed command's output is shown as a document:\n%.400s", out.Text)
	}
}

// checkReadsTheRest checks that a view's continuation reads exactly what
// the view omits: with the lines its header says it shows, every line of
// the result once.
func checkReadsTheRest(t *testing.T, in *Input, out Output) {
	t.Helper()
	total, _ := in.Doc().Lines()
	header, _, _ := strings.Cut(out.Text, "\n")
	count := make([]int, total+2)
	mark := func(a, b int64) {
		for n := a; n <= b && n <= total; n++ {
			count[n]++
		}
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		return n
	}
	for _, s := range strings.Split(regexp.MustCompile(`; shown: ([^;]*);`).FindStringSubmatch(header)[1], ", ") {
		m := regexp.MustCompile(`^lines? ([0-9,]+)(?:-([0-9,]+))?$`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("shown %q is not a line range", s)
		}
		b := m[1]
		if m[2] != "" {
			b = m[2]
		}
		mark(num(m[1]), num(b))
	}
	if out.Next == nil {
		t.Fatal("no continuation")
	}
	argv := out.Next.Argv()
	if len(argv) != 4 || argv[2] != "--lines" {
		t.Fatalf("continuation %q does not read lines", argv)
	}
	for _, r := range strings.Split(argv[3], ",") {
		a, b, _ := strings.Cut(r, ":")
		mark(num(a), num(b))
	}
	for n := int64(1); n <= total; n++ {
		if count[n] != 1 {
			t.Fatalf("line %d is shown or read %d times, not once (%s; %q)", n, count[n], header, argv)
		}
	}
}
