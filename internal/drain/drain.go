// Package drain mines line templates from logs, after Drain (He, Zhu, Zheng
// and Lyu, "Drain: An Online Log Parsing Approach with Fixed Depth Tree",
// ICWS 2017): each line is split into tokens, obvious variables are masked
// first (numbers, hex, IP addresses, UUIDs, times, paths with digits, the
// timestamp that opens the line), and the line is routed through a tree of
// fixed depth, keyed by its number of tokens and its leading literal tokens,
// to a short list of clusters. It joins the cluster whose template it is most
// similar to, when the similarity reaches a threshold, turning the tokens
// that differ into the wildcard "<*>"; otherwise it starts a cluster.
//
// A [Miner] holds at most Options.MaxClusters clusters: once it is full, a
// line that matches none joins the most similar cluster of its branch when
// one is similar enough, and is counted as "other" when none is, so its
// memory is bounded whatever it reads. It is deterministic: the same lines in
// the same order give the same clusters, and ties are broken by the order in
// which clusters were made, never by map order.
package drain

import (
	"sort"
	"strings"
)

// Options tune a Miner. The zero value means the defaults.
type Options struct {
	// Depth is the depth of the parse tree, counting the level of token
	// counts and the level of leaves; the tree is keyed by the first
	// Depth-2 literal tokens of a line. Default 4, at least 3.
	Depth int
	// Similarity is the least share of a template's tokens a line must
	// match to join its cluster. Default 0.4.
	Similarity float64
	// MaxChildren bounds the children of a tree node; further keys share
	// a wildcard child. Default 100.
	MaxChildren int
	// MaxClusters bounds the clusters. Default 1,000.
	MaxClusters int
	// MaxTokens bounds the tokens of a line that count; the rest are one
	// Ellipsis token. Default 64.
	MaxTokens int
}

func (o Options) withDefaults() Options {
	if o.Depth < 3 {
		o.Depth = 4
	}
	if o.Similarity <= 0 || o.Similarity > 1 {
		o.Similarity = 0.4
	}
	if o.MaxChildren <= 0 {
		o.MaxChildren = 100
	}
	if o.MaxClusters <= 0 {
		o.MaxClusters = 1000
	}
	if o.MaxTokens < 2 {
		o.MaxTokens = 64
	}
	return o
}

// Other is the cluster id Add returns for a line it could not place: the
// miner was full and no cluster was similar enough.
const Other = -1

// Cluster is a group of lines that share a template.
type Cluster struct {
	// ID is the cluster's number: clusters are numbered from 0 in the
	// order they were made.
	ID int
	// Group is the group the cluster's lines were added to.
	Group uint8
	// Template is the lines' common form, tokens joined by one space, with
	// Wildcard where they differ.
	Template string
	// Count is the number of lines added to the cluster.
	Count int64
	// First and Last are the positions (as passed to Add) of the first and
	// the last line added.
	First, Last int64
}

type cluster struct {
	group  uint8
	tokens []string
	// sigs[i] is the signature of tokens[i] (see sigOf), with sigMasked
	// set when it stands for a variable: a wildcard.
	sigs  []uint64
	count int64
	first int64
	last  int64
}

// A node of the parse tree. Its children are keyed by a token: one of up
// to seven bytes by its signature, which it is equal to, a longer one by
// its text.
type node struct {
	short map[uint64]*node
	long  map[string]*node
	wild  *node
	leaf  []int32
}

func (n *node) child(key []byte, sig uint64) *node {
	if sig>>56 < 8 {
		return n.short[sig]
	}
	return n.long[string(key)]
}

func (n *node) children() int { return len(n.short) + len(n.long) }

func (n *node) addChild(key []byte, sig uint64) *node {
	c := &node{}
	if sig>>56 < 8 {
		if n.short == nil {
			n.short = map[uint64]*node{}
		}
		n.short[sig] = c
	} else {
		if n.long == nil {
			n.long = map[string]*node{}
		}
		n.long[string(key)] = c
	}
	return c
}

// Miner mines templates from lines. It is not safe for concurrent use.
type Miner struct {
	opts     Options
	roots    [256][]*node // by group, then by number of tokens
	clusters []*cluster
	other    int64
	otherBy  [256]int64
	tok      tokenizer
	keys     []int // indexes of the tokens that key the tree
}

// New returns an empty miner.
func New(opts Options) *Miner {
	opts = opts.withDefaults()
	return &Miner{
		opts: opts,
		tok:  tokenizer{max: opts.MaxTokens},
	}
}

// Add adds a line to group 0; see AddIn.
func (m *Miner) Add(line []byte, at int64) int { return m.AddIn(0, line, at) }

// AddIn adds a line to a group and returns the id of the cluster it joined,
// or Other. Lines of different groups never share a cluster: a caller keeps
// errors apart from other lines this way. at is the line's position (its
// number, say), reported back as Cluster.First and Cluster.Last.
func (m *Miner) AddIn(group uint8, line []byte, at int64) int {
	return m.add(group, m.tok.tokenize(line), at)
}

