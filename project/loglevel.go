package project

import (
	"bytes"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/project/rank"
)

// logLevel is the severity class of a log line.
type logLevel uint8

const (
	sevNone   logLevel = iota // no level found
	sevInfo                   // trace, debug, info, notice and the like
	sevDetail                 // a detail of the record before it (PostgreSQL's DETAIL, HINT, STATEMENT)
	sevWarn                   // warnings
	sevError                  // errors, and anything worse
	numSev
)

func (l logLevel) String() string {
	switch l {
	case sevInfo:
		return "info"
	case sevDetail:
		return "detail"
	case sevWarn:
		return "warning"
	case sevError:
		return "error"
	}
	return "none"
}

// levelWords maps the words logs write their levels with, in upper case, to
// their class.
var levelWords = map[string]logLevel{
	"TRACE": sevInfo, "DEBUG": sevInfo, "DBG": sevInfo, "DEBUG1": sevInfo, "DEBUG2": sevInfo,
	"INFO": sevInfo, "INF": sevInfo, "NOTICE": sevInfo, "LOG": sevInfo, "VERBOSE": sevInfo,
	"FINE": sevInfo, "FINER": sevInfo, "FINEST": sevInfo, "CONFIG": sevInfo,
	"DETAIL": sevDetail, "HINT": sevDetail, "STATEMENT": sevDetail, "CONTEXT": sevDetail,
	"QUERY": sevDetail, "LOCATION": sevDetail,
	"WARN": sevWarn, "WARNING": sevWarn, "WRN": sevWarn,
	"ERROR": sevError, "ERR": sevError, "FATAL": sevError, "CRITICAL": sevError, "CRIT": sevError,
	"PANIC": sevError, "SEVERE": sevError, "EMERG": sevError, "EMERGENCY": sevError, "ALERT": sevError,
	"FAILURE": sevError,
}

// levelWord classifies a word as a level: upper case, lower case or
// capitalized spellings of the words above.
func levelWord(w []byte) logLevel {
	if len(w) < 3 || len(w) > 9 {
		return sevNone
	}
	var up [9]byte
	lower, upper := 0, 0
	for i, c := range w {
		switch {
		case c >= 'a' && c <= 'z':
			lower++
			up[i] = c - 32
		case c >= 'A' && c <= 'Z':
			upper++
			up[i] = c
		case c >= '0' && c <= '9':
			up[i] = c
		default:
			return sevNone
		}
	}
	// "Error" and "ERROR" and "error", not "eRRor".
	if lower > 0 && upper > 0 && !(upper == 1 && w[0] >= 'A' && w[0] <= 'Z') {
		return sevNone
	}
	return levelWords[string(up[:len(w)])]
}

// levelHit is where a line's level was found and how it is spelled, so the
// view can say how to search for such lines.
type levelHit struct {
	level logLevel
	// spell is a pattern (RE2) that finds lines of this level written this
	// way: `\bERROR\b`, `level=error\b`, `" 5[0-9][0-9] `.
	spell string
	// code is the status an access log line reports (404, 502), or 0:
	// lines of one status share templates only among themselves.
	code uint16
}

// levelOf finds the level of one line. tsEnd is where the line's timestamp
// ends (0 when it has none) and keywords says the log writes no levels, so
// words such as "failed" stand in for them.
func levelOf(line []byte, tsStart, tsEnd int, keywords bool) levelHit {
	if len(line) == 0 {
		return levelHit{}
	}
	if line[0] == '{' {
		return jsonLevel(line)
	}
	if h := keyValueLevel(line); h.level != sevNone {
		return h
	}
	// glog: "E0501 12:00:00.123456 ..."
	if tsStart == 0 && tsEnd > 0 && len(line) > 5 && isGlogLetter(line[0]) && logDigit(line[1]) {
		l := sevInfo
		switch line[0] {
		case 'W':
			l = sevWarn
		case 'E', 'F':
			l = sevError
		}
		return levelHit{level: l, spell: "^" + string(line[0]) + `[0-9]{4} `}
	}
	if h := statusLevel(line, tsEnd); h.level != sevNone {
		return h
	}
	rest := line[tsEnd:]
	// Redis: "1234:M 01 May 2024 12:00:00.123 # message" marks warnings
	// with '#'.
	if tsEnd > 0 && redisPrefix(line[:tsStart]) && len(rest) > 2 && rest[0] == ' ' && rest[2] == ' ' {
		switch rest[1] {
		case '#':
			// Redis's most severe level: an error when it says so.
			if h := keywordIn(rest[3:]); h.level == sevError {
				return levelHit{level: sevError, spell: `[0-9] # `}
			}
			return levelHit{level: sevWarn, spell: `[0-9] # `}
		case '*', '-', '.':
			return levelHit{level: sevInfo, spell: ""}
		}
	}
	// The first few words after the timestamp.
	if len(rest) > 160 {
		rest = rest[:160]
	}
	i := 0
	for w := 0; w < 5 && i < len(rest); w++ {
		for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
			i++
		}
		j := i
		for j < len(rest) && rest[j] != ' ' && rest[j] != '\t' {
			j++
		}
		tok := rest[i:j]
		i = j
		if h := levelToken(tok, w == 0, tsEnd > 0); h.level != sevNone {
			return h
		}
	}
	if keywords {
		return keywordIn(line[tsEnd:])
	}
	return levelHit{}
}

