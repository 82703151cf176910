package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/textfmt"
)

// The ranges numeric flags are checked against when they are parsed, so that
// no command works on a value it cannot mean. The numbers that the sidecar
// and the MCP tools take too come from the one table in internal/limits.
const (
	// maxBudget is the most tokens a view or page may be given.
	maxBudget = limits.MaxBudget
	// maxTimeout bounds --timeout and --grace.
	maxTimeout = 365 * 24 * time.Hour
)

// number is what intValue holds.
type number interface{ ~int | ~int64 }

// intValue is a flag.Value for a whole number within [lo, hi]; it refuses
// anything else as it is parsed. set records that the flag was given.
type intValue[T number] struct {
	p      *T
	lo, hi T
	unit   string
	set    bool
}

func (v *intValue[T]) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*v.p), 10)
}

func (v *intValue[T]) Set(s string) error {
	n, err := parseIntIn(s, int64(v.lo), int64(v.hi), v.unit)
	if err != nil {
		return err
	}
	*v.p, v.set = T(n), true
	return nil
}

// parseIntIn parses a decimal whole number within [lo, hi]; unit names what
// it counts, for the error.
func parseIntIn(s string, lo, hi int64, unit string) (int64, error) {
	return limits.Limit{Min: lo, Max: hi, Unit: unit}.Parse(s)
}

// intFlag defines a whole-number flag that accepts only values within
// [lo, hi]; unit names what it counts, for errors. A number the sidecar or
// the MCP tools take too is defined with limitFlag instead.
func intFlag[T number](fs *flag.FlagSet, name string, value, lo, hi T, unit, usage string) *T {
	p := new(T)
	*p = value
	fs.Var(&intValue[T]{p: p, lo: lo, hi: hi, unit: unit}, name, usage)
	return p
}

// limitFlag defines a whole-number flag checked against lim, the range
// every surface checks that number against.
func limitFlag[T number](fs *flag.FlagSet, name string, value T, lim limits.Limit, usage string) *T {
	return intFlag(fs, name, value, T(lim.Min), T(lim.Max), lim.Unit, usage)
}

// optionalLimitFlag defines an int flag checked against lim that has no
// default: the result is nil unless the flag is given.
func optionalLimitFlag(fs *flag.FlagSet, name string, lim limits.Limit, usage string) func() *int {
	v := &intValue[int]{p: new(int), lo: int(lim.Min), hi: int(lim.Max), unit: lim.Unit}
	fs.Var(v, name, usage)
	return func() *int {
		if !v.set {
			return nil
		}
		return v.p
	}
}

// budgetFlag defines --budget, a number of tokens within limits.Budget.
func budgetFlag(fs *flag.FlagSet, value int, usage string) *int {
	return limitFlag(fs, "budget", value, limits.Budget, usage)
}

// pageBudgetFlag defines --page-budget, the size of the pages a command
// serves (crumb mcp, crumb serve) in tokens within limits.PageBudget (0:
// the default), apart from the views' --budget.
func pageBudgetFlag(fs *flag.FlagSet, value int, usage string) *int {
	return limitFlag(fs, "page-budget", value, limits.PageBudget, usage)
}

// durationValue is a flag.Value for a duration within [lo, hi].
type durationValue struct {
	p      *time.Duration
	lo, hi time.Duration
}

func (v *durationValue) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("want a duration such as 90s, 5m or 1h30m, got %q", textfmt.Clip(s, 40, "..."))
	}
	if d < v.lo || d > v.hi {
		return fmt.Errorf("%s is out of range: want %s to %s", d, v.lo, v.hi)
	}
	*v.p = d
	return nil
}

// durationFlag defines a duration flag that accepts only values within
// [lo, hi].
func durationFlag(fs *flag.FlagSet, name string, value, lo, hi time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	*p = value
	fs.Var(&durationValue{p: p, lo: lo, hi: hi}, name, usage)
	return p
}

// flagError turns an error of flag.FlagSet.Parse into a usage error of
// command c that names the flag the way it was typed.
func flagError(c *command, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usagef(c.name, "unknown flag %s", rest)
	}
	// flag writes `invalid value "V" for flag -NAME: REASON`.
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		if i := strings.Index(rest, " for flag -"); i >= 0 {
			rest = rest[i+len(" for flag -"):]
			if name, reason, ok := strings.Cut(rest, ": "); ok {
				return usagef(c.name, "%s: %s", dashed(name), reason)
			}
		}
	}
	// flag writes `flag needs an argument: -NAME`.
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usagef(c.name, "%s needs a value", dashed(name))
	}
	return usagef(c.name, "%s", msg)
}

// dashed writes a flag's name as --help shows it: -C, --budget.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
