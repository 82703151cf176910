package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/config"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/summarize"

	// The adapters of the APIs CRUMB_SUMMARY_API and [summary] api name:
	// the command links both SDKs, a library user only those it imports.
	_ "github.com/crumb-dev/crumb/summarize/anthropic"
	_ "github.com/crumb-dev/crumb/summarize/openai"
)

// summaryEnvHelp says how summaries are configured, for errors.
const summaryEnvHelp = `pass --summary-models (a comma-separated ladder of models) and --summary-url (the base URL, e.g. http://127.0.0.1:11434/v1 for Ollama), or set CRUMB_SUMMARY_MODELS, CRUMB_SUMMARY_URL and CRUMB_SUMMARY_API (openai or anthropic); the key goes in CRUMB_SUMMARY_KEY, OPENAI_API_KEY or ANTHROPIC_API_KEY (see --help)`

// summaryHelp is the part of --help, for every command that can summarize,
// that says how summaries are configured.
var summaryHelp = fmt.Sprintf(`Summaries (off by default): with --summarize, --summary-url or
--summary-models, CRUMB_SUMMARY=on, or enabled = true in the [summary]
section of crumb mcp's configuration file, a model summarizes each result
that is projected; crumb checks every quote it gives against the exact
result and shows the projection when a check fails. A flag beats the
environment, which beats the file:

  flag              environment                 [summary]
  --summary-url     CRUMB_SUMMARY_URL           url           base URL (http://127.0.0.1:11434/v1 for Ollama)
  --summary-models  CRUMB_SUMMARY_MODELS        models        the ladder of models, tried in order
                    CRUMB_SUMMARY_API           api           openai (any chat-completions server; default) or anthropic
                    CRUMB_SUMMARY_TIMEOUT       timeout       the whole exchange (default %s)
                    CRUMB_SUMMARY_SCHEMA        schema        a file holding the summary's JSON Schema
                    CRUMB_SUMMARY_INSTRUCTIONS  instructions  instructions in place of crumb's
                                                max_input     most tokens of the result the model reads (default %d)
                                                max_output    most tokens of the answer (default %d)

The key is read only from the environment: CRUMB_SUMMARY_KEY, else
OPENAI_API_KEY or ANTHROPIC_API_KEY as the API is. CRUMB_SUMMARY=off turns
off what the file enables.`, summarize.DefaultTimeout, summarize.DefaultMaxInput, summarize.DefaultMaxOutput)

// summaryFlags are the flags that ask for a summary and configure it for
// one invocation, over the environment and the configuration file.
type summaryFlags struct {
	on          *bool
	url, models *string
}

// addSummaryFlags adds --summarize, --summary-url and --summary-models to
// fs; what names what is summarized ("the result", "the output").
func addSummaryFlags(fs *flag.FlagSet, what string) summaryFlags {
	return summaryFlags{
		on:     fs.Bool("summarize", false, "summarize "+what+" with a model (facts checked against the exact result; the projection when the summary fails; see Summaries above)"),
		url:    fs.String("summary-url", "", "the summary endpoint's base `URL`, over CRUMB_SUMMARY_URL and [summary] url; implies --summarize"),
		models: fs.String("summary-models", "", "the summary models, a comma-separated `LIST` tried in order, over CRUMB_SUMMARY_MODELS and [summary] models; implies --summarize"),
	}
}

// asked reports whether the flags ask for a summary: --summarize, or a
// flag that configures one.
func (f summaryFlags) asked() bool {
	return *f.on || strings.TrimSpace(*f.url) != "" || strings.TrimSpace(*f.models) != ""
}

// summarizer returns the Summarizer that the flags, the environment and the
// configuration file's [summary] section configure (each winning over the
// next), when summaries are on: for this invocation (the flags), or for
// every call (CRUMB_SUMMARY=on, or enabled in the file). Off, it returns
// nil (a nil interface, so that crumb.Config sees no summarizer). When st
// keeps side entries (store.SideStore), the summaries it verifies are
// shared through it with every process that uses the same store.
func summarizer(e *env, flags summaryFlags, file *config.Summary, st store.Store) (crumb.Summarizer, error) {
	thisCall := flags.asked()
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
	cfg, _, err := summarize.Overlay(base, e.getenv)
	if err != nil {
		return nil, withHint(err, summaryEnvHelp)
	}
	if u := strings.TrimSpace(*flags.url); u != "" {
		cfg.BaseURL = u
	}
	if m := summarize.Ladder(*flags.models); len(m) > 0 {
		cfg.Models = m
	}
	if len(cfg.Models) == 0 {
		return nil, withHint(fmt.Errorf("summaries asked for, but no model is configured"), summaryEnvHelp)
	}
	if side, ok := st.(store.SideStore); ok {
		cfg.Shared = side
	}
	s, err := summarize.New(cfg)
	if err != nil {
		return nil, withHint(err, summaryEnvHelp)
	}
	return s, nil
}
