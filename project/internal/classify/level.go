package classify

import (
	"bytes"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/project/rank"
)

// Level is the severity class of a log line.
type Level uint8

const (
	SevNone   Level = iota // no level found
	SevInfo                // trace, debug, info, notice and the like
	SevDetail              // a detail of the record before it (PostgreSQL's DETAIL, HINT, STATEMENT)
	SevWarn                // warnings
	SevError               // errors, and anything worse
	NumSev
)

func (l Level) String() string {
	switch l {
	case SevInfo:
		return "info"
	case SevDetail:
		return "detail"
	case SevWarn:
		return "warning"
	case SevError:
		return "error"
	}
	return "none"
}

// levelWords maps the words logs write their levels with, in upper case, to
// their class.
var levelWords = map[string]Level{
	"TRACE": SevInfo, "DEBUG": SevInfo, "DBG": SevInfo, "DEBUG1": SevInfo, "DEBUG2": SevInfo,
	"INFO": SevInfo, "INF": SevInfo, "NOTICE": SevInfo, "LOG": SevInfo, "VERBOSE": SevInfo,
	"FINE": SevInfo, "FINER": SevInfo, "FINEST": SevInfo, "CONFIG": SevInfo,
	"DETAIL": SevDetail, "HINT": SevDetail, "STATEMENT": SevDetail, "CONTEXT": SevDetail,
	"QUERY": SevDetail, "LOCATION": SevDetail,
	"WARN": SevWarn, "WARNING": SevWarn, "WRN": SevWarn,
	"ERROR": SevError, "ERR": SevError, "FATAL": SevError, "CRITICAL": SevError, "CRIT": SevError,
	"PANIC": SevError, "SEVERE": SevError, "EMERG": SevError, "EMERGENCY": SevError, "ALERT": SevError,
	"FAILURE": SevError,
}

// LevelWord classifies a word as a level: upper case, lower case or
// capitalized spellings of the words above.
func LevelWord(w []byte) Level {
	if len(w) < 3 || len(w) > 9 {
		return SevNone
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
			return SevNone
		}
	}
	// "Error" and "ERROR" and "error", not "eRRor".
	if lower > 0 && upper > 0 && !(upper == 1 && w[0] >= 'A' && w[0] <= 'Z') {
		return SevNone
	}
	return levelWords[string(up[:len(w)])]
}

// LevelHit is where a line's level was found and how it is spelled, so the
// view can say how to search for such lines.
type LevelHit struct {
	Level Level
	// spell is a pattern (RE2) that finds lines of this level written this
	// way: `\bERROR\b`, `level=error\b`, `" 5[0-9][0-9] `.
	Spell string
	// code is the status an access log line reports (404, 502), or 0:
	// lines of one status share templates only among themselves.
	Code uint16
}