// colonWords are level words that are common words too; they count only
// in upper case and followed by a colon, as PostgreSQL writes them.
var colonWords = map[string]bool{"LOG": true, "CONFIG": true, "QUERY": true, "CONTEXT": true, "HINT": true,
	"DETAIL": true, "STATEMENT": true, "LOCATION": true, "FINE": true, "FINER": true, "FINEST": true}

// levelToken classifies a word near the start of a line as a level:
// "[error]" and "<warn>" in any case; "ERROR", "ERROR:", "ERROR:root:msg"
// in upper case; "error:" and "Warning:" followed by a colon, or, as the
// first word after a timestamp, bare. First on a line, apt's "E:" and "W:"
// count too.
func levelToken(tok []byte, first, afterTS bool) levelHit {
	if len(tok) < 2 {
		return levelHit{}
	}
	if first && !afterTS && len(tok) == 2 && tok[1] == ':' {
		switch tok[0] {
		case 'E':
			return levelHit{level: sevError, spell: "^E: "}
		case 'W':
			return levelHit{level: sevWarn, spell: "^W: "}
		}
	}
	if tok[0] == '[' || tok[0] == '<' || tok[0] == '(' {
		k := 1
		for k < len(tok) && logAlnum(tok[k]) {
			k++
		}
		if k < len(tok) && (tok[k] == ']' || tok[k] == '>' || tok[k] == ')') {
			w := tok[1:k]
			l := levelWord(w)
			if l == sevNone || colonWords[string(w)] {
				return levelHit{}
			}
			return levelHit{level: l, spell: spellOr(levelSpells().bracket, tok[:k+1], func() string { return logQuoteRE(string(tok[:k+1])) })}
		}
		return levelHit{}
	}
	k := 0
	upper := true
	for k < len(tok) && logAlnum(tok[k]) {
		if tok[k] >= 'a' && tok[k] <= 'z' {
			upper = false
		}
		k++
	}
	w := tok[:k]
	l := levelWord(w)
	if l == sevNone {
		return levelHit{}
	}
	var sep byte
	if k < len(tok) {
		sep = tok[k]
	}
	switch {
	case colonWords[string(w)]:
		if sep != ':' {
			return levelHit{}
		}
	case upper:
		if sep != 0 && sep != ':' && sep != '|' && sep != ',' && sep != '-' && sep != ']' {
			return levelHit{}
		}
	default:
		if sep != ':' && !(sep == 0 && first && afterTS) {
			return levelHit{}
		}
	}
	return levelHit{level: l, spell: spellOr(levelSpells().word, w, func() string { return `\b` + string(w) + `\b` })}
}

// keywordIn finds the first term of line, in the error vocabulary
// (rank.FirstTerm), that says something failed, went wrong or warns: words
// of their own, not part of a name such as "libgpg-error".
func keywordIn(line []byte) levelHit {
	if len(line) > 512 {
		line = line[:512]
	}
	class, s, e, ok := rank.FirstTerm(line, rank.ErrorWord|rank.ProblemWord|rank.WarningWord)
	if !ok {
		return levelHit{}
	}
	l := sevError
	if class == rank.WarningWord {
		l = sevWarn
	}
	return levelHit{level: l, spell: rank.TermPattern(line[s:e])}
}

