// Package summarize writes optional LLM summaries of tool results, with a
// contract a model cannot break: the exact result is stored before any model
// is asked, the summary is typed (JSON validated against a schema), every
// critical fact that quotes an identifier, number, path, date or error
// message is checked verbatim against the exact result, and anything else —
// a malformed, invalid, unverifiable or late answer, a model that is down —
// is an error the caller meets with the deterministic projection.
//
// A [Summarizer] talks to an OpenAI-compatible chat-completions server
// (OpenAI, vLLM, Ollama, llama.cpp's server) or to Anthropic's Messages API
// through their official Go SDKs, trying a ladder of models in order. Valid
// summaries are cached by the result's digest, the schema, the instructions,
// the ladder and the token bound.
package summarize

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// API names the wire format of a summary endpoint.
type API string

// The endpoints a Summarizer speaks.
const (
	OpenAI    API = "openai"
	Anthropic API = "anthropic"
)

// Defaults for a zero Config.
const (
	DefaultTimeout   = 20 * time.Second
	DefaultMaxInput  = 100_000
	DefaultMaxOutput = 1_000
	DefaultCacheTTL  = 24 * time.Hour
	DefaultCacheSize = 1024
)

// Errors a summary may fail with; each means the caller shows the
// deterministic projection instead. Test with [errors.Is].
var (
	// ErrUnavailable means no model of the ladder answered: HTTP errors,
	// rate limits, refused connections.
	ErrUnavailable = errors.New("summarize: no model answered")
	// ErrTimeout means the summary took longer than the timeout.
	ErrTimeout = errors.New("summarize: timed out")
	// ErrMalformed means the answer was not a JSON object.
	ErrMalformed = errors.New("summarize: answer is not JSON")
	// ErrInvalid means the answer did not validate against the schema.
	ErrInvalid = errors.New("summarize: answer does not match the schema")
	// ErrUnverified means a critical fact quotes something the exact
	// result does not contain.
	ErrUnverified = errors.New("summarize: a critical fact is not in the result")
	// ErrConfig means the configuration is unusable.
	ErrConfig = errors.New("summarize: bad configuration")
)

// DefaultSchema is the schema summaries follow unless the caller gives one.
const DefaultSchema = `{
  "type": "object",
  "properties": {
    "overview": {"type": "string", "description": "what the result says, in two or three sentences"},
    "critical_facts": {"type": "array", "items": {"type": "string"}, "description": "the facts the next step depends on, each quoting identifiers, numbers, paths and error messages exactly as the result has them"},
    "omitted": {"type": "string", "description": "what the summary leaves out"}
  },
  "required": ["overview", "critical_facts", "omitted"],
  "additionalProperties": false
}`

// DefaultInstructions are the summarizer's instructions unless the caller
// gives its own.
const DefaultInstructions = `You summarize the result of a tool call for an AI agent that will act on it.
Answer with one JSON object that follows the schema, and nothing else.
Quote every identifier, number, path, date and error message exactly as it appears in the result; never paraphrase them.
Keep negations: if the result says something failed or did not happen, say so.
Put the facts the agent's next step depends on in critical_facts.`

// Config configures a Summarizer.
type Config struct {
	// API is the endpoint's wire format: OpenAI (any chat-completions
	// server) or Anthropic.
	API API
	// BaseURL is the endpoint's base URL; empty means the provider's own.
	BaseURL string
	// Models is the ladder of models tried in order.
	Models []string
	// APIKey authenticates; never logged. Local servers may need none.
	APIKey string
	// Timeout bounds one summary, all models of the ladder included. Zero
	// means 20 s.
	Timeout time.Duration
	// MaxInput is the largest result, in tokens, that is summarized. Zero
	// means 100,000.
	MaxInput int
	// MaxOutput bounds the summary, in tokens. Zero means 1,000.
	MaxOutput int
	// Schema is the JSON Schema of the summary; empty means DefaultSchema.
	// Its array of strings "critical_facts", when present, is checked
	// against the result.
	Schema json.RawMessage
	// Instructions replace DefaultInstructions when set.
	Instructions string
	// CacheTTL and CacheSize bound the summary cache. Zero means 24 h and
	// 1,024 summaries; a negative CacheSize turns the cache off.
	CacheTTL  time.Duration
	CacheSize int
	// HTTPClient makes the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
}

