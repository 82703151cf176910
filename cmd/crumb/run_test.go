package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/tokens"
)

// runCrumb runs crumb in-process with its own store and returns the exit
// status, stdout and stderr.
func runCrumb(t *testing.T, storeDir string, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := map[string]string{"CRUMB_STORE": storeDir, "CRUMB_GC": "off"}
	code := run(context.Background(), args, stdin, &stdout, &stderr, func(k string) string { return env[k] })
	return code, stdout.String(), stderr.String()
}

func needShell(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

func TestRunExitStatus(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"success", []string{"sh", "-c", "echo hello"}, 0, "hello\n", ""},
		// A command that fails says how it ended first, however small its
		// output.
		{"failure", []string{"sh", "-c", "echo broken; exit 3"}, 3, "[crumb command: exit status 3 (failed)]\nbroken\n", ""},
		{"failure, no output", []string{"sh", "-c", "exit 1"}, 1, "[crumb command: exit status 1 (failed)]\n", ""},
		{"killed", []string{"sh", "-c", "echo dying; kill -KILL $$"}, 137, "[crumb command: killed by SIGKILL]\ndying\n", ""},
		{"stdin", []string{"sh", "-c", "tr a-z A-Z"}, 0, "FROM STDIN\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runCrumb(t, dir, strings.NewReader("from stdin\n"), append([]string{"run", "--"}, c.args...)...)
			if code != c.code || stdout != c.stdout || stderr != c.stderr {
				t.Errorf("got exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, c.code, c.stdout, c.stderr)
			}
		})
	}
}

func TestRunNotFound(t *testing.T) {
	code, stdout, stderr := runCrumb(t, t.TempDir(), nil, "run", "--", "no-such-command-crumb-test")
	if code != 127 || stdout != "" {
		t.Errorf("got exit %d, stdout %q; want 127 and nothing", code, stdout)
	}
	if !strings.Contains(stderr, "crumb run: error: no-such-command-crumb-test: command not found") || !strings.Contains(stderr, "crumb run: hint:") {
		t.Errorf("stderr %q does not say the command was not found", stderr)
	}
}

