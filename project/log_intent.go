package project

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
)

// The log view and the intent of a call: when a read says what it is after
// ("when was redis-server installed"), the lines that hold its words are
// evidence, and those that hold its rarest words most of all. The scan finds
// them with a few bytes.Contains per line (a word's stem first, as a
// prefilter for the word), and keeps bounded state: the lines that hold each
// word, and per shape of match (which words, in which template) the count
// and the first and last line. The weights come after the scan, when it is
// known which words are rare.

const (
	// logIntentGroups bounds the shapes of match a scan keeps.
	logIntentGroups = 512
	// logIntentShown bounds the shapes of match a view shows lines of.
	logIntentShown = 8
	// logIntentShare is the least share of the best match's score a shape
	// of match must reach to be shown.
	logIntentShare = 0.4
)

// logIntentKey is one shape of match: the words a line holds (bit 2i: word
// i whole; bit 2i+1: only its stem) and the template the line joined.
type logIntentKey struct {
	mask    uint32
	cluster int
}

// logIntentGroup is what the scan learns of one shape of match.
type logIntentGroup struct {
	key         logIntentKey
	count       int64
	first, last logOcc
}

// logIntent is the intent's part of a scan.
type logIntent struct {
	words  []intentWord
	whole  []int64 // lines that hold word i whole
	stem   []int64 // lines that hold its stem (whole or not)
	lines  int64   // lines that hold any word
	index  map[logIntentKey]int
	groups []logIntentGroup // in the order first seen
	low    []byte           // the line being matched, in lower case
}

// newLogIntent returns the intent state for the words of intent, or nil
// when it has none.
func newLogIntent(intent string) *logIntent {
	words := logIntentWords(intent)
	if len(words) == 0 {
		return nil
	}
	return &logIntent{
		words: words,
		whole: make([]int64, len(words)),
		stem:  make([]int64, len(words)),
		index: map[logIntentKey]int{},
	}
}

// logStopWords are words of an intent that name the log, or the act of
// reading it, rather than what to find in it.
var logStopWords = map[string]bool{
	"log": true, "logs": true, "show": true, "line": true, "lines": true, "entry": true, "entries": true,
	"output": true, "print": true, "display": true, "view": true, "did": true, "could": true, "happen": true,
	"happened": true, "get": true, "got": true,
}

// logIntentWords are an intent's words for a log: those of intentWords
// but the words in logStopWords, and a short plural ("502s", "apis") also
// stands for its singular.
func logIntentWords(intent string) []intentWord {
	var words []intentWord
	for _, w := range intentWords(intent) {
		if logStopWords[w.word] {
			continue
		}
		if n := len(w.word); n >= 4 && n <= 5 && w.word[n-1] == 's' && w.word[n-2] != 's' {
			w.stem = w.word[:n-1]
		}
		words = append(words, w)
	}
	if len(words) > 16 {
		words = words[:16] // two bits each in a mask
	}
	return words
}

// match returns the mask of the words line holds at the start of a word;
// 0 when none. bytes.Contains of each word's stem rules out most lines
// first.
func (it *logIntent) match(line []byte) uint32 {
	if cap(it.low) < len(line) {
		it.low = make([]byte, len(line), max(len(line), 1024))
	}
	low := it.low[:len(line)]
	for i, c := range line {
		low[i] = lowerASCII[c]
	}
	var mask uint32
	for i, w := range it.words {
		if !bytes.Contains(low, []byte(w.stem)) || !hasWordStart(low, w.stem) {
			continue
		}
		it.stem[i]++
		if len(w.word) == len(w.stem) || hasWordStart(low, w.word) {
			it.whole[i]++
			mask |= 1 << (2 * i)
		} else {
			mask |= 2 << (2 * i)
		}
	}
	if mask != 0 {
		it.lines++
	}
	return mask
}

// lowerASCII maps each byte to its lower case, ASCII letters only.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// hasWordStart reports whether w occurs in low at the start of a word:
// "server" in "redis-server", "vers" in "version" but not in "universal",
// "502" in " 502 " but not in "1502".
func hasWordStart(low []byte, w string) bool {
	for i := 0; i+len(w) <= len(low); {
		j := bytes.Index(low[i:], []byte(w))
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !logAlnum(low[at-1]) {
			return true
		}
		i = at + 1
	}
	return false
}

// add records a line that matched: its mask, the template it joined and
// where it is.
func (it *logIntent) add(mask uint32, cluster int, occ logOcc) {
	k := logIntentKey{mask, cluster}
	if i, ok := it.index[k]; ok {
		g := &it.groups[i]
		g.count++
		g.last = occ
		return
	}
	if len(it.groups) >= logIntentGroups {
		return // the words still count the line
	}
	it.index[k] = len(it.groups)
	it.groups = append(it.groups, logIntentGroup{key: k, count: 1, first: occ, last: occ})
}

