package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDemo runs the README's demo word for word on a fresh home
// directory, with this test's crumb in place of the one "go build" makes:
// the first block must print the header the README quotes (with the path
// crumb was built at), the second must run as written, and neither may
// leave anything but the binary in the directory it runs in. TestDocBlocks,
// which runs every other block, leaves these two to it.
func TestReadmeDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB log")
	}
	needShell(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, _, _ := strings.Cut(string(readme[strings.Index(string(readme), "## Build and run"):]), "\n## ")
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 {
		t.Fatalf("want the demo's two sh blocks in README's Build and run, found %d", len(blocks))
	}
	const build = "go build -o crumb ./cmd/crumb && "
	first, ok := strings.CutPrefix(blocks[0][1], build)
	if !ok {
		t.Fatalf("the demo does not start with %q:\n%s", build, blocks[0][1])
	}
	quoted := regexp.MustCompile("`(\\[crumb text \\(log\\): [^`]*)`").FindStringSubmatch(section)
	if quoted == nil {
		t.Fatal("README quotes no view header")
	}

	bin, err := exec.LookPath("crumb")
	if err != nil {
		t.Fatal(err)
	}
	work, home := t.TempDir(), t.TempDir()
	// Copied as a stream: a child's max RSS counts this process's memory
	// (exec forks it), which later tests measure.
	if err := exec.Command("cp", bin, filepath.Join(work, "crumb")).Run(); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("sh", "-e", "-c", first+blocks[1][1])
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "TMPDIR=" + tmp, "CRUMB_GC=off"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's demo fails: %v\n%.3000s", err, out)
	}
	header := strings.Replace(quoted[1], "/home/me/crumb/crumb", filepath.Join(work, "crumb"), 1)
	if first, _, _ := strings.Cut(string(out), "\n"); first != header {
		t.Errorf("the view's first line is\n%s\nthe README says\n%s", first, header)
	}
	for _, want := range []string{"[crumb read 425a4a25b92d0a05: lines 400,000-400,010 of 750,000", "\n[end of the range asked for]\n", "123456:2026-11-29T12:17:36Z INFO worker=0 request id=123456 served in 72ms"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the demo's reads do not print %q:\n%.3000s", want, out)
		}
	}
	if left, _ := os.ReadDir(work); len(left) != 1 {
		t.Errorf("the demo left files in its directory: %v", left)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the demo left its log behind: %v", left)
	}
}