func TestRunUsage(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCrumb(t, dir, nil, "run")
	if code != 2 || !strings.Contains(stderr, "no command to run") {
		t.Errorf("no command: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := runCrumb(t, dir, nil, "run", "--help")
	if code != 0 || !strings.Contains(stdout, "Examples:") || !strings.Contains(stdout, "--timeout") {
		t.Errorf("--help: exit %d, stdout %q", code, stdout)
	}
	// Flags end at the command: -v belongs to the command.
	needShell(t)
	code, stdout, _ = runCrumb(t, dir, nil, "run", "--budget", "500", "sh", "-c", "echo $0", "-v")
	if code != 0 || stdout != "-v\n" {
		t.Errorf("flags after the command: exit %d, stdout %q", code, stdout)
	}
}

// TestRunInterleaving checks that stdout and stderr come in the order the
// command wrote them, on one stream.
func TestRunInterleaving(t *testing.T) {
	needShell(t)
	script := `for i in 1 2 3 4 5 6 7 8; do echo "out $i"; echo "err $i" >&2; done`
	code, stdout, _ := runCrumb(t, t.TempDir(), nil, "run", "--", "sh", "-c", script)
	var want strings.Builder
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	if code != 0 || stdout != want.String() {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, want.String())
	}
}

// TestRunTimeout checks that --timeout ends the whole process group and the
// view says so first.
func TestRunTimeout(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	start := time.Now()
	// The child sh and its sleep share the group; both must go.
	code, stdout, stderr := runCrumb(t, dir, nil, "run", "--timeout", "1s", "--budget", "300", "--",
		"sh", "-c", "seq 1 20000; sleep 30 & wait")
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("took %v; the timeout did not end the command", took)
	}
	if code != 124 {
		t.Errorf("exit %d, want 124; stderr %q", code, stderr)
	}
	if !regexp.MustCompile(`^\[crumb command: timed out after 1(\.\d)?s`).MatchString(stdout) {
		t.Errorf("view does not open with the timeout:\n%.300s", stdout)
	}
	if !strings.Contains(stdout, "\n20000\n") && !strings.Contains(stdout, "\n20000") {
		t.Errorf("view lost the end of the output:\n%s", stdout)
	}
	// A small output passes through after a line that says how it ended.
	code, stdout, stderr = runCrumb(t, dir, nil, "run", "--timeout", "300ms", "--", "sh", "-c", "echo waiting; sleep 30")
	if code != 124 || stdout != "[crumb command: timed out after 300ms (killed by SIGTERM)]\nwaiting\n" || stderr != "" {
		t.Errorf("small: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestRunTimeoutIgnoredTerm runs a command that ignores SIGTERM: crumb
// reports the timeout asked for and, apart from it, how long the kill took.
func TestRunTimeoutIgnoredTerm(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	script := `trap "" TERM; echo waiting; sleep 30`
	code, stdout, stderr := runCrumb(t, dir, nil, "run", "--timeout", "500ms", "--grace", "1s", "--", "sh", "-c", script)
	want := regexp.MustCompile(`^\[crumb command: timed out after 500ms \(killed by SIGKILL\); it ignored SIGTERM and ended \d+\.\ds later\]\nwaiting\n$`)
	if code != 124 || !want.MatchString(stdout) || stderr != "" {
		t.Errorf("small: exit %d, stdout %q, stderr %q; want exit 124 and stdout matching %s", code, stdout, stderr, want)
	}

	code, stdout, _ = runCrumb(t, dir, nil, "run", "--json", "--timeout", "500ms", "--grace", "1s", "--", "sh", "-c", script)
	var got struct {
		Exit runExit `json:"exit"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	x := got.Exit
	if code != 124 || x.TimeoutMS != 500 || x.KillMS == nil || *x.KillMS < 1000 || *x.KillMS >= x.DurationMS || x.DurationMS < 1500 {
		t.Errorf("--json exit = %+v (kill_ms %v), want timeout_ms 500, kill_ms >= 1000 and the whole duration beyond both", x, x.KillMS)
	}

	// A projected view states the timeout in its header; stderr adds how
	// long the kill took.
	code, stdout, stderr = runCrumb(t, dir, nil, "run", "--budget", "200", "--timeout", "500ms", "--grace", "1s", "--",
		"sh", "-c", `trap "" TERM; seq 1 5000; sleep 30`)
	if code != 124 || !strings.HasPrefix(stdout, "[crumb command: timed out after 500ms (killed by SIGKILL), ") {
		t.Errorf("projected: exit %d, view %.200q", code, stdout)
	}
	if !regexp.MustCompile(`^crumb run: timed out after 500ms \(killed by SIGKILL\); it ignored SIGTERM and ended \d+\.\ds later\n$`).MatchString(stderr) {
		t.Errorf("projected: stderr %q", stderr)
	}
}

// TestRunSignalLargeOutput checks the view of a command killed by a signal.
func TestRunSignalLargeOutput(t *testing.T) {
	needShell(t)
	code, stdout, _ := runCrumb(t, t.TempDir(), nil, "run", "--budget", "400", "--", "sh", "-c", "seq 1 20000; kill -SEGV $$")
	if code != 128+int(syscall.SIGSEGV) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGSEGV))
	}
	if !strings.HasPrefix(stdout, "[crumb command: killed by SIGSEGV, ") {
		t.Errorf("view does not open with the signal:\n%.300s", stdout)
	}
}

// TestRunJSON checks --json: the view's fields and how the command ended.
func TestRunJSON(t *testing.T) {
	needShell(t)
	code, stdout, _ := runCrumb(t, t.TempDir(), nil, "run", "--json", "--budget", "300", "--", "sh", "-c", "seq 1 5000; exit 4")
	if code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
	var got struct {
		View string `json:"view"`
		Ref  string `json:"ref"`
		Next *struct {
			Argv []string `json:"argv"`
		} `json:"next"`
		Receipt struct {
			Output string `json:"output"`
			Kind   string `json:"kind"`
		} `json:"receipt"`
		Exit struct {
			Code     int    `json:"code"`
			ExitCode *int   `json:"exit_code"`
			Summary  string `json:"summary"`
		} `json:"exit"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if got.Exit.Code != 4 || got.Exit.ExitCode == nil || *got.Exit.ExitCode != 4 || got.Exit.Summary != "exit status 4 (failed)" {
		t.Errorf("exit = %+v", got.Exit)
	}
	if got.Ref == "" || got.Next == nil || got.Next.Argv[0] != "read" || got.Receipt.Output != "projected" || got.Receipt.Kind != "command" {
		t.Errorf("view fields: ref %q, next %+v, receipt %+v", got.Ref, got.Next, got.Receipt)
	}
	if !strings.HasPrefix(got.View, "[crumb command: exit status 4 (failed), ") {
		t.Errorf("view: %.200s", got.View)
	}
}

// TestRunLargeOutput runs a command that writes 50 MB: the view fits the
// budget, the stored copy is exact, and crumb's memory stays far below the
// output's size.
func TestRunLargeOutput(t *testing.T) {
	needShell(t)
	if testing.Short() {
		t.Skip("writes 50 MB")
	}
	crumbBin, err := exec.LookPath("crumb") // the test binary, set up by testscript.Main
	if err != nil {
		t.Skip("crumb is not on $PATH")
	}
	dir := t.TempDir()
	const size = 50 << 20
	line := "step 12 of the build: compiling module with a long enough line of output"
	script := fmt.Sprintf(`yes '%s' | head -c %d; echo; echo 'error: the last step failed'; exit 2`, line, size)
	cmd := exec.Command(crumbBin, "run", "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "CRUMB_STORE="+dir, "CRUMB_GC=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	rss, err := runPeak(t, cmd)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("crumb run: %v; stderr %s", err, stderr.String())
	}
	view := stdout.String()
	if n := tokens.O200k().Count(view); n > 2000 {
		t.Errorf("view has %d tokens", n)
	}
	if !strings.HasPrefix(view, "[crumb command: exit status 2 (failed), ") || !strings.Contains(view, "error: the last step failed") {
		t.Errorf("view misses the status or the error:\n%s", view)
	}
	if !strings.Contains(view, "lines like `"+line[:40]) {
		t.Errorf("view does not name the repeated lines:\n%s", view)
	}
	t.Logf("crumb run of %d MB: max RSS %.1f MB", size>>20, float64(rss)/(1<<20))
	if rss > rssLimit {
		t.Errorf("crumb used %d MB of memory for %d MB of output", rss>>20, size>>20)
	}

	// The stored copy is the exact output.
	ref := regexp.MustCompile(`ref ([0-9a-f]{16})`).FindStringSubmatch(view)
	if ref == nil {
		t.Fatalf("no ref in the view:\n%s", view)
	}
	h := sha256.New()
	read := exec.Command(crumbBin, "read", ref[1], "--all")
	read.Env = cmd.Env
	read.Stdout = h
	if err := read.Run(); err != nil {
		t.Fatal(err)
	}
	want := sha256.New()
	full := []byte(line + "\n")
	for n := 0; n < size; n += len(full) {
		want.Write(full[:min(len(full), size-n)])
	}
	want.Write([]byte("\nerror: the last step failed\n"))
	if got, w := hex.EncodeToString(h.Sum(nil)), hex.EncodeToString(want.Sum(nil)); got != w {
		t.Errorf("crumb read --all gives sha256 %s, the output was %s", got, w)
	}
}

// startRun starts crumb run as a process of its own with args, running
// the shell script, whose last steps must touch $STARTED; it returns once
// they have, with the process and its output.
func startRun(t *testing.T, args []string, script string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	t.Helper()
	needShell(t)
	crumbBin, err := exec.LookPath("crumb")
	if err != nil {
		t.Skip("crumb is not on $PATH")
	}
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	cmd = exec.Command(crumbBin, append(append([]string{"run"}, args...), "--", "sh", "-c", script)...)
	cmd.Env = append(os.Environ(), "CRUMB_STORE="+dir, "CRUMB_GC=off", "STARTED="+started)
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	waitFor(t, func() bool { return exists(started) })
	return cmd, stdout, stderr
}

// TestRunInterrupt sends SIGINT to crumb while the command runs: crumb
// passes it on, still prints the view of what the command wrote, and exits
// with 130.
func TestRunInterrupt(t *testing.T) {
	cmd, stdout, stderr := startRun(t, []string{"--budget", "300"}, `seq 1 20000; touch "$STARTED"; sleep 30`)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("crumb took %v to end after SIGINT", took)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("crumb: %v, want exit status 130; stderr %s", err, stderr.String())
	}
	view := stdout.String()
	if !strings.HasPrefix(view, "[crumb command: interrupted (SIGINT), ") || !strings.Contains(view, "20000") {
		t.Errorf("view:\n%s", view)
	}
}

// TestRunProgress checks the status line on a terminal, with the terminal
// faked: redrawn with \r, erased at the end, and absent elsewhere.
func TestRunProgress(t *testing.T) {
	needShell(t)
	old, oldEvery := progressTerminal, progressEvery
	defer func() { progressTerminal, progressEvery = old, oldEvery }()
	progressEvery = 20 * time.Millisecond
	progressTerminal = func(io.Writer) (int, bool) { return 60, true }
	script := `for i in 1 2 3 4 5 6; do echo "compiling unit $i with a rather long line of text that goes on"; sleep 0.1; done`
	code, stdout, stderr := runCrumb(t, t.TempDir(), nil, "run", "--", "sh", "-c", script)
	if code != 0 || !strings.Contains(stdout, "compiling unit 6") {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if !strings.Contains(stderr, "\rcrumb run: ") || !strings.Contains(stderr, "compiling unit") || !strings.HasSuffix(stderr, "\r\x1b[K") {
		t.Errorf("progress on stderr: %q", stderr)
	}
	for _, l := range strings.Split(stderr, "\r") {
		if l = strings.TrimSuffix(l, "\x1b[K"); len([]rune(l)) > 59 {
			t.Errorf("status line wider than the terminal: %q", l)
		}
	}
	progressTerminal = old
	if _, _, stderr := runCrumb(t, t.TempDir(), nil, "run", "--", "sh", "-c", script); stderr != "" {
		t.Errorf("progress when stderr is not a terminal: %q", stderr)
	}
}

// TestRunGoTestFailing is the case of the issue: crumb run -- go test ./...
// on a failing module shows the failing test, its message and file:line and
// the exit status within the budget.
func TestRunGoTestFailing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go module")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go")
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod":           "module example.com/ledger\n\ngo 1.21\n",
		"ledger/ledger.go": "package ledger\n\n// Fee is 1.5% of amount, rounded down.\nfunc Fee(amount int) int { return amount * 15 / 1000 }\n",
		"ledger/ledger_test.go": `package ledger

import "testing"

func TestFee(t *testing.T) {
	for amount := 0; amount < 600; amount++ {
		t.Logf("fee for %d cents: %d", amount, Fee(amount))
	}
	if got := Fee(1033); got != 16 {
		t.Errorf("Fee(1033) = %d, want 16", got)
	}
}
`,
		"util/util.go":      "package util\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n",
		"util/util_test.go": "package util\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(2) != 4 {\n\t\tt.Fatal(\"bad\")\n\t}\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(mod, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, _ := os.Getwd()
	if err := os.Chdir(mod); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(old)
	t.Setenv("GOFLAGS", "-count=1")
	code, stdout, stderr := runCrumb(t, t.TempDir(), nil, "run", "--", goBin, "test", "./...")
	if code != 1 {
		t.Errorf("exit %d, want 1; stderr %s", code, stderr)
	}
	if n := tokens.O200k().Count(stdout); n > 2000 {
		t.Errorf("view has %d tokens, budget 2000", n)
	}
	for _, want := range []string{
		"[crumb command: exit status 1 (failed), ",
		"--- FAIL: TestFee",
		"ledger_test.go:10: Fee(1033) = 15, want 16",
		"FAIL\texample.com/ledger/ledger",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("view misses %q:\n%s", want, stdout)
		}
	}
	if !strings.HasPrefix(stdout, "[crumb command: exit status 1 (failed), ") {
		t.Errorf("the exit status is not first:\n%.200s", stdout)
	}
}

// TestRunInterruptGrace sends one SIGINT to crumb run while the command
// cleans up on SIGINT for longer than a moment: the command gets its
// --grace to finish, and is not killed at once.
func TestRunInterruptGrace(t *testing.T) {
	script := `trap 'sleep 1; echo cleaned up; exit 130' INT; echo working; touch "$STARTED"; while :; do sleep 0.1; done`
	cmd, stdout, stderr := startRun(t, []string{"--grace", "20s"}, script)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("crumb: %v, want exit status 130; stderr %s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "cleaned up") {
		t.Errorf("the command was not let finish its cleanup; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}
