// Package anthropic is the summary adapter for Anthropic's Messages API,
// through Anthropic's official Go SDK. Importing it registers the adapter
// for [summarize.Anthropic]; a program that never imports it never links
// the SDK.
package anthropic

import (
	"context"
	"errors"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/crumb-dev/crumb/summarize"
)

func init() { summarize.Register(summarize.Anthropic, open) }

// New returns a Summarizer that asks the Messages API; cfg.API is set to
// summarize.Anthropic.
func New(cfg summarize.Config) (*summarize.Summarizer, error) {
	cfg.API = summarize.Anthropic
	return summarize.New(cfg)
}

// open makes the endpoint. The SDK's own retries are off: the ladder is the
// retry, and the timeout bounds it.
func open(cfg summarize.Config, client *http.Client) (summarize.Endpoint, error) {
	opts := []option.RequestOption{option.WithMaxRetries(0), option.WithHTTPClient(client), option.WithAPIKey(cfg.APIKey)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return endpoint{sdk.NewClient(opts...)}, nil
}

type endpoint struct{ client sdk.Client }

// Complete asks for one answer.
func (e endpoint) Complete(ctx context.Context, c summarize.Call) (summarize.Reply, error) {
	msg, err := e.client.Messages.New(ctx, sdk.MessageNewParams{
		Model:     sdk.Model(c.Model),
		MaxTokens: int64(c.MaxOutput),
		System:    []sdk.TextBlockParam{{Text: c.System}},
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock(c.User))},
	})
	if err != nil {
		return summarize.Reply{}, callError(err)
	}
	var text strings.Builder
	for _, b := range msg.Content {
		if b.Type == "text" {
			text.WriteString(b.Text)
		}
	}
	r := summarize.Reply{Text: text.String()}
	if msg.JSON.Usage.Valid() {
		in, out := msg.Usage.InputTokens, msg.Usage.OutputTokens
		r.InputTokens, r.OutputTokens = &in, &out
	}
	return r, nil
}

// callError says what went wrong with a call (summarize.EndpointError).
func callError(err error) error {
	var e *sdk.Error
	if errors.As(err, &e) {
		return summarize.EndpointError(err, e.StatusCode)
	}
	return summarize.EndpointError(err, 0)
}
