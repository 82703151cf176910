package teststream

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/rank"
)

// Role is what a unit of a report's view is.
type Role int

// The roles, in the order a view shows its sections.
const (
	RoleFailure Role = iota // a failed test, with its message: first
	RoleSummary             // the run's counts and each suite's end: next
	RoleOther               // skipped and slow tests, trouble outside the report: while room remains
)

// Unit is one piece of evidence a view of a report may show: a decoded
// title in the runner's text form, the raw spans it quotes, and the
// decoded lines to show when a quote is too long for the view.
type Unit struct {
	Role  Role
	Title string
	// Quote are raw spans of the report, in its order, to quote as they
	// are. A view that must shorten a unit keeps its first quotes and its
	// last (a test's end).
	Quote []Span
	// Key marks the quotes to take first when not all of them fit (see
	// Case.Key); nil when all weigh the same.
	Key []bool
	// Lines are the unit's decoded lines (a failure's message), shown in
	// place of a quote too long for the view.
	Lines []string
	// Extent spans the unit in the raw report; Pointer is its JSON
	// pointer, when it has one.
	Extent  Span
	Pointer string
	// Like are the names of the failures whose message has the same
	// template and location as this one's, shown as a count, not
	// repeated; LikeExtent spans them.
	Like       []string
	LikeCount  int64
	LikeExtent Span
	// Run marks the run's own summary, which its section opens with.
	Run bool
	// Score is the unit's rank (rank.Score): the view fills its budget
	// with units in the order of their scores.
	Score float64

	// c is the case of a failure's unit; sig the signals it is scored by,
	// but for its intent.
	c   *Case
	sig rank.Signals
}

