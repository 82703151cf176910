package project

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/tokens"
)

// textCases are inputs whose shapes stress the text projector: many short
// lines, a few huge ones, no newline at the end, CRLF, control bytes.
func textCases() map[string][]byte {
	var many bytes.Buffer
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&many, "line %d of a long log, with some words to make it longer\n", i)
	}
	var huge bytes.Buffer
	huge.WriteString("first line\n")
	huge.WriteString(strings.Repeat("abcdefghij", 50000))
	huge.WriteString("\nlast line\n")
	oneLine := bytes.Repeat([]byte("0123456789 "), 30000)
	var crlf bytes.Buffer
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&crlf, "windows line %d\r\n", i)
	}
	var ctl bytes.Buffer
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&ctl, "\x1b[31mred %d\x1b[0m progress 10%%\rprogress 100%% \xff\x00 tail\n", i)
	}
	noNL := bytes.TrimSuffix(many.Bytes(), []byte("\n"))
	return map[string][]byte{
		"many-lines":     many.Bytes(),
		"huge-middle":    huge.Bytes(),
		"one-line":       oneLine,
		"crlf":           crlf.Bytes(),
		"control-bytes":  ctl.Bytes(),
		"no-final-nl":    noNL,
		"unicode":        bytes.Repeat([]byte("héllo wörld — 日本語のテキスト 🙂\n"), 2000),
		"blank-lines":    bytes.Repeat([]byte("\n"), 50000),
		"long-last-line": append(bytes.Clone(many.Bytes()[:5000]), bytes.Repeat([]byte("z"), 200000)...),
	}
}

func TestTextGolden(t *testing.T) {
	for name, b := range textCases() {
		t.Run(name, func(t *testing.T) {
			in := testInput(t, b, 400)
			out, err := Project(context.Background(), KindText, in)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "text-synthetic", name+".golden"), out.Text)
		})
	}
}

func TestTextWithinBudgetAndDeterministic(t *testing.T) {
	for name, b := range textCases() {
		for _, budget := range []int{100, 300, 2000, 5000} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				out1, err := Project(context.Background(), KindText, testInput(t, b, budget))
				if err != nil {
					t.Fatal(err)
				}
				out2, err := Project(context.Background(), KindText, testInput(t, b, budget))
				if err != nil {
					t.Fatal(err)
				}
				if out1.Text != out2.Text {
					t.Fatal("same input and budget gave different views")
				}
				if n := tokens.O200k().Count(out1.Text); n > budget {
					t.Fatalf("view has %d tokens, budget %d", n, budget)
				}
				if !strings.HasPrefix(out1.Text, "[crumb text: ") {
					t.Fatalf("view does not open with its header: %.80q", out1.Text)
				}
				if out1.Next == nil && !out1.Complete {
					t.Fatal("view omits material but has no continuation")
				}
				if out1.Next != nil && !strings.Contains(out1.Text, recall.CLIHint(*out1.Next)) {
					t.Fatalf("view does not show its next read %q", recall.CLIHint(*out1.Next))
				}
			})
		}
	}
}

// TestTextShowsHeadAndMoreTail checks the head-and-tail shape: the first and
// last lines are shown, the tail gets the larger share, and the omission is
// named in the header and where it sits.
func TestTextShowsHeadAndMoreTail(t *testing.T) {
	b := textCases()["many-lines"]
	out, err := Project(context.Background(), KindText, testInput(t, b, 2000))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.Text, "\n")
	if !strings.Contains(out.Text, "line 1 of a long log") || !strings.Contains(out.Text, "line 20000 of a long log") {
		t.Fatal("first or last line missing")
	}
	marker := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "[… lines ") {
			marker = i
		}
	}
	if marker < 0 {
		t.Fatalf("no omission marker in the middle:\n%s", out.Text)
	}
	head, tail := marker-1, len(lines)-marker-1
	if tail <= head {
		t.Errorf("tail (%d lines) should outweigh head (%d lines)", tail, head)
	}
	if out.Next == nil || out.Next.Lines == nil || out.Next.Lines.From != int64(head+1) {
		t.Errorf("next read %+v should start right after the head (line %d)", out.Next, head+1)
	}
	if !strings.Contains(lines[0], "omitted: lines") || !strings.Contains(lines[0], "next: crumb read") {
		t.Errorf("header does not name the omission and the next read: %s", lines[0])
	}
}

