// Package limits holds the one table of ranges that the numbers crumb takes
// are checked against, on every surface: the command line's flags, the
// sidecar's query parameters and the arguments of the MCP proxy's tools
// all check a number with the same [Limit], so a value one surface takes,
// every surface takes, and a value outside the range is an error that names
// it. docs/limits.md holds the table [Markdown] writes (a test keeps them in
// step).
//
// The bounds are far beyond any real result (a store keeps results of at
// most 1 GiB by default) and far enough below the largest int64 that no sum
// of them overflows.
package limits

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// The bounds, as constants for the packages that need them in constant
// expressions; the [Limit] values below are the table every surface checks.
const (
	// MaxBudget is the most tokens a view or a page may be given: more
	// than any model's context window holds.
	MaxBudget = 1_000_000
	// MaxContext is the most lines of context a search shows around a match.
	MaxContext = 1000
	// MaxCount is the largest count of matches a search takes (--max, --skip).
	MaxCount = 1 << 40
	// MaxPosition is the largest line number or byte offset a read or a
	// search may name.
	MaxPosition = 1 << 53
	// MaxRanges is the most ranges one read may list.
	MaxRanges = 1024
	// MaxExitCode is the largest exit status a process can report.
	MaxExitCode = 255
	// MaxTurns bounds the counts of turns a compaction takes.
	MaxTurns = 1_000_000
	// MaxList is the most results one listing returns.
	MaxList = 1 << 20
)

// ErrRange means a number is outside its [Limit], or is not a whole number.
// Errors that [Limit.Check] and [Limit.Parse] return wrap it.
var ErrRange = errors.New("limits: number out of range")

// Limit is the range of one number crumb takes: Min to Max, both included.
type Limit struct {
	// Name names the number in the docs' table.
	Name string
	// Min and Max are the smallest and largest values taken.
	Min, Max int64
	// Unit says what the number counts ("tokens", "lines"), and Zero, when
	// Min is 0, what 0 means.
	Unit, Zero string
	// Where lists how each surface spells it: a command's flag, the
	// sidecar's parameter, an MCP tool's argument.
	Where string
}

