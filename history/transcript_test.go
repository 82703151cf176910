package history_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/bench"
	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/store"
)

// toolTurn is one tool call of a transcript and what it returned: crumb's
// own first view of a corpus case (what an agent behind crumb keeps in its
// history), or the raw output for cases small enough to pass through.
type toolTurn struct {
	tool   string
	args   json.RawMessage
	result string
	images []image // images the tool returned, kept as image blocks
	isErr  bool
}

var (
	turnsOnce sync.Once
	turnsVal  []toolTurn
	turnsErr  error
)

// corpusTurns projects every corpus case once with the Guard and returns
// the tool turns, in the corpus's order.
func corpusTurns(t testing.TB) []toolTurn {
	t.Helper()
	turnsOnce.Do(func() {
		cases, err := bench.LoadCorpus(filepath.Join("..", "testdata", "corpus"))
		if err != nil {
			turnsErr = err
			return
		}
		dir, err := os.MkdirTemp("", "crumb-history-corpus-")
		if err != nil {
			turnsErr = err
			return
		}
		st, err := store.OpenDir(dir, store.DirOptions{})
		if err != nil {
			turnsErr = err
			return
		}
		g, err := crumb.New(crumb.Config{Store: st})
		if err != nil {
			turnsErr = err
			return
		}
		sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
		for _, c := range cases {
			v, err := g.Project(context.Background(), crumb.Result{Tool: c.Tool, Args: c.Args, Kind: crumb.Kind(c.Kind), Body: c.Output, ExitCode: c.ExitCode, Command: c.Command})
			if err != nil {
				turnsErr = fmt.Errorf("%s: %w", c.Name, err)
				return
			}
			tt := toolTurn{tool: c.Tool, args: c.Args, result: v.Text, isErr: c.ExitCode != nil && *c.ExitCode != 0}
			if c.Name == "binary-png" {
				tt.images = []image{{mime: "image/png", data: base64.StdEncoding.EncodeToString(c.Output)}}
			}
			if c.Kind == "mcp" {
				tt.result, tt.images = mcpContent(v.Text)
			}
			if len(tt.args) == 0 {
				tt.args = json.RawMessage(`{}`)
			}
			turnsVal = append(turnsVal, tt)
		}
	})
	if turnsErr != nil {
		t.Fatalf("corpus turns: %v", turnsErr)
	}
	return turnsVal
}

type image struct{ mime, data string }

// mcpContent splits a projected CallToolResult into its text and its
// images, as an agent's MCP client hands them to the model.
func mcpContent(view string) (string, []image) {
	var r struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MimeType string `json:"mimeType"`
		} `json:"content"`
	}
	if json.Unmarshal([]byte(view), &r) != nil || len(r.Content) == 0 {
		return view, nil
	}
	var text []string
	var imgs []image
	for _, b := range r.Content {
		switch b.Type {
		case "image":
			imgs = append(imgs, image{mime: b.MimeType, data: b.Data})
		case "text":
			text = append(text, b.Text)
		default:
			raw, _ := json.Marshal(b)
			text = append(text, string(raw))
		}
	}
	return strings.Join(text, "\n"), imgs
}

// transcript builds an agent thread of n tool turns in format f: a system
// message (OpenAI) or none (Anthropic, whose system prompt is outside the
// messages), the task, then per turn an assistant message with a line of
// reasoning and one tool call, and the tool's result. Every tenth turn the
// agent reports and the user answers. User and assistant messages take
// turns (an OpenAI tool message, or a user message with images after it,
// stands between two assistant messages). It returns the request body.
func transcript(t testing.TB, f history.Format, n int) []byte {
	t.Helper()
	turns := corpusTurns(t)
	var msgs []any
	if f == history.OpenAI {
		msgs = append(msgs, map[string]any{"role": "system", "content": "You are a coding agent. Use the tools to inspect and fix the repository."})
	}
	msgs = append(msgs, map[string]any{"role": "user", "content": "The CI run of crumb fails. Find out why, fix it, and make every test pass."})
	for i := 0; i < n; i++ {
		tt := turns[i%len(turns)]
		id := fmt.Sprintf("call_%03d", i)
		thought := fmt.Sprintf("Step %d: I will run %s to look at the next piece of evidence.", i+1, tt.tool)
		switch f {
		case history.OpenAI:
			msgs = append(msgs, map[string]any{
				"role": "assistant", "content": thought,
				"tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tt.tool, "arguments": string(tt.args)}}},
			})
			msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": id, "content": tt.result})
			if tt.images != nil {
				parts := []any{map[string]any{"type": "text", "text": "The images the tool returned:"}}
				for _, im := range tt.images {
					parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:" + im.mime + ";base64," + im.data}})
				}
				msgs = append(msgs, map[string]any{"role": "user", "content": parts})
			}
		case history.Anthropic:
			var args any
			_ = json.Unmarshal(tt.args, &args)
			msgs = append(msgs, map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": thought},
				map[string]any{"type": "tool_use", "id": id, "name": tt.tool, "input": args},
			}})
			var content any = tt.result
			if tt.images != nil {
				parts := []any{map[string]any{"type": "text", "text": tt.result}}
				for _, im := range tt.images {
					parts = append(parts, map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": im.mime, "data": im.data}})
				}
				content = parts
			}
			block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}
			if tt.isErr {
				block["is_error"] = true
			}
			msgs = append(msgs, map[string]any{"role": "user", "content": []any{block}})
		}
		if i%10 == 9 {
			// The agent reports and ends its turn; the user answers. User
			// and assistant take turns, as both APIs expect.
			msgs = append(msgs, map[string]any{"role": "assistant", "content": "So far the evidence points at the failing package."})
			msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("Progress check %d: good, keep going.", i/10+1)})
		}
	}
	body := map[string]any{"model": "test-model", "max_tokens": 4096, "messages": msgs}
	if f == history.Anthropic {
		body["system"] = "You are a coding agent."
	}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var fixture = flag.String("fixture", "", "write a 16-turn transcript in each format to `DIR` (for cmd/crumb's script tests) and stop")

func TestWriteFixture(t *testing.T) {
	if *fixture == "" {
		t.Skip("-fixture DIR writes the transcripts cmd/crumb's script tests use")
	}
	for _, f := range formats {
		if err := os.WriteFile(filepath.Join(*fixture, "thread-"+string(f)+".json"), transcript(t, f, 16), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