// Request is a result to summarize.
type Request struct {
	// Tool, Args and Intent describe the call.
	Tool   string
	Args   json.RawMessage
	Intent string
	// View is the deterministic projection of the result; it is what the
	// model reads (never more than MaxInput tokens).
	View string
	// Digest is the exact result's digest, for the cache.
	Digest string
	// Source reads the exact result, for checking facts.
	Source io.ReaderAt
	// Size is the exact result's size in bytes.
	Size int64
}

// Summary is a valid, verified summary.
type Summary struct {
	// Fields is the summary as the schema shapes it.
	Fields map[string]any `json:"fields"`
	// Facts are the critical facts, each with whether it was checked
	// against the result (a fact that quotes nothing checkable is kept
	// but not marked verified).
	Facts []Fact `json:"facts,omitempty"`
	// Model is the model that wrote it.
	Model string `json:"model"`
	// Latency is how long the model took.
	Latency time.Duration `json:"latency"`
	// InputTokens and OutputTokens are as the endpoint reported them; nil
	// when it did not.
	InputTokens  *int64 `json:"input_tokens,omitempty"`
	OutputTokens *int64 `json:"output_tokens,omitempty"`
	// Attempts lists the models that failed before Model answered.
	Attempts []string `json:"attempts,omitempty"`
	// Cached reports a summary from the cache.
	Cached bool `json:"cached,omitempty"`
}

// Fact is one critical fact of a summary.
type Fact struct {
	Text string `json:"text"`
	// Verified reports that everything the fact quotes occurs verbatim in
	// the result.
	Verified bool `json:"verified"`
	// Quoted lists what was checked.
	Quoted []string `json:"quoted,omitempty"`
}

// Mark is how a view marks the fact: ✓ when verified, · when it quotes
// nothing that could be checked.
func (f Fact) Mark() string {
	if f.Verified {
		return "✓"
	}
	return "·"
}

// Summarizer writes summaries. It is safe for concurrent use.
type Summarizer struct {
	cfg    Config
	schema *jsonschema.Resolved
	call   func(ctx context.Context, model, system, user string) (reply, error)
	cache  *cache
	key    string // the part of the cache key that the configuration decides
}

// reply is what one model call returned.
type reply struct {
	text          string
	input, output *int64
}

