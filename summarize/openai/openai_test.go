package openai_test

import (
	"testing"

	"github.com/crumb-dev/crumb/summarize"
	"github.com/crumb-dev/crumb/summarize/internal/adaptertest"
	_ "github.com/crumb-dev/crumb/summarize/openai"
)

// TestAdapter runs the adapter tests against a local server speaking the
// chat-completions wire format.
func TestAdapter(t *testing.T) { adaptertest.Run(t, summarize.OpenAI) }
