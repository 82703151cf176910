package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// breadcrumbs replaces the large tool results and the attachments of an old
// message by breadcrumbs, storing each exactly first. It returns the edit
// and the refs of what it stored, one per part replaced.
func (c *Compactor) breadcrumbs(ctx context.Context, m *message, calls map[string]toolCall, cost int) (edit, []store.Ref, error) {
	e := edit{parts: map[int]json.RawMessage{}}
	var refs []store.Ref
	for _, r := range m.results {
		if len(r.content) == 0 || isBreadcrumb(r.content) {
			continue
		}
		body, kind := resultBytes(r.content)
		tc, hasCall := calls[r.callID]
		size := cost
		if r.block >= 0 || len(m.results) > 1 {
			size = c.tokensOf(body)
		}
		if size <= c.opts.BreadcrumbOver && countMedia(r.content) == 0 {
			continue
		}
		meta := store.Meta{Kind: kind, Tool: tc.name}
		if hasCall && json.Valid(tc.args) {
			meta.Args = tc.args
		}
		ref, err := c.put(ctx, body, meta)
		if err != nil {
			return edit{}, nil, err
		}
		text := jsonString(c.breadcrumb(tc, hasCall, body, kind, size, ref, r.isError))
		if r.block < 0 {
			e.content = text
		} else {
			bo, err := m.part(r.block)
			if err != nil {
				return edit{}, nil, err
			}
			e.parts[r.block] = bo.with("content", text).marshal()
		}
		refs = append(refs, ref)
	}
	if m.media > 0 && e.content == nil {
		parts, err := parseArray(m.obj.get("content"))
		if err != nil {
			return edit{}, nil, err
		}
		for i, p := range parts {
			po, err := parseObject(p)
			if err != nil || !isMediaBlock(po) {
				continue
			}
			ref, err := c.put(ctx, p, store.Meta{Kind: "json", Tool: "history." + po.str("type")})
			if err != nil {
				return edit{}, nil, err
			}
			note := fmt.Sprintf("[crumb: an earlier %s attachment (%s of JSON), kept as ref %s; read it with: %s]",
				po.str("type"), sizeText(len(p)), ref, c.hintFor(ref))
			e.parts[i] = textBlock(note)
			refs = append(refs, ref)
		}
	}
	return e, refs, nil
}

// resultBytes returns what is stored of a tool result: the text itself when
// the content is a string, else the content's JSON.
func resultBytes(content json.RawMessage) ([]byte, string) {
	if len(content) > 0 && content[0] == '"' {
		var s string
		if json.Unmarshal(content, &s) == nil {
			return []byte(s), "text"
		}
	}
	return content, "json"
}

// breadcrumbMark starts every breadcrumb, so that a thread compacted again
// leaves its breadcrumbs as they are.
const breadcrumbMark = "[crumb breadcrumb]"

func isBreadcrumb(content json.RawMessage) bool {
	return bytes.HasPrefix(content, []byte(`"`+breadcrumbMark))
}

// breadcrumb is the text that stands for a tool result: the call, what it
// found, where it is kept and the read that recovers it.
func (c *Compactor) breadcrumb(tc toolCall, hasCall bool, body []byte, kind string, size int, ref store.Ref, isErr bool) string {
	var b strings.Builder
	b.WriteString(breadcrumbMark + " ")
	if hasCall {
		b.WriteString(tc.name)
		if len(tc.args) > 0 {
			b.WriteByte(' ')
			b.WriteString(textfmt.Clip(string(tc.args), 300, "…"))
		}
	} else {
		b.WriteString("tool result")
	}
	b.WriteString("\n")
	if isErr {
		b.WriteString("the tool reported an error\n")
	}
	if found := foundLine(body, kind); found != "" {
		b.WriteString("found: " + found + "\n")
	}
	fmt.Fprintf(&b, "kept: %s (%s, %s) as ref %s", plural(size, "token"), sizeText(len(body)), plural(lineCount(body), "line"), ref)
	if src := viewRef(body); src != "" && src != string(ref) {
		fmt.Fprintf(&b, "; it was itself a crumb view of ref %s", src)
	}
	fmt.Fprintf(&b, "\nread it with: %s", c.hintFor(ref))
	return b.String()
}

func (c *Compactor) hintFor(ref store.Ref) string {
	return c.opts.Hint(recall.Request{Ref: ref})
}

// foldData is messages [first, end) as they came, as a JSON array: what a
// summary block keeps in the store.
func (t *thread) foldData(first, end int) []byte {
	raws := make([]json.RawMessage, 0, end-first)
	for i := first; i < end; i++ {
		raws = append(raws, t.msgs[i].raw)
	}
	return joinArray(raws)
}

// fold returns the summary block that stands for messages [first, end),
// which take tokens as they came. The block names the ref the messages are
// kept as; the caller stores them when the block is sent (a block only
// weighed against the budget needs no store). A summarizer writes it when
// summarize is set, else the digest does. A Compactor writes each
// block once: a thread compacted again gets the same block, even when a
// summarizer would now answer differently.
func (c *Compactor) fold(ctx context.Context, t *thread, first, end, tokens int, summarize bool) (foldBlock, error) {
	// The block depends on the messages and on where they start; the key
	// names them by their digests, so a block already made costs no copy
	// and no hash of what it stands for.
	h := sha256.New()
	for i := first; i < end; i++ {
		h.Write(t.msgs[i].sum[:])
	}
	key := fmt.Sprintf("%d:%d:%x", first, end, h.Sum(nil))
	blk, err := cached(c, c.folds, key, func() (foldBlock, error) {
		data := t.foldData(first, end)
		return c.newFold(ctx, t, first, end, tokens, data, store.Sum(data), summarize)
	})
	if err != nil {
		return foldBlock{}, err
	}
	blk.first, blk.end = first, end
	return blk, nil
}

