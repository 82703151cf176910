package summarize

import (
	"fmt"
	"strings"
	"time"
)

// FromEnv reads a configuration from the environment, for containers and
// CI: CRUMB_SUMMARY_API (openai or anthropic), CRUMB_SUMMARY_URL (the base
// URL), CRUMB_SUMMARY_MODELS (the ladder, comma-separated),
// CRUMB_SUMMARY_TIMEOUT (a duration), and the key from CRUMB_SUMMARY_KEY or
// the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY). It
// reports false when CRUMB_SUMMARY_MODELS is unset: summaries stay off.
func FromEnv(getenv func(string) string) (Config, bool, error) {
	models := splitList(getenv("CRUMB_SUMMARY_MODELS"))
	if len(models) == 0 {
		return Config{}, false, nil
	}
	cfg := Config{API: API(strings.ToLower(strings.TrimSpace(getenv("CRUMB_SUMMARY_API")))), BaseURL: strings.TrimSpace(getenv("CRUMB_SUMMARY_URL")), Models: models}
	if cfg.API == "" {
		cfg.API = OpenAI
	}
	if cfg.API != OpenAI && cfg.API != Anthropic {
		return Config{}, false, fmt.Errorf("%w: CRUMB_SUMMARY_API=%q: want openai or anthropic", ErrConfig, cfg.API)
	}
	cfg.APIKey = getenv("CRUMB_SUMMARY_KEY")
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
	return cfg, true, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
