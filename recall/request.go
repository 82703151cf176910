// Package recall reads stored results back: pages of lines or bytes within a
// token budget, and searches with RE2 patterns, each page ending with the
// [Request] that reads what comes next.
//
// A Request is a continuation: the exact arguments of the next read. Following
// the continuations from a first view reaches the end of the result with no
// gap and no overlap, and every continuation addresses material not yet shown.
package recall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/store"
)

// Errors a read may return, besides the store's ErrMissing and ErrBroken.
var (
	// ErrBadRequest means a request is malformed: a bad range, several modes
	// at once, an invalid pattern.
	ErrBadRequest = errors.New("recall: bad request")

	// ErrOutOfRange means a range starts past the end of the result.
	ErrOutOfRange = errors.New("recall: range out of bounds")

	// ErrRevision means the request continues a different revision of the
	// content than the one stored under its ref.
	ErrRevision = errors.New("recall: content changed since the continuation was made")

	// ErrBinary means a text read was asked of binary content.
	ErrBinary = errors.New("recall: result is binary, not text")
)

// RevLen is the number of hex digits of the content digest a continuation
// carries as its revision.
const RevLen = 12

// Span is a range of a stored result. For lines it is 1-based and inclusive
// at both ends ("41:240" is lines 41 through 240, as sed counts them); for
// bytes it is a pair of 0-based offsets, the end exclusive ("0:4096" is the
// first 4096 bytes). To is 0 for an open end ("41:"), which a read resolves to
// the end of the result.
//
// One rule holds for every range: it is written A:B, A: (to the end) or A
// (one line; for bytes, from A to the end), and its end comes after its
// start. An end of 0 is never written: "5:0" is refused, not read as "5:".
type Span struct {
	From, To int64
}

// String formats the span as "A:B", or "A:" when open-ended.
func (s Span) String() string {
	if s.To == 0 {
		return strconv.FormatInt(s.From, 10) + ":"
	}
	return strconv.FormatInt(s.From, 10) + ":" + strconv.FormatInt(s.To, 10)
}

// Limits on the numbers a request may carry, from the one table every
// surface checks (internal/limits, docs/limits.md). They are far beyond any
// real result and keep arithmetic on them (an end plus one, a count plus a
// page) from overflowing.
const (
	// MaxPosition is the largest line number or byte offset a range may name.
	MaxPosition = limits.MaxPosition
	// MaxRanges is the most ranges one read may list.
	MaxRanges = limits.MaxRanges
	// MaxContext is the most context lines a search may ask for.
	MaxContext = limits.MaxContext
	// MaxCount is the largest --max or --skip of a search.
	MaxCount = limits.MaxCount
)

const rangeForm = "want A:B with whole numbers (for example 41:240), A: to read to the end, or A for line A alone"

// ParseSpan parses "A:B", "A:" or "A" (the single line A; a byte range needs
// both ends or an open end). It does not know whether the span counts lines
// or bytes; [Request.Validate] checks the bounds that depend on it.
func ParseSpan(s string) (Span, error) {
	a, b, hasColon := strings.Cut(strings.TrimSpace(s), ":")
	if !hasColon {
		a, b, hasColon = strings.Cut(a, "-")
	}
	from, err := parsePosition(a)
	if err != nil {
		return Span{}, fmt.Errorf("%w: range %q: %v; %s", ErrBadRequest, textfmt.Clip(s, 40, "..."), err, rangeForm)
	}
	if !hasColon {
		return Span{From: from, To: from}, nil
	}
	b = strings.TrimSpace(b)
	if b == "" {
		return Span{From: from}, nil
	}
	to, err := parsePosition(b)
	if err != nil {
		return Span{}, fmt.Errorf("%w: range %q: %v; %s", ErrBadRequest, textfmt.Clip(s, 40, "..."), err, rangeForm)
	}
	if to == 0 && from == 0 {
		return Span{}, fmt.Errorf("%w: range \"0:0\" names nothing: lines are numbered from 1 (1:1 is the first line) and bytes A:B exclude B (0:1 is the first byte)", ErrBadRequest)
	}
	if to == 0 {
		// "A:0" would read as an open end; say what it is instead.
		return Span{}, fmt.Errorf("%w: range %q ends at 0, before it starts; to read from %d to the end write %d:", ErrBadRequest, textfmt.Clip(s, 40, "..."), from, from)
	}
	return Span{From: from, To: to}, nil
}

