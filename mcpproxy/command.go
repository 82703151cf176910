package mcpproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/crumb-dev/crumb/project/rank"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/textfmt"
)

// DefaultTerminateDuration is how long closing a command's connection waits
// for the server to exit after its input is closed, before it is signalled.
const DefaultTerminateDuration = 5 * time.Second

// CommandTransport is an [mcp.Transport] that runs an MCP server as a
// command and talks to it over its standard input and output, as
// mcp.CommandTransport does, with two differences: a message may be of any
// size (mcp.CommandTransport caps one at 16 MiB), lines that are not
// JSON-RPC are skipped (see stdioConn), and when the server exits the
// connection can tell how ("exit status 1", and the lines of its standard
// error that say what went wrong), which the proxy reports to the calls in
// flight.
type CommandTransport struct {
	// Command is the server to run. Its Stdin and Stdout must be unset.
	Command *exec.Cmd
	// Stderr receives the server's standard error. Nil means os.Stderr.
	Stderr io.Writer
	// TerminateDuration is how long Close waits for the server to exit
	// after closing its input, and again after SIGTERM, before SIGKILL.
	// Zero means DefaultTerminateDuration.
	TerminateDuration time.Duration
}

// Connect starts the command and returns the connection to it.
func (t *CommandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := t.Command
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("mcpproxy: the upstream command's Stdin and Stdout must be unset")
	}
	// Pipes of our own, not cmd.StdoutPipe: Wait closes those, possibly
	// before the last message is read.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcpproxy: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("mcpproxy: %w", err)
	}
	stderr := t.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	tail := &tailWriter{max: 4096}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = io.MultiWriter(stderr, tail)
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("mcpproxy: starting the upstream server %s: %w", strings.Join(cmd.Args, " "), err)
	}
	inR.Close()
	outW.Close()
	c := &commandConn{cmd: cmd, in: inW, tail: tail, exited: make(chan struct{}), terminate: t.TerminateDuration}
	if c.terminate <= 0 {
		c.terminate = DefaultTerminateDuration
	}
	go func() {
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	c.stdioConn = newStdioConn(outR, inW)
	return c, nil
}

// commandConn is the connection to a server process.
type commandConn struct {
	*stdioConn
	cmd       *exec.Cmd
	in        *os.File
	tail      *tailWriter
	terminate time.Duration

	exited  chan struct{}
	waitErr error

	closeOnce sync.Once
	closeErr  error
}

var _ mcp.Connection = (*commandConn)(nil)

// Close closes the server's input, waits for it to exit, and signals it if
// it does not: SIGTERM to its process group, then SIGKILL.
func (c *commandConn) Close() error {
	c.closeOnce.Do(func() {
		if c.stdioConn != nil {
			c.stdioConn.Close() // closes the input and the output pipe
		} else {
			c.in.Close()
		}
		if c.cmd.Process == nil {
			return
		}
		select {
		case <-c.exited:
			return
		case <-time.After(c.terminate):
		}
		terminate(c.cmd)
		select {
		case <-c.exited:
			return
		case <-time.After(c.terminate):
		}
		kill(c.cmd)
		select {
		case <-c.exited:
		case <-time.After(c.terminate):
			c.closeErr = fmt.Errorf("mcpproxy: upstream server (pid %d) does not exit", c.cmd.Process.Pid)
		}
	})
	return c.closeErr
}

// exitReason says how the server ended, once its output has closed; when
// is appended to how it ended ("in the middle of a response").
func (c *commandConn) exitReason(when string) string {
	select {
	case <-c.exited:
	case <-time.After(2 * time.Second):
		return "upstream server closed its output" + when + " (it is still running)" + c.tail.suffix()
	}
	if c.cmd.ProcessState != nil && !c.cmd.ProcessState.Exited() {
		return "upstream server was killed (" + c.cmd.ProcessState.String() + ")" + when + c.tail.suffix()
	}
	status := "exited"
	if c.waitErr != nil {
		var ee *exec.ExitError
		if errors.As(c.waitErr, &ee) {
			status = "exited: " + ee.Error()
		} else {
			status = "exited: " + c.waitErr.Error()
		}
	} else {
		status = "exited: exit status 0"
	}
	return "upstream server " + status + when + c.tail.suffix()
}

// tailWriter keeps the last bytes written to it.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

// headline reports a line that states an error, as the runtimes print
// one: an error's word or an error type's name first, then a colon, maybe
// after a code in brackets ("Error: Cannot find module 'x'",
// "ModuleNotFoundError: No module named 'x'", "panic: runtime error",
// "fatal: ...", "error[E0425]: ..."). The words are the error
// vocabulary's (rank.WordsOf, rank.ErrorName).
func headline(l string) bool {
	i := 0
	for i < len(l) && (isNameByte(l[i]) || i > 0 && (l[i] == '.' || l[i] == '$')) {
		i++
	}
	word, rest := []byte(l[:i]), l[i:]
	if len(word) == 0 {
		return false
	}
	if strings.HasPrefix(rest, "[") {
		if j := strings.IndexByte(rest, ']'); j > 0 {
			rest = rest[j+1:]
		}
	}
	if !strings.HasPrefix(rest, ":") {
		return false
	}
	return rank.ErrorName(word) || rank.WordsOf(word)&rank.ErrorWord != 0
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// troubled reports a line with an error's or a problem's words ("permission
// denied", "cannot open", "failed to"), for a program whose standard error
// has no headline.
func troubled(l string) bool { return rank.LineSeverity([]byte(l)) == rank.Error }

// stackFrame matches the lines of a stack trace.
var stackFrame = lazyre.New(`^\s*(at |File "|#\d|goroutine \d|\S+\.go:\d)`)

// suffix says what the server's standard error says went wrong: its last
// lines that state an error (at most three), else its last lines with an
// error's vocabulary, else its last line; "" when it wrote nothing. A
// runtime's epilogue ("Node.js v20.20.2") and stack traces are passed
// over.
func (w *tailWriter) suffix() string {
	w.mu.Lock()
	text := string(bytes.ToValidUTF8(bytes.TrimSpace(w.buf), []byte("\uFFFD")))
	w.mu.Unlock()
	if text == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	pick := func(says func(string) bool) []string {
		var out []string
		for i := len(lines) - 1; i >= 0 && len(out) < 3; i-- {
			l := strings.TrimSpace(lines[i])
			if l == "" || stackFrame.MatchString(lines[i]) || !says(l) {
				continue
			}
			out = append([]string{clipLine(l)}, out...)
		}
		return out
	}
	said := pick(headline)
	if len(said) == 0 {
		said = pick(troubled)
	}
	if len(said) == 0 {
		return "; its last words on stderr: " + clipLine(strings.TrimSpace(lines[len(lines)-1]))
	}
	return "; its stderr says: " + strings.Join(said, " | ")
}

// clipLine bounds a line of stderr quoted in an error, dropping what is not
// UTF-8 from a line it cuts.
func clipLine(l string) string {
	if len(l) > 300 {
		return strings.ToValidUTF8(textfmt.Clip(l, 300, ""), "") + "…"
	}
	return l
}
