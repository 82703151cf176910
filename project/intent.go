package project

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"

	"github.com/crumb-dev/crumb/project/rank"
)

// Intent: what a call's arguments say the agent is looking for. A read's
// "intent", a shell command's "description" (as Claude Code's Bash tool
// writes one), a "question" or a "goal" name what the next decision needs;
// every projector may use them to rank what it shows.

// intentKeys are the argument names (normalised by argKey) that carry an
// intent, the first present winning.
var intentKeys = []string{"intent", "purpose", "reason", "question", "goal", "why", "lookingfor", "description"}

// argKey normalises an argument name: "file_path", "filePath" and "FilePath"
// are the same key.
func argKey(k string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(k))
}

// args holds a call's arguments by normalised name.
type args map[string]json.RawMessage

// normArgs reads a call's arguments; nil when they are not a JSON object.
// Of two spellings of one name, the first in sorted order wins, so the
// result does not depend on map order.
func normArgs(raw json.RawMessage) args {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := args{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := out[argKey(k)]; !ok {
			out[argKey(k)] = m[k]
		}
	}
	return out
}

// str returns the first of the named arguments that is a non-blank string,
// trimmed.
func (a args) str(keys ...string) string {
	for _, k := range keys {
		var s string
		if json.Unmarshal(a[k], &s) == nil && strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// IntentOf returns the intent a call's arguments carry ("intent",
// "description", "question", ...), or "".
func IntentOf(raw json.RawMessage) string { return intentOf(raw) }

// intentOf returns the intent a call's arguments carry, or "".
func intentOf(raw json.RawMessage) string {
	return normArgs(raw).str(intentKeys...)
}

// intentWord is one word of an intent: whole, and its stem (at most its
// first 4 letters, so that "connections" meets "conn").
type intentWord struct{ word, stem string }

// intentWords splits an intent into its lower-case words, without stop
// words (rank.StopWords) and words under 3 letters. Only the command
// projector's matcher still uses it; every other kind matches through
// project/rank.
func intentWords(s string) []intentWord {
	var out []intentWord
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if len(w) < 3 || rank.StopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		stem := w
		if len(stem) > 4 {
			stem = stem[:4]
		}
		out = append(out, intentWord{w, stem})
	}
	if len(out) > 12 {
		out = out[:12]
	}
	return out
}
