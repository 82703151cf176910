package project

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/recall"
)

// Call is what the arguments of the call that produced a result ask for,
// read once for every projector (see Input.Call): the file or directory it
// names, the lines, symbol or pattern a read asks for, and the intent that
// names what the next decision needs. Malformed or unknown arguments leave
// its fields empty; they only steer the view.
type Call struct {
	// Path is the file or directory the call names ("path", "file_path",
	// a file:// "uri", ...), "" when it names none.
	Path string
	// HasRange reports a line range: From and To in the file's numbering,
	// inclusive, To 0 for "to the end"; Tail > 0 asks for the last lines.
	HasRange bool
	From, To int64
	Tail     int64
	// Symbol is the definition a read asks for ("symbol", "function", or a
	// "name" that is not a file's).
	Symbol string
	// Pattern is what a search asks for ("pattern", "regex", "query", ...),
	// and IgnoreCase whether it ignores case.
	Pattern    string
	IgnoreCase bool
	// Intent is what the call says it is looking for (see intentKeys).
	Intent string

	args args // every argument, by normalised name
}

// HasIntent reports whether the call asked for something in particular: a
// range, a symbol, a pattern or an intent.
func (a Call) HasIntent() bool {
	return a.HasRange || a.Tail > 0 || a.Symbol != "" || a.Pattern != "" || a.Intent != ""
}

// Arg returns the first of the named arguments (normalised by argKey, as
// "file_path" is "filepath") that is a non-blank string, trimmed; "" when
// none is.
func (a Call) Arg(keys ...string) string { return a.args.str(keys...) }

// Paths returns the paths the call's arguments list: the strings of the
// first argument (by normalised name, in sorted order) that is an array of
// two or more strings, each on one line and not blank.
func (c Call) Paths() []string {
	a := c.args
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var list []string
		if json.Unmarshal(a[k], &list) != nil || len(list) < 2 {
			continue
		}
		ok := true
		for _, s := range list {
			if strings.TrimSpace(s) == "" || strings.ContainsAny(s, "\n\r") {
				ok = false
			}
		}
		if ok {
			return list
		}
	}
	return nil
}

// RawArg returns the argument of the given normalised name as the call
// wrote it, nil when there is none.
func (c Call) RawArg(key string) json.RawMessage { return c.args[key] }

// callCache is the Call an Input's arguments were parsed into, with the
// arguments it was parsed from.
type callCache struct {
	args json.RawMessage
	call Call
}

// Call returns what the call's arguments ask for. Project parses them once
// for the whole projection; an Input whose Args were changed since (a
// carrier handing on part of its result with arguments of its own) is
// parsed anew.
func (in *Input) Call() Call {
	if c := in.call; c != nil && bytes.Equal(c.args, in.Args) {
		return c.call
	}
	return ParseCall(in.Args)
}

// ParseCall reads what a call's arguments ask for. Unknown or malformed
// arguments are ignored: they only steer the view.
func ParseCall(raw json.RawMessage) Call {
	var a Call
	args := normArgs(raw)
	if args == nil {
		return a
	}
	a.args = args
	str := args.str
	num := func(keys ...string) (int64, bool) {
		for _, k := range keys {
			if n, ok := jsonInt(args[k]); ok {
				return n, true
			}
		}
		return 0, false
	}
	a.Path = str("path", "filepath", "filename", "file", "targetfile", "relativepath", "absolutepath", "uri", "target")
	a.Path = strings.TrimPrefix(a.Path, "file://")

	for _, k := range []string{"viewrange", "linerange", "range", "lines"} {
		if f, t, ok := jsonRange(args[k]); ok {
			a.HasRange, a.From, a.To = true, f, t
			break
		}
	}
	if !a.HasRange {
		if f, ok := num("startline", "linestart", "fromline"); ok {
			a.HasRange, a.From = true, max(f, 1)
			if t, ok := num("endline", "lineend", "toline"); ok && t >= f {
				a.To = t
			}
		} else if t, ok := num("endline"); ok && t > 0 {
			a.HasRange, a.From, a.To = true, 1, t
		}
	}
	if !a.HasRange {
		if f, ok := num("offset"); ok && f >= 0 {
			a.HasRange, a.From = true, max(f, 1)
			if n, ok := num("limit"); ok && n > 0 {
				a.To = a.From + n - 1
			}
		} else if n, ok := num("limit"); ok && n > 0 {
			a.HasRange, a.From, a.To = true, 1, n
		}
	}
	if !a.HasRange {
		if f, t, ok := jsonRange(args["line"]); ok {
			a.HasRange, a.From, a.To = true, f, t
		} else if n, ok := num("head"); ok && n > 0 {
			a.HasRange, a.From, a.To = true, 1, n
		} else if n, ok := num("tail"); ok && n > 0 {
			a.HasRange, a.Tail = true, n
		}
	}
	a.Symbol = str("symbol", "symbolname", "function", "functionname", "definition")
	if a.Symbol == "" {
		if n := str("name"); looksLikeSymbol(n) {
			a.Symbol = n
		}
	}
	a.Pattern = str("pattern", "regex", "regexp", "grep", "query", "search")
	for _, k := range []string{"ignorecase", "caseinsensitive", "i", "nocase"} {
		var b bool
		if json.Unmarshal(args[k], &b) == nil && b {
			a.IgnoreCase = true
		}
	}
	a.Intent = str(intentKeys...)
	return a
}

// jsonInt reads a whole number, or a string that holds one.
func jsonInt(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil && f == float64(int64(f)) {
		return int64(f), true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

// jsonRange reads a line range: [a, b] (b = -1 for "to the end"), "A:B",
// "A-B", "A:" or a single line.
func jsonRange(raw json.RawMessage) (from, to int64, ok bool) {
	if len(raw) == 0 {
		return 0, 0, false
	}
	var pair []json.RawMessage
	if json.Unmarshal(raw, &pair) == nil {
		if len(pair) != 2 {
			return 0, 0, false
		}
		a, ok1 := jsonInt(pair[0])
		b, ok2 := jsonInt(pair[1])
		if !ok1 || !ok2 || a < 1 && a != 0 {
			return 0, 0, false
		}
		if b < 0 {
			b = 0
		} else if b < a {
			return 0, 0, false
		}
		return max(a, 1), b, true
	}
	if n, ok := jsonInt(raw); ok && n > 0 {
		return n, n, true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, 0, false
	}
	span, err := recall.ParseSpan(s)
	if err != nil || span.From < 1 || span.To != 0 && span.To < span.From {
		return 0, 0, false
	}
	return span.From, span.To, true
}

// looksLikeSymbol reports whether a "name" argument names a symbol rather
// than a file: an identifier, possibly qualified, without a file extension.
func looksLikeSymbol(s string) bool {
	if s == "" || len(s) > 200 || strings.ContainsAny(s, "/\\ ") {
		return false
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		if _, ok := langByExt[strings.ToLower(s[i:])]; ok {
			return false
		}
		switch strings.ToLower(s[i:]) {
		case ".txt", ".json", ".yaml", ".yml", ".toml", ".html", ".css", ".xml", ".csv", ".log", ".cfg", ".ini", ".lock", ".sum", ".mod":
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '(' || unicode.IsLetter(r)
}

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
// "description", "question", ...), or "": ParseCall(raw).Intent, without
// reading the rest.
func IntentOf(raw json.RawMessage) string { return normArgs(raw).str(intentKeys...) }
