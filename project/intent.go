package project

import (
	"encoding/json"
	"sort"
	"strings"
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