var jsonLevelKeys = [...][]byte{[]byte(`"level":`), []byte(`"lvl":`), []byte(`"severity":`), []byte(`"log.level":`), []byte(`"levelname":`), []byte(`"loglevel":`)}

// jsonLevel finds the level of a JSON-lines log line: a string such as
// "error", or a number as bunyan and pino write them (50 is an error).
func jsonLevel(line []byte) levelHit {
	head := line
	if len(head) > 2048 {
		head = head[:2048]
	}
	for n, key := range jsonLevelKeys {
		i := bytes.Index(head, key)
		if i < 0 {
			continue
		}
		v := bytes.TrimLeft(head[i+len(key):], " ")
		if len(v) == 0 {
			return levelHit{}
		}
		if v[0] == '"' {
			e := bytes.IndexByte(v[1:], '"')
			if e < 0 {
				return levelHit{}
			}
			w := v[1 : 1+e]
			l := levelWord(w)
			return levelHit{level: l, spell: spellOr(levelSpells().json[n], w, func() string {
				return logQuoteRE(string(head[i:i+len(key)])) + ` ?"` + logQuoteRE(string(w)) + `"`
			})}
		}
		n := 0
		k := 0
		for k < len(v) && logDigit(v[k]) && k < 3 {
			n = n*10 + int(v[k]-'0')
			k++
		}
		if k == 0 {
			return levelHit{}
		}
		var l logLevel
		switch {
		case n >= 50:
			l = sevError
		case n >= 40:
			l = sevWarn
		default:
			l = sevInfo
		}
		return levelHit{level: l, spell: logQuoteRE(string(head[i:i+len(key)])) + " ?" + string(v[:k]) + `\b`}
	}
	return levelHit{}
}

var kvLevelKeys = [3][]byte{[]byte("level="), []byte("lvl="), []byte("severity=")}

// kvKeyV holds where the one 'v' of each of kvLevelKeys is.
var kvKeyV = func() (at [len(kvLevelKeys)]int) {
	for n, k := range kvLevelKeys {
		if bytes.Count(k, []byte("v")) != 1 {
			panic("project: a key of kvLevelKeys holds no 'v' or more than one")
		}
		at[n] = bytes.IndexByte(k, 'v')
	}
	return at
}()

// keyValueLevel finds a logfmt level: level=error.
func keyValueLevel(line []byte) levelHit {
	head := line
	if len(head) > 512 {
		head = head[:512]
	}
	if bytes.IndexByte(head, '=') < 0 {
		return levelHit{}
	}
	// Where each key first occurs, found by the 'v' each holds once: a
	// line may hold many '=' and 'l' but few 'v'.
	var first [len(kvLevelKeys)]int
	for n := range first {
		first[n] = -1
	}
	for from, found := 0, 0; found < len(kvLevelKeys); {
		j := bytes.IndexByte(head[from:], 'v')
		if j < 0 {
			break
		}
		v := from + j
		for n, key := range kvLevelKeys {
			if s := v - kvKeyV[n]; first[n] < 0 && s >= 0 && s+len(key) <= len(head) && bytes.Equal(head[s:s+len(key)], key) {
				first[n] = s
				found++
			}
		}
		from = v + 1
	}
	for n, key := range kvLevelKeys {
		i := first[n]
		if i < 0 || (i > 0 && head[i-1] != ' ' && head[i-1] != '\t') {
			continue
		}
		v := head[i+len(key):]
		q := len(v) > 0 && v[0] == '"'
		if q {
			v = v[1:]
		}
		k := 0
		for k < len(v) && logAlnum(v[k]) {
			k++
		}
		l := levelWord(v[:k])
		if l == sevNone {
			return levelHit{}
		}
		written := head[i : i+len(key)+k] // key=value
		if q {
			written = head[i : i+len(key)+1+k] // key="value
		}
		spell := spellOr(levelSpells().kv, written, func() string {
			if q {
				return string(key) + `"` + string(v[:k]) + `"`
			}
			return string(key) + string(v[:k]) + `\b`
		})
		return levelHit{level: l, spell: spell}
	}
	return levelHit{}
}

