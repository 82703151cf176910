package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The README builds crumb as ./crumb in the checkout. In the tests that
// build is the test binary itself (this package, acting as crumb through
// testscript.Main), which every script finds as ./crumb and on PATH; a
// block that builds crumb any other way runs as written, and fails where
// there is no checkout.
const readmeBuild = "go build -o crumb ./cmd/crumb"

// A docBlock is one ```sh block of a document, made ready to run: the
// shell text (with the setup lines its directives give before it, and the
// blocks that continue it after it), the testscript lines that run before
// it (skips) and those that check it after it.
type docBlock struct {
	where  string // FILE:LINE of the block's opening fence
	shell  string
	before []string
	after  []string
}

// docDirective is an HTML comment that tells the test about the next sh
// block of a document, invisible to a reader of the rendered page:
//
//	<!-- docs-test: skip REASON -->    the block is not run, for REASON
//	<!-- docs-test: short REASON -->   not run with -short, for REASON
//	<!-- docs-test: setup SHELL -->    SHELL runs first (the files the block reads)
//	<!-- docs-test: continue -->       the block runs in the same shell as the one above (its variables)
//	<!-- docs-test: check LINE -->     LINE, a testscript command, checks what the block did
var docDirective = regexp.MustCompile(`^<!-- docs-test: (skip|short|setup|continue|check)\b ?(.*?) ?-->$`)

// docBlocks returns the sh blocks of a markdown document, with what its
// directives say of each. A directive that names no known verb, lacks its
// argument, or is followed by no sh block is an error, so that a typo does
// not turn a check into nothing.
func docBlocks(name, text string) ([]docBlock, error) {
	var blocks []docBlock
	var pending []string // directives for the next sh block, "verb arg"
	pendingAt := 0
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if strings.HasPrefix(line, "<!-- docs-test:") {
			if docDirective.FindStringSubmatch(line) == nil {
				return nil, fmt.Errorf("%s:%d: not a docs-test directive (skip, short, setup, continue or check): %s", name, i+1, line)
			}
			if len(pending) == 0 {
				pendingAt = i + 1
			}
			pending = append(pending, line)
			continue
		}
		if !strings.HasPrefix(line, "```") {
			continue
		}
		lang := strings.TrimPrefix(line, "```")
		start := i + 1
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: the block is never closed", name, start)
		}
		if lang != "sh" {
			if len(pending) > 0 {
				return nil, fmt.Errorf("%s:%d: docs-test directives before a %q block, not an sh block", name, pendingAt, lang)
			}
			continue
		}
		b := docBlock{where: fmt.Sprintf("%s:%d", name, start), shell: strings.Join(body, "\n") + "\n"}
		joins := false
		var setup []string
		for _, d := range pending {
			m := docDirective.FindStringSubmatch(d)
			verb, arg := m[1], m[2]
			if (arg == "") != (verb == "continue") {
				return nil, fmt.Errorf("%s: %s: want an argument for skip, short, setup and check, none for continue", b.where, d)
			}
			switch verb {
			case "skip":
				b.before = append(b.before, "skip "+scriptQuote(arg))
			case "short":
				b.before = append(b.before, "[short] skip "+scriptQuote(arg))
			case "setup":
				setup = append(setup, arg)
			case "continue":
				joins = true
			case "check":
				b.after = append(b.after, arg)
			}
		}
		pending = nil
		if len(setup) > 0 {
			b.shell = strings.Join(setup, "\n") + "\n" + b.shell
		}
		if joins {
			if len(blocks) == 0 {
				return nil, fmt.Errorf("%s: continue, but no sh block above it", b.where)
			}
			prev := &blocks[len(blocks)-1]
			prev.where += "+" + strconv.Itoa(start)
			prev.shell += b.shell
			prev.before = append(prev.before, b.before...)
			prev.after = append(prev.after, b.after...)
			continue
		}
		blocks = append(blocks, b)
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%s:%d: docs-test directives followed by no sh block", name, pendingAt)
	}
	return blocks, nil
}

