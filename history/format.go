package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
)

// Format names a provider's message shape.
type Format string

// The message shapes Compact reads and writes.
const (
	// Auto detects the shape from the messages: tool_calls and role "tool"
	// are OpenAI's, tool_use and tool_result blocks Anthropic's. A thread
	// with neither is read as OpenAI's, which for plain text messages is
	// the same shape.
	Auto Format = ""
	// OpenAI is the chat-completions shape: messages with a role (system,
	// developer, user, assistant, tool), string or part-list content,
	// tool_calls on assistant messages and tool_call_id on tool messages.
	OpenAI Format = "openai"
	// Anthropic is the Messages API shape: user and assistant messages whose
	// content is a string or a list of blocks (text, image, tool_use,
	// tool_result, ...).
	Anthropic Format = "anthropic"
)

// ParseFormat parses a format name: "openai", "anthropic", or "" / "auto".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "openai", "chat", "chat-completions":
		return OpenAI, nil
	case "anthropic", "messages", "claude":
		return Anthropic, nil
	}
	return "", fmt.Errorf("%w: unknown format %q (want openai, anthropic or auto)", ErrInput, s)
}

// message is one message of a thread, read far enough to compact it.
type message struct {
	obj  object
	raw  json.RawMessage   // the message as it came, compact
	sum  [sha256.Size]byte // raw's SHA-256, which names it in the caches
	role string
	// calls are the tool calls the message makes.
	calls []toolCall
	// results are the tool results it carries.
	results []toolResult
	// answer is set when the message does nothing but answer tool calls
	// (an OpenAI tool message, an Anthropic user message of tool_result
	// blocks): it belongs with the message that made the calls.
	answer bool
	// media counts image (and other attachment) parts outside tool results.
	media int
}

type toolCall struct {
	id, name string
	args     json.RawMessage
}

// toolResult is one tool result inside a message.
type toolResult struct {
	callID string
	// block is the index of the tool_result block in the message's content,
	// or -1 when the result is the message's own content (OpenAI).
	block   int
	content json.RawMessage
	isError bool
}

// detect reads the format from the messages.
func detect(msgs []json.RawMessage) Format {
	for _, raw := range msgs {
		switch {
		case bytes.Contains(raw, []byte(`"tool_calls"`)), bytes.Contains(raw, []byte(`"tool_call_id"`)),
			bytes.Contains(raw, []byte(`"image_url"`)):
			return OpenAI
		case bytes.Contains(raw, []byte(`"tool_use"`)), bytes.Contains(raw, []byte(`"tool_result"`)):
			return Anthropic
		}
	}
	for _, raw := range msgs {
		if o, err := parseObject(raw); err == nil {
			switch o.str("role") {
			case "system", "developer", "tool":
				return OpenAI
			}
		}
	}
	return OpenAI
}

// parseMessage reads one message in format f.
func parseMessage(raw json.RawMessage, f Format, i int) (*message, error) {
	o, err := parseUnique(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: message %d: %v", ErrInput, i, err)
	}
	m := &message{obj: o, raw: o.marshal(), role: o.str("role")}
	m.sum = sha256.Sum256(m.raw)
	if m.role == "" {
		return nil, fmt.Errorf("%w: message %d has no role", ErrInput, i)
	}
	switch f {
	case Anthropic:
		err = m.readAnthropic()
	default:
		err = m.readOpenAI()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: message %d: %v", ErrInput, i, err)
	}
	return m, nil
}

func (m *message) readOpenAI() error {
	if m.role == "tool" {
		m.answer = true
		m.results = []toolResult{{callID: m.obj.str("tool_call_id"), block: -1, content: m.obj.get("content")}}
		return nil
	}
	if tc := m.obj.get("tool_calls"); len(tc) > 0 && tc[0] == '[' {
		var calls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		}
		if err := json.Unmarshal(tc, &calls); err != nil {
			return fmt.Errorf("tool_calls: %v", err)
		}
		for _, c := range calls {
			args := json.RawMessage(c.Function.Arguments)
			if !json.Valid(args) {
				args = jsonString(c.Function.Arguments)
			}
			m.calls = append(m.calls, toolCall{id: c.ID, name: c.Function.Name, args: args})
		}
	}
	m.media = countMedia(m.obj.get("content"))
	return nil
}

