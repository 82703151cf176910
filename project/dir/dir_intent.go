package dir

import (
	"bytes"
	"math/bits"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/internal/topk"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/recall"
)

// A directory listing read with an intent ("Find where the reverse proxy is
// implemented", "to find cookiejar's files") ranks its entries by the
// intent with the shared matcher and scorer (project/rank): each entry's
// own name and the directories above it are matched apart, the name
// weighing more (rank.Fields), each word weighted by how rare it is in the
// listing (rank.Stats), and the best matches are shown first as the
// listing's own lines, each under the lines that say where it is: its
// directory header for ls -R, the chain of parent directories for tree. One
// streaming pass keeps, for each word, the best entries holding it, so a
// word that names a few entries is not crowded out by one that names
// thousands.

const (
	dirIntentShare   = 0.45 // the most of the summary room the matches take
	maxIntentPerWord = 48   // candidates kept for each word of the intent
	maxIntentContext = 32   // directory lines kept above one match
	maxMatchCombos   = 4096 // combinations of words held counted apart
	intentKeepRatio  = 0.2  // a match scoring under this share of the best is left out: an entry of a directory the intent names exactly scores about a quarter of the directory
)

// lineAt is where one line of a listing is: its number and its offset.
type lineAt struct{ line, off int64 }

// dirMatch is an entry that matches the intent.
type dirMatch struct {
	at    lineAt
	ctx   []lineAt // the lines that say where it is, outermost first
	depth int
	// name and dir are the levels at which its own name and the
	// directories above it meet the words.
	name, dir rank.Levels
	raw       int // its levels summed, the name's twice, before the words' rarity
	score     float64
}

// dirMatcher ranks a listing's entries by the intent's words.
type dirMatcher struct {
	m       *rank.Matcher
	st      *rank.Stats // the entries that hold each word
	entries int64       // entries seen
	// combos counts the entries that match by which words they hold (a
	// set of words, rank.Levels.Words); unseen counts those the excerpts
	// show or that are cut. Entries past maxMatchCombos sets are counted
	// in overflow, as matching.
	combos, unseen     map[uint32]int64
	overflow, unseenOv int64

	buckets [][]*dirMatch // per word, its best candidates: a topk heap by worseMatch
}

// listingWords describe a listing, or the asking, rather than what is
// sought in it ("show the project tree", "list net and its subdirectories
// with sizes, to find cookiejar's files", "list files in the current
// directory"); an intent's words are matched against entries without them,
// and without the words whose stem is the stem of one of them.
var listingWords = map[string]bool{
	"list": true, "listing": true, "show": true, "display": true, "print": true, "view": true, "explore": true,
	"file": true, "dir": true, "directory": true, "directories": true, "subdirectory": true, "subdirectories": true,
	"folder": true, "subfolder": true,
	"tree": true, "subtree": true, "size": true, "entry": true, "path": true, "content": true, "name": true,
	"project": true, "repo": true, "repository": true, "workspace": true, "recursive": true, "recursively": true,
	"all": true, "every": true, "each": true, "contain": true, "location": true, "locate": true,
	"live": true, "current": true, "here": true, "structure": true, "layout": true, "overview": true,
	"available": true, "exist": true, "present": true, "inside": true, "under": true, "top": true, "level": true,
	"root": true, "home": true, "working": true, "hidden": true, "include": true, "detail": true,
	"permission": true, "exploring": true,
	"info": true, "information": true, "get": true, "give": true, "quick": true, "quickly": true, "verify": true,
	"confirm": true, "whether": true, "new": true, "any": true, "some": true, "other": true, "also": true,
	"just": true, "only": true, "them": true, "they": true, "then": true, "than": true, "like": true,
	"make": true, "sure": true, "need": true, "use": true, "using": true, "want": true, "let": true, "try": true,
	"its": true, "our": true, "your": true, "now": true, "first": true, "see": true, "look": true, "long": true,
}

// listingStems are the stems of listingWords.
var listingStems = func() map[string]bool {
	m := map[string]bool{}
	for w := range listingWords {
		m[rank.Stem(w)] = true
	}
	return m
}()

// newDirMatcher returns a matcher for the intent a call carries, or nil when
// it carries none worth ranking by. Words about listings (listingWords),
// and words the call's command or path also holds (outside its flags),
// name what is listed rather than what is sought in it ("tree" for tree,
// "net" for ls -R net/), and are left out.
func newDirMatcher(in *project.Input) *dirMatcher {
	intent := in.Call().Intent
	if intent == "" {
		return nil
	}
	call := map[string]bool{}
	a := in.Call()
	for _, s := range append([]string{a.Arg("command", "cmd"), a.Arg("path", "directory", "dir")}, in.Command...) {
		for _, f := range strings.Fields(strings.ToLower(s)) {
			if strings.HasPrefix(f, "-") {
				continue // a flag: find's -type, -name and -size are words of their own
			}
			for _, w := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
				call[w], call[rank.Stem(w)] = true, true
			}
		}
	}
	it := rank.Parse(intent).Without(func(w rank.Word) bool {
		return call[w.Text] || call[w.Stem] || listingWords[w.Text] || listingStems[w.Stem]
	})
	if len(it.Words) == 0 {
		return nil
	}
	m := rank.NewMatcher(it)
	return &dirMatcher{
		m: m, st: rank.NewStats(m),
		buckets: make([][]*dirMatch, m.N()),
		combos:  map[uint32]int64{}, unseen: map[uint32]int64{},
	}
}

