package rank

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The error vocabulary: the words with which tools, runtimes, compilers,
// test runners and logs say that something went wrong, warn, or note. It
// is the one list every surface reads a line's trouble from (command
// output, test streams, logs, an MCP server's standard error, a digest of
// a conversation); what a surface adds is where it looks (a message after
// its location, the first word of a log line), not words of its own.
//
// A term is met as a word of its own: "error" in "error: x", "Error:",
// "level=error" and "ERROR", not in "stderr", "errors.New", "src/error.rs",
// "libgpg-error", "non-fatal" or "--fail-fast", which name things. Words
// joined by '-', '.', '/' or '$' make one name. A zero count takes a
// term back ("0 failed", "no errors", "failures=0"), and a line of a
// compiler's optimisation report is a note whatever code it quotes.

// Words is the set of the classes of the terms met in a text.
type Words uint8

// The classes of terms.
const (
	// ErrorWord: error, failed, panic, fatal, exception, traceback, an
	// error type's name (ValueError, java.io.IOException) and a non-zero
	// exit status.
	ErrorWord Words = 1 << iota
	// ProblemWord: what went wrong, in words that name no error: cannot,
	// denied, not found, no such, undefined, invalid, missing, timed out.
	ProblemWord
	// AssertWord: what a test's assertion says it wanted and got: want,
	// got, expected, unexpected, !=. Alone they report no trouble; in a
	// message at a location ("x_test.go:12: got 1, want 2") they are a
	// failed assertion's, and come with ProblemWord.
	AssertWord
	// WarningWord: warning, deprecated.
	WarningWord
	// NoteWord: a note of a compiler's optimisation report (can inline,
	// escapes to heap, inlining call to). A text that holds one is a note
	// and nothing else.
	NoteWord
)

// Severity is how strongly a text whose terms are w reports trouble: an
// error for an error's words, a warning for a warning's, else an error for
// a problem's words; a notice for a compiler's note.
func (w Words) Severity() Severity {
	switch {
	case w&NoteWord != 0:
		return Notice
	case w&ErrorWord != 0:
		return Error
	case w&WarningWord != 0:
		// "warning: too many arguments for format": the words of a
		// problem in a warning's message do not make it an error.
		return Warning
	case w&ProblemWord != 0:
		return Error
	}
	return Quiet
}

// LineSeverity is how strongly one line reports trouble, by the error
// vocabulary.
func LineSeverity(text []byte) Severity { return WordsOf(text).Severity() }

// WordsOf returns the classes of the vocabulary's terms met in text. A
// line that opens with a location ("x.go:3:5: ...") is read as a located
// message, as MessageWords reads what follows the location.
func WordsOf(text []byte) Words { return wordsOf(text, messageStart(text)) }

// MessageWords is WordsOf for the message of a located line, the text after
// its "file:line:col:", which a caller has cut off: an assertion's words in
// it are a failed assertion's, and the notes that open a message count.
func MessageWords(msg []byte) Words { return wordsOf(msg, 0) }

// wordsOf returns the classes of the terms met in text whose message starts
// at lead, or -1 when it is not located.
func wordsOf(text []byte, lead int) Words {
	if !mayHoldTerm(text) {
		return 0
	}
	var w Words
	scanTerms(text, lead, func(c Words, _, _ int) bool {
		if c == NoteWord {
			w = NoteWord
			return false
		}
		w |= c
		return true
	})
	return w
}

// FirstTerm finds the first term in text of one of the classes: its class
// and where it stands, text[start:end]; ok is false when there is none. A
// compiler's note hides the terms of the text it is met in, as in WordsOf.
func FirstTerm(text []byte, classes Words) (class Words, start, end int, ok bool) {
	notes := false
	scanTerms(text, messageStart(text), func(c Words, s, e int) bool {
		if c == NoteWord {
			notes = true
			return false
		}
		if c&classes != 0 && !ok {
			class, start, end, ok = c, s, e, true
		}
		return true
	})
	if notes && classes&NoteWord == 0 {
		return 0, 0, 0, false
	}
	return class, start, end, ok
}

