// Package bench is crumb's evidence benchmark: it measures how much of the
// evidence an agent needs next a way of cutting tool output down keeps in
// its first view, what that view costs in tokens, and what it costs to reach
// the rest by following the view's own continuations.
//
// A corpus (testdata/corpus, made by scripts/corpus/make.sh) is a directory
// of cases of real tool output, one folder each:
//
//	<kind>-<name>/
//	  output      the raw bytes exactly as the tool returned them
//	  meta.json   {"kind", "tool", "args", "exit_code", "needles": [{"text", "why"}]}
//
// A needle is an exact substring of the output that an experienced engineer
// would need for the next step: the failing test and its message, the
// file:line of a compile error, the definition a read asked for.
//
// A [Strategy] turns a case into a first view ([Crumb], [HeadTailSame],
// [Raw]; more can be added). [Evaluate] runs a strategy over a corpus and
// reports, per case and in total, the figures in [CaseReport].
package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/tokens"
)

// A Needle is evidence the agent needs next: an exact substring of a case's
// output, and why it is needed.
type Needle struct {
	Text string `json:"text"`
	Why  string `json:"why"`
}

// Meta is a case's meta.json.
type Meta struct {
	// Kind is the kind of result: file, dir, command, json, mcp, text or
	// binary.
	Kind project.Kind `json:"kind"`
	// Tool and Args are the tool call that produced the output.
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args,omitempty"`
	// ExitCode is a command's exit status.
	ExitCode *int `json:"exit_code,omitempty"`
	// Command is the command line that ran, as arguments, when known.
	Command []string `json:"command,omitempty"`
	// Needles are the evidence the agent needs next.
	Needles []Needle `json:"needles"`
	// OutputSchema is an MCP tool's outputSchema (null when it has none),
	// as the capture program records it.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Note says how the output was made, when that needs saying.
	Note string `json:"note,omitempty"`
}

// A Case is one tool output of a corpus with its meta data.
type Case struct {
	// Name is the case's folder name, "<kind>-<name>".
	Name string
	// Dir is the case's folder.
	Dir string
	Meta
	// Output is the raw output.
	Output []byte

	rawOnce   sync.Once
	rawTokens int
}

// RawTokens is the o200k_base token count of the output as a model would be
// sent it whole (for an MCP result, without the base64 data of its media
// blocks, which a client sends as media). It is counted once and kept.
func (c *Case) RawTokens() int {
	c.rawOnce.Do(func() {
		c.rawTokens = textTokens(tokens.O200k(), c, string(c.Output))
	})
	return c.rawTokens
}

// LoadCorpus reads every case in dir (each subdirectory that holds a
// meta.json), in name order, and validates them: the kind is known and
// matches the name, the output exists, and every needle is a non-empty,
// single-line, valid UTF-8 exact substring of the output. All problems are
// reported together, each naming its case.
func LoadCorpus(dir string) ([]*Case, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("bench: reading the corpus: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	var cases []*Case
	var errs []error
	for _, name := range names {
		c, err := LoadCase(filepath.Join(dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases = append(cases, c)
	}
	if len(errs) > 0 {
		return cases, errors.Join(errs...)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("bench: %s holds no cases", dir)
	}
	return cases, nil
}

// LoadCase reads and validates the case in dir.
func LoadCase(dir string) (*Case, error) {
	name := filepath.Base(dir)
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", name, err)
	}
	meta, err := ParseMeta(raw)
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: meta.json: %w", name, err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "output"))
	if err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", name, err)
	}
	c := &Case{Name: name, Dir: dir, Meta: meta, Output: out}
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("bench: case %s: %w", name, err)
	}
	return c, nil
}

// ParseMeta parses a meta.json. Unknown fields are an error, so that a
// misspelt field is not silently ignored.
func ParseMeta(raw []byte) (Meta, error) {
	var m Meta
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Meta{}, err
	}
	if dec.More() {
		return Meta{}, errors.New("more than one JSON value")
	}
	k, err := project.ParseKind(string(m.Kind))
	if err != nil {
		return Meta{}, err
	}
	if k == "" {
		return Meta{}, errors.New(`no "kind"`)
	}
	if len(m.Args) > 0 && !json.Valid(m.Args) {
		return Meta{}, errors.New(`"args" is not valid JSON`)
	}
	return m, nil
}

func (c *Case) validate() error {
	if !strings.HasPrefix(c.Name, string(c.Kind)+"-") {
		return fmt.Errorf("the name does not start with its kind %q followed by a dash", c.Kind)
	}
	var errs []error
	for i, n := range c.Needles {
		switch {
		case n.Text == "":
			errs = append(errs, fmt.Errorf("needle %d is empty", i+1))
		case !utf8.ValidString(n.Text):
			errs = append(errs, fmt.Errorf("needle %d is not valid UTF-8", i+1))
		case strings.Contains(n.Text, "\n"):
			errs = append(errs, fmt.Errorf("needle %d spans lines: %q", i+1, clip(n.Text)))
		case !bytes.Contains(c.Output, []byte(n.Text)):
			errs = append(errs, fmt.Errorf("needle %d is not in the output: %q", i+1, clip(n.Text)))
		case strings.TrimSpace(n.Why) == "":
			errs = append(errs, fmt.Errorf("needle %d does not say why it is needed: %q", i+1, clip(n.Text)))
		}
	}
	return errors.Join(errs...)
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return textfmt.Clip(s, 77, "...")
}