// AddStamped is AddIn for a line whose timestamp the caller has found
// already (with [Timestamp]): it spans [start, end), and end is 0 when the
// line has none.
func (m *Miner) AddStamped(group uint8, line []byte, start, end int, at int64) int {
	if start < 0 || end > len(line) || start > end {
		return m.AddIn(group, line, at)
	}
	return m.add(group, m.tok.tokenizeStamped(line, start, end), at)
}

// A Batch holds lines split and masked ahead of being added to a Miner, so
// that splitting them, the costly part of mining, can run on another
// goroutine than the miner's: lines added from a batch join the clusters
// the same lines would join added one by one. Its tokens refer to the
// lines' bytes, which must not change until the batch is reset. A Batch is
// not safe for concurrent use.
type Batch struct {
	tok  tokenizer
	ends []int32 // ends[i]: where the tokens of line i end
}

// NewBatch returns an empty batch for miners made with opts.
func NewBatch(opts Options) *Batch {
	return &Batch{tok: tokenizer{max: opts.withDefaults().MaxTokens, keep: true}}
}

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	b.tok.toks, b.tok.buf, b.tok.first, b.ends = b.tok.toks[:0], b.tok.buf[:0], 0, b.ends[:0]
}

// Len returns the number of lines in the batch.
func (b *Batch) Len() int { return len(b.ends) }

// AddStamped splits a line, as Miner.AddStamped would, and keeps it as the
// batch's next line.
func (b *Batch) AddStamped(line []byte, start, end int) {
	if start < 0 || end > len(line) || start > end {
		b.tok.tokenize(line)
	} else {
		b.tok.tokenizeStamped(line, start, end)
	}
	b.ends = append(b.ends, int32(len(b.tok.toks)))
}

// AddBatched adds line i of a batch to a group, as AddStamped adds a line,
// and returns the id of the cluster it joined, or Other. The batch must
// have been made with the miner's options.
func (m *Miner) AddBatched(group uint8, b *Batch, i int, at int64) int {
	from := int32(0)
	if i > 0 {
		from = b.ends[i-1]
	}
	return m.add(group, b.tok.toks[from:b.ends[i]], at)
}

func (m *Miner) add(group uint8, toks []token, at int64) int {
	leaf, create := m.route(group, toks, len(m.clusters) < m.opts.MaxClusters)
	best, sim, differ := -1, 0.0, 0
	if leaf != nil {
		best, sim, differ = m.best(leaf.leaf, toks)
	}
	if best >= 0 && sim >= m.opts.Similarity {
		m.join(best, toks, differ > 0, at)
		return best
	}
	if create != nil {
		id := len(m.clusters)
		c := &cluster{group: group, tokens: make([]string, len(toks)), sigs: make([]uint64, len(toks)), count: 1, first: at, last: at}
		for i, t := range toks {
			c.tokens[i] = string(t.text)
			c.sigs[i] = t.sig
		}
		m.clusters = append(m.clusters, c)
		create.leaf = append(create.leaf, int32(id))
		return id
	}
	// Full: join the most similar cluster of the branch if it is at least
	// half as similar as a join needs.
	if best >= 0 && sim >= m.opts.Similarity/2 {
		m.join(best, toks, differ > 0, at)
		return best
	}
	m.other++
	m.otherBy[group]++
	return Other
}

// Match returns the cluster a line would join without adding it, or Other.
func (m *Miner) Match(group uint8, line []byte) int {
	toks := m.tok.tokenize(line)
	leaf, _ := m.route(group, toks, false)
	if leaf == nil {
		return Other
	}
	best, sim, _ := m.best(leaf.leaf, toks)
	if best >= 0 && sim >= m.opts.Similarity {
		return best
	}
	return Other
}

// route walks the tree to the leaf for toks. When grow is true it makes the
// missing nodes and returns the leaf also as create; otherwise a missing
// node ends the walk with a nil leaf.
func (m *Miner) route(group uint8, toks []token, grow bool) (leaf, create *node) {
	roots := m.roots[group]
	var n *node
	if len(toks) < len(roots) {
		n = roots[len(toks)]
	}
	if n == nil {
		if !grow {
			return nil, nil
		}
		if len(toks) >= len(roots) {
			roots = append(roots, make([]*node, len(toks)+1-len(roots))...)
			m.roots[group] = roots
		}
		n = &node{}
		roots[len(toks)] = n
	}
	// The tree is keyed by the first tokens that look like words, as
	// Drain routes tokens with digits to a wildcard branch; skipping the
	// others keeps a masked timestamp or a name such as "libc6:amd64" from
	// taking a level of the tree.
	m.keys = m.keys[:0]
	for i := 0; i < len(toks) && len(m.keys) < m.opts.Depth-2; i++ {
		if !toks[i].masked() && routable(toks[i].text) {
			m.keys = append(m.keys, i)
		}
	}
	for d := 0; d < m.opts.Depth-2; d++ {
		var key []byte
		var sig uint64 // of no key: sigOf(nil)
		if d < len(m.keys) {
			key, sig = toks[m.keys[d]].text, toks[m.keys[d]].sig
		}
		next := n.child(key, sig)
		if next == nil {
			switch {
			case !grow:
				next = n.wild
			case n.children() < m.opts.MaxChildren:
				next = n.addChild(key, sig)
			default:
				if n.wild == nil {
					n.wild = &node{}
				}
				next = n.wild
			}
		}
		if next == nil {
			return nil, nil
		}
		n = next
	}
	if grow {
		return n, n
	}
	return n, nil
}

