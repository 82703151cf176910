package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/tokens"
)

// DefaultMaxPages is how many pages of continuations Evaluate follows at
// most per case.
const DefaultMaxPages = 200

// Report holds a strategy's figures over a corpus.
type Report struct {
	// Strategy names the strategy.
	Strategy string `json:"strategy"`
	// Cases holds one report per case, in corpus order.
	Cases []CaseReport `json:"cases"`
	// Total sums them up.
	Total Totals `json:"total"`
	// Err says why the evaluation could not run at all.
	Err string `json:"error,omitempty"`
}

// CaseReport holds a strategy's figures for one case.
type CaseReport struct {
	// Case and Kind name the case.
	Case string `json:"case"`
	Kind string `json:"kind"`
	// RawBytes and RawTokens measure the output (see Case.RawTokens);
	// RawEstimated reports that RawTokens is tokens.Estimate's figure (see
	// Options.EstimateRawOver).
	RawBytes     int  `json:"raw_bytes"`
	RawTokens    int  `json:"raw_tokens"`
	RawEstimated bool `json:"raw_estimated,omitempty"`
	// FirstTokens is the o200k_base token count of the first view's text,
	// not counting the base64 data of media blocks (see textTokens).
	FirstTokens int `json:"first_tokens"`
	// Needles is the number of needles; Visible how many of them the first
	// view shows (see Visible for the rule); Missed lists the others.
	Needles int      `json:"needles"`
	Visible int      `json:"visible"`
	Missed  []Needle `json:"missed,omitempty"`
	// TokensToAll is the tokens read until every needle was seen: the first
	// view, then the pages of its continuations in order. -1 when following
	// them never showed every needle. Pages is the number of pages read to
	// get there (or until the continuations, or MaxPages, ran out).
	TokensToAll int `json:"tokens_to_all"`
	Pages       int `json:"pages"`
	// LargerThanRaw reports that the first view took more tokens than the
	// raw output.
	LargerThanRaw bool `json:"larger_than_raw,omitempty"`
	// LeakBytes counts bytes of the view's text that are not text: NUL and
	// other control bytes (tab, newline, carriage return and ESC aside) and
	// bytes of invalid UTF-8; for a binary case, also the binary content
	// shown sanitised (U+FFFD and control bytes in caret notation).
	LeakBytes int `json:"leak_bytes"`
	// MediaIn is the number of image and audio blocks in an MCP output;
	// MediaKept how many the view keeps as media blocks with data.
	MediaIn   int `json:"media_in"`
	MediaKept int `json:"media_kept"`
	// View is the first view's text.
	View string `json:"-"`
	// Err says what went wrong; the figures after it are incomplete.
	Err string `json:"error,omitempty"`
}

// Totals sums a report up.
type Totals struct {
	Cases   int `json:"cases"`
	Needles int `json:"needles"`
	Visible int `json:"visible"`
	// VisiblePct is Visible as a percentage of Needles.
	VisiblePct float64 `json:"visible_pct"`
	// FirstTokens sums the first views; MeanFirstTokens is its mean.
	FirstTokens     int     `json:"first_tokens"`
	MeanFirstTokens float64 `json:"mean_first_tokens"`
	// Reached counts the cases whose needles were all seen, in the first
	// view or by following continuations; TokensToAll sums their
	// TokensToAll.
	Reached     int `json:"reached"`
	TokensToAll int `json:"tokens_to_all"`
	// RawTokens sums the raw outputs.
	RawTokens     int `json:"raw_tokens"`
	LargerThanRaw int `json:"larger_than_raw"`
	LeakBytes     int `json:"leak_bytes"`
	// LeakCases counts the cases with any LeakBytes.
	LeakCases int `json:"leak_cases"`
	MediaIn   int `json:"media_in"`
	MediaKept int `json:"media_kept"`
	Errors    int `json:"errors"`
}

// Options tune an evaluation.
type Options struct {
	// Counter counts tokens; nil means o200k_base.
	Counter tokens.Counter
	// MaxPages is the most pages of continuations followed per case; zero
	// means DefaultMaxPages.
	MaxPages int
	// EstimateRawOver, when positive, estimates the raw token count of
	// outputs larger than this many bytes with tokens.Estimate instead of
	// counting it (o200k_base counts about 1 MB a second): quick runs use
	// it. Such counts are marked in the report.
	EstimateRawOver int
}

// Evaluate runs a strategy over cases with the default options.
func Evaluate(cases []*Case, s Strategy) Report {
	return EvaluateWith(context.Background(), cases, s, Options{})
}