// weights returns the weight of each word held whole and of each held only
// by its stem: rarer words weigh more (4 and 2 times log2(1 + lines/df)).
func (it *logIntent) weights(total int64) (whole, stem []float64) {
	whole = make([]float64, len(it.words))
	stem = make([]float64, len(it.words))
	n := float64(max(total, 1))
	for i := range it.words {
		if it.whole[i] > 0 {
			whole[i] = 4 * math.Log2(1+n/float64(it.whole[i]))
		}
		if it.stem[i] > 0 {
			stem[i] = 2 * math.Log2(1+n/float64(it.stem[i]))
		}
	}
	return whole, stem
}

// logIntentPick is a shape of match the view shows, with its score.
type logIntentPick struct {
	logIntentGroup
	score float64
}

// best returns the shapes of match worth showing, best first: those whose
// score reaches logIntentShare of the best one's, at most logIntentShown,
// leaving out those whose words are a part of the words of a better one
// (a line that names "gpg-wks-server" when others name "redis-server").
func (it *logIntent) best(total int64) []logIntentPick {
	if it == nil || len(it.groups) == 0 {
		return nil
	}
	whole, stem := it.weights(total)
	picks := make([]logIntentPick, 0, len(it.groups))
	for _, g := range it.groups {
		var s float64
		for i := range it.words {
			switch {
			case g.key.mask&(1<<(2*i)) != 0:
				s += whole[i]
			case g.key.mask&(2<<(2*i)) != 0:
				s += stem[i]
			}
		}
		picks = append(picks, logIntentPick{g, s})
	}
	sort.SliceStable(picks, func(i, j int) bool {
		a, b := picks[i], picks[j]
		if a.score != b.score {
			return a.score > b.score
		}
		return a.first.line < b.first.line
	})
	top := picks[0].score
	var out []logIntentPick
	for _, p := range picks {
		if len(out) >= logIntentShown || p.score < top*logIntentShare {
			break
		}
		w := wordsOf(p.key.mask)
		dominated := false
		for _, q := range out {
			if b := wordsOf(q.key.mask); w&b == w && w != b {
				dominated = true
				break
			}
		}
		if !dominated {
			out = append(out, p)
		}
	}
	return out
}

// wordsOf returns the words a mask holds, whole or by their stems: bit i
// for word i.
func wordsOf(mask uint32) uint32 {
	var w uint32
	for i := 0; i < 16; i++ {
		if mask&(3<<(2*i)) != 0 {
			w |= 1 << i
		}
	}
	return w
}

// rarest returns the words that the best shapes of match hold, the rarest
// first, for the line that names them and the search that finds them.
func (it *logIntent) rarest(picks []logIntentPick) []string {
	var mask uint32
	for _, p := range picks {
		mask |= p.key.mask
	}
	type wc struct {
		word string
		df   int64
	}
	var ws []wc
	for i, w := range it.words {
		switch {
		case mask&(1<<(2*i)) != 0:
			ws = append(ws, wc{w.word, it.whole[i]})
		case mask&(2<<(2*i)) != 0:
			ws = append(ws, wc{w.stem, it.stem[i]})
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].df < ws[j].df })
	if len(ws) > 4 {
		ws = ws[:4]
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.word
	}
	return out
}

// intentSummary is the line that opens the intent's excerpts: the words
// that matched, how many lines hold them, and the search that finds them
// all.
func (v *logView) intentSummary(picks []logIntentPick) string {
	it := v.s.intent
	words := it.rarest(picks)
	if len(words) == 0 {
		return ""
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = `"` + w + `"`
	}
	var n int64
	for _, p := range picks {
		n += p.count
	}
	var b strings.Builder
	b.WriteString("Lines that best match the intent (")
	b.WriteString(strings.Join(quoted, ", "))
	b.WriteString("): ")
	b.WriteString(textfmt.Plural(n, "line"))
	if v.s.sampled {
		b.WriteString(" in the sample")
	}
	if n > int64(len(picks)) {
		fmt.Fprintf(&b, " of %s; the first and the last of each shown below as room allows", textfmt.Plural(int64(len(picks)), "kind"))
	} else {
		b.WriteString(", shown below as room allows")
	}
	// The search: the rarest word, which the best matches hold.
	req := recall.Request{Ref: v.e.in.Ref, Rev: v.e.in.Rev(), Grep: &recall.GrepSpec{Pattern: "(?i)" + logQuoteRE(words[0])}}
	b.WriteString("; find the lines with ")
	b.WriteString(quoted[0])
	b.WriteString(": ")
	b.WriteString(v.e.in.hint(req))
	b.WriteString(":")
	return b.String()
}
