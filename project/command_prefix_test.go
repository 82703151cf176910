package project

import (
	"context"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// prefixedOutput runs a shell pipeline over real outputs of the corpus (the
// pipeline's files are given relative to testdata/corpus) and returns what
// it printed.
func prefixedOutput(t *testing.T, pipeline string) []byte {
	t.Helper()
	cmd := exec.Command("sh", "-c", pipeline)
	cmd.Dir = filepath.Join("..", "testdata", "corpus")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", pipeline, err)
	}
	return out
}

// The prefixes real tools put on every line, as awk or a tool writes them.
var linePrefixers = []struct{ name, cmd string }{
	{"cat -n", "cat -n"},
	{"grep -n", "grep -n ''"},
	{"nl", "nl -ba"},
	{"%06d", `awk '{printf "%06d %s\n", NR, $0}'`},
	{"[N]", `awk '{printf "[%d] %s\n", NR, $0}'`},
	{"timestamp", `awk '{printf "2026-11-29T12:%02d:%02dZ %s\n", (NR/60)%60, NR%60, $0}'`},
	{"path:line:", `awk '{printf "logs/app.log:%d:%s\n", NR, $0}'`},
}

// TestCommandEvidenceBehindPrefix puts a real failure (a Go test's panic, a
// Python traceback) in the middle of a real access log of 6,000 lines and
// a prefix on every line, by the tools that add them: the view shows the
// failure's lines, and uses its budget.
func TestCommandEvidenceBehindPrefix(t *testing.T) {
	failures := []struct {
		name  string
		lines string // a sed script that prints them
		case_ string
		want  []string
	}{
		{"go panic", "303,325p", "command-go-test-panic", []string{"--- FAIL: TestPutGet", "panic: assignment to entry in nil map", "FAIL\texample.com/kv/cache"}},
		{"python traceback", "51,60p", "command-python-bad-sku", []string{"Traceback (most recent call last):", "KeyError: 'SKU0201'"}},
	}
	for _, f := range failures {
		for _, pf := range linePrefixers {
			t.Run(f.name+"/"+pf.name, func(t *testing.T) {
				out := prefixedOutput(t, "{ head -n 3000 text-nginx-access/output; sed -n '"+f.lines+"' "+f.case_+"/output; "+
					"sed -n 3001,6000p text-nginx-access/output; } | "+pf.cmd)
				in := testInput(t, out, 2000)
				in.Tool = "run"
				code := 1
				in.ExitCode = &code
				o, err := Project(context.Background(), KindCommand, in)
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range f.want {
					if !strings.Contains(o.Text, w) {
						t.Errorf("the view does not show %q:\n%s", w, o.Text)
					}
				}
				if n := in.Counter.Count(o.Text); n < 1500 {
					t.Errorf("the view of %d lines takes %d tokens of its 2,000:\n%s", strings.Count(string(out), "\n"), n, o.Text)
				}
			})
		}
	}
}

// TestCmdLinePrefix holds the prefix reader to the prefixes of real tools
// and to lines that have none.
func TestCmdLinePrefix(t *testing.T) {
	for _, tc := range []struct{ line, rest string }{
		{"000042 ERROR payment failed", "ERROR payment failed"},
		{"42:panic: boom", "panic: boom"},
		{"42-context line", "context line"},
		{"42\tFAIL\tpkg", "FAIL\tpkg"},
		{"[42] Traceback (most recent call last):", "Traceback (most recent call last):"},
		{"[2026-11-29 12:00:01] ERROR x", "ERROR x"},
		{"2026-11-29T12:00:01.5Z ERROR x", "ERROR x"},
		{"000042 2026-11-29T12:00:01Z panic: x", "panic: x"},
		{"logs/app.log:42:FAIL x", "FAIL x"},
		{"[Tue Dec 01 14:31:05.615698 2026] [cgi:error] [pid 1]", "[cgi:error] [pid 1]"},
		{"May  1 12:00:00 host sshd[1]: x", "host sshd[1]: x"},
		{"ERROR x", "ERROR x"},
		{"main.go", "main.go"},
		{"127.0.0.1 - - [29/Nov/2026]", "- - [29/Nov/2026]"},
	} {
		if got := tc.line[classify.LinePrefix([]byte(tc.line)):]; got != tc.rest {
			t.Errorf("%q: behind its prefix %q, want %q", tc.line, got, tc.rest)
		}
	}
}

// TestCmdLikeKeyASCII holds the one-pass keys to the keys of the samples a
// note shows, over the lines of real outputs, each cut where a note reads.
func TestCmdLikeKeyASCII(t *testing.T) {
	out := prefixedOutput(t, "cat text-nginx-error/output command-go-test-panic/output command-make-noisy/output | sed -n '1~7p'; cat -n command-git-diff-bench/output")
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		for _, limit := range []int{cmdSampleBytes, 40, 20} {
			b, cut := []byte(l), false
			if len(b) > limit {
				b, cut = b[:limit], true
			}
			fast, ok := cmdLikeKeysASCII(b, cut)
			if !ok {
				continue
			}
			n++
			c, _ := cmdLikeClean(b, cut)
			for lv := range cmdLikeLevels {
				if _, _, _, slow := cmdLikeSpan(c, cut, lv); fast[lv] != slow {
					t.Fatalf("%q (cut %v, level %d): key %x, the sample's %x", b, cut, lv, fast[lv], slow)
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d lines compared", n)
	}
}

// FuzzCmdLikeKeysASCII holds the one-pass key to the sample's: a line
// start it takes has the key cmdLikeSpan gives its cleaned text at each
// level, and it takes exactly the starts every byte of which is printable
// ASCII or a tab, without a backquote (cmdLikeCleanASCII's words).
func FuzzCmdLikeKeysASCII(f *testing.F) {
	for _, s := range []string{"", "npm http fetch GET 200 https://registry.npmjs.org/x 12ms", "a\tb  c 12 34 `x`", "ok    pkg/a\t0.01s" + strings.Repeat(" x", 40) + "\x7f", "é" + strings.Repeat("a", 60), strings.Repeat("ab ", 30) + "\x1b[0m"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, cut bool) {
		b = b[:min(len(b), cmdSampleBytes)]
		clean := true
		for _, c := range b {
			if c < 0x20 && c != '\t' || c >= 0x7f || c == '`' {
				clean = false
			}
		}
		fast, ok := cmdLikeKeysASCII(b, cut)
		if ok != clean {
			t.Fatalf("%q: taken %v, clean %v", b, ok, clean)
		}
		if !ok {
			return
		}
		for lv := range cmdLikeLevels {
			if _, _, _, slow := cmdLikeSpan(b, cut, lv); fast[lv] != slow {
				t.Fatalf("%q (cut %v, level %d): key %x, the sample's %x", b, cut, lv, fast[lv], slow)
			}
		}
	})
}
