package project

import (
	"bytes"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"testing"
)

// refKeyValueLevel is keyValueLevel the plain way: a search for each key,
// and the spell made anew.
func refKeyValueLevel(line []byte) classify.LevelHit {
	head := line[:min(len(line), 512)]
	for _, key := range classify.KVLevelKeys {
		i := bytes.Index(head, key)
		if i < 0 || (i > 0 && head[i-1] != ' ' && head[i-1] != '\t') {
			continue
		}
		v := head[i+len(key):]
		q := len(v) > 0 && v[0] == '"'
		if q {
			v = v[1:]
		}
		k := 0
		for k < len(v) && classify.LogAlnum(v[k]) {
			k++
		}
		l := classify.LevelWord(v[:k])
		if l == classify.SevNone {
			return classify.LevelHit{}
		}
		if q {
			return classify.LevelHit{Level: l, Spell: string(key) + `"` + string(v[:k]) + `"`}
		}
		return classify.LevelHit{Level: l, Spell: string(key) + string(v[:k]) + `\b`}
	}
	return classify.LevelHit{}
}

// refLevelTokenSpell is the spell levelToken makes anew for a level it
// finds in tok.
func refLevelTokenSpell(tok []byte) string {
	if tok[0] == '[' || tok[0] == '<' || tok[0] == '(' {
		k := 1
		for k < len(tok) && classify.LogAlnum(tok[k]) {
			k++
		}
		return classify.LogQuoteRE(string(tok[:k+1]))
	}
	k := 0
	for k < len(tok) && classify.LogAlnum(tok[k]) {
		k++
	}
	return `\b` + string(tok[:k]) + `\b`
}

// refJSONLevel is jsonLevel making each spell anew.
func refJSONLevel(line []byte) classify.LevelHit {
	head := line
	if len(head) > 2048 {
		head = head[:2048]
	}
	for _, key := range classify.JSONLevelKeys {
		i := bytes.Index(head, key)
		if i < 0 {
			continue
		}
		v := bytes.TrimLeft(head[i+len(key):], " ")
		if len(v) == 0 {
			return classify.LevelHit{}
		}
		if v[0] == '"' {
			e := bytes.IndexByte(v[1:], '"')
			if e < 0 {
				return classify.LevelHit{}
			}
			w := v[1 : 1+e]
			l := classify.LevelWord(w)
			return classify.LevelHit{Level: l, Spell: classify.LogQuoteRE(string(head[i:i+len(key)])) + ` ?"` + classify.LogQuoteRE(string(w)) + `"`}
		}
		n := 0
		k := 0
		for k < len(v) && classify.LogDigit(v[k]) && k < 3 {
			n = n*10 + int(v[k]-'0')
			k++
		}
		if k == 0 {
			return classify.LevelHit{}
		}
		var l classify.Level
		switch {
		case n >= 50:
			l = classify.SevError
		case n >= 40:
			l = classify.SevWarn
		default:
			l = classify.SevInfo
		}
		return classify.LevelHit{Level: l, Spell: classify.LogQuoteRE(string(head[i:i+len(key)])) + " ?" + string(v[:k]) + `\b`}
	}
	return classify.LevelHit{}
}

func checkLevelSpells(t *testing.T, line []byte) {
	t.Helper()
	if got, want := classify.JSONLevel(line), refJSONLevel(line); got != want {
		t.Fatalf("jsonLevel(%q) = %+v, want %+v", line, got, want)
	}
	if got, want := classify.KeyValueLevel(line), refKeyValueLevel(line); got != want {
		t.Fatalf("keyValueLevel(%q) = %+v, want %+v", line, got, want)
	}
	for _, tok := range bytes.Fields(line[:min(len(line), 160)]) {
		for _, first := range []bool{false, true} {
			h := classify.LevelToken(tok, first, first)
			if h.Level == classify.SevNone || len(tok) == 2 && tok[1] == ':' {
				continue
			}
			if want := refLevelTokenSpell(tok); h.Spell != want {
				t.Fatalf("levelToken(%q).spell = %q, want %q", tok, h.Spell, want)
			}
		}
	}
}

// TestLevelSpells checks the levels and spells of the real logs' lines
// against refKeyValueLevel and refLevelTokenSpell, and that finding the
// level of a common line makes no string.
func TestLevelSpells(t *testing.T) {
	for _, f := range logFixtures(t) {
		for _, l := range bytes.Split(f.output, []byte("\n")) {
			checkLevelSpells(t, l)
		}
	}
	for _, line := range []string{
		"2026/11/29 13:35:07 [error] 10255#10255: *1 open() failed",
		"2026-11-29 13:35:39.881 UTC [14646] ERROR:  relation does not exist",
		"time=2026-11-29T13:35:49.779Z level=WARN msg=slow",
		`time=2026-11-29T13:35:49.779Z level="error" msg=slow`,
		"12:00:01 Warning: disk almost full",
		`{"time":"2026-11-29T13:35:44.591966839Z","level":"ERROR","msg":"walk failed"}`,
	} {
		l := []byte(line)
		ll := classify.ClassifyLogLine(l, false)
		if ll.Hit.Level == classify.SevNone || ll.Hit.Spell == "" {
			t.Fatalf("%q: no level found", line)
		}
		if n := testing.AllocsPerRun(100, func() { classify.ClassifyLogLine(l, false) }); n != 0 {
			t.Errorf("classifyLogLine(%q) allocates %v times", line, n)
		}
	}
}

// FuzzLevelSpells checks keyValueLevel and levelToken's spells against the
// plain way on arbitrary lines.
func FuzzLevelSpells(f *testing.F) {
	for _, s := range []string{
		"level=error", "a level=x lvl=warn severity=INFO", `xlevel=error level="Warning"`, "lvl=err level=info",
		`{"level":"error"}`, `{"a":1, "lvl": "Warn"}`, `{"severity":50}`, `{"levelname":"nope"}`, "[error] x", "<Warn> y", "(FATAL) z", "ERROR: boom", "msg=x severity=CRITICAL", "level=",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkLevelSpells(t, line) })
}
