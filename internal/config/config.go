// Package config reads crumb's configuration file, in TOML or YAML: the
// budget and threshold, the page budget, per-tool budgets and thresholds
// matched by glob, the tools never to project, the store, and the names of
// the MCP proxy's tools.
//
// A TOML file:
//
//	budget = 2000                 # tokens a first view may take
//	threshold = 2000              # tokens a result may have and pass whole
//	page_budget = 2000            # tokens a page read back may take
//	never = ["list_*", "get_file_info"]
//
//	[[tools]]                     # the first match wins
//	match = "read_*"
//	budget = 4000
//	threshold = 3000
//
//	[store]
//	dir = "~/.cache/crumb"
//	ttl = "24h"
//	max_size = "2GiB"
//
//	[mcp]
//	read_tool = "crumb_read"
//	search_tool = "crumb_search"
//	query_tool = "crumb_query"
//
// The same in YAML has the same keys. Unknown keys are errors, so a typo
// does not pass silently.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"
)

// File is a configuration file's contents.
type File struct {
	// Budget is the most tokens a first view may take.
	Budget int `toml:"budget" yaml:"budget"`
	// Threshold is the most tokens a result may have and pass through
	// whole; zero means the budget.
	Threshold int `toml:"threshold" yaml:"threshold"`
	// PageBudget is the most tokens a page read back may take, whatever
	// the views' budget; zero means 2,000.
	PageBudget int `toml:"page_budget" yaml:"page_budget"`
	// MaxKeep is the most bytes of one result the store keeps.
	MaxKeep Size `toml:"max_keep" yaml:"max_keep"`
	// Never lists tools (path.Match globs) whose results are never
	// projected.
	Never []string `toml:"never" yaml:"never"`
	// Tools sets budgets and thresholds per tool; the first match wins.
	Tools []Tool `toml:"tools" yaml:"tools"`
	// Store configures the store.
	Store Store `toml:"store" yaml:"store"`
	// MCP configures the MCP proxy.
	MCP MCP `toml:"mcp" yaml:"mcp"`
	// Summary configures LLM summaries (off unless Enabled).
	Summary Summary `toml:"summary" yaml:"summary"`
}

// Summary configures LLM summaries. The API key is never read from a file:
// it comes from CRUMB_SUMMARY_KEY or the provider's usual variable.
type Summary struct {
	// Enabled turns summaries on for every result the proxy projects.
	Enabled bool `toml:"enabled" yaml:"enabled"`
	// API is "openai" (any chat-completions server) or "anthropic".
	API string `toml:"api" yaml:"api"`
	// URL is the endpoint's base URL.
	URL string `toml:"url" yaml:"url"`
	// Models is the ladder of models, tried in order.
	Models []string `toml:"models" yaml:"models"`
	// Timeout bounds one summary.
	Timeout Duration `toml:"timeout" yaml:"timeout"`
	// MaxInput and MaxOutput bound the result summarized and the summary,
	// in tokens.
	MaxInput  int `toml:"max_input" yaml:"max_input"`
	MaxOutput int `toml:"max_output" yaml:"max_output"`
	// Schema is the path of a JSON Schema for the summary, relative to the
	// configuration file; Instructions replace the default instructions.
	Schema       string `toml:"schema" yaml:"schema"`
	Instructions string `toml:"instructions" yaml:"instructions"`
}

// Tool is the policy for the tools a glob matches.
type Tool struct {
	// Match is a path.Match glob over tool names, such as "github_*".
	Match string `toml:"match" yaml:"match"`
	// Budget and Threshold override the file's when positive.
	Budget    int `toml:"budget" yaml:"budget"`
	Threshold int `toml:"threshold" yaml:"threshold"`
	// Never passes the tools' results through whole.
	Never bool `toml:"never" yaml:"never"`
}

// Store configures the directory store.
type Store struct {
	// Dir is the store's directory; a leading ~ is the home directory.
	Dir string `toml:"dir" yaml:"dir"`
	// TTL is how long a result is kept after its last use.
	TTL Duration `toml:"ttl" yaml:"ttl"`
	// MaxSize caps the bytes the store keeps in all.
	MaxSize Size `toml:"max_size" yaml:"max_size"`
}

// MCP configures the MCP proxy.
type MCP struct {
	// ReadTool, SearchTool and QueryTool rename crumb's tools.
	ReadTool   string `toml:"read_tool" yaml:"read_tool"`
	SearchTool string `toml:"search_tool" yaml:"search_tool"`
	QueryTool  string `toml:"query_tool" yaml:"query_tool"`
}

