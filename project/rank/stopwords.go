package rank

// stopClass says where a stop word names no evidence.
type stopClass uint8

const (
	// prose is a word of prose, or of asking, in any intent.
	prose stopClass = iota + 1
	// reading is a word that names a log, or the act of reading it,
	// rather than what to find in it.
	reading
)

// stopWords is the one list of the words an intent's words leave out,
// each with where it names no evidence: the words of prose and of asking
// (the two-letter ones among them, which short words of an intent must not
// be), and the words that name a log or the reading of it.
var stopWords = map[string]stopClass{
	"the": prose, "and": prose, "for": prose, "with": prose, "how": prose, "what": prose, "where": prose,
	"why": prose, "when": prose, "are": prose, "does": prose, "this": prose, "that": prose, "from": prose,
	"which": prose, "into": prose, "about": prose, "find": prose, "look": prose, "see": prose, "check": prose,
	"read": prose, "file": prose, "code": prose, "function": prose, "method": prose, "class": prose,
	"understand": prose, "there": prose, "their": prose, "its": prose, "not": prose, "can": prose,
	"should": prose, "would": prose, "will": prose, "was": prose, "were": prose, "has": prose, "have": prose,
	"why's": prose, "is": prose, "it": prose, "of": prose, "to": prose, "in": prose, "on": prose, "be": prose,
	// The two-letter words of English prose.
	"am": prose, "an": prose, "as": prose, "at": prose, "by": prose, "do": prose, "he": prose, "if": prose,
	"me": prose, "my": prose, "no": prose, "or": prose, "so": prose, "up": prose, "us": prose, "we": prose,
	"vs": prose, "eg": prose, "ie": prose, "oh": prose,
	// Words that name the log or the reading of it.
	"log": reading, "logs": reading, "show": reading, "line": reading, "lines": reading, "entry": reading,
	"entries": reading, "output": reading, "print": reading, "display": reading, "view": reading, "did": reading,
	"could": reading, "happen": reading, "happened": reading, "get": reading, "got": reading,
}

// StopWord reports whether w, lower case, names no evidence in any intent.
func StopWord(w string) bool { return stopWords[w] == prose }

// LogStopWord reports whether w, lower case, names no evidence in an intent
// for a log: a stop word, or a word that names the log or the reading of it
// ("log", "lines", "show").
func LogStopWord(w string) bool { return stopWords[w] != 0 }
