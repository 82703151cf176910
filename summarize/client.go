package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// openaiCaller calls a chat-completions endpoint through the OpenAI SDK,
// asking for a JSON object. The SDK's own retries are off: the ladder is
// the retry, and the timeout bounds it.
func openaiCaller(cfg Config) func(ctx context.Context, model, system, user string) (reply, error) {
	opts := []ooption.RequestOption{ooption.WithMaxRetries(0), ooption.WithHTTPClient(cfg.HTTPClient), ooption.WithAPIKey(cfg.APIKey)}
	if cfg.BaseURL != "" {
		opts = append(opts, ooption.WithBaseURL(cfg.BaseURL))
	}
	client := openai.NewClient(opts...)
	return func(ctx context.Context, model, system, user string) (reply, error) {
		resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model:               shared.ChatModel(model),
			Messages:            []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system), openai.UserMessage(user)},
			MaxCompletionTokens: openai.Int(int64(cfg.MaxOutput)),
			Temperature:         openai.Float(0),
			ResponseFormat:      openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}},
		})
		if err != nil {
			return reply{}, callError(err)
		}
		if len(resp.Choices) == 0 {
			return reply{}, fmt.Errorf("%w: the answer has no choices", ErrMalformed)
		}
		r := reply{text: resp.Choices[0].Message.Content}
		if resp.JSON.Usage.Valid() {
			in, out := resp.Usage.PromptTokens, resp.Usage.CompletionTokens
			r.input, r.output = &in, &out
		}
		return r, nil
	}
}

// anthropicCaller calls the Messages API through Anthropic's SDK.
func anthropicCaller(cfg Config) func(ctx context.Context, model, system, user string) (reply, error) {
	opts := []aoption.RequestOption{aoption.WithMaxRetries(0), aoption.WithHTTPClient(cfg.HTTPClient), aoption.WithAPIKey(cfg.APIKey)}
	if cfg.BaseURL != "" {
		opts = append(opts, aoption.WithBaseURL(cfg.BaseURL))
	}
	client := anthropic.NewClient(opts...)
	return func(ctx context.Context, model, system, user string) (reply, error) {
		msg, err := client.Messages.New(ctx, anthropic.MessageNewParams{
			Model:     anthropic.Model(model),
			MaxTokens: int64(cfg.MaxOutput),
			System:    []anthropic.TextBlockParam{{Text: system}},
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(user))},
		})
		if err != nil {
			return reply{}, callError(err)
		}
		var text strings.Builder
		for _, b := range msg.Content {
			if b.Type == "text" {
				text.WriteString(b.Text)
			}
		}
		r := reply{text: text.String()}
		if msg.JSON.Usage.Valid() {
			in, out := msg.Usage.InputTokens, msg.Usage.OutputTokens
			r.input, r.output = &in, &out
		}
		return r, nil
	}
}

// callError says what went wrong with a call, without the request (which
// would carry the result) or any key.
func callError(err error) error {
	var oe *openai.Error
	if errors.As(err, &oe) {
		return fmt.Errorf("%w: HTTP %d", ErrUnavailable, oe.StatusCode)
	}
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		return fmt.Errorf("%w: HTTP %d", ErrUnavailable, ae.StatusCode)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}
