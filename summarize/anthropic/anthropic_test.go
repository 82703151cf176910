package anthropic_test

import (
	"testing"

	"github.com/crumb-dev/crumb/summarize"
	_ "github.com/crumb-dev/crumb/summarize/anthropic"
	"github.com/crumb-dev/crumb/summarize/internal/adaptertest"
)

// TestAdapter runs the adapter tests against a local server speaking the
// Messages wire format.
func TestAdapter(t *testing.T) { adaptertest.Run(t, summarize.Anthropic) }
