package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/jsonobj"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "run",
		summary: "run a command; print the view of its output and exit with its status",
		usage: `Usage: crumb run [--budget TOKENS] [--timeout D] [--intent TEXT] [--json] [--store DIR] [--] CMD [ARGS...]

Runs CMD with its standard output and standard error on one pipe, in the
order they were written, and its standard input inherited. When it ends,
crumb prints what a model should see of that output and exits with CMD's own
status (128+N when a signal N ended it, 124 when it timed out, 127 when it
could not be found).

The first line states how the command ended ("exit status 1 (failed)",
"killed by SIGKILL", "timed out after 30s"). A command that succeeded with
output that fits the budget is the one exception: its output is printed as
it was, and nothing else. A failed, killed or timed-out command's output
that fits the budget follows its status line as it was ("[crumb command:
exit status 1 (failed)]"). Longer output is stored exactly and projected:
after the status come the lines that explain it — compiler errors at
file:line, failed tests and their messages, panics and tracebacks, the
summary at the end — and every omitted stretch is named with the exact
command that reads it back ("crumb read REF --lines 120:480"). Runs of
near-identical lines are counted, not shown. --intent says what the agent
is looking for ("did the store tests pass?"): lines that hold its words rank
with the evidence.

--timeout ends the command's whole process group: SIGTERM, then SIGKILL
after --grace. The status gives the timeout asked for ("timed out after
30s"); when the command ignored SIGTERM, it adds how long the kill took.
--json gives both (timeout_ms, kill_ms) beside the whole duration_ms. An
interrupt (Ctrl-C) or a SIGTERM sent to crumb is passed on to the command's
process group; what it printed is still kept and projected, and crumb exits
with 128+N.

On a terminal, a status line on standard error shows the time, the lines
and bytes so far and the last line, and is erased at the end. Flags come
before CMD; "--" may separate them.

` + summaryHelp + `

Examples:
  crumb run -- go test ./...
  crumb run --budget 800 -- make -j8
  crumb run --timeout 10m -- npm test
  crumb run --json -- cargo build | jq .receipt
  crumb read 1a2b3c4d5e6f7a8b --lines 120:480    # read what a view omitted`,
		run: runRun,
	})
}

// Exit statuses crumb run uses for its own reasons, as shells and timeout(1)
// do.
const (
	exitTimedOut   = 124
	exitCannotRun  = 126
	exitNotFound   = 127
	exitSignalBase = 128
)

// drainGrace is how long crumb keeps reading after the command has exited
// and its output went quiet: a background process it started may hold the
// pipe open forever.
const drainGrace = time.Second

// progressTerminal reports whether w is a terminal to show progress on, and
// its width. Tests replace it.
var progressTerminal = terminalWidth

// progressEvery is how often the progress line is redrawn.
var progressEvery = 100 * time.Millisecond