func (c *Compactor) newFold(ctx context.Context, t *thread, first, end, tokens int, data []byte, sum string, summarize bool) (foldBlock, error) {
	ref := store.RefOf(sum)
	f := Fold{First: first, Last: end - 1, Ref: ref, Tokens: tokens}
	head := fmt.Sprintf("[crumb summary of messages %d-%d (%s, %s), kept exactly as ref %s (a JSON array of the messages); read them with: %s]",
		first+1, end, plural(end-first, "message"), plural(tokens, "token"), ref, c.hintFor(ref))
	if end-first == 1 {
		head = fmt.Sprintf("[crumb summary of message %d (%s), kept exactly as ref %s (a JSON array of that one message); read it with: %s]",
			end, plural(tokens, "token"), ref, c.hintFor(ref))
	}
	digest := c.digest(t, first, end, c.opts.FoldTokens-c.opts.Counter.Count(head))
	text := digest
	if c.opts.Summarizer != nil && summarize {
		// The summarizer's answer is cached beside the messages.
		if _, err := c.put(ctx, data, store.Meta{Kind: "json", Tool: "history.fold"}); err != nil {
			return foldBlock{}, err
		}
		raws := make([]json.RawMessage, 0, end-first)
		for i := first; i < end; i++ {
			raws = append(raws, t.msgs[i].raw)
		}
		s, err := c.summarize(ctx, t.format, raws, digest, ref)
		switch {
		case err != nil:
			f.Fallback, f.Err = true, err.Error()
		default:
			text, f.Summarized = s, true
		}
	}
	tb := textBlock(head + "\n" + text)
	return foldBlock{fold: f, text: tb, cost: c.opts.Counter.Count(string(tb)) + 1}, nil
}

// summaryAttr is the annotation under which a summarizer's answer for a
// fold is cached in the store, beside the folded messages.
const summaryAttr = "history.summary"

func (c *Compactor) summarize(ctx context.Context, f Format, raws []json.RawMessage, digest string, ref store.Ref) (string, error) {
	if info, err := c.opts.Store.Stat(ctx, ref); err == nil {
		if s := info.Attrs[summaryAttr]; s != "" {
			return s, nil
		}
	}
	s, err := c.opts.Summarizer.Summarize(ctx, SummaryRequest{Format: f, Messages: raws, Digest: digest, MaxTokens: c.opts.FoldTokens})
	if err != nil {
		return "", fmt.Errorf("summarizer: %w", err)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("summarizer: empty summary")
	}
	if n := c.opts.Counter.Count(s); n > c.opts.FoldTokens {
		return "", fmt.Errorf("summarizer: summary of %d tokens is over its bound of %d", n, c.opts.FoldTokens)
	}
	if a, ok := c.opts.Store.(store.Annotator); ok {
		_ = a.Annotate(ctx, ref, map[string]string{summaryAttr: s})
	}
	return s, nil
}

// textBlock is a content part of type text, the same in both formats.
func textBlock(text string) json.RawMessage {
	return newObject("type", jsonString("text"), "text", jsonString(text)).marshal()
}

// placeSummary adds the running summary, one text block per fold, to msgs
// (the anchor as it is sent), to go before message next of the thread. It
// goes where both APIs take it: user and assistant messages still take
// turns (the Messages API's turns alternate, and it combines two user
// messages in a row into one turn whose order crumb would then not set),
// and no tool result moves away from the call it answers:
//
//   - before an assistant message (or anything but a user message), its
//     blocks are appended to the content of the task's own user message,
//     after the task's text, so that a new fold only appends to it; merged
//     reports this;
//   - before a user message, which the task's message would then meet, they
//     are an assistant message of their own between the two: a recap of
//     what was done, in the one role that may stand there.
//
// The summary is not put in a system prompt (OpenAI's system or developer
// message, Anthropic's top-level system): the digest quotes tool results,
// text nobody vouches for, which those places would give the weight of the
// caller's instructions; a bare messages array has no system field; and
// the system prompt comes before the task, so each fold would change the
// prefix that prompt caches keep.
func (p *plan) placeSummary(msgs, blocks []json.RawMessage, next int) (out []json.RawMessage, merged bool) {
	beforeUser := p.t.msgs[next].role == "user"
	if !beforeUser && p.anchorEnd > 0 {
		task := p.t.msgs[p.anchorEnd-1]
		if parts, ok := contentParts(task.obj.get("content")); ok {
			parts = append(parts, blocks...)
			msgs[p.anchorEnd-1] = task.obj.with("content", joinArray(parts)).marshal()
			return msgs, true
		}
	}
	role := "user"
	if beforeUser {
		role = "assistant"
	}
	return append(msgs, newObject("role", jsonString(role), "content", joinArray(blocks)).marshal()), false
}

// contentParts returns a message's content as a list of parts: a string as
// one text part (which both APIs read the same as the string), a list as
// it is, and no content as none. It reports false for anything else.
func contentParts(content json.RawMessage) ([]json.RawMessage, bool) {
	switch {
	case len(content) == 0 || string(content) == "null":
		return nil, true
	case content[0] == '"':
		var s string
		if json.Unmarshal(content, &s) != nil {
			return nil, false
		}
		return []json.RawMessage{textBlock(s)}, true
	case content[0] == '[':
		parts, err := parseArray(content)
		return parts, err == nil
	}
	return nil, false
}
