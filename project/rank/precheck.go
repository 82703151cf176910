package rank

// A cheap test before the vocabulary's scan: most lines a tool prints hold
// no term ("restocked item 38: 43 units"), and telling so needs no words
// split and looked up one by one. mayHoldTerm walks the text once by a
// table of byte classes and looks at each run of word bytes only as much as
// the vocabulary needs: the first byte and length of a word, and whether it
// ends like an error type's name.

// The classes of bytes mayHoldTerm tells apart, in termByte.
const (
	termWordByte = 1 << iota // a letter, digit or '_' (isWordByte)
	termJoiner               // '-', '.', '/', '$' or an apostrophe: may join a word to the next
)

// termByte is the class of each byte, for mayHoldTerm.
var termByte = func() (t [256]uint8) {
	for c := range 256 {
		if isWordByte(byte(c)) {
			t[c] |= termWordByte
		}
	}
	for _, c := range []byte("-./$'") {
		t[c] |= termJoiner
	}
	return t
}()

// mayHoldTerm reports whether scanTerms might meet a term of the vocabulary
// in text, or an error type's name. When it returns false, scanTerms meets
// none, whatever the lead: every word nextWord finds starts a run of word
// bytes that starts here too (a backslash and the letter of "\n", "\t" or
// "\r" part them alike), and a run that ends its word has the word's
// length.
func mayHoldTerm(text []byte) bool {
	v := vocabulary()
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if termByte[c]&termWordByte == 0 {
			switch {
			case c == '!' && i+1 < n && text[i+1] == '=':
				return true
			case c == '\\' && i+1 < n && (text[i+1] == 'n' || text[i+1] == 't' || text[i+1] == 'r'):
				i++ // an escaped newline or tab, as nextWord reads it
			}
			i++
			continue
		}
		s := i
		for i < n && termByte[text[i]]&termWordByte != 0 {
			i++
		}
		// A term's first word: its first letter and length, or a word
		// that goes on past a joiner, to a length not known here.
		if l := v.lens[asciiLower(c)]; l != 0 && (i-s < 32 && l&(1<<(i-s)) != 0 || joinedAfter(text, i)) {
			return true
		}
		// The last part of a name ErrorName may take.
		if last := text[i-1]; (last == 'r' || last == 'n') && errorSuffix(text[s:i]) {
			return true
		}
	}
	return false
}

// joinedAfter reports whether the byte at e joins a word to the next one.
func joinedAfter(text []byte, e int) bool {
	return e+1 < len(text) && termByte[text[e]]&termJoiner != 0 && termByte[text[e+1]]&termWordByte != 0
}

// errorSuffix reports whether r ends in Error or Exception.
func errorSuffix(r []byte) bool {
	return hasSuffix(r, "Error") || hasSuffix(r, "Exception")
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}
