package project

import (
	"bytes"
	"container/heap"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
)

// A directory listing read with an intent ("Find where the reverse proxy is
// implemented", "to find cookiejar's files") ranks its entries by the
// intent's words, each weighted by how rare it is in the listing, and shows
// the best matches first as the listing's own lines, each under the lines
// that say where it is: its directory header for ls -R, the chain of parent
// directories for tree. One streaming pass keeps, for each word, the best
// entries holding it, so a word that names a few entries is not crowded out
// by one that names thousands.

const (
	dirIntentShare   = 0.45 // the most of the summary room the matches take
	maxIntentPerWord = 48   // candidates kept for each word of the intent
	maxIntentContext = 32   // directory lines kept above one match
	maxMatchCombos   = 4096 // combinations of words held counted apart
	intentKeepRatio  = 0.3  // a match scoring under this share of the best is left out
)

// lineAt is where one line of a listing is: its number and its offset.
type lineAt struct{ line, off int64 }

// dirWord is one word of the intent as the listing is searched for it.
type dirWord struct {
	word string
	root string // the word without its ending ("formats" → "format")
	stem string // the root's first 4 letters; equal to root when as short
	// rootB and stemB hold root and stem, to search paths without
	// converting them each time; nil stemB when stem is root.
	rootB, stemB []byte
	// strong counts the entries whose path holds the root, weak those
	// that hold only the stem.
	strong, weak int64
}

// dirMatch is an entry that matches the intent.
type dirMatch struct {
	at    lineAt
	ctx   []lineAt // the lines that say where it is, outermost first
	depth int
	hits  []uint8 // per word: how it matched (hitNameRoot ...), 0 for not
	raw   int     // the sum of the hitValues, before the words' rarity
	score float64
}

// How a word matches an entry's path: its root in the entry's own name, in
// a directory above, or only its stem in either.
const (
	hitNameRoot = 1 + iota
	hitDirRoot
	hitNameStem
	hitDirStem
)

// hitValue weighs each way of matching, before the word's rarity.
var hitValue = [...]int{hitNameRoot: 4, hitDirRoot: 2, hitNameStem: 2, hitDirStem: 1}

// dirMatcher ranks a listing's entries by the intent's words.
type dirMatcher struct {
	words   []dirWord
	entries int64 // entries seen
	// strong counts the entries holding some word's root.
	strong int64
	// combos counts the entries that match by which words they hold:
	// the key is the mask of words held in any way, shifted 16 bits, or
	// the mask of words whose root is held. unseen counts those the
	// excerpts show or that are cut. Entries past maxMatchCombos keys
	// are counted in overflow, as matching.
	combos, unseen     map[uint32]int64
	overflow, unseenOv int64

	buckets []matchHeap
	low     []byte
	hits    []uint8
}

// listingWords describe a listing, or the asking, rather than what is
// sought in it ("show the project tree", "list net and its subdirectories
// with sizes, to find cookiejar's files", "list files in the current
// directory"); an intent's words are matched against entries without them.
// They are roots (see wordRoot) or whole words.
var listingWords = map[string]bool{
	"list": true, "listing": true, "show": true, "display": true, "print": true, "view": true, "explore": true,
	"file": true, "dir": true, "directory": true, "subdirectory": true, "folder": true, "subfolder": true,
	"tree": true, "subtree": true, "size": true, "entry": true, "path": true, "content": true, "name": true,
	"project": true, "repo": true, "repository": true, "workspace": true, "recursive": true, "recursively": true,
	"all": true, "every": true, "each": true, "contain": true, "locat": true, "location": true, "locate": true,
	"live": true, "current": true, "here": true, "structure": true, "layout": true, "overview": true,
	"available": true, "exist": true, "present": true, "inside": true, "under": true, "top": true, "level": true,
	"root": true, "home": true, "working": true, "hidden": true, "include": true, "includ": true, "detail": true,
	"permission": true, "permiss": true, "explor": true,
	"info": true, "information": true, "get": true, "give": true, "quick": true, "quickly": true, "verify": true,
	"confirm": true, "whether": true, "new": true, "any": true, "some": true, "other": true, "also": true,
	"just": true, "only": true, "them": true, "they": true, "then": true, "than": true, "like": true,
	"make": true, "sure": true, "need": true, "use": true, "using": true, "want": true, "let": true, "try": true,
	"its": true, "our": true, "your": true, "now": true, "first": true, "see": true, "look": true, "long": true,
}