func runRun(e *env, args []string) error {
	c := commands["run"]
	fs := newFlags(e, c)
	budget := budgetFlag(fs, crumb.DefaultBudget, "most `TOKENS` the view may take")
	timeout := durationFlag(fs, "timeout", 0, 0, maxTimeout, "end the command after `D` (10s, 5m, 1h30m); 0 means never")
	grace := durationFlag(fs, "grace", 5*time.Second, 0, maxTimeout, "after --timeout or an interrupt, wait `D` between SIGTERM and SIGKILL")
	asJSON := fs.Bool("json", false, "print {\"view\", \"ref\", \"next\", \"receipt\", \"exit\"} as JSON")
	intent := fs.String("intent", "", "what the agent is looking for in the output, as `TEXT`; lines holding its words rank higher")
	summary := addSummaryFlags(fs, "the output")
	storeDir := storeFlag(fs)
	// Flags end at the command: "crumb run go test -v ./..." leaves -v to go.
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(e.stdout, c, fs)
			return flag.ErrHelp
		}
		return flagError(c, err)
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return usagef(c.name, "no command to run (crumb run -- CMD ARGS...)")
	}
	d, err := openResultStore(e, c, *storeDir, store.DirOptions{ManualGC: true})
	if err != nil {
		return err
	}
	defer d.Close()
	sum, err := summarizer(e, summary, nil, d)
	if err != nil {
		return err
	}
	g, err := crumb.New(crumb.Config{Store: d, Budget: *budget, Summarizer: sum, Hint: e.hint()})
	if err != nil {
		return err
	}

	r, err := startCommand(e, argv, *timeout, *grace)
	if err != nil {
		var ce *cannotRun
		if errors.As(err, &ce) {
			fmt.Fprintf(e.stderr, "crumb run: error: %s\n", ce.msg)
			fmt.Fprintf(e.stderr, "crumb run: hint: %s\n", ce.hint)
			return &exitError{code: ce.code}
		}
		return err
	}
	defer r.cleanup()

	// The projection does not stop for an interrupt: what the command
	// printed until then is what the agent needs.
	res := crumb.Result{
		Tool:    "run",
		Kind:    crumb.KindCommand,
		Reader:  r,
		Command: argv,
		Wait:    r.fill,
	}
	if *intent != "" {
		res.Args = jsonobj.Marshal(map[string]string{"intent": *intent})
	}
	v, err := g.Project(context.WithoutCancel(e.ctx), res)
	r.finish()
	if err != nil {
		// Reading the output failed (a store that fails gives a view that
		// says so, not an error): say why, and still exit as the command
		// did.
		fmt.Fprintf(e.stderr, "crumb run: error: %s\n", err)
		r.cleanup()
		return &exitError{code: r.code()}
	}
	defer startGC(e, d)
	if r.stuck {
		fmt.Fprintf(e.stderr, "crumb run: stopped reading %s after %s exited: a process it started still holds its output\n", drainGrace, argv[0])
	}
	code := r.code()
	switch {
	case *asJSON:
	case v.Receipt.Output == crumb.OutputExact && code != 0:
		// The output passes through unchanged, after a first line that
		// says how the command ended; a command that succeeded needs none.
		if _, err := fmt.Fprintf(e.stdout, "[crumb command: %s]\n", r.summary()); err != nil {
			return err
		}
	case r.ignoredTerm():
		// The view's header gives the timeout; how long the kill took
		// goes beside it.
		fmt.Fprintf(e.stderr, "crumb run: %s\n", r.summary())
	}
	if *asJSON {
		if err := writeJSON(e.stdout, runJSON{View: v, Exit: r.exitInfo()}); err != nil {
			return err
		}
	} else if err := printView(e, v, false); err != nil {
		return err
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// runJSON is what --json prints: the view and how the command ended.
type runJSON struct {
	*crumb.View
	Exit runExit `json:"exit"`
}

// runExit describes how the command ended; Code is crumb's own exit status.
type runExit struct {
	Code       int    `json:"code"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     string `json:"signal,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	// TimeoutMS is the --timeout that ended the command, and KillMS how
	// long the command took to end after it was sent SIGTERM.
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	KillMS    *int64 `json:"kill_ms,omitempty"`
	Summary   string `json:"summary"`
}

// cannotRun is a command that could not be started.
type cannotRun struct {
	code      int
	msg, hint string
}

func (c *cannotRun) Error() string { return c.msg }

// running is a started command. It is the io.Reader of its output, and
// Wait fills in how it ended.
type running struct {
	cmd      *exec.Cmd
	out      *os.File // the read end of the output pipe
	start    time.Time
	exited   chan struct{} // closed once the process has been reaped
	waitErr  error
	end      time.Time
	progress *progress

	timeout     time.Duration // --timeout, 0 for none
	mu          sync.Mutex
	timedOut    bool
	termAt      time.Time      // when the timeout sent SIGTERM
	interrupted syscall.Signal // the signal crumb was sent, if any
	stuck       bool           // stopped reading after exit with the pipe still open
	exitCode    *int
	signal      string

	stopSignals func()
	timers      []*time.Timer
	restoreTTY  func()
	finished    sync.Once
}

// startCommand starts argv in its own process group with stdout and stderr
// on one pipe.
func startCommand(e *env, argv []string, timeout, grace time.Duration) (*running, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrPermission):
			return nil, &cannotRun{code: exitCannotRun, msg: argv[0] + ": permission denied", hint: "the file is not executable; check its mode (chmod +x)"}
		case errors.Is(err, exec.ErrDot):
			return nil, &cannotRun{code: exitNotFound, msg: argv[0] + ": command not found (it is in the current directory, which $PATH does not search)", hint: "run it as ./" + argv[0]}
		default:
			return nil, &cannotRun{code: exitNotFound, msg: argv[0] + ": command not found", hint: "check the name, or that its directory is in $PATH"}
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("making the output pipe: %w", err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.Stdin = e.stdin
	cmd.WaitDelay = time.Second // for a stdin that is not a file
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r := &running{cmd: cmd, out: pr, exited: make(chan struct{}), timeout: timeout}
	// On a terminal the command's group becomes the foreground one, so that
	// it may read the terminal and Ctrl-C reaches it directly.
	if f, ok := e.stdin.(*os.File); ok && isForeground(f) {
		cmd.SysProcAttr.Foreground = true
		cmd.SysProcAttr.Ctty = int(f.Fd())
		r.restoreTTY = func() { takeForeground(f) }
	}
	if width, ok := progressTerminal(e.stderr); ok {
		r.progress = newProgress(e.stderr, width)
	}

	// Signals for crumb go to the command's group.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	r.start = time.Now()
	if err := cmd.Start(); err != nil {
		signal.Stop(sigs)
		pr.Close()
		pw.Close()
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC) {
			return nil, &cannotRun{code: exitCannotRun, msg: argv[0] + ": " + err.Error(), hint: "check that the file is an executable for this machine"}
		}
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	pw.Close()
	pgid := cmd.Process.Pid
	if r.progress != nil {
		r.progress.start()
	}
	go func() {
		r.waitErr = cmd.Wait()
		r.end = time.Now()
		close(r.exited)
		// Keep reading only while the output flows after the exit.
		pr.SetReadDeadline(time.Now().Add(drainGrace))
	}()

	stopped := make(chan struct{})
	r.stopSignals = func() {
		signal.Stop(sigs)
		close(stopped)
	}
	kill := func(sig syscall.Signal) { syscall.Kill(-pgid, sig) }
	go func() {
		ctxDone := e.ctx.Done()
		for {
			select {
			case <-stopped:
				return
			case s := <-sigs:
				r.interrupt(s.(syscall.Signal), kill, grace)
			case <-ctxDone:
				// The caller's context ended: an interrupt, when no signal
				// says which. The signal that ended it, when crumb got one,
				// has been passed on already or is about to be; it is not
				// a second interrupt.
				ctxDone = nil
				r.mu.Lock()
				passed := r.interrupted != 0
				r.mu.Unlock()
				if passed {
					continue
				}
				select {
				case s := <-sigs:
					r.interrupt(s.(syscall.Signal), kill, grace)
				case <-time.After(100 * time.Millisecond):
					r.interrupt(syscall.SIGINT, kill, grace)
				case <-stopped:
					return
				}
			}
		}
	}()
	if timeout > 0 {
		// The timer may fire before append returns: hold the lock the
		// timer's own append takes.
		r.mu.Lock()
		defer r.mu.Unlock()
		r.timers = append(r.timers, time.AfterFunc(timeout, func() {
			select {
			case <-r.exited:
				return
			default:
			}
			r.mu.Lock()
			r.timedOut, r.termAt = true, time.Now()
			r.mu.Unlock()
			kill(syscall.SIGTERM)
			r.mu.Lock()
			r.timers = append(r.timers, time.AfterFunc(grace, func() { kill(syscall.SIGKILL) }))
			r.mu.Unlock()
		}))
	}
	return r, nil
}

// interrupt passes a signal crumb received to the command's group; a second
// one of the same kind, or any after the grace period, kills it.
func (r *running) interrupt(sig syscall.Signal, kill func(syscall.Signal), grace time.Duration) {
	select {
	case <-r.exited:
		return
	default:
	}
	r.mu.Lock()
	again := r.interrupted != 0
	if !again {
		r.interrupted = sig
		r.timers = append(r.timers, time.AfterFunc(grace, func() {
			select {
			case <-r.exited:
			default:
				kill(syscall.SIGKILL)
			}
		}))
	}
	r.mu.Unlock()
	if again {
		kill(syscall.SIGKILL)
		return
	}
	kill(sig)
}

// Read reads the command's output. It ends when every writer has closed the
// pipe, or when the command has exited and the output stayed quiet for
// drainGrace.
func (r *running) Read(p []byte) (int, error) {
	n, err := r.out.Read(p)
	if n > 0 {
		if r.progress != nil {
			r.progress.add(p[:n])
		}
		select {
		case <-r.exited:
			r.out.SetReadDeadline(time.Now().Add(drainGrace))
		default:
		}
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		r.mu.Lock()
		r.stuck = true
		r.mu.Unlock()
		return n, io.EOF
	}
	return n, err
}

// fill waits for the command to end and records how it did; the Guard calls
// it once the output has ended.
func (r *running) fill(res *crumb.Result) {
	<-r.exited
	r.finish()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exitCode, r.signal = nil, ""
	var ee *exec.ExitError
	switch {
	case r.waitErr == nil:
		zero := 0
		r.exitCode = &zero
	case errors.As(r.waitErr, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.signal = signalName(ws.Signal())
		} else {
			code := ee.ExitCode()
			r.exitCode = &code
		}
	}
	res.ExitCode, res.Signal, res.TimedOut, res.Duration = r.exitCode, r.signal, r.timedOut, r.ranFor()
}

// ranFor is how long the command ran as its view states it: the timeout
// asked for when that ended it (however long the kill then took), else
// the time from start to exit. r.mu is held.
func (r *running) ranFor() time.Duration {
	if r.timedOut {
		return r.timeout
	}
	return r.end.Sub(r.start)
}

// killTook is how long a timed-out command took to end after SIGTERM.
// r.mu is held.
func (r *running) killTook() (time.Duration, bool) {
	if !r.timedOut || r.termAt.IsZero() || r.end.IsZero() {
		return 0, false
	}
	return max(0, r.end.Sub(r.termAt)), true
}

// finish stops the timers, the signal relay and the progress line, and
// gives the terminal back. It is safe to call more than once.
func (r *running) finish() {
	r.finished.Do(func() {
		r.mu.Lock()
		for _, t := range r.timers {
			t.Stop()
		}
		r.mu.Unlock()
		if r.stopSignals != nil {
			r.stopSignals()
		}
		if r.progress != nil {
			r.progress.stop()
		}
		if r.restoreTTY != nil {
			r.restoreTTY()
		}
	})
}

// cleanup ends the command if crumb gives up early (an error while storing
// its output) and releases the pipe.
func (r *running) cleanup() {
	select {
	case <-r.exited:
	default:
		syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.exited
	}
	r.finish()
	r.out.Close()
	if r.exitCode == nil && r.signal == "" {
		r.fill(&crumb.Result{})
	}
}

// code returns crumb's exit status: the command's, 124 after a timeout,
// 128+N after a signal.
func (r *running) code() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.timedOut:
		return exitTimedOut
	case r.interrupted != 0:
		return exitSignalBase + int(r.interrupted)
	case r.signal != "":
		if n, ok := signalNumber(r.signal); ok {
			return exitSignalBase + n
		}
		return exitSignalBase + int(syscall.SIGKILL)
	case r.exitCode != nil:
		return *r.exitCode
	}
	return 1
}