// offer scores one entry, counting the words it holds, and keeps it among
// the candidates of each word while it ranks high enough there. The lines
// the excerpts show already, and lines too long to read whole, are counted
// but not kept.
func (m *dirMatcher) offer(e dirEntry, shown view.LineSpans) {
	m.entries++
	name, dir := e.path, e.path[:0]
	if i := bytes.LastIndexByte(e.path, '/'); i >= 0 {
		name, dir = e.path[i+1:], e.path[:i]
	}
	nameLv, dirLv := m.m.Levels(name), m.m.Levels(dir)
	if i := bytes.IndexByte(name, '.'); i > 0 && nameLv != 0 {
		// Without its extension, a name may be a word exactly: "malloc"
		// in "malloc.go".
		nameLv = nameLv.Merge(m.m.Levels(name[:i]))
	}
	lv := nameLv.Merge(dirLv)
	m.st.Add(lv)
	if lv == 0 {
		return
	}
	key := lv.Words(rank.Part)
	unseen := e.cut || shown.Has(e.line)
	switch _, ok := m.combos[key]; {
	case ok || len(m.combos) < maxMatchCombos:
		m.combos[key]++
		if unseen {
			m.unseen[key]++
		}
	default:
		m.overflow++
		if unseen {
			m.unseenOv++
		}
	}
	if unseen {
		return
	}
	raw := 2*nameLv.Sum() + dirLv.Sum()
	var x *dirMatch
	for set := key; set != 0; set &= set - 1 {
		b := &m.buckets[bits.TrailingZeros32(set)]
		if len(*b) >= maxIntentPerWord && !matchWorse((*b)[0], raw, e.depth, e.line) {
			continue
		}
		if x == nil {
			x = &dirMatch{at: lineAt{e.line, e.off}, depth: e.depth, name: nameLv, dir: dirLv, raw: raw}
			ctx := e.ctx
			if len(ctx) > maxIntentContext {
				ctx = ctx[len(ctx)-maxIntentContext:]
			}
			x.ctx = append([]lineAt(nil), ctx...)
		}
		topk.Keep(b, maxIntentPerWord, x, worseMatch)
	}
}

// matchWorse reports whether x ranks below an entry of raw score raw, at
// depth and line: a lower score, then deeper, then later.
func matchWorse(x *dirMatch, raw, depth int, line int64) bool {
	if x.raw != raw {
		return x.raw < raw
	}
	if x.depth != depth {
		return x.depth > depth
	}
	return x.at.line > line
}

// worseMatch reports whether candidate a ranks below b.
func worseMatch(a, b *dirMatch) bool { return matchWorse(a, b.raw, b.depth, b.at.line) }

// ranked returns the candidates, best first: scored by rank.Fields, the
// entry's name as its name field and the directories above it as its head,
// each word weighted by its rarity among the entries; those far below the
// best are left out.
func (m *dirMatcher) ranked() []*dirMatch {
	seen := map[*dirMatch]bool{}
	var out []*dirMatch
	for _, b := range m.buckets {
		for _, x := range b {
			if seen[x] {
				continue
			}
			seen[x] = true
			t := rank.NewFields(m.m)
			t.Add(x.name, rank.FieldName)
			t.Add(x.dir, rank.FieldHead)
			x.score = t.Score(m.st, 1, 1)
			out = append(out, x)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		return a.at.line < b.at.line
	})
	for i, x := range out {
		if x.score <= 0 || x.score < out[0].score*intentKeepRatio {
			return out[:i]
		}
	}
	return out
}