// newDirMatcher returns a matcher for the intent a call carries, or nil when
// it carries none worth ranking by. Words about listings (listingWords),
// and words the call's command or path also holds (outside its flags),
// name what is listed rather than what is sought in it ("tree" for tree,
// "net" for ls -R net/), and are left out.
func newDirMatcher(in *Input) *dirMatcher {
	intent := intentOf(in.Args)
	if intent == "" {
		return nil
	}
	call := map[string]bool{}
	a := normArgs(in.Args)
	for _, s := range append([]string{a.str("command", "cmd"), a.str("path", "directory", "dir")}, in.Command...) {
		for _, f := range strings.Fields(strings.ToLower(s)) {
			if strings.HasPrefix(f, "-") {
				continue // a flag: find's -type, -name and -size are words of their own
			}
			for _, w := range splitWords(f) {
				call[w], call[wordRoot(w)] = true, true
			}
		}
	}
	m := &dirMatcher{}
	for _, w := range intentWords(intent) {
		root := wordRoot(w.word)
		if call[w.word] || call[root] || listingWords[w.word] || listingWords[root] {
			continue
		}
		stem := root
		if len(stem) > 4 {
			stem = stem[:4]
		}
		dw := dirWord{word: w.word, root: root, stem: stem, rootB: []byte(root)}
		if stem != root {
			dw.stemB = []byte(stem)
		}
		m.words = append(m.words, dw)
		if len(m.words) == 16 {
			break // the masks of combos hold 16 words
		}
	}
	if len(m.words) == 0 {
		return nil
	}
	m.buckets = make([]matchHeap, len(m.words))
	m.combos, m.unseen = map[uint32]int64{}, map[uint32]int64{}
	m.hits = make([]uint8, len(m.words))
	return m
}

