package summarize

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// FromEnv reads a configuration from the environment, for containers and
// CI: CRUMB_SUMMARY_API (openai or anthropic; openai when unset),
// CRUMB_SUMMARY_URL (the base URL), CRUMB_SUMMARY_MODELS (the ladder,
// comma-separated), CRUMB_SUMMARY_TIMEOUT (a duration), the key from
// CRUMB_SUMMARY_KEY or the provider's usual variable (OPENAI_API_KEY,
// ANTHROPIC_API_KEY); CRUMB_SUMMARY_SCHEMA names a file holding the
// summary's JSON Schema and CRUMB_SUMMARY_INSTRUCTIONS replaces the
// instructions. It reports false when no model ladder is set.
func FromEnv(getenv func(string) string) (Config, bool, error) {
	return Overlay(Config{}, getenv)
}

// Overlay applies the environment's settings (as FromEnv reads them) over
// cfg, a configuration from a file: what the environment sets wins. It
// reports whether the result has a model ladder.
func Overlay(cfg Config, getenv func(string) string) (Config, bool, error) {
	if api := strings.ToLower(strings.TrimSpace(getenv("CRUMB_SUMMARY_API"))); api != "" {
		cfg.API = API(api)
	}
	if cfg.API == "" {
		cfg.API = OpenAI
	}
	if cfg.API != OpenAI && cfg.API != Anthropic {
		return Config{}, false, fmt.Errorf("%w: api %q: want openai or anthropic", ErrConfig, cfg.API)
	}
	if u := strings.TrimSpace(getenv("CRUMB_SUMMARY_URL")); u != "" {
		cfg.BaseURL = u
	}
	if m := Ladder(getenv("CRUMB_SUMMARY_MODELS")); len(m) > 0 {
		cfg.Models = m
	}
	if k := getenv("CRUMB_SUMMARY_KEY"); k != "" {
		cfg.APIKey = k
	}
	if cfg.APIKey == "" {
		switch cfg.API {
		case OpenAI:
			cfg.APIKey = getenv("OPENAI_API_KEY")
		case Anthropic:
			cfg.APIKey = getenv("ANTHROPIC_API_KEY")
		}
	}
	if t := strings.TrimSpace(getenv("CRUMB_SUMMARY_TIMEOUT")); t != "" {
		d, err := time.ParseDuration(t)
		if err != nil || d <= 0 {
			return Config{}, false, fmt.Errorf("%w: CRUMB_SUMMARY_TIMEOUT=%q: want a positive duration such as 20s", ErrConfig, t)
		}
		cfg.Timeout = d
	}
	if path := strings.TrimSpace(getenv("CRUMB_SUMMARY_SCHEMA")); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Config{}, false, fmt.Errorf("%w: CRUMB_SUMMARY_SCHEMA: %v", ErrConfig, err)
		}
		cfg.Schema = b
	}
	if in := getenv("CRUMB_SUMMARY_INSTRUCTIONS"); in != "" {
		cfg.Instructions = in
	}
	return cfg, len(cfg.Models) > 0, nil
}

// Ladder splits a comma-separated list of models, as CRUMB_SUMMARY_MODELS
// and crumb's --summary-models give it, into a ladder: the models in
// order, spaces around each trimmed, empty entries dropped.
func Ladder(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