// scriptQuote quotes s as one word of a testscript line, where only single
// quotes quote, and two of them inside stand for one.
func scriptQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// script renders the block as a testscript: sh runs the block, exiting at
// the first command that fails (sh -e), and then its checks run.
func (b docBlock) script() string {
	var s strings.Builder
	fmt.Fprintf(&s, "# %s\n", b.where)
	for _, l := range b.before {
		s.WriteString(l + "\n")
	}
	s.WriteString("exec sh -e block.sh\n")
	for _, l := range b.after {
		s.WriteString(l + "\n")
	}
	s.WriteString("-- block.sh --\n")
	s.WriteString(strings.ReplaceAll(b.shell, readmeBuild, "true"))
	return s.String()
}

// TestDocBlocks runs every ```sh block of README.md and docs/*.md as a
// user would paste it: in a directory of its own with crumb on PATH and as
// ./crumb, a home directory of its own (so crumb's default store is in
// it), and a temporary directory that is removed afterwards. Each block
// must exit 0 and pass the checks its docs-test directives give (see
// docDirective); a block that cannot run here (it needs another program,
// a network, or runs the test suite itself) says why in a skip directive.
func TestDocBlocks(t *testing.T) {
	needShell(t)
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	n := 0
	for _, path := range append([]string{filepath.Join("..", "..", "README.md")}, docs...) {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(filepath.Join("..", ".."), path)
		blocks, err := docBlocks(filepath.ToSlash(name), string(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			file := strings.NewReplacer("/", "_", ":", "_line", "+", "_").Replace(b.where) + ".txtar"
			if err := os.WriteFile(filepath.Join(dir, file), []byte(b.script()), 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no sh blocks found in README.md and docs/*.md")
	}
	testscript.Run(t, testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			bin, err := exec.LookPath("crumb")
			if err != nil {
				return err
			}
			home := filepath.Join(env.WorkDir, "home")
			if err := os.Mkdir(home, 0o700); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			env.Setenv("CRUMB_GC", "off")
			// A link, not a symlink: crumb names the file it was run as in
			// the reads it prints when PATH does not find it, and through a
			// symlink that would be the test binary's own name.
			if err := os.Link(bin, filepath.Join(env.WorkDir, "crumb")); err != nil {
				return exec.Command("cp", bin, filepath.Join(env.WorkDir, "crumb")).Run()
			}
			return nil
		},
	})
}

func TestDocBlocksParse(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      []docBlock // nil: an error
	}{
		{
			name: "plain",
			doc:  "text\n```sh\necho hi\n```\n```go\nx := 1\n```\n",
			want: []docBlock{{where: "d.md:2", shell: "echo hi\n"}},
		},
		{
			name: "directives",
			doc: "<!-- docs-test: setup printf x > in -->\n<!-- docs-test: check stdout '^x$' -->\n<!-- docs-test: short it's slow -->\n" +
				"```sh\ncat in\n```\n",
			want: []docBlock{{where: "d.md:4", shell: "printf x > in\ncat in\n", before: []string{`[short] skip 'it''s slow'`}, after: []string{`stdout '^x$'`}}},
		},
		{
			name: "continue",
			doc:  "```sh\nv=1\n```\n<!-- docs-test: continue -->\n<!-- docs-test: check stdout 1 -->\n```sh\necho $v\n```\n",
			want: []docBlock{{where: "d.md:1+6", shell: "v=1\necho $v\n", after: []string{"stdout 1"}}},
		},
		{name: "skip without a reason", doc: "<!-- docs-test: skip -->\n```sh\nx\n```\n"},
		{name: "unknown verb", doc: "<!-- docs-test: skipp slow -->\n```sh\nx\n```\n"},
		{name: "continue first", doc: "<!-- docs-test: continue -->\n```sh\nx\n```\n"},
		{name: "before another language", doc: "<!-- docs-test: skip x -->\n```python\nx\n```\n"},
		{name: "dangling", doc: "```sh\nx\n```\n<!-- docs-test: skip x -->\n"},
		{name: "unclosed", doc: "```sh\nx\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := docBlocks("d.md", c.doc)
			if c.want == nil {
				if err == nil {
					t.Fatalf("docBlocks = %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", c.want) {
				t.Errorf("docBlocks =\n%+v\nwant\n%+v", got, c.want)
			}
		})
	}
}