// TermPattern returns an RE2 pattern, in any case, that finds the term
// text[start:end] (as FirstTerm gives it) where the vocabulary meets it: as
// words of their own, not inside a name ("error" in "error: x" but not in
// "libgpg-error" or "src/error.rs"), spaces or tabs between its words.
func TermPattern(term []byte) string {
	var words []string
	for i := 0; ; {
		s, e := nextWord(term, i)
		if s < 0 {
			break
		}
		words = append(words, regexp.QuoteMeta(strings.ToLower(string(term[s:e]))))
		i = e
	}
	if len(words) == 0 {
		return regexp.QuoteMeta(string(term))
	}
	p := `(?i)` + strings.Join(words, `[ \t]+`)
	// Before a word: the start, a byte that is neither a word's nor a
	// joiner, or a joiner that follows no word. After it: the end, or a
	// byte or joiner that no word follows. "!=" needs neither.
	if isWordByte(term[0]) {
		p = `(?i)(^|[^\w.\-/$]|(^|\W)[.\-/$])` + p[len(`(?i)`):]
	}
	if isWordByte(term[len(term)-1]) {
		p += `($|[^\w.\-/$']|[.\-/$'](\W|$))`
	}
	return p
}

// ErrorName reports whether name is an error type's: a Go, Python,
// JavaScript or Java name, maybe qualified, whose last part is a
// capitalised word that ends in Error or Exception after something else
// ("ValueError", "os.PathError", "java.lang.IllegalStateException"; not
// "Error" alone, "isError" or "ERROR").
func ErrorName(name []byte) bool {
	if n := len(name); n < 6 || name[n-1] != 'r' && name[n-1] != 'n' {
		return false
	}
	last := name
	for i := len(name) - 1; i >= 0; i-- {
		if c := name[i]; c == '.' || c == '$' {
			last = name[i+1:]
			break
		}
	}
	if len(last) == 0 || last[0] < 'A' || last[0] > 'Z' {
		return false
	}
	for _, c := range last {
		if !isAlnum(c) && c != '_' {
			return false
		}
	}
	for _, suffix := range [...]string{"Error", "Exception"} {
		if len(last) > len(suffix) && string(last[len(last)-len(suffix):]) == suffix {
			return true
		}
	}
	return false
}

// A term is a word, or words in a row, of one class. lead terms count only
// as the first word of the message after a location (the Go compiler's
// "x.go:3:5:   from &x (address-of) at x.go:4:2" and "flow:" lines of
// -m=2), not in other text ("Flow failed to start"); count terms need a
// non-zero number after them ("exit status 1").
type term struct {
	rest  []string // the words after the first
	class Words
	lead  bool
	count bool
}

// firstWord is a word that terms start with, and those terms, longest
// first.
type firstWord struct {
	word  string
	terms []term
}

// vocab is the error vocabulary by the first byte of each term's first
// word, lower-cased: a few words a byte, compared without a copy, and the
// lengths of those words, a bit each.
type vocab struct {
	first [256][]firstWord
	lens  [256]uint32
}

// lookup returns the terms whose first word is w, in any case.
func (v *vocab) lookup(w []byte) []term {
	c := asciiLower(w[0])
	if len(w) >= 32 || v.lens[c]&(1<<len(w)) == 0 {
		return nil
	}
	fs := v.first[c]
	for i := range fs {
		if f := &fs[i]; len(f.word) == len(w) && equalLower(w, f.word) {
			return f.terms
		}
	}
	return nil
}