// intentLines renders the best matches within room tokens: a heading, then
// the listing lines of the matches with their line numbers (best first; in
// listing order when they come with the lines of the directories they are
// in), then a search for the rest when some are left out. It returns the
// lines and the line numbers it shows.
func (v *dirView) intentLines(m *dirMatcher, room int) ([]string, map[int64]bool) {
	if m == nil || room <= 0 || len(m.held()) == 0 {
		return nil, nil
	}
	cands := m.ranked()
	if len(cands) == 0 {
		return nil, nil
	}
	e := v.e
	// The text of each line, read once.
	texts := map[int64]string{}
	read := func(at lineAt) (string, bool) {
		if s, ok := texts[at.line]; ok {
			return s, true
		}
		l, err := e.Doc.ReadLine(at.off, maxDirLine)
		if err != nil || l.Cut {
			return "", false
		}
		s := e.In.Line(bytes.TrimRight(l.Text, "\r"), false)
		texts[at.line] = s
		return s, true
	}
	var maxLine int64
	for _, x := range cands {
		maxLine = max(maxLine, x.at.line)
	}
	width := len(strconv.FormatInt(maxLine, 10))
	entry := func(line int64, s string) string {
		num := strconv.FormatInt(line, 10)
		return "  " + strings.Repeat(" ", max(0, width-len(num))) + num + " " + s
	}
	withCtx := false
	for _, x := range cands {
		withCtx = withCtx || len(x.ctx) > 0
	}
	matched, unseen := m.matched()
	heading := func(n int) string {
		s := "[the best " + textfmt.Int(int64(n)) + " of the " + textfmt.Int(matched) + " entries matching the intent (" + m.wordList() + ")"
		if int64(n) >= matched {
			s = "[" + entriesText(int64(n)) + " matching the intent (" + m.wordList() + ")"
		}
		if withCtx {
			s += ", under the lines of their directories"
		} else {
			s += ", best first"
		}
		return s + " (line: listing line)]"
	}
	more := ""
	if v.in.Ref != "" {
		more = "[more matches: " + v.in.Hint(recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Grep: &recall.GrepSpec{Pattern: m.grepPattern(), IgnoreCase: true}}) + "]"
	}
	used := e.Cost(heading(len(cands)))
	if more != "" {
		used += e.Cost(more)
	}
	shown := map[int64]bool{}
	var order []lineAt
	n := 0
	for _, x := range cands {
		var add []lineAt
		cost := 0
		ok := true
		for _, at := range append(append([]lineAt(nil), x.ctx...), x.at) {
			if shown[at.line] {
				continue
			}
			s, good := read(at)
			if !good {
				ok = false
				break
			}
			add = append(add, at)
			cost += e.Cost(entry(at.line, s))
		}
		if !ok || used+cost > room {
			continue
		}
		used += cost
		n++
		for _, at := range add {
			shown[at.line] = true
			order = append(order, at)
		}
	}
	if n == 0 {
		return nil, nil
	}
	if withCtx {
		// Each under the lines that say where it is, as in the listing.
		sort.Slice(order, func(i, j int) bool { return order[i].line < order[j].line })
	}
	out := []string{heading(n)}
	for _, at := range order {
		out = append(out, entry(at.line, texts[at.line]))
	}
	if int64(n)+unseen < matched && more != "" {
		out = append(out, more)
	}
	return out, shown
}

// wordList names the words the listing holds, rarest first.
func (m *dirMatcher) wordList() string {
	var ws []string
	for _, i := range m.held() {
		ws = append(ws, m.m.Intent().Words[i].Text)
	}
	return strings.Join(ws, ", ")
}

// held returns the words that tell entries apart, the rarest first: those
// some entry holds, but at most half the entries do.
func (m *dirMatcher) held() []int {
	var ws []int
	for i := range m.m.N() {
		if m.telling(i) {
			ws = append(ws, i)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return m.df(ws[i]) < m.df(ws[j]) })
	return ws
}

// least is the level word i is counted at: whole or in another form,
// unless no entry holds it so.
func (m *dirMatcher) least(i int) rank.Level {
	if m.st.DF(i, rank.Form) > 0 {
		return rank.Form
	}
	return rank.Part
}

// df is how many entries hold word i at the level it is counted at.
func (m *dirMatcher) df(i int) int64 { return m.st.DF(i, m.least(i)) }

// telling reports whether word i tells entries apart: some hold it, at
// most half do.
func (m *dirMatcher) telling(i int) bool {
	df := m.df(i)
	return df > 0 && df*2 <= m.entries
}

// matched counts the entries that hold a telling word, and how many of
// them are unseen (shown by the excerpts, or cut).
func (m *dirMatcher) matched() (n, unseen int64) {
	var mask uint32
	for i := range m.m.N() {
		if m.telling(i) {
			mask |= 1 << i
		}
	}
	for k, c := range m.combos {
		if k&mask != 0 {
			n += c
			unseen += m.unseen[k]
		}
	}
	return n + m.overflow, unseen + m.unseenOv
}

// grepPattern searches the listing for the words held: their stems, or
// their first letters when none is held whole or in another form.
func (m *dirMatcher) grepPattern() string {
	var alts []string
	for _, i := range m.held() {
		w := m.m.Intent().Words[i]
		if m.least(i) == rank.Form {
			alts = append(alts, regexp.QuoteMeta(w.Stem))
		} else {
			alts = append(alts, regexp.QuoteMeta(w.Prefix))
		}
	}
	return strings.Join(alts, "|")
}