// splitWords splits a lower-case text into its runs of letters and digits.
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// wordRoot strips the common English endings from a lower-case word, so
// that "formats" meets "formatNodeAssertErrors", "installed" meets
// "install" and "assertion" meets "assert": plurals, -ed, -ing, and -ion
// after t or ss. The root keeps at least 3 letters (4 before -ed and -ing:
// "string" stays).
func wordRoot(w string) string {
	has := func(suf string, keep int) bool { return strings.HasSuffix(w, suf) && len(w)-len(suf) >= keep }
	switch {
	case has("ies", 3):
		w = w[:len(w)-3] + "y"
	case has("sses", 3), has("ches", 3), has("shes", 3), has("xes", 2), has("zzes", 2):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case has("s", 3):
		w = w[:len(w)-1]
	}
	switch {
	case has("ation", 4):
		w = w[:len(w)-5]
	case has("tion", 4), has("ssion", 4):
		w = w[:len(w)-3]
	case has("ed", 4) && !strings.HasSuffix(w, "eed"):
		w = w[:len(w)-2]
	case has("ing", 4):
		w = w[:len(w)-3]
	default:
		return w
	}
	// A doubled last consonant ("formatt", "runn") is single in the root.
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// lower writes the lower-case form of p into m.low.
func (m *dirMatcher) lower(p []byte) []byte {
	m.low = m.low[:0]
	for _, c := range p {
		if c >= utf8.RuneSelf {
			m.low = bytes.ToLower(p)
			return m.low
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		m.low = append(m.low, c)
	}
	return m.low
}

// offer scores one entry, counting the words it holds, and keeps it among
// the candidates of each word while it ranks high enough there. The lines
// the excerpts show already, and lines too long to read whole, are counted
// but not kept.
func (m *dirMatcher) offer(e dirEntry, shown lineSpans) {
	m.entries++
	low := m.lower(e.path)
	name, dir := low, low[:0]
	if i := bytes.LastIndexByte(low, '/'); i >= 0 {
		name, dir = low[i+1:], low[:i]
	}
	raw := 0
	var anyMask, strongMask uint32
	for i := range m.words {
		w := &m.words[i]
		var h uint8
		switch {
		case bytes.Contains(name, w.rootB):
			h = hitNameRoot
		case bytes.Contains(dir, w.rootB):
			h = hitDirRoot
		case w.stemB != nil && bytes.Contains(name, w.stemB):
			h = hitNameStem
		case w.stemB != nil && bytes.Contains(dir, w.stemB):
			h = hitDirStem
		}
		if h == hitNameRoot || h == hitDirRoot {
			w.strong++
			strongMask |= 1 << i
		} else if h != 0 {
			w.weak++
		}
		if h != 0 {
			anyMask |= 1 << i
		}
		m.hits[i] = h
		raw += hitValue[h]
	}
	if raw == 0 {
		return
	}
	if strongMask != 0 {
		m.strong++
	}
	key := anyMask<<16 | strongMask
	unseen := e.cut || shown.has(e.line)
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
	var x *dirMatch
	for i, h := range m.hits {
		if h == 0 {
			continue
		}
		b := &m.buckets[i]
		if len(*b) >= maxIntentPerWord && !matchWorse((*b)[0], raw, e.depth, e.line) {
			continue
		}
		if x == nil {
			x = &dirMatch{at: lineAt{e.line, e.off}, depth: e.depth, hits: append([]uint8(nil), m.hits...), raw: raw}
			ctx := e.ctx
			if len(ctx) > maxIntentContext {
				ctx = ctx[len(ctx)-maxIntentContext:]
			}
			x.ctx = append([]lineAt(nil), ctx...)
		}
		if len(*b) < maxIntentPerWord {
			heap.Push(b, x)
		} else {
			(*b)[0] = x
			heap.Fix(b, 0)
		}
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

// matchHeap keeps a word's best candidates, the worst at the root.
type matchHeap []*dirMatch

func (h matchHeap) Len() int { return len(h) }
func (h matchHeap) Less(i, j int) bool {
	return matchWorse(h[i], h[j].raw, h[j].depth, h[j].at.line)
}
func (h matchHeap) Swap(i, j int)       { h[i], h[j] = h[j], h[i] }
func (h *matchHeap) Push(x interface{}) { *h = append(*h, x.(*dirMatch)) }
func (h *matchHeap) Pop() interface{} {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// idf weighs a word that df of the n entries hold: near zero when all do.
func idf(df, n int64) float64 {
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// ranked returns the candidates, best first: each word's level weighted
// by the rarity of what matched (the root, or only the stem), summed;
// those far below the best are left out.
func (m *dirMatcher) ranked() []*dirMatch {
	seen := map[*dirMatch]bool{}
	var out []*dirMatch
	for _, b := range m.buckets {
		for _, x := range b {
			if seen[x] {
				continue
			}
			seen[x] = true
			x.score = 0
			for i, h := range x.hits {
				w := m.words[i]
				switch h {
				case hitNameRoot, hitDirRoot:
					x.score += float64(hitValue[h]) * idf(w.strong, m.entries)
				case hitNameStem, hitDirStem:
					x.score += float64(hitValue[h]) * idf(w.strong+w.weak, m.entries) / 2
				}
			}
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
		l, err := e.doc.ReadLine(at.off, maxDirLine)
		if err != nil || l.Cut {
			return "", false
		}
		s := e.in.Line(bytes.TrimRight(l.Text, "\r"), false)
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
	used := e.cost(heading(len(cands)))
	if more != "" {
		used += e.cost(more)
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
			cost += e.cost(entry(at.line, s))
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
	for _, w := range m.held() {
		ws = append(ws, w.word)
	}
	return strings.Join(ws, ", ")
}

// held returns the words that tell entries apart, the rarest first: those
// whose root some entry holds (or when none does, whose stem some entry
// holds), but at most half the entries do.
func (m *dirMatcher) held() []dirWord {
	var ws []dirWord
	for _, w := range m.words {
		if m.telling(w) {
			ws = append(ws, w)
		}
	}
	sort.SliceStable(ws, func(i, j int) bool { return m.df(ws[i]) < m.df(ws[j]) })
	return ws
}

// df is how many entries hold a word: its root, or when no entry holds any
// word's root, its stem.
func (m *dirMatcher) df(w dirWord) int64 {
	if m.strong > 0 {
		return w.strong
	}
	return w.strong + w.weak
}

// telling reports whether a word tells entries apart: some hold it, at
// most half do.
func (m *dirMatcher) telling(w dirWord) bool {
	df := m.df(w)
	return df > 0 && df*2 <= m.entries
}

// matched counts the entries that hold a telling word, and how many of
// them are unseen (shown by the excerpts, or cut).
func (m *dirMatcher) matched() (n, unseen int64) {
	var mask uint32
	for i, w := range m.words {
		if m.telling(w) {
			mask |= 1 << i
		}
	}
	shift := 16
	if m.strong > 0 {
		shift = 0
	}
	for k, c := range m.combos {
		if (k>>shift)&0xffff&mask != 0 {
			n += c
			unseen += m.unseen[k]
		}
	}
	return n + m.overflow, unseen + m.unseenOv
}

// grepPattern searches the listing for the words held: their roots, or
// their stems when no root is held.
func (m *dirMatcher) grepPattern() string {
	var alts []string
	for _, w := range m.held() {
		if m.strong > 0 {
			alts = append(alts, regexp.QuoteMeta(w.root))
		} else {
			alts = append(alts, regexp.QuoteMeta(w.stem))
		}
	}
	return strings.Join(alts, "|")
}
