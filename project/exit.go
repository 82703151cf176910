package project

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// ExitSummary states how a command ended, plainly, the way the header of a
// command's view does: "exit status 0", "exit status 2 (failed)", "killed by
// SIGKILL", "interrupted (SIGINT)", "timed out after 30s", or "exit status
// unknown".
func ExitSummary(exitCode *int, signal string, timedOut bool, d time.Duration) string {
	sig := cmdSignalName(signal)
	var s string
	switch {
	case timedOut:
		s = "timed out"
		if d > 0 {
			s += " after " + FormatDuration(d)
		}
		switch {
		case sig != "":
			s += " (killed by " + sig + ")"
		case exitCode != nil:
			s += " (exit status " + strconv.Itoa(*exitCode) + ")"
		}
	case sig == "SIGINT":
		s = "interrupted (SIGINT)"
	case sig != "":
		s = "killed by " + sig
	case exitCode == nil:
		s = "exit status unknown"
	case *exitCode == 0:
		s = "exit status 0"
	case *exitCode == 127:
		s = "exit status 127 (failed: command not found)"
	case *exitCode == 126:
		s = "exit status 126 (failed: not executable)"
	default:
		s = "exit status " + strconv.Itoa(*exitCode) + " (failed)"
	}
	return s
}

// cmdSignalName writes a signal as SIGNAME; "9" becomes "signal 9".
func cmdSignalName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if n, err := strconv.Atoi(s); err == nil {
		return "signal " + strconv.Itoa(n)
	}
	if up := strings.ToUpper(s); strings.HasPrefix(up, "SIG") && !strings.ContainsAny(up, " \t") {
		return textfmt.CleanLine([]byte(up))
	}
	return textfmt.CleanLine([]byte(s))
}

// FormatDuration writes a duration briefly: 120ms, 2.3s, 4m05s, 1h02m.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		s := strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// CommandLine returns the command that ran, from the input or from a
// "command" (or "cmd") argument of the tool call, as a POSIX shell would
// read it; "" when neither names one.
func (in *Input) CommandLine() string {
	if len(in.Command) > 0 {
		return cmdQuoteArgs(in.Command)
	}
	a := in.Call()
	for _, k := range []string{"command", "cmd"} {
		raw := a.RawArg(k)
		if raw == nil {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return cmdQuoteArgs(argv)
		}
	}
	return ""
}

// cmdQuoteArgs joins a command's arguments as a POSIX shell would read them.
func cmdQuoteArgs(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(cmdShellWord(a))
	}
	return b.String()
}

func cmdShellWord(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:/=,+@%", c)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