// statusLevel finds the status of an access log line (4xx is a warning,
// 5xx an error): the number after the quoted request, as the common log
// format writes it, or Python's http.server "code 404, message ...".
func statusLevel(line []byte, tsEnd int) levelHit {
	if tsEnd == 0 {
		return levelHit{}
	}
	rest := line[tsEnd:]
	if len(rest) > 2048 {
		rest = rest[:2048]
	}
	if bytes.HasPrefix(rest, []byte(" code ")) && len(rest) > 10 && logDigit(rest[6]) && logDigit(rest[7]) && logDigit(rest[8]) && rest[9] == ',' {
		return statusHit(rest[6:9], "code ")
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 || q > 4 {
		return levelHit{}
	}
	e := bytes.IndexByte(rest[q+1:], '"')
	if e < 0 {
		return levelHit{}
	}
	s := rest[q+1+e+1:]
	if len(s) >= 4 && s[0] == ' ' && logDigit(s[1]) && logDigit(s[2]) && logDigit(s[3]) && (len(s) == 4 || s[4] == ' ') {
		return statusHit(s[1:4], `" `)
	}
	return levelHit{}
}

// statusSpells are the patterns that find access log lines of status 4xx
// and 5xx, by what the log writes around the status; made once, not per
// line.
var statusSpells = map[string][2]string{
	`" `:    {logQuoteRE(`" `) + "4[0-9][0-9]" + logQuoteRE(" "), logQuoteRE(`" `) + "5[0-9][0-9]" + logQuoteRE(" ")},
	"code ": {logQuoteRE("code ") + "4[0-9][0-9]" + logQuoteRE(","), logQuoteRE("code ") + "5[0-9][0-9]" + logQuoteRE(",")},
}

// statusHit classifies a status: its three digits, and what the log writes
// before them (a key of statusSpells).
func statusHit(digits []byte, pre string) levelHit {
	code := uint16(digits[0]-'0')*100 + uint16(digits[1]-'0')*10 + uint16(digits[2]-'0')
	switch digits[0] {
	case '5':
		return levelHit{level: sevError, spell: statusSpells[pre][1], code: code}
	case '4':
		return levelHit{level: sevWarn, spell: statusSpells[pre][0], code: code}
	}
	return levelHit{level: sevInfo, code: code}
}

func redisPrefix(b []byte) bool {
	// "1234:M "
	if len(b) < 4 || b[len(b)-1] != ' ' || b[len(b)-3] != ':' {
		return false
	}
	for _, c := range b[:len(b)-3] {
		if !logDigit(c) {
			return false
		}
	}
	return true
}

func isGlogLetter(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }
func logDigit(c byte) bool     { return c >= '0' && c <= '9' }
func logLetter(c byte) bool    { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func logAlnum(c byte) bool {
	return logLetter(c) || logDigit(c)
}

// logQuoteRE quotes the RE2 metacharacters of s.
func logQuoteRE(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if bytes.IndexByte([]byte(`\.+*?()|[]{}^$`), s[i]) >= 0 {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// logLine is what the log view knows of one line.
type logLine struct {
	tsStart, tsEnd int // the timestamp; tsEnd is 0 when there is none
	// record reports that the line opens a record: it has a timestamp, or
	// it is a JSON object with a time in it.
	record bool
	hit    levelHit
	// skip is the length of the number a tool put before the line (see
	// logFormat.numbered): the miner learns the line without it.
	skip int
}

// mined returns what the template miner learns of line, classified as
// ll: the line behind its number, and where its timestamp is in that.
func (ll logLine) mined(line []byte) (text []byte, tsStart, tsEnd int) {
	if ll.tsEnd == 0 {
		return line[ll.skip:], 0, 0
	}
	return line[ll.skip:], ll.tsStart - ll.skip, ll.tsEnd - ll.skip
}

var jsonTimeKeys = [][]byte{[]byte(`"time":`), []byte(`"ts":`), []byte(`"timestamp":`), []byte(`"@timestamp":`), []byte(`"t":`), []byte(`"date":`), []byte(`"datetime":`)}

// classifyLogLine finds a line's timestamp and level.
func classifyLogLine(line []byte, keywords bool) logLine {
	var ll logLine
	if len(line) > 0 && line[0] == '{' {
		head := line[:min(len(line), 1024)]
		for _, k := range jsonTimeKeys {
			if bytes.Contains(head, k) {
				ll.record = true
				break
			}
		}
	} else if s, e, ok := drain.Timestamp(line); ok {
		ll.tsStart, ll.tsEnd, ll.record = s, e, true
	}
	ll.hit = levelOf(line, ll.tsStart, ll.tsEnd, keywords)
	return ll
}