func parsePosition(s string) (int64, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(s, "-"):
		return 0, fmt.Errorf("%s is too large (at most %d)", textfmt.Clip(s, 40, "..."), int64(MaxPosition))
	case err != nil || n < 0:
		return 0, fmt.Errorf("%q is not a whole number", textfmt.Clip(s, 40, "..."))
	case n > MaxPosition:
		return 0, fmt.Errorf("%d is too large (at most %d)", n, int64(MaxPosition))
	}
	return n, nil
}

// ParseRanges parses one range or several, in order and separated by
// commas: "10:14,19:44,73:". A continuation lists every range still unread
// this way.
func ParseRanges(s string) ([]Span, error) {
	parts := strings.Split(s, ",")
	if len(parts) > MaxRanges {
		return nil, fmt.Errorf("%w: %d ranges; a read lists at most %d", ErrBadRequest, len(parts), MaxRanges)
	}
	out := make([]Span, 0, len(parts))
	for _, p := range parts {
		sp, err := ParseSpan(p)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

// FormatRanges writes ranges as ParseRanges reads them.
func FormatRanges(rs []Span) string {
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.String())
	}
	return b.String()
}

// GrepSpec is a search of a stored result: lines matching an RE2 pattern.
type GrepSpec struct {
	// Pattern is an RE2 regular expression (Go's regexp syntax), matched
	// against each line.
	Pattern string `json:"pattern"`
	// IgnoreCase matches without regard to case.
	IgnoreCase bool `json:"ignore_case,omitempty"`
	// Context is the number of lines shown before and after each match.
	Context int `json:"context,omitempty"`
	// Max is the most matches shown in all; 0 means no cap beyond the budget.
	Max int `json:"max,omitempty"`
	// From is the first line searched (1-based); 0 or 1 searches from the start.
	From int64 `json:"from,omitempty"`
	// Skip is the number of matches before line From, which earlier pages
	// showed: the page numbers its matches from Skip+1, and Skip counts
	// against Max. From the start of the result (From 0 or 1) the search
	// passes over the first Skip matches; a Skip past the last match is an
	// error wrapping ErrOutOfRange that says how many there are. After the
	// start, Skip is at most From-1.
	Skip int `json:"skip,omitempty"`
}

// Request says what to read from a stored result. Exactly one of Lines, Bytes
// and Grep may be set; none reads lines from the start.
type Request struct {
	// Ref names the stored result.
	Ref store.Ref
	// Rev, when set, is the first RevLen hex digits of the digest of the
	// content the request continues; a read of other content fails with
	// ErrRevision instead of stitching two versions together.
	Rev string
	// Lines reads a range of lines.
	Lines *Span
	// Bytes reads a range of bytes.
	Bytes *Span
	// More lists the ranges to read after Lines or Bytes, in the same unit,
	// in order and not overlapping: a view that omits several stretches
	// continues with all of them, and each page carries those still unread.
	More []Span
	// Grep searches for lines that match a pattern.
	Grep *GrepSpec
	// Pointer selects the value at a JSON pointer (RFC 6901) of a JSON
	// result; Query selects with a jq expression. The selection is rendered
	// as indented JSON, stored as a result of its own, and read by lines:
	// its pages continue with plain line reads of that result.
	Pointer *string
	Query   string
}

// Mode names what the request does: "lines", "bytes", "grep", "pointer" or
// "query".
func (r Request) Mode() string {
	switch {
	case r.Grep != nil:
		return "grep"
	case r.Pointer != nil:
		return "pointer"
	case r.Query != "":
		return "query"
	case r.Bytes != nil:
		return "bytes"
	default:
		return "lines"
	}
}

