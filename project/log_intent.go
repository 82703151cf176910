package project

import (
	"fmt"
	"sort"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/recall"
)

// The log view and the intent of a call: when a read says what it is after
// ("when was redis-server installed"), the lines that hold its words are
// evidence, and those that hold its rarest words most of all. Each line is
// matched with the shared matcher (rank.Matcher), whose one-pass filter
// rules out most lines; the scan keeps bounded state: per shape of match
// (the levels at which the words are met, and the template the line
// joined) the count and the first and last line, and the lines that hold
// each word (rank.Stats). The weights come after the scan, when it is known
// which words are rare.

const (
	// logIntentGroups bounds the shapes of match a scan keeps.
	logIntentGroups = 512
	// logIntentShown bounds the shapes of match a view shows lines of.
	logIntentShown = 8
	// logIntentShare is the least share of the best match's score a shape
	// of match must reach to be shown.
	logIntentShare = 0.4
)

// logIntentKey is one shape of match: the levels at which a line meets the
// words (and the keys it holds whole), and the template the line joined.
type logIntentKey struct {
	lv      rank.Levels
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
	m      *rank.Matcher
	st     *rank.Stats // the lines that hold each word; those that hold none are added at the end
	index  map[logIntentKey]int
	groups []logIntentGroup // in the order first seen
}

// newLogIntent returns the intent state for the words of intent, or nil
// when it has none.
func newLogIntent(intent string) *logIntent {
	it := rank.Parse(intent).Without(func(w rank.Word) bool { return rank.LogStopWord(w.Text) })
	if it.Empty() {
		return nil
	}
	m := rank.NewMatcher(it)
	return &logIntent{m: m, st: rank.NewStats(m), index: map[logIntentKey]int{}}
}

// match returns the levels at which line meets the words; 0 when it meets
// none, or there is no intent.
func (it *logIntent) match(line []byte) rank.Levels {
	if it == nil {
		return 0
	}
	lv := it.m.Levels(line)
	if lv != 0 {
		it.st.Add(lv)
	}
	return lv
}

// add records a line that matched: its mask, the template it joined and
// where it is.
func (it *logIntent) add(lv rank.Levels, cluster int, occ logOcc) {
	k := logIntentKey{lv, cluster}
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

// logIntentPick is a shape of match the view shows, with its score.
type logIntentPick struct {
	logIntentGroup
	score float64
}

// best returns the shapes of match worth showing, best first: those whose
// score (rank.Stats over the total lines) reaches logIntentShare of the best
// one's, at most logIntentShown, leaving out those whose words are a part
// of the words of a better one (a line that names "gpg-wks-server" when
// others name "redis-server").
func (it *logIntent) best(total int64) []logIntentPick {
	if it == nil || len(it.groups) == 0 {
		return nil
	}
	it.st.AddUnmatched(total - it.st.Units())
	picks := make([]logIntentPick, 0, len(it.groups))
	for _, g := range it.groups {
		picks = append(picks, logIntentPick{g, it.st.Score(g.key.lv)})
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
		w := p.key.lv.Words(rank.Part)
		dominated := false
		for _, q := range out {
			if b := q.key.lv.Words(rank.Part); w&b == w && w != b {
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

// rarest returns what the best shapes of match hold, for the line that
// names them and the search that finds them: the keys met whole, then the
// words, the rarest first (a word met only in part by its first letters).
func (it *logIntent) rarest(picks []logIntentPick) []string {
	var lv rank.Levels
	for _, p := range picks {
		lv = lv.Merge(p.key.lv)
	}
	var out []string
	for i, k := range it.m.Intent().Keys {
		if i < rank.MaxWords && lv.Key(i) {
			out = append(out, k)
		}
	}
	type wc struct {
		word string
		df   int64
	}
	var ws []wc
	for i, w := range it.m.Intent().Words {
		switch l := lv.At(i); {
		case l >= rank.Form:
			ws = append(ws, wc{w.Text, it.st.DF(i, l)})
		case l > rank.None:
			ws = append(ws, wc{w.Prefix, it.st.DF(i, l)})
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].df < ws[j].df })
	for _, w := range ws {
		out = append(out, w.word)
	}
	return out[:min(len(out), 4)]
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
	req := recall.Request{Ref: v.e.In.Ref, Rev: v.e.In.Rev, Grep: &recall.GrepSpec{Pattern: "(?i)" + classify.LogQuoteRE(words[0])}}
	b.WriteString("; find the lines with ")
	b.WriteString(quoted[0])
	b.WriteString(": ")
	b.WriteString(v.e.In.ReadHint(req))
	b.WriteString(":")
	return b.String()
}
