package rank

// Short words: an intent word of two letters ("gc", "io", "db", "os", "ui")
// often is the very thing asked about. Too short to say anything inside a
// longer word ("gc" is in "gcc", "logcat" and "GCflags"), it is met only
// whole: as an identifier of its own or one part of a compound one
// ("dir_gc", "GCStats", "os.Open"), never in another form, as an
// abbreviation or as a piece of a word. It counts only when the intent
// writes it alone: "js" in "core-js" is a piece of a key, not a word.

// Short reports a word of fewer than three letters: it is met whole or
// exactly, never in part (see shortWord).
func (w Word) Short() bool { return len(w.Text) < 3 }

// shortWord reports whether w, a lower-case word of an intent under three
// bytes, is one to match: two ASCII letters or digits, at least one a
// letter, and not a word of prose.
func shortWord(w string) bool {
	if len(w) != 2 || StopWord(w) {
		return false
	}
	letter := false
	for i := 0; i < 2; i++ {
		c := w[i]
		switch {
		case IsLower(c):
			letter = true
		case IsDigit(c):
		default:
			return false
		}
	}
	return letter
}

// shortLevel is the level at which a short word, text, is met in one
// identifier (joined: its parts lower case, without underscores; parts:
// their offsets): whole when the identifier or one of its parts is the
// word, else not at all.
func shortLevel(text, joined []byte, parts [][2]int) Level {
	if string(joined) == string(text) {
		return Whole
	}
	for _, p := range parts {
		if string(joined[p[0]:p[1]]) == string(text) {
			return Whole
		}
	}
	return None
}