// Validate checks the request's shape: a valid ref, at most one mode, ranges
// that go forward, in order and within [MaxPosition], search options within
// their limits, a non-empty pattern. Bounds against the stored result are
// checked when it is read. Every error wraps ErrBadRequest (or the store's
// ref error) and says what a valid request looks like.
func (r Request) Validate() error {
	if _, err := store.ParseRef(string(r.Ref)); err != nil {
		return err
	}
	if r.Rev != "" {
		if len(r.Rev) > 64 || !isHex(r.Rev) {
			return fmt.Errorf("%w: revision %q is not a hex digest prefix", ErrBadRequest, textfmt.Clip(r.Rev, 40, "..."))
		}
	}
	n := 0
	if r.Lines != nil {
		n++
	}
	if r.Bytes != nil {
		n++
	}
	if r.Lines != nil || r.Bytes != nil {
		if err := r.validateRanges(); err != nil {
			return err
		}
	} else if len(r.More) > 0 {
		return fmt.Errorf("%w: more ranges without a first range of lines or bytes", ErrBadRequest)
	}
	if r.Grep != nil {
		n++
		if err := r.Grep.validate(); err != nil {
			return err
		}
	}
	if r.Pointer != nil {
		n++
		if p := *r.Pointer; p != "" && p[0] != '/' {
			return fmt.Errorf("%w: JSON pointer %q must be empty or start with / (for example /items/0/name)", ErrBadRequest, textfmt.Clip(p, 40, "..."))
		}
	}
	if r.Query != "" {
		n++
	}
	if n > 1 {
		return fmt.Errorf("%w: give one of lines, bytes, a search, a JSON pointer or a jq query, not several", ErrBadRequest)
	}
	return nil
}

// validateRanges checks the line or byte ranges of a read.
func (r Request) validateRanges() error {
	unit, rs := "line", r.Ranges()
	if r.Bytes != nil {
		unit = "byte"
	}
	if len(rs) > MaxRanges {
		return fmt.Errorf("%w: %d ranges; a read lists at most %d", ErrBadRequest, len(rs), MaxRanges)
	}
	for i, s := range rs {
		if s.From > MaxPosition || s.To > MaxPosition || s.From < 0 || s.To < 0 {
			return fmt.Errorf("%w: %s range %s: positions go from 0 to %d", ErrBadRequest, unit, s, int64(MaxPosition))
		}
		switch {
		case unit == "line" && s.From < 1:
			return fmt.Errorf("%w: line range %s: lines are numbered from 1 (the first line is 1:1)", ErrBadRequest, s)
		case unit == "line" && s.To != 0 && s.To < s.From:
			return fmt.Errorf("%w: line range %s ends before it starts (lines A:B include both ends; A: reads to the end)", ErrBadRequest, s)
		case unit == "byte" && s.To != 0 && s.To <= s.From:
			return fmt.Errorf("%w: byte range %s is empty or ends before it starts (bytes A:B are offsets from 0, B excluded: %d:%d is the byte at %d; A: reads to the end)", ErrBadRequest, s, s.From, s.From+1, s.From)
		}
		if i == 0 {
			continue
		}
		prev := rs[i-1]
		switch {
		case prev.To == 0:
			return fmt.Errorf("%w: %s range %s reads to the end; only the last range may be open", ErrBadRequest, unit, prev)
		case unit == "line" && s.From <= prev.To, unit == "byte" && s.From < prev.To:
			return fmt.Errorf("%w: %s ranges %s and %s overlap or are out of order; list ranges in order, each after the last", ErrBadRequest, unit, prev, s)
		}
	}
	return nil
}

func (g *GrepSpec) validate() error {
	if g.Pattern == "" {
		return fmt.Errorf("%w: empty search pattern", ErrBadRequest)
	}
	for _, n := range []struct {
		flag string
		v    int64
		lim  limits.Limit
	}{{"-C", int64(g.Context), limits.Context}, {"--max", int64(g.Max), limits.Matches}, {"--skip", int64(g.Skip), limits.Skip}, {"--from", g.From, limits.From}} {
		if err := n.lim.Check(n.v); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrBadRequest, n.flag, err)
		}
	}
	// Skip counts the matches before line From, so no more can precede it
	// than the lines there are (grep counts a line once); from the start, it
	// is the number of matches to pass over.
	switch {
	case g.From > 1 && int64(g.Skip) >= g.From:
		return fmt.Errorf("%w: --skip %s with --from %s: at most %s matches come before line %s (--skip counts the matches before --from, as continuations set them together)",
			ErrBadRequest, textfmt.Int(int64(g.Skip)), textfmt.Int(g.From), textfmt.Int(g.From-1), textfmt.Int(g.From))
	case g.Max > 0 && g.Skip >= g.Max:
		return fmt.Errorf("%w: --skip %s with --max %s: the matches to show stop at --max, so --skip must be below it",
			ErrBadRequest, textfmt.Int(int64(g.Skip)), textfmt.Int(int64(g.Max)))
	}
	return nil
}

