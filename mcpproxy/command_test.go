package mcpproxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStderrSuffix: the lines of a server's standard error that say what
// went wrong are reported, not the runtime's last words after them.
func TestStderrSuffix(t *testing.T) {
	cases := []struct{ name, stderr, want, not string }{
		{"node missing module", `node:internal/modules/cjs/loader:1228
  throw err;
  ^

Error: Cannot find module '/tmp/nowhere/server.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`, "its stderr says: Error: Cannot find module '/tmp/nowhere/server.js'", "Node.js"},
		{"python", `Traceback (most recent call last):
  File "/srv/server.py", line 1, in <module>
    import mcp_thing
ModuleNotFoundError: No module named 'mcp_thing'
`, "ModuleNotFoundError: No module named 'mcp_thing'", "File "},
		{"go panic", "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:9 +0x1d\nexit status 2\n", "panic: runtime error", "goroutine"},
		{"vocabulary", "starting\nopen /data/db: permission denied\nbye\n", "its stderr says: open /data/db: permission denied", "bye"},
		{"no error words", "starting\nlistening\nbye\n", "its last words on stderr: bye", "listening"},
		{"nothing", "", "", "stderr"},
	}
	// Real standard error of real programs (project/rank/testdata/severity/make.sh).
	for _, f := range []struct{ file, want, not string }{
		{"sqlite-no-table.txt", "its stderr says: Error: in prepare, no such table: accounts", ""},
		{"go-run-exit.txt", "its stderr says: could not load settings: open /nonexistent/settings.toml: no such file or directory | exit status 1", ""},
		{"python-timeout.txt", "its stderr says: TimeoutError: timed out", "File "},
		{"node-missing.txt", "its stderr says: Error: Cannot find module './settings-loader'", "Node.js"},
	} {
		b, err := os.ReadFile(filepath.Join("..", "project", "rank", "testdata", "severity", f.file))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, stderr, want, not string }{f.file, string(b), f.want, f.not})
	}
	for _, c := range cases {
		w := &tailWriter{max: 4096}
		w.Write([]byte(c.stderr))
		got := w.suffix()
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("%s: got %q, want %q without %q", c.name, got, c.want, c.not)
		}
	}
}
