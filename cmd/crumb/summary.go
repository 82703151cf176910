package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/config"
	"github.com/crumb-dev/crumb/summarize"
	// The adapters of the APIs CRUMB_SUMMARY_API and [summary] api name:
	// the command links both SDKs, a library user only those it imports.
	_ "github.com/crumb-dev/crumb/summarize/anthropic"
	_ "github.com/crumb-dev/crumb/summarize/openai"
)

// summaryEnvHelp says how summaries are configured, for errors and --help.
const summaryEnvHelp = `set CRUMB_SUMMARY_MODELS (a comma-separated ladder of models), CRUMB_SUMMARY_API (openai or anthropic), CRUMB_SUMMARY_URL (the base URL, e.g. http://127.0.0.1:11434/v1 for Ollama) and the key in CRUMB_SUMMARY_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY`

// summarizer returns the Summarizer that the configuration file's
// [summary] section and the environment (which wins) configure, when
// summaries are on: for this call (--summarize), or for every call
// (CRUMB_SUMMARY=on, or enabled in the file). Off, it returns nil (a nil
// interface, so that crumb.Config sees no summarizer).
func summarizer(e *env, thisCall bool, file *config.Summary) (crumb.Summarizer, error) {
	on := thisCall
	var base summarize.Config
	if file != nil {
		on = on || file.Enabled
		base = summarize.Config{API: summarize.API(file.API), BaseURL: file.URL, Models: file.Models, Timeout: time.Duration(file.Timeout),
			MaxInput: file.MaxInput, MaxOutput: file.MaxOutput, Instructions: file.Instructions}
		if file.Schema != "" {
			b, err := os.ReadFile(file.Schema)
			if err != nil {
				return nil, fmt.Errorf("summary schema: %w", err)
			}
			base.Schema = b
		}
	}
	switch strings.ToLower(strings.TrimSpace(e.getenv("CRUMB_SUMMARY"))) {
	case "":
	case "off", "0", "false", "no":
		on = thisCall
	case "on", "1", "true", "yes":
		on = true
	default:
		return nil, fmt.Errorf("CRUMB_SUMMARY=%q: want on or off", e.getenv("CRUMB_SUMMARY"))
	}
	if !on {
		return nil, nil
	}
	cfg, configured, err := summarize.Overlay(base, e.getenv)
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