func (r *running) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := project.ExitSummary(r.exitCode, r.signal, r.timedOut, r.ranFor())
	if took, ok := r.termIgnored(); ok {
		s += fmt.Sprintf("; it ignored SIGTERM and ended %s later", formatElapsed(took))
	}
	return s
}

// termIgnored reports whether the command timed out, ignored SIGTERM and
// had to be killed, and how long after SIGTERM it ended. r.mu is held.
func (r *running) termIgnored() (time.Duration, bool) {
	took, ok := r.killTook()
	return took, ok && r.signal == signalName(syscall.SIGKILL)
}

// ignoredTerm is termIgnored for callers that do not hold r.mu.
func (r *running) ignoredTerm() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.termIgnored()
	return ok
}

func (r *running) exitInfo() runExit {
	x := runExit{Code: r.code(), Summary: r.summary()}
	r.mu.Lock()
	defer r.mu.Unlock()
	x.ExitCode, x.Signal, x.TimedOut, x.DurationMS = r.exitCode, r.signal, r.timedOut, r.end.Sub(r.start).Milliseconds()
	if r.timedOut {
		x.TimeoutMS = r.timeout.Milliseconds()
	}
	if took, ok := r.killTook(); ok {
		ms := took.Milliseconds()
		x.KillMS = &ms
	}
	return x
}