// Load reads a configuration file: TOML for .toml, YAML for .yaml, .yml
// and .json; for any other name, TOML and then YAML are tried.
func Load(name string) (*File, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	var f *File
	switch strings.ToLower(filepath.Ext(name)) {
	case ".toml":
		f, err = ParseTOML(data)
	case ".yaml", ".yml", ".json":
		f, err = ParseYAML(data)
	default:
		f, err = ParseTOML(data)
		if err != nil {
			var yerr error
			if f, yerr = ParseYAML(data); yerr == nil {
				err = nil
			} else {
				err = fmt.Errorf("%w (nor is it YAML: %v)", err, yerr)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("config: %s: %w", name, err)
	}
	if sc := f.Summary.Schema; sc != "" && !filepath.IsAbs(sc) {
		f.Summary.Schema = filepath.Join(filepath.Dir(name), sc)
	}
	return f, nil
}

// ParseTOML parses a configuration in TOML.
func ParseTOML(data []byte) (*File, error) {
	var f File
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			var keys []string
			for _, e := range sm.Errors {
				row, _ := e.Position()
				keys = append(keys, fmt.Sprintf("%s (line %d)", strings.Join(e.Key(), "."), row))
			}
			return nil, fmt.Errorf("unknown key: %s", strings.Join(keys, ", "))
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("line %d, column %d: %s", row, col, de.Error())
		}
		return nil, err
	}
	return &f, f.Validate()
}

// ParseYAML parses a configuration in YAML (or JSON).
func ParseYAML(data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty document is an empty configuration.
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &f, f.Validate()
}

// checkBudgets checks a budget and a threshold of the file (0 means the
// default) against their limits; prefix names where they stand.
func checkBudgets(prefix string, budget, threshold int) error {
	if err := limits.ProxyBudget.Check(int64(budget)); err != nil {
		return fmt.Errorf("%sbudget: %w", prefix, err)
	}
	if err := limits.Threshold.Check(int64(threshold)); err != nil {
		return fmt.Errorf("%sthreshold: %w", prefix, err)
	}
	return nil
}

// Validate checks the values: budgets and thresholds within the ranges
// every surface takes (internal/limits), no negative durations, globs that
// compile, tool names MCP allows.
func (f *File) Validate() error {
	if err := checkBudgets("", f.Budget, f.Threshold); err != nil {
		return err
	}
	if err := limits.PageBudget.Check(int64(f.PageBudget)); err != nil {
		return fmt.Errorf("page_budget: %w", err)
	}
	for _, g := range f.Never {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("never: bad pattern %q: %w", g, err)
		}
	}
	for i, t := range f.Tools {
		if t.Match == "" {
			return fmt.Errorf("tools[%d]: match is required", i)
		}
		if _, err := path.Match(t.Match, ""); err != nil {
			return fmt.Errorf("tools[%d]: bad pattern %q: %w", i, t.Match, err)
		}
		if err := checkBudgets(fmt.Sprintf("tools[%d].", i), t.Budget, t.Threshold); err != nil {
			return err
		}
	}
	if f.Store.TTL < 0 {
		return errors.New("store.ttl must not be negative")
	}
	return nil
}

// Guard returns the Guard configuration the file describes; the caller
// sets the store.
func (f *File) Guard() crumb.Config {
	c := crumb.Config{Budget: f.Budget, Threshold: f.Threshold, PageBudget: f.PageBudget, MaxKeep: int64(f.MaxKeep)}
	c.Exempt = append(c.Exempt, f.Never...)
	for _, t := range f.Tools {
		c.Tools = append(c.Tools, crumb.ToolPolicy{Match: t.Match, Budget: t.Budget, Threshold: t.Threshold, Exempt: t.Never})
	}
	return c
}

// PageBudgetFor returns the page budget of the read tool named readTool:
// the budget of the first policy that matches it, when that policy sets
// one, else the file's page_budget (zero when unset, for the default). The
// views' budget never sets it.
func (f *File) PageBudgetFor(readTool string) int {
	for _, t := range f.Tools {
		if ok, _ := path.Match(t.Match, readTool); ok {
			if t.Budget > 0 {
				return t.Budget
			}
			break
		}
	}
	return f.PageBudget
}

// StoreDir returns the store directory with a leading ~ expanded, or "".
func (f *File) StoreDir() (string, error) {
	d := f.Store.Dir
	if d == "~" || strings.HasPrefix(d, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("config: store.dir: %w", err)
		}
		d = filepath.Join(home, d[1:])
	}
	return d, nil
}

// Size is a number of bytes, written as a number or as a string with a unit:
// "512MB", "2GiB", "64 KiB".
type Size int64

// ParseSize parses a size with an optional unit (B, KB, MB, GB, TB powers
// of 1000; KiB, MiB, GiB, TiB powers of 1024).
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && !(t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == '.') {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{"": 1, "b": 1, "k": 1e3, "kb": 1e3, "m": 1e6, "mb": 1e6, "g": 1e9, "gb": 1e9, "t": 1e12, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}[unit]
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || n < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, or one with a unit such as 512MB or 2GiB", s)
	}
	return Size(n * mult), nil
}

// UnmarshalText parses a size written as a string.
func (s *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	*s = v
	return err
}

// UnmarshalYAML accepts a number or a string.
func (s *Size) UnmarshalYAML(n *yaml.Node) error {
	return s.UnmarshalText([]byte(n.Value))
}

// Duration is a time.Duration written as a string such as "24h" or "90m".
type Duration time.Duration

// UnmarshalText parses a duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return fmt.Errorf("duration %q: want a number with a unit, such as 24h or 90m", b)
	}
	*d = Duration(v)
	return nil
}

// UnmarshalYAML parses a duration.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error { return d.UnmarshalText([]byte(n.Value)) }
