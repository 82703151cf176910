package classify

import "sync"

// levelSpellSet holds the spells (see LevelHit) of the ways a log writes a
// level word, each under what the line writes: LevelToken and
// KeyValueLevel find theirs here instead of making a string for every
// line, and make one only for what is not here.
type levelSpellSet struct {
	word    map[string]string                     // "Error" → `\bError\b`
	bracket map[string]string                     // "[error]" → `\[error\]`
	kv      map[string]string                     // "level=error" → `level=error\b`, `level="error` → `level="error"`
	json    [len(JSONLevelKeys)]map[string]string // by key: "error" → `"level": ?"error"`
}

// levelSpells returns the spells, made at the first call.
var levelSpells = sync.OnceValue(func() *levelSpellSet {
	s := &levelSpellSet{word: map[string]string{}, bracket: map[string]string{}, kv: map[string]string{}}
	for n := range s.json {
		s.json[n] = map[string]string{}
	}
	for w := range levelWords {
		for _, f := range levelSpellings(w) {
			s.word[f] = `\b` + f + `\b`
			for _, open := range []string{"[", "<", "("} {
				for _, close := range []string{"]", ">", ")"} {
					s.bracket[open+f+close] = LogQuoteRE(open + f + close)
				}
			}
			for n, key := range JSONLevelKeys {
				s.json[n][f] = LogQuoteRE(string(key)) + ` ?"` + LogQuoteRE(f) + `"`
			}
			for _, key := range KVLevelKeys {
				s.kv[string(key)+f] = string(key) + f + `\b`
				s.kv[string(key)+`"`+f] = string(key) + `"` + f + `"`
			}
		}
	}
	return s
})

// levelSpellings returns the spellings of a level word, given in upper
// case, that LevelWord takes: in upper case, in lower case and capitalized.
func levelSpellings(w string) []string {
	lower := []byte(w)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	capitalized := []byte(string(lower))
	capitalized[0] = w[0]
	return []string{w, string(lower), string(capitalized)}
}

// spellOr returns the spell of spells under key, or make's when there is
// none.
func spellOr(spells map[string]string, key []byte, make func() string) string {
	if s, ok := spells[string(key)]; ok {
		return s
	}
	return make()
}