// New returns a Summarizer for cfg.
func New(cfg Config) (*Summarizer, error) {
	if len(cfg.Models) == 0 {
		return nil, fmt.Errorf("%w: no models (set CRUMB_SUMMARY_MODELS to a comma-separated ladder)", ErrConfig)
	}
	for _, m := range cfg.Models {
		if strings.TrimSpace(m) == "" {
			return nil, fmt.Errorf("%w: an empty model name in the ladder", ErrConfig)
		}
	}
	if cfg.Timeout < 0 || cfg.MaxInput < 0 || cfg.MaxOutput < 0 || cfg.CacheTTL < 0 {
		return nil, fmt.Errorf("%w: negative timeout, input, output or cache bound", ErrConfig)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxInput == 0 {
		cfg.MaxInput = DefaultMaxInput
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	if len(cfg.Schema) == 0 {
		cfg.Schema = json.RawMessage(DefaultSchema)
	}
	if cfg.Instructions == "" {
		cfg.Instructions = DefaultInstructions
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	var sch jsonschema.Schema
	if err := json.Unmarshal(cfg.Schema, &sch); err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrConfig, err)
	}
	resolved, err := sch.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%w: schema: %v", ErrConfig, err)
	}
	s := &Summarizer{cfg: cfg, schema: resolved}
	switch cfg.API {
	case OpenAI:
		s.call = openaiCaller(cfg)
	case Anthropic:
		s.call = anthropicCaller(cfg)
	default:
		return nil, fmt.Errorf("%w: api %q: want openai or anthropic", ErrConfig, cfg.API)
	}
	if cfg.CacheSize > 0 {
		s.cache = newCache(cfg.CacheSize, cfg.CacheTTL)
	}
	h := sha256.New()
	for _, part := range []string{promptVersion, string(cfg.API), cfg.BaseURL, strings.Join(cfg.Models, ","), string(cfg.Schema), cfg.Instructions, fmt.Sprint(cfg.MaxOutput, ":", cfg.MaxInput)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	s.key = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// promptVersion changes when the prompt does, so that cached summaries of
// an older prompt are not reused.
const promptVersion = "crumb-summary-1"

// MaxInput is the largest result, in tokens, this Summarizer summarizes.
func (s *Summarizer) MaxInput() int { return s.cfg.MaxInput }

// Summarize asks the ladder's models in turn for a summary of req and
// returns the first that is valid and verified. Any error means: show the
// deterministic projection.
func (s *Summarizer) Summarize(ctx context.Context, req Request) (*Summary, error) {
	key := s.key + ":" + req.Digest + ":" + req.Tool + ":" + string(req.Args) + ":" + req.Intent
	if s.cache != nil && req.Digest != "" {
		if sum, ok := s.cache.get(key); ok {
			cp := *sum
			cp.Cached = true
			return &cp, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	system, user := s.prompt(req)
	var errs []error
	var attempts []string
	for _, model := range s.cfg.Models {
		start := time.Now()
		r, err := s.call(ctx, model, system, user)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w after %s (%s): %v", ErrTimeout, s.cfg.Timeout, strings.Join(append(attempts, model), ", "), errors.Join(append(errs, err)...))
		}
		if err == nil {
			var sum *Summary
			sum, err = s.check(r.text, req)
			if err == nil {
				sum.Model, sum.Latency, sum.InputTokens, sum.OutputTokens, sum.Attempts = model, time.Since(start), r.input, r.output, attempts
				if s.cache != nil && req.Digest != "" {
					s.cache.put(key, sum)
				}
				return sum, nil
			}
		}
		errs = append(errs, fmt.Errorf("%s: %w", model, err))
		attempts = append(attempts, model)
	}
	return nil, errors.Join(errs...)
}

// prompt builds the system and user messages: the call, the intent and the
// projected view, bounded by MaxInput.
func (s *Summarizer) prompt(req Request) (system, user string) {
	system = s.cfg.Instructions + "\n\nThe JSON Schema of your answer:\n" + string(s.cfg.Schema)
	var b strings.Builder
	fmt.Fprintf(&b, "Tool: %s\n", req.Tool)
	if len(req.Args) > 0 {
		fmt.Fprintf(&b, "Arguments: %s\n", req.Args)
	}
	if req.Intent != "" {
		fmt.Fprintf(&b, "What the agent is looking for: %s\n", req.Intent)
	}
	view := req.View
	// About four bytes a token; the view is far smaller in practice.
	if limit := s.cfg.MaxInput * 4; len(view) > limit {
		view = view[:limit]
	}
	fmt.Fprintf(&b, "The result (%d bytes; the view below is crumb's projection of it, with omissions marked):\n%s", req.Size, view)
	return system, b.String()
}

// check parses, validates and verifies an answer.
func (s *Summarizer) check(text string, req Request) (*Summary, error) {
	obj, err := parseAnswer(text)
	if err != nil {
		return nil, err
	}
	if err := s.schema.Validate(obj); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	sum := &Summary{Fields: obj}
	if raw, ok := obj["critical_facts"].([]any); ok {
		for _, f := range raw {
			text, ok := f.(string)
			if !ok {
				continue
			}
			sum.Facts = append(sum.Facts, Fact{Text: text, Quoted: quoted(text)})
		}
		if err := verify(sum.Facts, req.Source, req.Size); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// parseAnswer reads a JSON object from a model's answer, allowing the
// Markdown code fence some models put around it and nothing else.
func parseAnswer(text string) (map[string]any, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```json")
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimSuffix(strings.TrimSpace(t), "```")
	}
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(t))
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%w: %.80q", ErrMalformed, text)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: text after the JSON object", ErrMalformed)
	}
	return obj, nil
}
