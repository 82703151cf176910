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
// bytes (or follows an escaped newline's backslash and letter at the start of
// one), and a run that ends its word has the word's length.
func mayHoldTerm(text []byte) bool {
	v := vocabulary()
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if termByte[c]&termWordByte == 0 {
			if c == '!' && i+1 < n && text[i+1] == '=' {
				return true
			}
			i++
			continue
		}
		s := i
		for i < n && termByte[text[i]]&termWordByte != 0 {
			i++
		}
		// mayStart, called only for a word that starts with a term's first
		// letter or ends like an error type's name.
		if last := text[i-1]; (v.lens[asciiLower(c)] != 0 || last == 'r' || last == 'n') && v.mayStart(text, s, i) {
			return true
		}
		if s > 0 && text[s-1] == '\\' && (c == 'n' || c == 't' || c == 'r') && s+1 < i && v.mayStart(text, s+1, i) {
			return true // nextWord skips the letter of "\n", "\t", "\r"
		}
	}
	return false
}

// mayStart reports whether a word that starts at text[s], a run of word
// bytes up to text[e], might be a term's first word or an error type's name.
func (v *vocab) mayStart(text []byte, s, e int) bool {
	if l := v.lens[asciiLower(text[s])]; l != 0 {
		if e+1 < len(text) && termByte[text[e]]&termJoiner != 0 && termByte[text[e+1]]&termWordByte != 0 {
			return true // the word goes on, to a length not known here
		}
		if e-s < 32 && l&(1<<(e-s)) != 0 {
			return true
		}
	}
	// The last part of a name ErrorName may take.
	last := text[e-1]
	return (last == 'r' || last == 'n') && e-s >= len("Error") && errorSuffix(text[s:e])
}

// errorSuffix reports whether r ends in Error or Exception.
func errorSuffix(r []byte) bool {
	return hasSuffix(r, "Error") || hasSuffix(r, "Exception")
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}
