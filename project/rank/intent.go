// Package rank is the one scorer behind every view: it turns what a call
// says the agent is looking for (its intent) into words, keys and paths,
// finds them in the units of a result (lines, sections, definitions, JSON
// values, paths, test cases), and weighs each unit by signals every kind
// shares: the intent (exact over whole over another form over a part,
// rarer words weighing more), rarity (how often a unit's template occurs),
// severity (error vocabulary and exit status), structure (headings,
// definitions, summaries) and position. Kinds compute the signals of their
// units; they do not bring a ranker of their own.
package rank

import (
	"strings"
	"unicode"
)

// MaxWords bounds the words of an intent that are matched: the levels of
// all of them pack into one Levels value.
const MaxWords = 16

// Word is one word of an intent, lower case: whole, with its stem (its
// inflection dropped) and its prefix (its first 4 letters, so that
// "connections" meets "conn"). Ident marks a word written as an identifier
// ("CallToolResult", "max_size"): it has no stem and no abbreviation.
type Word struct {
	Text, Stem, Prefix string
	Ident              bool
}

// Intent is what a call says the agent is looking for, compiled.
type Intent struct {
	// Raw is the intent as written.
	Raw string
	// Words are its words, lower case, without stop words, words of one
	// letter and words of two that are prose (see Word.Short), at most
	// MaxWords.
	Words []Word
	// Keys are its compound names, lower case, as written: words joined by
	// dots, dashes, at signs or slashes ("lodash.merge", "core-js",
	// "@types/node"). A key met whole, not as part of a longer name, is
	// an exact match.
	Keys []string
	// Paths are the intent's tokens that name files or directories
	// ("net/http/transport.go", "src/utils/"): they select the regions
	// they head.
	Paths []string
}

// Empty reports an intent that names nothing to look for.
func (it *Intent) Empty() bool { return it == nil || len(it.Words) == 0 && len(it.Keys) == 0 }

// Parse compiles an intent.
func Parse(raw string) *Intent {
	it := &Intent{Raw: raw}
	idents := map[string]bool{}
	seenKey := map[string]bool{}
	alone := map[string]bool{} // the tokens written alone, not in a compound key
	for _, f := range strings.Fields(raw) {
		tok := strings.Trim(f, "\"'`()[]{}<>,;:!?")
		tok = strings.TrimRight(tok, ".")
		if isIdentifier(tok) {
			idents[strings.ToLower(tok)] = true
		}
		low := strings.ToLower(tok)
		alone[low] = true
		if len(low) < 3 || !strings.ContainsAny(low, "-./@") || strings.Contains(low, "://") {
			continue
		}
		if isPath(low) {
			it.Paths = append(it.Paths, strings.TrimPrefix(low, "./"))
		}
		if !seenKey[low] && strings.IndexFunc(low, isWordRune) >= 0 {
			seenKey[low] = true
			it.Keys = append(it.Keys, low)
		}
	}
	for _, f := range strings.FieldsFunc(raw, func(r rune) bool { return r >= 0x80 || !IsIdentByte(byte(r)) }) {
		if isIdentifier(f) {
			idents[strings.ToLower(f)] = true
		}
	}
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(raw), func(r rune) bool { return !isWordRune(r) }) {
		if len(w) < 3 && !(shortWord(w) && alone[w]) || StopWord(w) || seen[w] {
			continue
		}
		seen[w] = true
		wd := Word{Text: w, Stem: Stem(w), Prefix: w[:min(4, len(w))], Ident: idents[w]}
		if wd.Ident {
			wd.Stem = w
		}
		it.Words = append(it.Words, wd)
		if len(it.Words) == MaxWords {
			break
		}
	}
	return it
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// isPath reports a token that names a file or a directory: with a slash
// between names, or a name with a short extension ("main.go").
func isPath(tok string) bool {
	if strings.HasPrefix(tok, "@") {
		return false // an npm scope
	}
	if i := strings.Index(tok, "/"); i >= 0 && len(strings.Trim(tok, "/")) > 0 {
		return true
	}
	i := strings.LastIndexByte(tok, '.')
	if i <= 0 || len(tok)-i-1 < 1 || len(tok)-i-1 > 4 {
		return false
	}
	ext := tok[i+1:]
	for _, c := range ext {
		if !unicode.IsLetter(c) {
			return false
		}
	}
	return knownExt[ext]
}

// knownExt are the file extensions that make a dotted token a file name
// rather than a dotted key ("lodash.merge", "os.path").
var knownExt = map[string]bool{
	"go": true, "py": true, "js": true, "ts": true, "tsx": true, "jsx": true, "rs": true, "c": true, "h": true,
	"cc": true, "cpp": true, "hpp": true, "java": true, "kt": true, "rb": true, "sh": true, "md": true, "txt": true,
	"json": true, "yaml": true, "yml": true, "toml": true, "html": true, "css": true, "sql": true, "mod": true,
	"sum": true, "lock": true, "cfg": true, "ini": true, "conf": true, "xml": true, "log": true, "rst": true,
	"mjs": true, "cjs": true, "vue": true, "swift": true, "cs": true, "php": true, "lua": true, "zig": true,
}

// isIdentifier reports a word written as a compound identifier: with an
// upper-case letter after a lower-case one, or an underscore inside.
func isIdentifier(f string) bool {
	for i := 1; i < len(f); i++ {
		if IsUpper(f[i]) && IsLower(f[i-1]) || f[i] == '_' && i < len(f)-1 {
			return true
		}
	}
	return false
}

// stemSuffixes are the endings a stem drops, longest first.
var stemSuffixes = []string{"ations", "ation", "ings", "ions", "ing", "ion", "ies", "ers", "ed", "es", "er", "ly", "s", "e"}

// Stem drops a word's inflection ("connections" → "connect", "refused" →
// "refus"), keeping at least three letters.
func Stem(w string) string {
	for _, s := range stemSuffixes {
		if len(w)-len(s) >= 3 && strings.HasSuffix(w, s) {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

// IsIdentByte reports a byte that may be part of an identifier (any byte
// of a multi-byte UTF-8 sequence counts).
func IsIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// IsUpper, IsLower and IsDigit classify ASCII bytes.
func IsUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// IsLower reports an ASCII lower-case letter.
func IsLower(c byte) bool { return c >= 'a' && c <= 'z' }

// IsDigit reports an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// AppendLower appends b in ASCII lower case (other bytes as they are, so
// that offsets stay the same).
func AppendLower(dst, b []byte) []byte {
	for _, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