// routable reports whether a token may key the tree: a word of letters,
// with '-', '_' or '.' inside, at most one '=' (key=value), and at most a
// ':' or ',' at its end; no digits.
func routable(b []byte) bool {
	eq := false
	for i, c := range b {
		switch {
		case isLetterByte(c), c == '-', c == '_', c == '.':
		case c == '=' && !eq && i > 0:
			eq = true
		case (c == ':' || c == ',') && i == len(b)-1 && i > 0:
		default:
			return false
		}
	}
	return len(b) > 0
}

// best returns the cluster of ids most similar to toks and its similarity:
// the share of the template's tokens equal to the line's, leaving out the
// positions where both hold the same masked variable (a timestamp, a
// number), which say nothing about whether two lines share a template. Ties
// go to the template with more wildcards, then to the older cluster.
//
// It returns too how many of the template's tokens that are no wildcard
// differ from the line's: join changes nothing when none do.
func (m *Miner) best(ids []int32, toks []token) (id int, sim float64, differ int) {
	best, bestSim, bestWild, bestDiffer := -1, -1.0, -1, 0
	for _, id := range ids {
		c := m.clusters[id]
		same, wild, neutral := 0, 0, 0
		tokens := c.tokens[:len(c.sigs)]
		toks := toks[:len(c.sigs)]
		for i, cs := range c.sigs {
			switch {
			case sameText(toks[i].text, toks[i].sig, tokens[i], cs):
				if toks[i].sig&cs&sigMasked != 0 {
					neutral++ // the same variable on both sides
				} else {
					same++
				}
			case cs&sigMasked != 0:
				wild++
			}
		}
		sim := 1.0
		if n := len(c.sigs) - neutral; n > 0 {
			sim = float64(same) / float64(n)
		}
		if sim > bestSim || sim == bestSim && wild > bestWild {
			best, bestSim, bestWild, bestDiffer = int(id), sim, wild, len(c.sigs)-same-neutral-wild
		}
	}
	return best, bestSim, bestDiffer
}

// join adds toks to cluster id, turning the template's tokens that differ
// into wildcards; a key=value token keeps its key. differ reports that some
// token that is no wildcard differs (see best): else only the counts change.
func (m *Miner) join(id int, toks []token, differ bool, at int64) {
	c := m.clusters[id]
	if differ {
		toks = toks[:len(c.sigs)]
		for i, cs := range c.sigs {
			if cs&sigMasked == 0 && !sameText(toks[i].text, toks[i].sig, c.tokens[i], cs) {
				c.tokens[i] = wildcardFor(c.tokens[i], toks[i].text)
				c.sigs[i] = sigOf([]byte(c.tokens[i])) | sigMasked
			}
		}
	}
	c.count++
	c.last = at
}

// wildcardFor returns the wildcard that replaces template token t when a
// line has b in its place: "key=<*>" when both are values of the same key,
// else "<*>".
func wildcardFor(t string, b []byte) string {
	if k := keyEnd([]byte(t)); k > 0 && len(b) > k && b[k] == '=' && string(b[:k]) == t[:k] {
		return t[:k+1] + Wildcard
	}
	return Wildcard
}

// Len returns the number of clusters.
func (m *Miner) Len() int { return len(m.clusters) }

// Others returns the number of lines of a group that no cluster took.
func (m *Miner) Others(group uint8) int64 { return m.otherBy[group] }

// OtherTotal returns the number of lines no cluster took, in all groups.
func (m *Miner) OtherTotal() int64 { return m.other }

// Cluster returns cluster id.
func (m *Miner) Cluster(id int) Cluster {
	c := m.clusters[id]
	return Cluster{ID: id, Group: c.group, Template: strings.Join(c.tokens, " "), Count: c.count, First: c.first, Last: c.last}
}

// Clusters returns every cluster, the most frequent first; clusters of the
// same count come in the order of their first line, then of their ids.
func (m *Miner) Clusters() []Cluster {
	out := make([]Cluster, len(m.clusters))
	for i := range m.clusters {
		out[i] = m.Cluster(i)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.First != b.First {
			return a.First < b.First
		}
		return a.ID < b.ID
	})
	return out
}

// Template returns the masked form of one line as a template would show it,
// without adding it: for tests and for showing a line's shape.
func (m *Miner) Template(line []byte) string {
	toks := m.tok.tokenize(line)
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = string(t.text)
	}
	return strings.Join(parts, " ")
}
