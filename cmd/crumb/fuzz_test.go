package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// fuzzCommands are the commands FuzzFlags calls: every one whose flags can be
// tried without side effects outside a temporary store ("run" always runs
// true, and mcp, bench, init and hook are left out: they start servers,
// read corpora or write the user's files).
var fuzzCommands = []string{"project", "read", "grep", "ls", "stats", "gc", "version", "help", "run", "compact"}

// fuzzRef is the ref of fuzzBody, which "REF" in a fuzzed argument stands
// for.
const fuzzRef = "5205f133b6a27108"

// fuzzBody is the result FuzzFlags stores and projects: seq 1 3000.
func fuzzBody() string {
	var b strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// FuzzFlags calls commands with arbitrary arguments (one a line) and checks
// that crumb never panics, exits 0, 1 or 2 (or the run command's status),
// and explains every failure on stderr.
func FuzzFlags(f *testing.F) {
	dir := f.TempDir()
	body := fuzzBody()
	getenv := func(k string) string {
		switch k {
		case "CRUMB_STORE":
			return dir
		case "CRUMB_GC":
			return "off"
		}
		return ""
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"project", "--kind", "text", "--budget", "200"}, strings.NewReader(body), &out, &errb, getenv); code != 0 {
		f.Fatalf("storing the fuzz result: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "ref "+fuzzRef) {
		f.Fatalf("the fuzz result's view does not name ref %s:\n%s", fuzzRef, out.String())
	}
	for _, s := range []struct {
		cmd  uint8
		args string
	}{
		{0, "--budget\n576460752303423488"},
		{0, "--kind\ncommand\n--exit-code\n-1\n--budget\n100"},
		{0, "--threshold=1000000\n--budget=1000000\n--json"},
		{1, "REF\n--budget\n576460752303423488"},
		{1, "REF\n--budget\n-5"},
		{1, "REF\n--lines\n5:0\n--budget\n100"},
		{1, "REF\n--bytes\n100:0"},
		{1, "REF\n--all"},
		{2, "REF\n5\n--skip\n9223372036854775807"},
		{2, "REF\n5\n--skip\n2147483647\n--max\n2147483647"},
		{2, "REF\n(\n-C\n1000"},
		{2, "REF\n--\n-5\n--from\n2999"},
		{3, "--json"},
		{4, "--json"},
		{6, ""},
		{7, "grep"},
		{8, "--timeout=1ns\n--grace=0s"},
		{8, "--budget=0"},
		{8, "--timeout=-1s"},
		{9, "--budget\n576460752303423488"},
		{9, "--recent\n0\n--fold-step\n-1"},
	} {
		f.Add(s.cmd, s.args)
	}
	status := regexp.MustCompile(`(?m)^crumb( [a-z]+)?: (error|hint): `)
	f.Fuzz(func(t *testing.T, which uint8, line string) {
		name := fuzzCommands[int(which)%len(fuzzCommands)]
		var args []string
		for _, a := range strings.Split(line, "\n") {
			a = strings.ReplaceAll(a, "REF", fuzzRef)
			if name == "run" && (len(a) < 2 || a[0] != '-' || a == "--") {
				continue // only flags: the command run is always true
			}
			args = append(args, a)
		}
		if name == "run" {
			args = append(args, "--", "true")
		}
		var out, errb bytes.Buffer
		code := run(context.Background(), append([]string{name}, args...), strings.NewReader(body), &out, &errb, getenv)
		switch {
		case code == 0:
		case name == "run" && code == exitTimedOut:
			if !strings.Contains(out.String()+errb.String(), "timed out after") {
				t.Fatalf("crumb run %q timed out without saying so; stdout:\n%s\nstderr:\n%s", args, out.String(), errb.String())
			}
		case code == 1 || code == 2:
			if !status.Match(errb.Bytes()) {
				t.Fatalf("crumb %q exited %d without saying why; stderr:\n%s", args, code, errb.String())
			}
		default:
			t.Fatalf("crumb %s %q exited %d; stderr:\n%s", name, args, code, errb.String())
		}
	})
}