// signalNames names the signals a command is commonly ended by.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
	syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
	syscall.SIGKILL: "SIGKILL", syscall.SIGUSR1: "SIGUSR1", syscall.SIGSEGV: "SIGSEGV", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGXFSZ: "SIGXFSZ",
}

func signalName(s syscall.Signal) string {
	if n, ok := signalNames[s]; ok {
		return n
	}
	return strconv.Itoa(int(s))
}

func signalNumber(name string) (int, bool) {
	for s, n := range signalNames {
		if n == name {
			return int(s), true
		}
	}
	n, err := strconv.Atoi(name)
	return n, err == nil
}

// isForeground reports whether f is a terminal whose foreground process
// group is crumb's.
func isForeground(f *os.File) bool {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return false
	}
	return int(pgrp) == syscall.Getpgrp()
}

// takeForeground makes crumb's process group the terminal's foreground
// group again, once the command has ended.
func takeForeground(f *os.File) {
	signal.Ignore(syscall.SIGTTOU) // a background group may not otherwise do this
	defer signal.Reset(syscall.SIGTTOU)
	pgrp := int32(syscall.Getpgrp())
	syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&pgrp)))
}

// terminalWidth reports whether w is a terminal, and how wide.
func terminalWidth(w io.Writer) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return 0, false
	}
	var ws struct{ rows, cols, x, y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno == 0 && ws.cols > 0 {
		return int(ws.cols), true
	}
	return 80, true
}