// Ranges returns the ranges a read of lines or bytes covers, in order: Lines
// or Bytes, then More. It is nil for other requests.
func (r Request) Ranges() []Span {
	var first *Span
	switch {
	case r.Bytes != nil:
		first = r.Bytes
	case r.Lines != nil:
		first = r.Lines
	default:
		return nil
	}
	return append([]Span{*first}, r.More...)
}

// SetRanges makes r read rs (at least one range), in bytes or in lines.
func (r *Request) SetRanges(bytes bool, rs []Span) {
	r.Lines, r.Bytes, r.More = nil, nil, nil
	if len(rs) == 0 {
		return
	}
	first := rs[0]
	if bytes {
		r.Bytes = &first
	} else {
		r.Lines = &first
	}
	if len(rs) > 1 {
		r.More = append([]Span(nil), rs[1:]...)
	}
}

// Argv returns the arguments of the crumb command that performs the request,
// without the program name: for example ["read", "<ref>", "--lines", "41:240"].
func (r Request) Argv() []string {
	if g := r.Grep; g != nil {
		argv := []string{"grep", string(r.Ref)}
		if g.IgnoreCase {
			argv = append(argv, "-i")
		}
		if g.Context > 0 {
			argv = append(argv, "-C", strconv.Itoa(g.Context))
		}
		if g.Max > 0 {
			argv = append(argv, "--max", strconv.Itoa(g.Max))
		}
		if g.From > 1 {
			argv = append(argv, "--from", strconv.FormatInt(g.From, 10))
		}
		if g.Skip > 0 {
			argv = append(argv, "--skip", strconv.Itoa(g.Skip))
		}
		if r.needsRev() {
			argv = append(argv, "--rev", r.Rev)
		}
		// "--" keeps a pattern that starts with "-" from reading as a flag.
		return append(argv, "--", g.Pattern)
	}
	argv := []string{"read", string(r.Ref)}
	switch {
	case r.Pointer != nil:
		argv = append(argv, "--pointer", *r.Pointer)
	case r.Query != "":
		argv = append(argv, "--jq", r.Query)
	case r.Bytes != nil:
		argv = append(argv, "--bytes", FormatRanges(r.Ranges()))
	case r.Lines != nil:
		argv = append(argv, "--lines", FormatRanges(r.Ranges()))
	}
	if r.needsRev() {
		argv = append(argv, "--rev", r.Rev)
	}
	return argv
}

// needsRev reports whether the revision adds anything to the ref: a ref is
// itself the start of the content's digest, so a revision that agrees with
// it is left out of command lines.
func (r Request) needsRev() bool {
	if r.Rev == "" {
		return false
	}
	n := min(len(r.Rev), len(r.Ref))
	return r.Rev[:n] != string(r.Ref)[:n]
}

// ParseArgv parses arguments in the form Argv writes them. It is the inverse
// of Argv: ParseArgv(r.Argv()) returns r for every valid r.
func ParseArgv(argv []string) (Request, error) {
	if len(argv) < 2 {
		return Request{}, fmt.Errorf("%w: want read|grep REF [options]", ErrBadRequest)
	}
	verb := argv[0]
	ref, err := store.ParseRef(argv[1])
	if err != nil {
		return Request{}, err
	}
	r := Request{Ref: ref}
	rest := argv[2:]
	var g GrepSpec
	next := func(i int, flag string) (string, error) {
		if i+1 >= len(rest) {
			return "", fmt.Errorf("%w: %s needs a value", ErrBadRequest, flag)
		}
		return rest[i+1], nil
	}
	atoi := func(s, flag string) (int, error) {
		n, err := parsePosition(s)
		if err != nil {
			return 0, fmt.Errorf("%w: %s: %v", ErrBadRequest, flag, err)
		}
		return int(n), nil
	}
	switch verb {
	case "read":
		for i := 0; i < len(rest); i += 2 {
			v, err := next(i, rest[i])
			if err != nil {
				return Request{}, err
			}
			switch rest[i] {
			case "--lines", "--bytes":
				if r.Lines != nil || r.Bytes != nil {
					return Request{}, fmt.Errorf("%w: give --lines or --bytes once", ErrBadRequest)
				}
				rs, err := ParseRanges(v)
				if err != nil {
					return Request{}, err
				}
				r.SetRanges(rest[i] == "--bytes", rs)
			case "--pointer":
				p := v
				r.Pointer = &p
			case "--jq":
				r.Query = v
			case "--rev":
				r.Rev = v
			default:
				return Request{}, fmt.Errorf("%w: unknown read option %q", ErrBadRequest, textfmt.Clip(rest[i], 40, "..."))
			}
		}
	case "grep":
		pattern := false
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			if a == "--" {
				if i+2 != len(rest) {
					return Request{}, fmt.Errorf("%w: want exactly one pattern after --", ErrBadRequest)
				}
				g.Pattern, pattern = rest[i+1], true
				break
			}
			if a == "-i" {
				g.IgnoreCase = true
				continue
			}
			v, err := next(i, a)
			if err != nil {
				return Request{}, err
			}
			i++
			switch a {
			case "-C":
				g.Context, err = atoi(v, a)
			case "--max":
				g.Max, err = atoi(v, a)
			case "--from":
				var n int
				n, err = atoi(v, a)
				g.From = int64(n)
			case "--skip":
				g.Skip, err = atoi(v, a)
			case "--rev":
				r.Rev = v
			default:
				err = fmt.Errorf("%w: unknown grep option %q", ErrBadRequest, textfmt.Clip(a, 40, "..."))
			}
			if err != nil {
				return Request{}, err
			}
		}
		if !pattern {
			return Request{}, fmt.Errorf("%w: grep needs -- PATTERN", ErrBadRequest)
		}
		r.Grep = &g
	default:
		return Request{}, fmt.Errorf("%w: unknown verb %q (want read or grep)", ErrBadRequest, textfmt.Clip(verb, 40, "..."))
	}
	return r, r.Validate()
}

