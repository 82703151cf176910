// Command crumb keeps large tool output out of an agent's context without
// losing it: it stores results exactly, prints a small view of them, and
// reads the rest back on demand. Run "crumb help" for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one verb of the command line.
type command struct {
	name    string
	summary string
	// usage is the text of "crumb NAME --help" before the flag list.
	usage string
	run   func(e *env, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// env is what a command may touch: its streams and its environment, so that
// tests run main in-process.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// prog is how continuations name crumb: "crumb" when PATH finds this
	// binary, else its absolute path.
	prog string
}

// usageError is a mistake in how a command was called; it exits with 2.
type usageError struct{ msg, cmd string }

func (e *usageError) Error() string { return e.msg }

// hintError is an error with advice on what to do next.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }

// exitError makes crumb exit with a given status and print nothing more,
// for "crumb run", which exits with the command's own status.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func usagef(cmd, format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), cmd: cmd}
}

func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &hintError{err: err, hint: hint}
}

const mainUsage = `crumb keeps large tool output out of an agent's context without losing it.
It stores each result exactly, prints a small view that holds the evidence
for the next step, and reads the rest back on demand.

Usage:
  crumb <command> [flags] [arguments]

Commands:
%s
Examples:
  crumb run -- go test ./...                 run tests; print the failures and exit status
  crumb project --kind text < build.log      print the view a model would see of a log
  crumb read 1a2b3c4d5e6f7a8b --lines 41:240 read lines 41-240 of a stored result
  crumb grep 1a2b3c4d5e6f7a8b 'FAIL|panic'   search a stored result
  crumb read 1a2b3c4d5e6f7a8b --all > out    write the exact stored bytes

Results are stored in $CRUMB_STORE, or in crumb/ under the user cache
directory; --store DIR overrides both. Run 'crumb <command> --help' for the
flags of a command.
`

func mainHelp(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, mainUsage, b.String())
}

// run runs the command line and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv, prog: selfName()}
	if len(args) == 0 {
		mainHelp(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return report(e, c, c.run(e, []string{"--help"}))
			}
		}
		mainHelp(stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "crumb: error: unknown command %q\n", name)
		fmt.Fprintf(stderr, "crumb: hint: run 'crumb help' for the list of commands\n")
		return 2
	}
	return report(e, c, c.run(e, args[1:]))
}

// report prints an error the way every command does and returns the status.
func report(e *env, c *command, err error) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Whatever failed once a signal stopped the command failed because of
	// it: say so, and exit as the signal asks.
	var st *stopped
	if errors.As(context.Cause(e.ctx), &st) {
		fmt.Fprintf(e.stderr, "crumb %s: %s\n", c.name, st)
		return st.code()
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "crumb %s: error: %s\n", c.name, ue.msg)
		fmt.Fprintf(e.stderr, "crumb %s: hint: run 'crumb %s --help' for usage\n", c.name, c.name)
		return 2
	}
	fmt.Fprintf(e.stderr, "crumb %s: error: %s\n", c.name, err)
	var he *hintError
	if errors.As(err, &he) && he.hint != "" {
		fmt.Fprintf(e.stderr, "crumb %s: hint: %s\n", c.name, he.hint)
	} else if h := hintFor(err); h != "" {
		fmt.Fprintf(e.stderr, "crumb %s: hint: %s\n", c.name, h)
	}
	return 1
}

func main() {
	ctx, stop := signalContext()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
