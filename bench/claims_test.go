package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// The counts a view states must be the counts of the lines they name. This
// property holds over every corpus case as it is, and over copies of its
// output with a prefix on every line, made by the real tools that add them
// (cat -n, grep -n, grep -Hn, nl, awk printing a counter or a bracketed
// index), shown as the output of a command (what crumb run and the Claude
// Code hook give the projector).

// claimPrefixers are the tools that put a prefix on every line of a file.
var claimPrefixers = []struct {
	name string
	argv []string // the file's path is appended
}{
	{"cat -n", []string{"cat", "-n"}},
	{"grep -n", []string{"grep", "-an", ""}},
	{"grep -Hn", []string{"grep", "-aHn", ""}},
	{"nl", []string{"nl", "-ba"}},
	{"awk %06d", []string{"awk", `{printf "%06d %s\n", NR, $0}`}},
	{"awk [N]", []string{"awk", `{printf "[%d] %s\n", NR, $0}`}},
}

func TestViewClaimsHold(t *testing.T) {
	cases, err := LoadCorpus(filepath.Join("..", "testdata", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenDir(t.TempDir(), store.DirOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := crumb.New(crumb.Config{Store: st, Counter: tokens.O200k(), Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	checked := map[string]int{}
	for i, c := range cases {
		type variant struct {
			name string
			res  crumb.Result
		}
		vs := []variant{{"", crumb.Result{Tool: c.Tool, Args: c.Args, Kind: c.Kind, Body: c.Output, ExitCode: c.ExitCode,
			Command: c.Command, OutputSchema: c.OutputSchema}}}
		if c.Kind != project.KindBinary && c.Kind != project.KindMCP {
			path := filepath.Join(c.Dir, "output")
			for j, pf := range claimPrefixers {
				if raceEnabled && j != i%len(claimPrefixers) {
					// Under -race, where this walk took 330 s on 2
					// cores, each case is numbered by one prefixer in
					// turn, so that every case and every prefixer is
					// still checked; .ci/run checks every pair without it.
					continue
				}
				out, err := exec.Command(pf.argv[0], append(pf.argv[1:], path)...).Output()
				if len(out) == 0 {
					continue // nothing to number (grep exits 1)
				}
				if err != nil {
					t.Fatalf("%s: %s: %v", c.Name, pf.name, err)
				}
				code := 0
				if c.ExitCode != nil {
					code = *c.ExitCode
				}
				argv := append(append([]string(nil), pf.argv...), "output")
				vs = append(vs, variant{pf.name, crumb.Result{Kind: project.KindCommand, Body: out, ExitCode: &code, Command: argv}})
				if c.Kind == project.KindText {
					// The same log, read as a text: its lines' levels
					// are what they are behind the numbers.
					vs = append(vs, variant{pf.name + " as text", crumb.Result{Tool: c.Tool, Args: c.Args, Kind: c.Kind, Body: out}})
				}
			}
		}
		levels := ""
		for _, v := range vs {
			view, err := g.Project(ctx, v.res)
			if err != nil {
				t.Fatalf("%s %s: %v", c.Name, v.name, err)
			}
			var fails []string
			if c.Kind == project.KindText && v.res.Kind == project.KindText {
				lv := claimLevelFacts(view.Text)
				if v.name == "" {
					levels = lv
				} else if checked["levels behind numbers"]++; lv != levels {
					fails = append(fails, fmt.Sprintf("the view counts %q, the view of the lines without their numbers %q", lv, levels))
				}
			}
			lines := claimLines(v.res.Body)
			if c.Kind == project.KindMCP {
				lines = claimLines(claimMCPText(v.res.Body))
			}
			for _, f := range append(fails, checkClaims(view.Text, lines, checked)...) {
				name := c.Name
				if v.name != "" {
					name += " (" + v.name + ")"
				}
				if c.Part() == PartSealed {
					// A sealed case is named, never shown.
					t.Errorf("%s: a view states a count that is not true of the lines it names", name)
					break
				}
				t.Errorf("%s: %s", name, f)
			}
		}
	}
	t.Logf("claims checked: %v", checked)
	for _, k := range []string{"like", "template"} {
		if checked[k] == 0 {
			t.Errorf("no %q claim was checked: the parser no longer reads the views", k)
		}
	}
}

// claimLevelFactsRe finds the counts of error and warning lines a log
// view states in its header and in the titles of its sections.
var claimLevelFactsRe = regexp.MustCompile(`[0-9,]+ (?:error|warning) lines(?: \([0-9,]+ templates?\))?`)

// claimExcerptRe matches the first line of a view's excerpts: a numbered
// line or a gap's marker.
var claimExcerptRe = regexp.MustCompile(`^(\s*[0-9]+\t|\[… )`)

// claimLevelFacts returns the counts of error and warning lines a log view
// states in its header and its section titles, in order: the lines above
// the excerpts that are not a template's row ("×N …") or a section's
// remainder ("… and N templates"), which quote the log's own words.
func claimLevelFacts(view string) string {
	if !strings.HasPrefix(view, "[crumb text (log)") {
		return "not a log"
	}
	var facts []string
	for _, l := range strings.Split(view, "\n") {
		if claimExcerptRe.MatchString(l) {
			break
		}
		if strings.HasPrefix(l, "×") || strings.HasPrefix(l, "…") {
			continue
		}
		facts = append(facts, claimLevelFactsRe.FindAllString(l, -1)...)
	}
	return strings.Join(facts, "; ")
}

// claimMCPText returns the text of an MCP result's first text block,
// whose lines a view of it numbers.
func claimMCPText(b []byte) []byte {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(b, &r) == nil {
		for _, c := range r.Content {
			if c.Type == "text" {
				return []byte(c.Text)
			}
		}
	}
	return b
}

// claimLines splits an output into its lines as the views number them.
func claimLines(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\n")
}

var (
	// [… lines 9-5,993 omitted (1.4 MB; including 5,983 lines like `A` and `B`); read them: ...]
	claimLikeRe = regexp.MustCompile("\\[… lines? ([0-9,]+)(?:-([0-9,]+))? omitted \\([^;()]*(?:\\([^)]*\\))?[^;()]*; (?:including )?([0-9,]+) lines? like (`[^`]*`)(?: and (`[^`]*`))?\\)")
	// ×5,193 error   <*> [error] ... (first line 8, last 5,993)   or   ×3  <*> ... (e.g. line 2,607)
	claimTemplateRe = regexp.MustCompile(`(?m)^×\s*([0-9,]+)\s+(?:(error|warning)\s+)?(.*?) \((?:e\.g\. line ([0-9,]+)|first line ([0-9,]+), last ([0-9,]+))\)$`)
	// Errors and warnings: 5,984 error lines (3 templates), 411 warning lines (1 template); 6 shown below (...), 5,978 similar omitted
	claimLevelsRe = regexp.MustCompile(`(?m)^Errors and warnings: ([0-9,]+) (error|warning) lines \(([0-9,]+) templates?\)(?:, ([0-9,]+) warning lines \(([0-9,]+) templates?\))?; ([0-9,]+) shown below \([^)]*\), ([0-9,]+) similar omitted`)
)

func claimInt(s string) int64 {
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// claimNorm writes a line the way "like" compares lines: without the
// indentation and white space at its ends, every run of white space as one
// space and every run of digits as one 0, as the view renders it.
func claimNorm(s string) string {
	var b strings.Builder
	s = strings.TrimSpace(strings.ReplaceAll(s, "`", "'"))
	space, digit := false, false
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t':
			if !space {
				b.WriteByte(' ')
			}
			space, digit = true, false
		case r >= '0' && r <= '9':
			if !digit {
				b.WriteByte('0')
			}
			space, digit = false, true
		default:
			b.WriteRune(r)
			space, digit = false, false
		}
	}
	return b.String()
}

// claimLike reports whether a line is like a sample a view shows: the same
// but for numbers and white space, up to the sample's "…".
func claimLike(line, sample string) bool {
	sample = strings.Trim(sample, "`")
	l := claimNorm(textfmt.CleanLine([]byte(line)))
	if s, cut := strings.CutSuffix(sample, "…"); cut {
		return strings.HasPrefix(l, claimNorm(s))
	}
	return l == claimNorm(sample)
}

// claimTemplate returns a test of whether a line is of a line template
// of a log view (<*> marks what varies; a template may end in "…" where the
// view cut it). The views show a template as the log projector renders a
// line (a timestamp left out, a JSON object written as key=value), so the
// test is that the template's fixed parts occur in the line in order, white
// space aside; a JSON object is written as key=value first.
func claimTemplate(tpl string) func(line string) bool {
	tpl = strings.TrimSuffix(strings.TrimSpace(tpl), "…")
	var frags []string
	for _, f := range strings.Split(tpl, "<*>") {
		if f = claimSpaces(f); f != "" && f != " " {
			frags = append(frags, strings.TrimSpace(f))
		}
	}
	if len(frags) == 0 {
		return nil
	}
	return func(line string) bool {
		l := claimSpaces(claimKeyValues(line))
		for _, f := range frags {
			i := strings.Index(l, f)
			if i < 0 {
				return false
			}
			l = l[i+len(f):]
		}
		return true
	}
}

// claimSpaces writes every run of white space in s as one space.
func claimSpaces(s string) string {
	return strings.Join(strings.Fields(s), " ") + map[bool]string{true: " ", false: ""}[strings.HasSuffix(s, " ") && strings.TrimSpace(s) != ""]
}

// claimKeyValues writes a line that holds a flat JSON object (after any
// prefix) as key=value pairs in their order, as the log view shows such
// lines; any other line is returned as it is.
func claimKeyValues(line string) string {
	i := strings.IndexByte(line, '{')
	if i < 0 || !strings.HasSuffix(strings.TrimSpace(line), "}") {
		return line
	}
	dec := json.NewDecoder(strings.NewReader(line[i:]))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return line
	}
	var b strings.Builder
	b.WriteString(line[:i])
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return line
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return line
		}
		fmt.Fprintf(&b, " %v=%v", k, v)
	}
	return b.String()
}

// checkClaims returns the claims of a view that do not hold of lines,
// counting the claims it checks by sort in checked.
func checkClaims(view string, lines []string, checked map[string]int) []string {
	var fails []string
	for _, m := range claimLikeRe.FindAllStringSubmatch(view, -1) {
		a, b := claimInt(m[1]), claimInt(m[1])
		if m[2] != "" {
			b = claimInt(m[2])
		}
		n := claimInt(m[3])
		if a < 1 || b > int64(len(lines)) || a > b {
			fails = append(fails, fmt.Sprintf("%q names lines outside the output's %d", m[0], len(lines)))
			continue
		}
		checked["like"]++
		var got int64
		for _, l := range lines[a-1 : b] {
			if claimLike(l, m[4]) || m[5] != "" && claimLike(l, m[5]) {
				got++
			}
		}
		if got != n {
			fails = append(fails, fmt.Sprintf("%s: says %d lines, and %d of lines %d-%d are like that", clipClaim(m[0]), n, got, a, b))
		}
	}
	var levels [3]int64 // error and warning lines counted by templates
	for _, m := range claimTemplateRe.FindAllStringSubmatch(view, -1) {
		match := claimTemplate(m[3])
		if match == nil {
			continue
		}
		checked["template"]++
		n := claimInt(m[1])
		switch m[2] {
		case "error":
			levels[1] += n
		case "warning":
			levels[2] += n
		}
		for _, s := range []string{m[4], m[5], m[6]} {
			if s == "" {
				continue
			}
			no := claimInt(s)
			if no < 1 || no > int64(len(lines)) || !match(lines[no-1]) {
				fails = append(fails, fmt.Sprintf("%s: names line %s, which is not of that template", clipClaim(m[0]), s))
			}
		}
		var got int64
		for _, l := range lines {
			if match(l) {
				got++
			}
		}
		if got < n {
			fails = append(fails, fmt.Sprintf("%s: says %d lines, and %d lines are of that template", clipClaim(m[0]), n, got))
		}
	}
	if m := claimLevelsRe.FindStringSubmatch(view); m != nil && !strings.Contains(view, "\n… and ") {
		checked["levels"]++
		total := claimInt(m[1]) + max(0, claimInt(m[4]))
		if shown, more := claimInt(m[6]), claimInt(m[7]); shown+more != total {
			fails = append(fails, fmt.Sprintf("%s: %d shown and %d omitted are not %d", clipClaim(m[0]), shown, more, total))
		}
	}
	return fails
}

func clipClaim(s string) string {
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return s
}

// TestViewClaimsParser holds the claims parser to views of known outputs: a
// view whose counts are false is caught.
func TestViewClaimsParser(t *testing.T) {
	lines := []string{"x", "  1 INFO served a", "  2 INFO served b", " 12 ERROR payment failed", " 30 INFO served c", "y"}
	for _, tc := range []struct {
		view string
		fail bool
	}{
		{"[… lines 2-5 omitted (10 B; including 3 lines like `1 INFO served…`); read them: x]", false},
		{"[… lines 2-5 omitted (10 B; 4 lines like `1 INFO served a`); read them: x]", true},
		{"[… lines 2-5 omitted (10 B; 4 lines like `1 INFO…`); read them: x]", true},
		{"[… lines 2-5 omitted (10 B; 4 lines like `1 INFO…` and `12 ERR…`); read them: x]", false},
		{"×3  <*> INFO served <*> (e.g. line 2)\n", false},
		{"×4  <*> INFO served <*> (e.g. line 2)\n", true},
		{"×1  <*> INFO served <*> (e.g. line 4)\n", true},
	} {
		fails := checkClaims(tc.view, lines, map[string]int{})
		if (len(fails) > 0) != tc.fail {
			t.Errorf("%q: fails %v, want failure %v", tc.view, fails, tc.fail)
		}
	}
}