// requestJSON is the wire form of a Request: ranges as "A:B" strings, and the
// argv of the crumb command that performs it.
type requestJSON struct {
	Ref     string    `json:"ref"`
	Rev     string    `json:"rev,omitempty"`
	Lines   string    `json:"lines,omitempty"`
	Bytes   string    `json:"bytes,omitempty"`
	Grep    *GrepSpec `json:"grep,omitempty"`
	Pointer *string   `json:"pointer,omitempty"`
	Query   string    `json:"jq,omitempty"`
	Argv    []string  `json:"argv,omitempty"`
}

// MarshalJSON writes the request with its ranges as "A:B" strings and with
// "argv", the arguments of the crumb command that performs it, so any program
// can follow a continuation without knowing its inner form.
func (r Request) MarshalJSON() ([]byte, error) {
	w := requestJSON{Ref: string(r.Ref), Rev: r.Rev, Grep: r.Grep, Pointer: r.Pointer, Query: r.Query, Argv: r.Argv()}
	if r.Lines != nil {
		w.Lines = FormatRanges(r.Ranges())
	}
	if r.Bytes != nil {
		w.Bytes = FormatRanges(r.Ranges())
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the form MarshalJSON writes ("argv" is ignored) and
// validates it.
func (r *Request) UnmarshalJSON(data []byte) error {
	var w requestJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	out := Request{Ref: store.Ref(w.Ref), Rev: w.Rev, Grep: w.Grep, Pointer: w.Pointer, Query: w.Query}
	if w.Lines != "" && w.Bytes != "" {
		return fmt.Errorf("%w: give lines or bytes, not both", ErrBadRequest)
	}
	for _, x := range []struct {
		s     string
		bytes bool
	}{{w.Lines, false}, {w.Bytes, true}} {
		if x.s == "" {
			continue
		}
		rs, err := ParseRanges(x.s)
		if err != nil {
			return err
		}
		out.SetRanges(x.bytes, rs)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*r = out
	return nil
}

// Hint renders a request as the instruction a view shows the model for
// reading on. Views made for the command line say "crumb read REF --lines
// A:B"; the MCP proxy renders its own tool call instead.
type Hint func(Request) string

// CLIHint renders a request as a crumb command line.
func CLIHint(r Request) string { return CLIHintFor("crumb")(r) }

// CLIHintFor returns a Hint that renders a request as the command line that
// performs it with the crumb program prog: a name found through PATH, or a
// path ("/usr/local/bin/crumb"), quoted for a POSIX shell when it needs it.
func CLIHintFor(prog string) Hint {
	prog = shellQuote(prog)
	return func(r Request) string {
		var b strings.Builder
		b.WriteString(prog)
		for _, a := range r.Argv() {
			b.WriteByte(' ')
			b.WriteString(shellQuote(a))
		}
		return b.String()
	}
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_.:/=,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
