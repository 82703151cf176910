package main

import (
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb/summarize"
)

// summaryEnvHelp says how summaries are configured, for errors and --help.
const summaryEnvHelp = `set CRUMB_SUMMARY_MODELS (a comma-separated ladder of models), CRUMB_SUMMARY_API (openai or anthropic), CRUMB_SUMMARY_URL (the base URL, e.g. http://127.0.0.1:11434/v1 for Ollama) and the key in CRUMB_SUMMARY_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY`

// summarizer returns the Summarizer the environment configures when
// summaries are on: for this call (--summarize), or for every call
// (CRUMB_SUMMARY=on). Off, it returns nil.
func summarizer(e *env, thisCall bool) (*summarize.Summarizer, error) {
	on := thisCall
	switch strings.ToLower(strings.TrimSpace(e.getenv("CRUMB_SUMMARY"))) {
	case "", "off", "0", "false", "no":
	case "on", "1", "true", "yes":
		on = true
	default:
		return nil, fmt.Errorf("CRUMB_SUMMARY=%q: want on or off", e.getenv("CRUMB_SUMMARY"))
	}
	if !on {
		return nil, nil
	}
	cfg, configured, err := summarize.FromEnv(e.getenv)
	if err != nil {
		return nil, withHint(err, summaryEnvHelp)
	}
	if !configured {
		return nil, withHint(fmt.Errorf("summaries asked for, but no model is configured"), summaryEnvHelp)
	}
	s, err := summarize.New(cfg)
	if err != nil {
		return nil, withHint(err, summaryEnvHelp)
	}
	return s, nil
}