// EvaluateWith runs a strategy over cases, one after the other, in a scratch
// directory removed at the end. A case that fails is reported with its
// error and does not stop the others.
func EvaluateWith(ctx context.Context, cases []*Case, s Strategy, o Options) Report {
	if o.Counter == nil {
		o.Counter = tokens.O200k()
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultMaxPages
	}
	rep := Report{Strategy: s.Name()}
	env, err := newEnv(o.Counter)
	if err != nil {
		rep.Err = err.Error()
		return rep
	}
	defer os.RemoveAll(env.Dir)
	defer env.close()
	for _, c := range cases {
		rep.Cases = append(rep.Cases, evaluateCase(ctx, c, s, env, o))
	}
	rep.Total = total(rep.Cases)
	return rep
}

func evaluateCase(ctx context.Context, c *Case, s Strategy, env *Env, o Options) CaseReport {
	r := CaseReport{Case: c.Name, Kind: string(c.Kind), RawBytes: len(c.Output),
		Needles: len(c.Needles), TokensToAll: -1, MediaIn: countMedia(c.Output)}
	if o.EstimateRawOver > 0 && len(c.Output) > o.EstimateRawOver {
		r.RawTokens, r.RawEstimated = textTokens(tokens.Estimator(), c, string(c.Output)), true
	} else {
		r.RawTokens = c.RawTokens()
	}
	v, err := s.View(ctx, c, env)
	if err != nil {
		r.Err = err.Error()
		r.Missed = c.Needles
		return r
	}
	r.View = v.Text
	if v.Text == string(c.Output) && !r.RawEstimated {
		r.FirstTokens = r.RawTokens // passed through: counted already
	} else {
		r.FirstTokens = textTokens(o.Counter, c, v.Text) + mediaOnlyTokens(v)
	}
	r.LargerThanRaw = r.FirstTokens > r.RawTokens
	r.LeakBytes = LeakBytes(v.Text)
	if c.Kind == project.KindBinary {
		r.LeakBytes += sanitisedBinary(v.Text)
	}
	r.MediaKept = keptMedia(c, v)
	seen := make([]bool, len(c.Needles))
	left := len(c.Needles)
	for i, n := range c.Needles {
		if Visible(c, n, v.Text) {
			seen[i] = true
			left--
			r.Visible++
		} else {
			r.Missed = append(r.Missed, n)
		}
	}
	read := r.FirstTokens
	if left == 0 {
		r.TokensToAll = read
		return r
	}
	if v.Pages == nil {
		return r
	}
	for r.Pages < o.MaxPages {
		page, ok, err := v.Pages.Next(ctx)
		if err != nil {
			r.Err = "following continuations: " + err.Error()
			return r
		}
		if !ok {
			return r
		}
		r.Pages++
		read += o.Counter.Count(page)
		for i, n := range c.Needles {
			if !seen[i] && Visible(c, n, page) {
				seen[i] = true
				left--
			}
		}
		if left == 0 {
			r.TokensToAll = read
			return r
		}
	}
	return r
}

func total(cases []CaseReport) Totals {
	var t Totals
	for _, r := range cases {
		t.Cases++
		t.Needles += r.Needles
		t.Visible += r.Visible
		t.FirstTokens += r.FirstTokens
		t.RawTokens += r.RawTokens
		if r.TokensToAll >= 0 {
			t.Reached++
			t.TokensToAll += r.TokensToAll
		}
		if r.LargerThanRaw {
			t.LargerThanRaw++
		}
		t.LeakBytes += r.LeakBytes
		if r.LeakBytes > 0 {
			t.LeakCases++
		}
		t.MediaIn += r.MediaIn
		t.MediaKept += r.MediaKept
		if r.Err != "" {
			t.Errors++
		}
	}
	if t.Needles > 0 {
		t.VisiblePct = 100 * float64(t.Visible) / float64(t.Needles)
	}
	if t.Cases > 0 {
		t.MeanFirstTokens = float64(t.FirstTokens) / float64(t.Cases)
	}
	return t
}

