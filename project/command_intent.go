package project

import (
	"bytes"
	"strings"
	"unicode"
)

// A command's output ranks by the call's intent too (crumb run --intent,
// the description of Claude Code's Bash call): a line that is no other
// evidence but holds words of the intent, each as a whole word, becomes
// evidence that ranks with the details of failures, higher the more words
// it holds (an identifier, such as EqualFold or max_retries, counting
// twice), below the failures themselves.

// cmdIntentSkip are intent words that say only that a command ran or how:
// they match most lines of most outputs and tell none apart.
var cmdIntentSkip = map[string]bool{
	"run": true, "runs": true, "running": true, "test": true, "tests": true, "testing": true, "command": true,
	"output": true, "build": true, "builds": true, "did": true, "pass": true, "passed": true, "passes": true,
	"all": true, "result": true, "results": true, "show": true, "list": true, "get": true,
}

// cmdIntentWord is a word of the intent and what it weighs.
type cmdIntentWord struct {
	word   string // lower case
	weight int
}

// cmdIntentWords returns the words of an intent that tell lines apart.
func cmdIntentWords(intent string) []cmdIntentWord {
	ident := map[string]bool{}
	for _, f := range strings.FieldsFunc(intent, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		if strings.ContainsAny(f, "_0123456789") || len(f) > 1 && strings.IndexFunc(f[1:], unicode.IsUpper) >= 0 {
			ident[strings.ToLower(f)] = true
		}
	}
	var out []cmdIntentWord
	for _, w := range intentWords(intent) {
		if cmdIntentSkip[w.word] {
			continue
		}
		weight := 1
		if ident[w.word] {
			weight = 2
		}
		out = append(out, cmdIntentWord{w.word, weight})
	}
	return out
}

// cmdIntentMatch scores a line (without its indentation) against the
// intent's words; a zero score when it holds none of them.
func cmdIntentMatch(t []byte, words []cmdIntentWord) cmdMatch {
	if len(words) == 0 {
		return cmdMatch{}
	}
	low := bytes.ToLower(t)
	n := 0
	for _, w := range words {
		if cmdHasWord(low, w.word) {
			n += w.weight
		}
	}
	if n == 0 {
		return cmdMatch{}
	}
	return cmdM(famNone, scoreDetail+int16(min(n-1, 2))*3, 0, 0)
}

// cmdHasWord reports whether w occurs in b with no letter, digit or
// underscore on either side.
func cmdHasWord(b []byte, w string) bool {
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(w))
		if i < 0 {
			return false
		}
		i += from
		end := i + len(w)
		if (i == 0 || !cmdIsWordByte(b[i-1])) && (end == len(b) || !cmdIsWordByte(b[end])) {
			return true
		}
		from = i + 1
	}
}

func cmdIsWordByte(c byte) bool { return cmdIsLetter(c) || cmdIsDigit(c) || c == '_' }