// TestTextNeverShowsRawControlBytes checks that a view holds no NUL, escape
// or invalid UTF-8 bytes, whatever the input.
func TestTextNeverShowsRawControlBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20; i++ {
		b := make([]byte, 20000+r.IntN(50000))
		for j := range b {
			b[j] = byte(r.IntN(256))
			if r.IntN(40) == 0 {
				b[j] = '\n'
			}
		}
		out, err := Project(context.Background(), KindText, testInput(t, b, 500))
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out.Text, "\x00\x1b\x7f") || !isValidUTF8(out.Text) {
			t.Fatalf("view holds raw control or invalid bytes: %q", out.Text)
		}
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "?") == s }

func FuzzTextProject(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), uint16(100))
	f.Add(bytes.Repeat([]byte("x"), 5000), uint16(120))
	f.Add([]byte("\r\n\x1b[1m\x00\xff\n\n\n"), uint16(150))
	// Logs, which get the log view: the heads of the real fixtures, and
	// small ones with errors, records that go on, and JSON lines.
	for _, name := range []string{"nginx-error", "postgres", "redis-verbose", "go-slog-json", "python-http-server", "dpkg-log"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "text", name, "output")); err == nil {
			f.Add(b[:min(len(b), 6000)], uint16(300))
		}
	}
	// Texts that are something else: test runs, compiler output, source,
	// listings and JSON, which go to their own kinds' projectors.
	for _, name := range []string{"sniffed/files/ci-go-test-v.log", "sniffed/files/pytest-verbose.txt", "sniffed/files/cargo-test.log",
		"command/gcc-error/output", "file/go-bufio/output", "dir/find-go-src/output", "json/go-list-m-all/output"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b[:min(len(b), 6000)], uint16(300))
		}
	}
	f.Add([]byte("2024-05-01T12:00:00Z INFO a\n2024-05-01T12:00:01Z ERROR b\nTraceback:\n  x\n2024-05-01T12:00:02Z WARN c\n"), uint16(100))
	f.Add([]byte("{\"time\":\"2024-05-01T12:00:00Z\",\"level\":\"ERROR\",\"msg\":\"x\"}\n{\"time\":1,\"level\":50}\n{\"level\":\n"), uint16(120))
	f.Fuzz(func(t *testing.T, b []byte, budget uint16) {
		in := testInput(t, b, int(budget))
		out, err := Project(context.Background(), KindText, in)
		if err != nil {
			t.Fatal(err)
		}
		if n := tokens.O200k().Count(out.Text); n > in.Budget {
			t.Fatalf("view has %d tokens, budget %d", n, in.Budget)
		}
		again, err := Project(context.Background(), KindText, testInput(t, b, int(budget)))
		if err != nil || again.Text != out.Text {
			t.Fatal("not deterministic")
		}
		if out.Next != nil {
			if err := out.Next.Validate(); err != nil {
				t.Fatalf("invalid continuation: %v", err)
			}
			if out.Next.Lines != nil {
				total, _ := in.Doc().Lines()
				if out.Next.Lines.To > total {
					t.Fatalf("continuation %s past the end (%d lines)", out.Next.Lines, total)
				}
			}
			if out.Next.Bytes != nil && out.Next.Bytes.To > int64(len(b)) {
				t.Fatalf("continuation %s past the end (%d bytes)", out.Next.Bytes, len(b))
			}
		}
	})
}