// Visible reports whether a view (or a page) shows a needle. The rule is
// strict: the needle's exact text must appear, with only the differences
// that crumb's sanitising of every line of content (textfmt.CleanLine:
// escape sequences removed, control bytes in caret notation, invalid UTF-8
// as U+FFFD, the text after a carriage return that redraws a line) makes
// to it. Two differences of JSON formatting, which carry no content, are
// forgiven too: for an MCP case, whose output and views are JSON, the
// needle is found when it appears with JSON string escapes decoded on both
// sides (`\"` and `"` are the same text, and so are `\u003c` and `<`); for a
// JSON case, when it appears with the spaces and tabs outside JSON strings
// left out on both sides (`"a":1` and `"a": 1` are the same). Nothing else is
// forgiven: a needle cut by an ellipsis, split over two lines, re-indented
// or missing a comma is not visible.
func Visible(c *Case, n Needle, view string) bool {
	if strings.Contains(view, n.Text) {
		return true
	}
	if clean := textfmt.CleanLine([]byte(n.Text)); clean != n.Text && clean != "" && strings.Contains(view, clean) {
		return true
	}
	switch c.Kind {
	case project.KindMCP:
		return strings.Contains(unescapeJSON(view), unescapeJSON(n.Text))
	case project.KindJSON:
		needle := squeezeJSON(n.Text)
		return needle != "" && strings.Contains(squeezeJSON(view), needle)
	}
	return false
}

// squeezeJSON removes the spaces and tabs of s that are outside JSON
// strings, line by line (a string never spans lines in JSON text). A line is
// read from its start, outside a string.
func squeezeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n':
			in = false
		case in && c == '\\' && i+1 < len(s) && s[i+1] != '\n':
			b.WriteByte(c)
			i++
			c = s[i]
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\t'):
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapeJSON decodes the escapes of JSON strings wherever they are in s,
// leaving everything else as it is.
func unescapeJSON(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case '"', '\\', '/':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(s) {
				var r rune
				if _, err := fmt.Sscanf(s[i+1:i+5], "%04x", &r); err == nil {
					b.WriteRune(r)
					i += 4
					continue
				}
			}
			b.WriteString(`\u`)
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// LeakBytes counts the bytes of s that are not text a model should be
// shown: NUL and the other C0 controls except tab, newline, carriage return
// and ESC, DEL, and each byte of invalid UTF-8.
func LeakBytes(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b || c == 0x7f {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			n++
		}
		i += size
	}
	return n
}

// sanitisedBinary counts the marks binary content leaves in a view when it
// is shown through a text sanitiser (textfmt.CleanLine): U+FFFD for bytes
// that are not UTF-8 and caret notation (^@, ^A, ... ^?) for control bytes.
func sanitisedBinary(s string) int {
	n := strings.Count(s, "\uFFFD")
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '^' && (s[i+1] >= '@' && s[i+1] <= '_' || s[i+1] == '?') {
			n++
		}
	}
	return n
}

// countMedia counts the image and audio blocks of an MCP output.
func countMedia(output []byte) int {
	c, _ := project.MCPCostOf(output)
	return c.Media
}

// keptMedia counts the image and audio blocks a view keeps: those in its
// Media, or those in its text when that is a CallToolResult, whichever is
// more (crumb returns the same blocks in both).
func keptMedia(c *Case, v *View) int {
	if c.Kind != project.KindMCP {
		return 0
	}
	inMedia, _ := mediaBlocks(v)
	cost, _ := project.MCPCostOf([]byte(v.Text))
	return max(inMedia, cost.Media)
}

// textTokens counts the tokens of a view's text. For an MCP case whose text
// is a CallToolResult, that is what a model is charged for it
// (project.MCPCost): the text without media payloads, and the images by
// their size, so that a view that keeps an image downscaled is weighed
// against the image it stands for.
func textTokens(counter tokens.Counter, c *Case, text string) int {
	if c.Kind == project.KindMCP {
		if cost, ok := project.MCPCostOf([]byte(text)); ok {
			return counter.Count(cost.Text) + cost.Images
		}
	}
	return counter.Count(text)
}

// mediaOnlyTokens counts the images a view returns as media blocks beside
// a text that does not hold them (a text that does is counted by
// textTokens).
func mediaOnlyTokens(v *View) int {
	if c, ok := project.MCPCostOf([]byte(v.Text)); ok && c.Media > 0 {
		return 0
	}
	_, n := mediaBlocks(v)
	return n
}

// mediaBlocks counts the image and audio blocks with data in a view's
// Media, and what its images cost a model.
func mediaBlocks(v *View) (n, imageTokens int) {
	for _, m := range v.Media {
		var b struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}
		if json.Unmarshal(m, &b) != nil || b.Data == "" {
			continue
		}
		switch b.Type {
		case "image":
			n++
			imageTokens += project.Base64ImageTokens(b.Data)
		case "audio":
			n++
		}
	}
	return n, imageTokens
}