func (m *message) readAnthropic() error {
	content := m.obj.get("content")
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	blocks, err := parseArray(content)
	if err != nil {
		return fmt.Errorf("content: %v", err)
	}
	onlyResults := len(blocks) > 0
	for i, b := range blocks {
		bo, err := parseUnique(b)
		if err != nil {
			return fmt.Errorf("content block %d: %v", i, err)
		}
		switch bo.str("type") {
		case "tool_use", "server_tool_use", "mcp_tool_use":
			m.calls = append(m.calls, toolCall{id: bo.str("id"), name: bo.str("name"), args: bo.get("input")})
			onlyResults = false
		case "tool_result", "mcp_tool_result":
			isErr := string(bo.get("is_error")) == "true"
			m.results = append(m.results, toolResult{callID: bo.str("tool_use_id"), block: i, content: bo.get("content"), isError: isErr})
		default:
			if isMediaBlock(bo) {
				m.media++
			}
			onlyResults = false
		}
	}
	m.answer = m.role == "user" && onlyResults
	return nil
}

// mediaTypes are the content part types that carry an attachment rather
// than text.
var mediaTypes = map[string]bool{
	"image": true, "image_url": true, "input_image": true,
	"input_audio": true, "audio": true, "file": true, "document": true,
}

func isMediaBlock(o object) bool { return mediaTypes[o.str("type")] }

// countMedia counts the attachment parts of a content value.
func countMedia(content json.RawMessage) int {
	if len(content) == 0 || content[0] != '[' {
		return 0
	}
	parts, err := parseArray(content)
	if err != nil {
		return 0
	}
	n := 0
	for _, p := range parts {
		if o, err := parseObject(p); err == nil && isMediaBlock(o) {
			n++
		}
	}
	return n
}

// contentText returns the readable text of a content value: the string
// itself, or the text of its text parts, one per line. Attachments are
// named by type.
func contentText(content json.RawMessage) string {
	if len(content) == 0 {
		return ""
	}
	switch content[0] {
	case '"':
		var s string
		_ = json.Unmarshal(content, &s)
		return s
	case '[':
		parts, err := parseArray(content)
		if err != nil {
			return ""
		}
		var b strings.Builder
		for _, p := range parts {
			o, err := parseObject(p)
			if err != nil {
				continue
			}
			t := o.str("type")
			var s string
			switch {
			case t == "text" || t == "input_text" || t == "output_text":
				s = o.str("text")
			case t == "tool_result":
				s = contentText(o.get("content"))
			case mediaTypes[t]:
				s = "[" + t + "]"
			}
			if s == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s)
		}
		return b.String()
	}
	return ""
}

// edit is a change to one message: its whole content replaced (an OpenAI
// tool message), or some elements of its content list replaced.
type edit struct {
	content json.RawMessage
	parts   map[int]json.RawMessage
}

// apply returns the message with e applied.
func (m *message) apply(e edit) (json.RawMessage, error) {
	if e.content != nil {
		return m.obj.with("content", e.content).marshal(), nil
	}
	if len(e.parts) == 0 {
		return m.raw, nil
	}
	parts, err := parseArray(m.obj.get("content"))
	if err != nil {
		return nil, err
	}
	for i, p := range e.parts {
		parts[i] = p
	}
	return m.obj.with("content", joinArray(parts)).marshal(), nil
}

// part returns element i of the message's content list.
func (m *message) part(i int) (object, error) {
	parts, err := parseArray(m.obj.get("content"))
	if err != nil {
		return object{}, err
	}
	if i < 0 || i >= len(parts) {
		return object{}, fmt.Errorf("content part %d of %d", i, len(parts))
	}
	return parseObject(parts[i])
}
