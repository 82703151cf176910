package server_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb/server"
)

// TestReadmePython runs the README's Python client, word for word but for
// the server's address, against a real server: it prints the view and reads
// on to the end of the result.
func TestReadmePython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## As a sidecar\n.*?```python\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no Python client under \"As a sidecar\"")
	}
	code := string(m[1])
	if n := strings.Count(code, "\n"); n > 10 {
		t.Errorf("the README's Python client takes %d lines, not ten", n)
	}
	var tok server.Tokens
	tok.ParseTokens("s3cret:agents")
	ts := newServer(t, server.Options{Tokens: &tok})
	if !strings.Contains(code, `"http://127.0.0.1:8377"`) {
		t.Fatal("the README's client does not talk to 127.0.0.1:8377")
	}
	code = strings.Replace(code, `"http://127.0.0.1:8377"`, `"`+ts.URL+`"`, 1)
	dir := t.TempDir()
	var log bytes.Buffer
	for i := 1; i <= 3000; i++ {
		log.WriteString("tests/test_mod.py::test_case_" + strings.Repeat("x", i%5) + " PASSED\n")
	}
	log.WriteString("FAILED tests/test_mod.py::test_parse - AssertionError: want 3, got 4\n=== 1 failed, 3000 passed ===\n")
	if err := os.WriteFile(filepath.Join(dir, "pytest.log"), log.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-c", code)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	for _, want := range []string{"test_parse - AssertionError", "[end of the range asked for]"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("the client's output lacks %q:\n%.2000s", want, out)
		}
	}
}