// equalLower reports whether w, lower-cased, is lw.
func equalLower(w []byte, lw string) bool {
	for i := 0; i < len(w); i++ {
		if asciiLower(w[i]) != lw[i] {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// vocabulary is the error vocabulary.
var vocabulary = sync.OnceValue(func() *vocab {
	m := map[string][]term{}
	add := func(class Words, flag string, phrases ...string) {
		for _, p := range phrases {
			words := splitWords(p)
			t := term{rest: words[1:], class: class, lead: flag == "lead", count: flag == "count"}
			list := append(m[words[0]], t)
			// Longest first, so "cannot inline" is met before "cannot".
			for i := len(list) - 1; i > 0 && len(list[i].rest) > len(list[i-1].rest); i-- {
				list[i], list[i-1] = list[i-1], list[i]
			}
			m[words[0]] = list
		}
	}
	add(ErrorWord, "",
		"error", "errors", "errored", "fail", "fails", "failed", "failing", "failure", "failures",
		"fatal", "panic", "panics", "panicked", "exception", "exceptions", "traceback",
		"segmentation fault")
	add(ErrorWord, "count", "exit status", "exit code")
	add(ProblemWord, "",
		"cannot", "can't", "could not", "couldn't", "unable", "denied", "refused", "not found", "no such",
		"timed out", "undefined", "undeclared", "unresolved", "redeclared", "not declared", "not defined",
		"not used", "invalid", "missing", "unknown", "mismatch", "mismatched", "too many", "not enough",
		"no field or method")
	add(AssertWord, "", "want", "wanted", "wants", "got", "expected", "unexpected", "!=")
	add(WarningWord, "", "warning", "warnings", "warn", "warned", "deprecated", "deprecation")
	// The Go compiler's optimisation report (go build -gcflags=-m, -m=2):
	// inlining and escape analysis, which name no level of their own.
	add(NoteWord, "",
		"can inline", "cannot inline", "inlining call to", "leaking param", "leaking param content",
		"moved to heap", "ignoring self-assignment", "devirtualizing", "zero-copy string",
		"does not escape", "escapes to heap", "leaks to", "capturing by")
	add(NoteWord, "lead", "flow", "from", "found call")
	v := new(vocab)
	for w, terms := range m {
		v.first[w[0]] = append(v.first[w[0]], firstWord{w, terms})
		v.lens[w[0]] |= 1 << len(w)
	}
	for i := range v.first {
		// In one order, whatever the map's.
		slices.SortFunc(v.first[i], func(a, b firstWord) int { return strings.Compare(a.word, b.word) })
	}
	return v
})

// splitWords splits a term into its words.
func splitWords(p string) []string {
	var out []string
	b := []byte(p)
	for i := 0; ; {
		s, e := nextWord(b, i)
		if s < 0 {
			return out
		}
		out = append(out, string(b[s:e]))
		i = e
	}
}

// isNegation reports a word that, before a term, says there is none of it:
// "0 failed", "no errors", "without warnings".
func isNegation(w []byte) bool {
	switch len(w) {
	case 1:
		return w[0] == '0'
	case 2:
		return equalLower(w, "no")
	case 4:
		return equalLower(w, "zero")
	case 7:
		return equalLower(w, "without")
	}
	return false
}

// maxWord bounds the words looked up: longer ones are names.
const maxWord = 16

// scanTerms calls fn with each term met in text, in order, with its class
// and span, until fn returns false. lead is where the message of a located
// line starts, -1 when the text is not one.
func scanTerms(text []byte, lead int, fn func(class Words, start, end int) bool) {
	voc := vocabulary()
	negated := false // the word before says there is none, and only spaces part them
	for i := 0; ; {
		s, e := nextWord(text, i)
		if s < 0 {
			return
		}
		i = e
		neg := negated
		negated = false
		var terms []term
		if e-s <= maxWord {
			terms = voc.lookup(text[s:e])
		}
		if len(terms) == 0 {
			if ErrorName(text[s:e]) && !fn(ErrorWord, s, e) {
				return
			}
			negated = isNegation(text[s:e]) && spaceOnly(text, e, min(len(text), e+1))
			continue
		}
		for _, t := range terms {
			if t.lead && !(lead >= 0 && s >= lead && spaceOnly(text, lead, s)) {
				continue
			}
			end, ok := matchRest(text, e, t.rest)
			if !ok {
				continue
			}
			if t.count {
				ns, ne := nextWord(text, end)
				if ns < 0 || !spaceOnly(text, end, ns) || !nonZero(text[ns:ne]) {
					continue
				}
				end = ne
			}
			i = end
			if t.class != NoteWord && (neg || zeroAfter(text, end)) {
				break
			}
			class := t.class
			if class == AssertWord && lead >= 0 {
				// "x_test.go:12: got 1, want 2": an assertion's words in a
				// message at a location are a failed assertion's.
				class |= ProblemWord
			}
			if !fn(class, s, end) {
				return
			}
			break
		}
	}
}

// messageStart is where a line's message starts: after the location of a
// diagnostic ("x.go:3:5: ", "<autogenerated>:1: "); -1 when it opens with
// none.
func messageStart(text []byte) int {
	i := 0
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	c := i
	for c < len(text) && text[c] != ':' && text[c] != ' ' {
		c++
	}
	if c == i || c+1 >= len(text) || text[c] != ':' {
		return -1
	}
	j := c + 1
	for n := 0; n < 2 && j < len(text) && '0' <= text[j] && text[j] <= '9'; n++ {
		for j < len(text) && '0' <= text[j] && text[j] <= '9' {
			j++
		}
		if j >= len(text) || text[j] != ':' {
			return -1
		}
		j++
	}
	if j == c+1 {
		return -1
	}
	return j
}

// matchRest reports whether the words of rest follow text[at:], each after
// spaces, and where the last ends.
func matchRest(text []byte, at int, rest []string) (int, bool) {
	for _, w := range rest {
		s, e := nextWord(text, at)
		if s < 0 || s == at || !spaceOnly(text, at, s) || e-s != len(w) || !equalLower(text[s:e], w) {
			return 0, false
		}
		at = e
	}
	return at, true
}

// zeroAfter reports a count of zero right after a term: "fail 0",
// "failures=0", "errors: 0".
func zeroAfter(text []byte, at int) bool {
	i := at
	for i < len(text) && (text[i] == ' ' || text[i] == ':' || text[i] == '=' || text[i] == '\t') {
		i++
	}
	if i == at || i >= len(text) || text[i] != '0' {
		return false
	}
	return i+1 == len(text) || !isAlnum(text[i+1])
}

// nonZero reports whether a word is a number other than zero.
func nonZero(w []byte) bool {
	z := true
	for _, c := range w {
		if c < '0' || c > '9' {
			return false
		}
		z = z && c == '0'
	}
	return !z
}

// spaceOnly reports whether text[from:to] holds spaces and tabs only.
func spaceOnly(text []byte, from, to int) bool {
	for _, c := range text[from:to] {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// nextWord finds the next word of text at or after i: a run of letters,
// digits, '_' and apostrophes inside it ("can't"), with '-', '.', '/' and
// '$' between such bytes joining it into one name; or "!=". An escaped
// newline or tab (a backslash and n, t or r) parts words. It returns -1 when there is
// none.
func nextWord(text []byte, i int) (start, end int) {
	for ; i < len(text); i++ {
		c := text[i]
		if isWordByte(c) {
			break
		}
		if c == '!' && i+1 < len(text) && text[i+1] == '=' {
			return i, i + 2
		}
		if c == '\\' && i+1 < len(text) && (text[i+1] == 'n' || text[i+1] == 't' || text[i+1] == 'r') {
			i++ // an escaped newline or tab, as JSON and C strings write them
		}
	}
	if i >= len(text) {
		return -1, -1
	}
	start = i
	for i < len(text) {
		c := text[i]
		switch {
		case isWordByte(c):
			i++
		case (c == '-' || c == '.' || c == '/' || c == '$' || c == '\'') && i+1 < len(text) && isWordByte(text[i+1]):
			if c == '\'' && !isLetter(text[i-1]) {
				return start, i
			}
			i++
		default:
			return start, i
		}
	}
	return start, i
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }

func isAlnum(c byte) bool { return isLetter(c) || c-'0' < 10 }

func isLetter(c byte) bool { return (c|0x20)-'a' < 26 }
