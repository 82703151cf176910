// Package openai is the summary adapter for OpenAI-compatible
// chat-completions endpoints (OpenAI, vLLM, Ollama, llama.cpp's server),
// through OpenAI's official Go SDK. Importing it registers the adapter for
// [summarize.OpenAI]; a program that never imports it never links the SDK.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/crumb-dev/crumb/summarize"
)

func init() { summarize.Register(summarize.OpenAI, open) }

// New returns a Summarizer that asks a chat-completions endpoint; cfg.API
// is set to summarize.OpenAI.
func New(cfg summarize.Config) (*summarize.Summarizer, error) {
	cfg.API = summarize.OpenAI
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

// Complete asks for one answer, as a JSON object.
func (e endpoint) Complete(ctx context.Context, c summarize.Call) (summarize.Reply, error) {
	resp, err := e.client.Chat.Completions.New(ctx, sdk.ChatCompletionNewParams{
		Model:               shared.ChatModel(c.Model),
		Messages:            []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage(c.System), sdk.UserMessage(c.User)},
		MaxCompletionTokens: sdk.Int(int64(c.MaxOutput)),
		Temperature:         sdk.Float(0),
		ResponseFormat:      sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
	})
	if err != nil {
		return summarize.Reply{}, callError(err)
	}
	if len(resp.Choices) == 0 {
		return summarize.Reply{}, fmt.Errorf("%w: the answer has no choices", summarize.ErrMalformed)
	}
	r := summarize.Reply{Text: resp.Choices[0].Message.Content}
	if resp.JSON.Usage.Valid() {
		in, out := resp.Usage.PromptTokens, resp.Usage.CompletionTokens
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