// levelOf finds the level of one line. tsEnd is where the line's timestamp
// ends (0 when it has none) and keywords says the log writes no levels, so
// words such as "failed" stand in for them.
func levelOf(line []byte, tsStart, tsEnd int, keywords bool) LevelHit {
	if len(line) == 0 {
		return LevelHit{}
	}
	if line[0] == '{' {
		return JSONLevel(line)
	}
	if h := KeyValueLevel(line); h.Level != SevNone {
		return h
	}
	// glog: "E0501 12:00:00.123456 ..."
	if tsStart == 0 && tsEnd > 0 && len(line) > 5 && isGlogLetter(line[0]) && LogDigit(line[1]) {
		l := SevInfo
		switch line[0] {
		case 'W':
			l = SevWarn
		case 'E', 'F':
			l = SevError
		}
		return LevelHit{Level: l, Spell: "^" + string(line[0]) + `[0-9]{4} `}
	}
	if h := statusLevel(line, tsEnd); h.Level != SevNone {
		return h
	}
	rest := line[tsEnd:]
	// Redis: "1234:M 01 May 2024 12:00:00.123 # message" marks warnings
	// with '#'.
	if tsEnd > 0 && redisPrefix(line[:tsStart]) && len(rest) > 2 && rest[0] == ' ' && rest[2] == ' ' {
		switch rest[1] {
		case '#':
			// Redis's most severe level: an error when it says so.
			if h := keywordIn(rest[3:]); h.Level == SevError {
				return LevelHit{Level: SevError, Spell: `[0-9] # `}
			}
			return LevelHit{Level: SevWarn, Spell: `[0-9] # `}
		case '*', '-', '.':
			return LevelHit{Level: SevInfo, Spell: ""}
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
		if h := LevelToken(tok, w == 0, tsEnd > 0); h.Level != SevNone {
			return h
		}
	}
	if keywords {
		return keywordIn(line[tsEnd:])
	}
	return LevelHit{}
}

// colonWords are level words that are common words too; they count only
// in upper case and followed by a colon, as PostgreSQL writes them.
var colonWords = map[string]bool{"LOG": true, "CONFIG": true, "QUERY": true, "CONTEXT": true, "HINT": true,
	"DETAIL": true, "STATEMENT": true, "LOCATION": true, "FINE": true, "FINER": true, "FINEST": true}

// LevelToken classifies a word near the start of a line as a level:
// "[error]" and "<warn>" in any case; "ERROR", "ERROR:", "ERROR:root:msg"
// in upper case; "error:" and "Warning:" followed by a colon, or, as the
// first word after a timestamp, bare. First on a line, apt's "E:" and "W:"
// count too.
func LevelToken(tok []byte, first, afterTS bool) LevelHit {
	if len(tok) < 2 {
		return LevelHit{}
	}
	if first && !afterTS && len(tok) == 2 && tok[1] == ':' {
		switch tok[0] {
		case 'E':
			return LevelHit{Level: SevError, Spell: "^E: "}
		case 'W':
			return LevelHit{Level: SevWarn, Spell: "^W: "}
		}
	}
	if tok[0] == '[' || tok[0] == '<' || tok[0] == '(' {
		k := 1
		for k < len(tok) && LogAlnum(tok[k]) {
			k++
		}
		if k < len(tok) && (tok[k] == ']' || tok[k] == '>' || tok[k] == ')') {
			w := tok[1:k]
			l := LevelWord(w)
			if l == SevNone || colonWords[string(w)] {
				return LevelHit{}
			}
			return LevelHit{Level: l, Spell: spellOr(levelSpells().bracket, tok[:k+1], func() string { return LogQuoteRE(string(tok[:k+1])) })}
		}
		return LevelHit{}
	}
	k := 0
	upper := true
	for k < len(tok) && LogAlnum(tok[k]) {
		if tok[k] >= 'a' && tok[k] <= 'z' {
			upper = false
		}
		k++
	}
	w := tok[:k]
	l := LevelWord(w)
	if l == SevNone {
		return LevelHit{}
	}
	var sep byte
	if k < len(tok) {
		sep = tok[k]
	}
	switch {
	case colonWords[string(w)]:
		if sep != ':' {
			return LevelHit{}
		}
	case upper:
		if sep != 0 && sep != ':' && sep != '|' && sep != ',' && sep != '-' && sep != ']' {
			return LevelHit{}
		}
	default:
		if sep != ':' && !(sep == 0 && first && afterTS) {
			return LevelHit{}
		}
	}
	return LevelHit{Level: l, Spell: spellOr(levelSpells().word, w, func() string { return `\b` + string(w) + `\b` })}
}

// keywordIn finds the first term of line, in the error vocabulary
// (rank.FirstTerm), that says something failed, went wrong or warns: words
// of their own, not part of a name such as "libgpg-error".
func keywordIn(line []byte) LevelHit {
	if len(line) > 512 {
		line = line[:512]
	}
	class, s, e, ok := rank.FirstTerm(line, rank.ErrorWord|rank.ProblemWord|rank.WarningWord)
	if !ok {
		return LevelHit{}
	}
	l := SevError
	if class == rank.WarningWord {
		l = SevWarn
	}
	return LevelHit{Level: l, Spell: rank.TermPattern(line[s:e])}
}

var JSONLevelKeys = [...][]byte{[]byte(`"level":`), []byte(`"lvl":`), []byte(`"severity":`), []byte(`"log.level":`), []byte(`"levelname":`), []byte(`"loglevel":`)}

// JSONLevel finds the level of a JSON-lines log line: a string such as
// "error", or a number as bunyan and pino write them (50 is an error).
func JSONLevel(line []byte) LevelHit {
	head := line
	if len(head) > 2048 {
		head = head[:2048]
	}
	for n, key := range JSONLevelKeys {
		i := bytes.Index(head, key)
		if i < 0 {
			continue
		}
		v := bytes.TrimLeft(head[i+len(key):], " ")
		if len(v) == 0 {
			return LevelHit{}
		}
		if v[0] == '"' {
			e := bytes.IndexByte(v[1:], '"')
			if e < 0 {
				return LevelHit{}
			}
			w := v[1 : 1+e]
			l := LevelWord(w)
			return LevelHit{Level: l, Spell: spellOr(levelSpells().json[n], w, func() string {
				return LogQuoteRE(string(head[i:i+len(key)])) + ` ?"` + LogQuoteRE(string(w)) + `"`
			})}
		}
		n := 0
		k := 0
		for k < len(v) && LogDigit(v[k]) && k < 3 {
			n = n*10 + int(v[k]-'0')
			k++
		}
		if k == 0 {
			return LevelHit{}
		}
		var l Level
		switch {
		case n >= 50:
			l = SevError
		case n >= 40:
			l = SevWarn
		default:
			l = SevInfo
		}
		return LevelHit{Level: l, Spell: LogQuoteRE(string(head[i:i+len(key)])) + " ?" + string(v[:k]) + `\b`}
	}
	return LevelHit{}
}

var KVLevelKeys = [3][]byte{[]byte("level="), []byte("lvl="), []byte("severity=")}

// kvKeyV holds where the one 'v' of each of KVLevelKeys is.
var kvKeyV = func() (at [len(KVLevelKeys)]int) {
	for n, k := range KVLevelKeys {
		if bytes.Count(k, []byte("v")) != 1 {
			panic("project: a key of kvLevelKeys holds no 'v' or more than one")
		}
		at[n] = bytes.IndexByte(k, 'v')
	}
	return at
}()

// KeyValueLevel finds a logfmt level: level=error.
func KeyValueLevel(line []byte) LevelHit {
	head := line
	if len(head) > 512 {
		head = head[:512]
	}
	if bytes.IndexByte(head, '=') < 0 {
		return LevelHit{}
	}
	// Where each key first occurs, found by the 'v' each holds once: a
	// line may hold many '=' and 'l' but few 'v'.
	var first [len(KVLevelKeys)]int
	for n := range first {
		first[n] = -1
	}
	for from, found := 0, 0; found < len(KVLevelKeys); {
		j := bytes.IndexByte(head[from:], 'v')
		if j < 0 {
			break
		}
		v := from + j
		for n, key := range KVLevelKeys {
			if s := v - kvKeyV[n]; first[n] < 0 && s >= 0 && s+len(key) <= len(head) && bytes.Equal(head[s:s+len(key)], key) {
				first[n] = s
				found++
			}
		}
		from = v + 1
	}
	for n, key := range KVLevelKeys {
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
		for k < len(v) && LogAlnum(v[k]) {
			k++
		}
		l := LevelWord(v[:k])
		if l == SevNone {
			return LevelHit{}
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
		return LevelHit{Level: l, Spell: spell}
	}
	return LevelHit{}
}

// statusLevel finds the status of an access log line (4xx is a warning,
// 5xx an error): the number after the quoted request, as the common log
// format writes it, or Python's http.server "code 404, message ...".
func statusLevel(line []byte, tsEnd int) LevelHit {
	if tsEnd == 0 {
		return LevelHit{}
	}
	rest := line[tsEnd:]
	if len(rest) > 2048 {
		rest = rest[:2048]
	}
	if bytes.HasPrefix(rest, []byte(" code ")) && len(rest) > 10 && LogDigit(rest[6]) && LogDigit(rest[7]) && LogDigit(rest[8]) && rest[9] == ',' {
		return statusHit(rest[6:9], "code ")
	}
	q := bytes.IndexByte(rest, '"')
	if q < 0 || q > 4 {
		return LevelHit{}
	}
	e := bytes.IndexByte(rest[q+1:], '"')
	if e < 0 {
		return LevelHit{}
	}
	s := rest[q+1+e+1:]
	if len(s) >= 4 && s[0] == ' ' && LogDigit(s[1]) && LogDigit(s[2]) && LogDigit(s[3]) && (len(s) == 4 || s[4] == ' ') {
		return statusHit(s[1:4], `" `)
	}
	return LevelHit{}
}

// statusSpells are the patterns that find access log lines of status 4xx
// and 5xx, by what the log writes around the status; made once, not per
// line.
var statusSpells = map[string][2]string{
	`" `:    {LogQuoteRE(`" `) + "4[0-9][0-9]" + LogQuoteRE(" "), LogQuoteRE(`" `) + "5[0-9][0-9]" + LogQuoteRE(" ")},
	"code ": {LogQuoteRE("code ") + "4[0-9][0-9]" + LogQuoteRE(","), LogQuoteRE("code ") + "5[0-9][0-9]" + LogQuoteRE(",")},
}

// statusHit classifies a status: its three digits, and what the log writes
// before them (a key of statusSpells).
func statusHit(digits []byte, pre string) LevelHit {
	code := uint16(digits[0]-'0')*100 + uint16(digits[1]-'0')*10 + uint16(digits[2]-'0')
	switch digits[0] {
	case '5':
		return LevelHit{Level: SevError, Spell: statusSpells[pre][1], Code: code}
	case '4':
		return LevelHit{Level: SevWarn, Spell: statusSpells[pre][0], Code: code}
	}
	return LevelHit{Level: SevInfo, Code: code}
}

func redisPrefix(b []byte) bool {
	// "1234:M "
	if len(b) < 4 || b[len(b)-1] != ' ' || b[len(b)-3] != ':' {
		return false
	}
	for _, c := range b[:len(b)-3] {
		if !LogDigit(c) {
			return false
		}
	}
	return true
}

func isGlogLetter(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }
func LogDigit(c byte) bool     { return c >= '0' && c <= '9' }
func logLetter(c byte) bool    { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func LogAlnum(c byte) bool {
	return logLetter(c) || LogDigit(c)
}

// LogQuoteRE quotes the RE2 metacharacters of s.
func LogQuoteRE(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		if bytes.IndexByte([]byte(`\.+*?()|[]{}^$`), s[i]) >= 0 {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}

// LogLine is what the log view knows of one line.
type LogLine struct {
	TsStart, TsEnd int // the timestamp; tsEnd is 0 when there is none
	// record reports that the line opens a record: it has a timestamp, or
	// it is a JSON object with a time in it.
	Record bool
	Hit    LevelHit
	// skip is the length of the number a tool put before the line (see
	// logFormat.numbered): the miner learns the line without it.
	Skip int
}

// mined returns what the template miner learns of line, classified as
// ll: the line behind its number, and where its timestamp is in that.
func (ll LogLine) Mined(line []byte) (text []byte, tsStart, tsEnd int) {
	if ll.TsEnd == 0 {
		return line[ll.Skip:], 0, 0
	}
	return line[ll.Skip:], ll.TsStart - ll.Skip, ll.TsEnd - ll.Skip
}

var jsonTimeKeys = [][]byte{[]byte(`"time":`), []byte(`"ts":`), []byte(`"timestamp":`), []byte(`"@timestamp":`), []byte(`"t":`), []byte(`"date":`), []byte(`"datetime":`)}

// ClassifyLogLine finds a line's timestamp and level.
func ClassifyLogLine(line []byte, keywords bool) LogLine {
	var ll LogLine
	if len(line) > 0 && line[0] == '{' {
		head := line[:min(len(line), 1024)]
		for _, k := range jsonTimeKeys {
			if bytes.Contains(head, k) {
				ll.Record = true
				break
			}
		}
	} else if s, e, ok := drain.Timestamp(line); ok {
		ll.TsStart, ll.TsEnd, ll.Record = s, e, true
	}
	ll.Hit = levelOf(line, ll.TsStart, ll.TsEnd, keywords)
	return ll
}