// Units turns a report into the units of its view, scored by rank.Score
// with the signals of each: a failure is an Error, repeated failures weigh
// by their rarity, the run's summary and each suite's end are a Summary,
// a skip is a Notice; when the call carries an intent, the units that
// meet its words rank higher. They are returned best first.
func Units(rep *Report, it *rank.Intent) []Unit {
	var us []Unit
	// Failures, one unit per template: the first failure of each, and the
	// others like it as a count.
	groups := map[string]int{}
	for _, c := range rep.Failures {
		k := c.template()
		if i, ok := groups[k]; ok && c.Children == 0 {
			u := &us[i]
			u.LikeCount++
			if len(u.Like) < 8 {
				u.Like = append(u.Like, c.Name)
			}
			u.LikeExtent = union(u.LikeExtent, c.Extent)
			continue
		}
		groups[k] = len(us)
		us = append(us, failureUnit(rep.Format, c))
	}
	nFail := len(us)
	for i := range us {
		// One unit per template: the failures like it are counted in it,
		// so that among the units each template is met once.
		us[i].sig = rank.Signals{Severity: rank.Error, Count: 1, Total: int64(nFail)}
		if us[i].c.Children > 0 && len(us[i].Lines) == 0 {
			us[i].sig.Severity = rank.Warning // failed through its subtests, which say why
		}
	}
	sum := summaryUnit(rep)
	sum.sig = rank.Signals{Structure: rank.Summary, Edge: 1} // the run's own summary, which a text form ends with
	sum.Run = true
	us = append(us, sum)
	for _, s := range rep.Suites {
		u := Unit{Role: RoleSummary, Title: suiteTitle(s), Quote: s.Evidence, Extent: extent(s.Evidence), sig: rank.Signals{Structure: rank.Summary}}
		if s.Status == Fail {
			u.sig.Severity = rank.Notice
		}
		us = append(us, u)
	}
	for _, s := range rep.Suites {
		if len(s.Report) > 0 {
			// What the failures above say, formatted.
			us = append(us, Unit{Role: RoleOther, Title: "the report of " + shortPath(s.Name) + ":", Quote: []Span{s.ReportSpan},
				Lines: s.Report, Extent: s.ReportSpan, sig: rank.Signals{Severity: rank.Warning}})
		}
	}
	for _, c := range rep.Skips {
		u := Unit{Role: RoleOther, Title: "SKIP " + c.Name + inSuite(c.Suite), Extent: c.Extent, Pointer: c.Pointer, sig: rank.Signals{Severity: rank.Notice}}
		for _, l := range c.Message {
			if !goFraming(l) && strings.TrimSpace(l) != "" {
				u.Title += ": " + strings.TrimSpace(l)
				break
			}
		}
		us = append(us, u)
	}
	for _, c := range rep.Slowest {
		if c.Elapsed < slowAt {
			continue
		}
		us = append(us, Unit{Role: RoleOther, Title: "slow: " + c.Name + " (" + elapsed(c.Elapsed) + ")" + inSuite(c.Suite), Extent: c.Extent, Pointer: c.Pointer})
	}
	// The passing tests, counted by the template of their names; those
	// alone in theirs one line per suite.
	singles := map[string][]string{}
	var suites []string
	for _, g := range rep.Passes {
		if g.Count > 1 {
			us = append(us, Unit{Role: RoleOther, Title: "passed: " + g.Template + " ×" + strconv.FormatInt(g.Count, 10) +
				" (such as " + g.Example + ")" + inSuite(g.Suite)})
			continue
		}
		if singles[g.Suite] == nil {
			suites = append(suites, g.Suite)
		}
		singles[g.Suite] = append(singles[g.Suite], g.Example)
	}
	for _, s := range suites {
		names := singles[s]
		if len(names) > 30 {
			names = append(names[:30:30], "…")
		}
		us = append(us, Unit{Role: RoleOther, Title: "passed" + inSuite(s) + ": " + strings.Join(names, ", ")})
	}
	for _, t := range rep.Texts {
		u := Unit{Role: RoleOther, Quote: []Span{t.Span}, Lines: []string{t.Line}, Extent: t.Span,
			sig: rank.Signals{Severity: rank.Warning, Count: 1, Total: int64(len(rep.Texts))}}
		if t.Error {
			u.sig.Severity = rank.Error
		}
		us = append(us, u)
	}

	// The signals, and the scores.
	m := rank.NewMatcher(it)
	st := rank.NewStats(m)
	lv := make([]rank.Levels, len(us))
	for i, u := range us {
		lv[i] = m.Levels([]byte(u.text()))
		st.Add(lv[i])
	}
	for i := range us {
		sig := us[i].sig
		sig.Intent = st.Score(lv[i])
		us[i].Score = rank.Score(sig)
	}
	// A test that failed through its subtests says nothing they do not:
	// it follows the best of them.
	for i := range us[:nFail] {
		p := us[i].c
		if p.Children == 0 || len(us[i].Lines) > 0 {
			continue
		}
		best := -1.0
		for j := range us[:nFail] {
			if c := us[j].c; j != i && c.Suite == p.Suite && strings.HasPrefix(c.Name, p.Name+"/") {
				best = max(best, us[j].Score)
			}
		}
		if best > 0 {
			us[i].Score = best - 1e-3
		}
	}
	// Best first; ties in the order of the report.
	order := make([]int, len(us))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case us[a].Score > us[b].Score:
			return -1
		case us[a].Score < us[b].Score:
			return 1
		}
		return 0
	})
	out := make([]Unit, len(us))
	for i, k := range order {
		out[i] = us[k]
	}
	return out
}

// slowAt is the least duration, in seconds, of a passing test worth
// naming as slow.
const slowAt = 0.1

// text is what a unit's intent is matched against.
func (u Unit) text() string {
	return u.Title + "\n" + strings.Join(u.Lines, "\n") + "\n" + strings.Join(u.Like, "\n")
}

// template is what failures that repeat one another share: the first line
// of the message that names a location or an error, its numbers and quoted
// values masked, and the location's file.
func (c *Case) template() string {
	if c.Children > 0 && len(c.ownLines()) == 0 {
		return "\x00parent\x00" + c.Suite + "\x00" + c.Name
	}
	first := ""
	for _, l := range c.ownLines() {
		if first == "" {
			first = l
		}
		if location.MatchString(l) || errorLine(l) {
			first = l
			break
		}
	}
	file, _, _ := strings.Cut(c.Location, ":")
	return c.Suite + "\x00" + file + "\x00" + mask(strings.TrimSpace(first))
}