// progress draws a status line on a terminal while the command runs: the
// time, lines and bytes so far, and the last line.
type progress struct {
	w     io.Writer
	width int
	begin time.Time

	mu    sync.Mutex
	lines int64
	bytes int64
	last  []byte // the last complete line, its first bytes
	cur   []byte // the line being written, its first bytes
	drawn bool

	quit chan struct{}
	done chan struct{}
}

const progressLineBytes = 512

func newProgress(w io.Writer, width int) *progress {
	return &progress{w: w, width: width, quit: make(chan struct{}), done: make(chan struct{})}
}

func (p *progress) start() {
	p.begin = time.Now()
	go func() {
		defer close(p.done)
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.draw()
			}
		}
	}()
}

// add counts what the command wrote.
func (p *progress) add(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes += int64(len(b))
	n := bytes.Count(b, []byte{'\n'})
	p.lines += int64(n)
	if n == 0 {
		p.cur = appendCapped(p.cur, b)
		return
	}
	i := bytes.LastIndexByte(b, '\n')
	if j := bytes.LastIndexByte(b[:i], '\n'); j >= 0 {
		p.last = appendCapped(p.last[:0], b[j+1:i])
	} else {
		p.last = appendCapped(append(p.last[:0], p.cur...), b[:i])
	}
	p.cur = appendCapped(p.cur[:0], b[i+1:])
}

func appendCapped(dst, b []byte) []byte {
	if room := progressLineBytes - len(dst); room > 0 {
		dst = append(dst, b[:min(len(b), room)]...)
	}
	return dst
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := p.last
	if len(bytes.TrimSpace(p.cur)) > 0 {
		line = p.cur // a progress bar redrawn with \r
	}
	status := fmt.Sprintf("crumb run: %s, %s, %s", formatElapsed(time.Since(p.begin)), textfmt.Plural(p.lines, "line"), textfmt.Size(p.bytes))
	if last := strings.TrimSpace(textfmt.CleanLine(line)); last != "" {
		status += " | " + last
	}
	fmt.Fprintf(p.w, "\r%s\x1b[K", fitWidth(status, p.width-1))
	p.drawn = true
}

// stop ends the redraws and erases the status line.
func (p *progress) stop() {
	close(p.quit)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

func formatElapsed(d time.Duration) string {
	d = d.Truncate(100 * time.Millisecond)
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return d.Truncate(time.Second).String()
}

// fitWidth cuts s to at most width characters.
func fitWidth(s string, width int) string {
	if width < 1 {
		return ""
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:max(0, width-1)]) + "…"
}