// The limits. Every surface that takes one of these numbers checks it
// against the Limit here.
var (
	Budget = Limit{Name: "budget", Min: 1, Max: MaxBudget, Unit: "tokens",
		Where: "`--budget` of project, run, read, grep, serve; `budget` of the sidecar's routes"}
	ProxyBudget = Limit{Name: "proxy budget", Min: 0, Max: MaxBudget, Unit: "tokens", Zero: "the configuration's, else 2,000",
		Where: "`crumb mcp --budget`; `budget` of its configuration file and of each `[[tools]]` entry"}
	PageBudget = Limit{Name: "page budget", Min: 0, Max: MaxBudget, Unit: "tokens", Zero: "the configuration's, else 2,000",
		Where: "`--page-budget` of mcp and serve (the size of a page read back, whatever the view's budget); `page_budget` of `crumb mcp`'s configuration file"}
	Threshold = Limit{Name: "threshold", Min: 0, Max: MaxBudget, Unit: "tokens", Zero: "the budget",
		Where: "`--threshold` of project and mcp; `threshold` of `POST /v1/results` and of `crumb mcp`'s configuration file"}
	CompactBudget = Limit{Name: "compaction budget", Min: 0, Max: MaxBudget, Unit: "tokens", Zero: "tool results become breadcrumbs, nothing folds",
		Where: "`crumb compact --budget`; `budget` of `POST /v1/compact`"}
	BreadcrumbOver = Limit{Name: "breadcrumb threshold", Min: 1, Max: MaxBudget, Unit: "tokens",
		Where: "`crumb compact --breadcrumb-over`; `breadcrumb_over` of `POST /v1/compact`"}
	Recent = Limit{Name: "recent turns", Min: 1, Max: MaxTurns, Unit: "turns",
		Where: "`crumb compact --recent`; `recent` of `POST /v1/compact`"}
	FoldStep = Limit{Name: "fold step", Min: 1, Max: MaxTurns, Unit: "turns",
		Where: "`crumb compact --fold-step`; `fold_step` of `POST /v1/compact`"}
	Context = Limit{Name: "context", Min: 0, Max: MaxContext, Unit: "lines",
		Where: "`crumb grep -C`; `context` of the sidecar's grep and of `crumb_search`"}
	Matches = Limit{Name: "max matches", Min: 0, Max: MaxCount, Unit: "matches", Zero: "no cap",
		Where: "`crumb grep --max`; `max` of the sidecar's grep and of `crumb_search`"}
	Skip = Limit{Name: "skip", Min: 0, Max: MaxCount, Unit: "matches",
		Where: "`crumb grep --skip`; `skip` of the sidecar's grep and of `crumb_search`"}
	From = Limit{Name: "from", Min: 0, Max: MaxPosition, Unit: "line number", Zero: "the first line",
		Where: "`crumb grep --from`; `from` of the sidecar's grep and of `crumb_search`"}
	Position = Limit{Name: "range position", Min: 0, Max: MaxPosition, Unit: "line number or byte offset",
		Where: "`--lines A:B` and `--bytes A:B` of read; `lines` and `bytes` of the sidecar's read and of `crumb_read`"}
	Ranges = Limit{Name: "ranges", Min: 1, Max: MaxRanges, Unit: "ranges a read lists",
		Where: "`--lines` and `--bytes` of read (`A:B,C:D,...`); `lines` and `bytes` of the sidecar and `crumb_read`"}
	ExitCode = Limit{Name: "exit code", Min: 0, Max: MaxExitCode, Unit: "exit status",
		Where: "`crumb project --exit-code`; `exit_code` of `POST /v1/results`"}
	List = Limit{Name: "list limit", Min: 1, Max: MaxList, Unit: "results",
		Where: "`limit` of `GET /v1/results`"}
)

// All lists every limit, in the order of the docs' table.
var All = []Limit{Budget, ProxyBudget, PageBudget, Threshold, Context, Matches, Skip, From, Position, Ranges, ExitCode,
	CompactBudget, BreadcrumbOver, Recent, FoldStep, List}

// Range describes the range: "1 to 1,000,000 (tokens)".
func (l Limit) Range() string {
	return textfmt.Int(l.Min) + " to " + textfmt.Int(l.Max) + " (" + l.Unit + ")"
}

// Check returns nil when n is within the range, else an error wrapping
// [ErrRange] that names the range: "2,000,000 is out of range: want 1 to
// 1,000,000 (tokens)".
func (l Limit) Check(n int64) error {
	if n < l.Min || n > l.Max {
		return &rangeError{fmt.Sprintf("%s is out of range: want %s", textfmt.Int(n), l.Range())}
	}
	return nil
}

// Parse parses a decimal whole number within the range. Anything else (a
// fraction, a word, a number too large for int64) is an error wrapping
// [ErrRange] that names the range.
func (l Limit) Parse(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, &rangeError{fmt.Sprintf("want a whole number from %s, got %q", l.Range(), clip(s))}
	}
	return n, l.Check(n)
}

// rangeError is the error of Check and Parse.
type rangeError struct{ msg string }

func (e *rangeError) Error() string { return e.msg }
func (e *rangeError) Unwrap() error { return ErrRange }

// clip shortens a value quoted back in an error, never inside a character.
func clip(s string) string { return textfmt.Clip(s, 40, "...") }

// Markdown returns the table of every limit, as docs/limits.md holds it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| number | range | 0 means | where |\n| --- | --- | --- | --- |\n")
	for _, l := range All {
		zero := l.Zero
		if zero == "" {
			zero = "—"
		}
		fmt.Fprintf(&b, "| %s | %s to %s %s | %s | %s |\n", l.Name, textfmt.Int(l.Min), textfmt.Int(l.Max), l.Unit, zero, l.Where)
	}
	return b.String()
}