// ownLines are the lines of a case's message without the framing of its
// runner (=== RUN, --- FAIL).
func (c *Case) ownLines() []string {
	var out []string
	for _, l := range c.Message {
		if !goFraming(l) {
			out = append(out, l)
		}
	}
	return out
}

func failureUnit(f Format, c *Case) Unit {
	u := Unit{Role: RoleFailure, Quote: c.Evidence, Key: c.Key, Extent: c.Extent, Pointer: c.Pointer, c: c}
	lines := c.ownLines()
	if f == GoTest && c.Name != "[build failed]" && c.Name != "[package]" {
		u.Title = "--- FAIL: " + c.Name
		if c.Elapsed >= 0 {
			u.Title += " (" + goElapsed(c.Elapsed) + ")"
		}
	} else {
		u.Title = "FAIL " + c.Name
		if c.Elapsed >= 0 {
			u.Title += " (" + elapsed(c.Elapsed) + ")"
		}
	}
	u.Title += inSuite(c.Suite)
	if c.Location != "" {
		u.Title += ", at " + c.Location
	}
	if c.Children > 0 && len(lines) == 0 {
		u.Title += ": " + textfmt.Plural(int64(c.Children), "subtest") + " failed"
		return u
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	u.Lines = lines
	if c.Frames > 0 {
		u.Lines = append(slices.Clip(u.Lines), "["+textfmt.Plural(int64(c.Frames), "line")+" of library stack frames left out]")
	}
	return u
}

func summaryUnit(rep *Report) Unit {
	var b strings.Builder
	b.WriteString(rep.Format.String())
	b.WriteString(": ")
	if n := int64(len(rep.Suites)) + rep.SuitesDropped; n > 0 {
		failed := int64(0)
		for _, s := range rep.Suites {
			if s.Status == Fail {
				failed++
			}
		}
		word := map[Format]string{GoTest: "package", LibTest: "test binary", Jest: "test file", JUnit: "suite"}[rep.Format]
		fmt.Fprintf(&b, "%s (%d failed), ", textfmt.Plural(n, word), failed)
	}
	total := rep.Passed + rep.Failed + rep.Skipped
	fmt.Fprintf(&b, "%s: %d failed, %d passed, %d skipped", textfmt.Plural(total, "test"), rep.Failed, rep.Passed, rep.Skipped)
	if rep.Elapsed >= 0 {
		b.WriteString(", " + elapsed(rep.Elapsed))
	}
	if rep.OK() {
		b.WriteString(" — ok")
	} else {
		b.WriteString(" — FAILED")
	}
	return Unit{Role: RoleSummary, Title: b.String(), Quote: rep.Summary, Extent: extent(rep.Summary)}
}

func suiteTitle(s *Suite) string {
	if s.Summary != "" {
		return strings.ReplaceAll(s.Summary, "\t", " ")
	}
	t := s.Status.String() + " " + s.Name
	if s.Elapsed >= 0 {
		t += " " + elapsed(s.Elapsed)
	}
	return t
}

func inSuite(s string) string {
	if s == "" {
		return ""
	}
	return " in " + shortPath(s)
}

// shortPath keeps the last three elements of a long absolute path: a
// test file's place in its project.
func shortPath(p string) string {
	if !strings.HasPrefix(p, "/") || strings.Count(p, "/") <= 3 {
		return p
	}
	parts := strings.Split(p, "/")
	return path.Join(parts[len(parts)-3:]...)
}

func elapsed(sec float64) string {
	switch {
	case sec < 0:
		return ""
	case sec < 1:
		return strconv.FormatFloat(sec*1000, 'f', 0, 64) + "ms"
	}
	return strconv.FormatFloat(sec, 'f', 2, 64) + "s"
}

func extent(ss []Span) Span {
	var e Span
	for _, s := range ss {
		e = union(e, s)
	}
	return e
}

func union(a, b Span) Span {
	if a == (Span{}) {
		return b
	}
	return Span{min(a.From, b.From), max(a.To, b.To)}
}
