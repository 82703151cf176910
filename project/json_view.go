package project

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// jsonView renders the view of a JSON document from a pass over it.
type jsonView struct {
	ctx   context.Context
	in    *Input
	p     *jsonPass
	lines int64

	assetNotes map[int64]string
	assetRefs  []store.Ref
	extracted  int

	// omitted is set while rendering when anything is left out.
	omitted bool
	// firstPtr is the first pointer the outline names for a part it
	// omits, for the footer's example.
	firstPtr *string

	// expand holds the starts of the containers the outline expands, each
	// with how many members or first elements it lists; collapsed lists
	// those it could expand, from the last rendering.
	expand    map[int64]int
	collapsed []collapsedNode

	// hits are the parts that match the call's intent, best first; above
	// holds the starts of those shown whole.
	hits  []*jsonHit
	above map[int64]bool

	// doc addresses the document by lines; indexed says that the store
	// recorded where its lines are, and lineMemo remembers the lines
	// found. anon is set while a value whose pointer is not known is
	// rendered (see json_sample.go).
	doc      *lines.Doc
	indexed  bool
	lineMemo map[int64]int64
	anon     bool
	// note says what of a sampled document was read.
	note string
	// previews holds the previews made (see preview); counter counts
	// tokens, remembering the lines it has counted (see json_count.go).
	previews map[previewKey]previewResult
	counter  *lineCounter
}

// req is a pointer read of the input.
func (v *jsonView) req(ptr string) recall.Request {
	p := ptr
	return recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Pointer: &p}
}

// olevel is how much of each part the outline shows; levels go from terse
// to detailed. Which containers are expanded, one line per member, is
// decided apart (jsonView.expand).
type olevel struct {
	members int // members listed per expanded object
	elems   int // first elements listed per expanded array
	inline  previewOpts
}

var olevels = []olevel{
	{8, 1, previewOpts{maxBytes: 300, depth: 1, members: 4, elems: 2, strCut: 30}},
	{16, 1, previewOpts{maxBytes: 600, depth: 2, members: 5, elems: 2, strCut: 40}},
	{24, 2, previewOpts{maxBytes: 800, depth: 2, members: 6, elems: 3, strCut: 50}},
	{32, 2, previewOpts{maxBytes: 1000, depth: 2, members: 8, elems: 3, strCut: 60}},
	{40, 3, previewOpts{maxBytes: 1500, depth: 3, members: 10, elems: 4, strCut: 80}},
	{48, 3, previewOpts{maxBytes: 2500, depth: 3, members: 14, elems: 5, strCut: 100}},
	{64, 3, previewOpts{maxBytes: 4000, depth: 4, members: 20, elems: 6, strCut: 140}},
	{64, 3, previewOpts{maxBytes: 8000, depth: 6, members: 32, elems: 8, strCut: 200}},
}

// collapsedNode is a recorded container the outline showed on one line,
// which it could expand.
type collapsedNode struct {
	depth int
	start int64
	array bool
}

// inlineChars is the longest one-line preview of a container that the
// outline keeps on one line rather than expanding it.
const inlineChars = 160

// outline renders the top of the document at level lv, expanding the
// containers in v.expand.
func (v *jsonView) outline(lv olevel) ([]string, error) {
	v.collapsed = v.collapsed[:0]
	var out []string
	if v.p.values > 1 {
		// The stream's key in v.expand is -1: its first value starts at 0.
		root := &ochild{kind: jsonscan.BeginArray, start: -1, end: v.p.size, info: v.p.outer}
		err := v.node(&out, root, "", nil, 0, "", lv, true)
		return out, err
	}
	if len(v.p.outer.kids) == 0 {
		return nil, nil
	}
	err := v.node(&out, v.p.outer.kids[0], "", nil, 0, "", lv, false)
	return out, err
}

// node renders one value of the outline: a line, or an expanded container.
// label is `"key": ` for a member; toks is the value's pointer.
func (v *jsonView) node(out *[]string, c *ochild, label string, toks []string, d int, indent string, lv olevel, stream bool) error {
	ptr := pointerOrRoot(toks)
	container := c.kind == jsonscan.BeginObject || c.kind == jsonscan.BeginArray
	element := label == "" && d > 0
	if container && d > 0 && v.above[c.start] {
		// Shown whole among the parts that match the intent.
		dots := "{…}"
		if c.kind == jsonscan.BeginArray {
			dots = "[…]"
		}
		*out = append(*out, indent+label+dots+"  # "+ptrText(ptr)+", shown above")
		return nil
	}
	if !stream {
		var text string
		var complete, cut bool
		var err error
		if c.kind == jsonscan.String {
			// Its span is known: no need to scan it, however long.
			text, cut, err = v.stringValue(c.start, c.end, toks, lv.inline.strCut)
			complete, cut = !cut, false
		} else {
			text, complete, cut, err = v.preview(c.start, c.end, toks, lv.inline)
		}
		if err != nil {
			return err
		}
		short := complete && len(text) <= inlineChars
		expand := container && c.info != nil && v.expand[c.start] > 0 && !short
		if container && c.info != nil && !expand && !short {
			v.collapsed = append(v.collapsed, collapsedNode{depth: d, start: c.start, array: c.kind == jsonscan.BeginArray})
		}
		if !expand {
			if !complete {
				v.omitted = true
				v.notePtr(ptr)
			}
			line := indent + label + text
			switch {
			case d == 0 && container:
				line += "  # the whole document"
				if c.info != nil {
					line += " (" + v.countNote(c) + ")"
				}
			case element && container || container && !complete || element && !complete:
				line += "  # " + ptrText(ptr)
				switch {
				case c.info != nil:
					line += " (" + v.countNote(c) + ")"
				case cut:
					line += " (" + textfmt.Size(c.end-c.start) + ")"
				}
			}
			*out = append(*out, line)
			return nil
		}
	}
	info := c.info
	open, close := "{", "}"
	what := v.atLeast(info.open) + textfmt.Plural(v.p.rootCount(info), "key")
	if c.kind == jsonscan.BeginArray {
		open, close = "[", "]"
		what = v.atLeast(info.open) + textfmt.Plural(v.p.rootCount(info), "item")
	}
	note := "  # " + ptrText(ptr) + " (" + what + ")"
	switch {
	case d >= 2 && label != "":
		// Deep members of what is shown: their pointer is their parent's
		// and their key; the counts are what is new.
		note = "  # " + what
	case stream:
		note = "  # " + v.atLeast(info.open) + textfmt.Int(v.p.rootCount(info)) + " top-level values, read as one array: /0 is the first"
	case d == 0:
		note = "  # " + what
	}
	limit := v.expand[c.start]
	if stream && limit == 0 {
		limit = lv.elems
	}
	*out = append(*out, indent+label+open+note)
	inner := indent + "  "
	if c.kind == jsonscan.BeginObject {
		shown := 0
		for _, k := range info.kids {
			if shown == limit {
				break
			}
			if k.keyCut {
				break
			}
			if err := v.node(out, k, quoteJSON(k.key)+": ", append(toks[:len(toks):len(toks)], k.key), d+1, inner, lv, false); err != nil {
				return err
			}
			shown++
		}
		if info.open {
			line, err := v.openObjectRest(info, toks, shown)
			if err != nil {
				return err
			}
			*out = append(*out, inner+line)
			if err := v.tailLines(out, info, toks, d, inner, lv); err != nil {
				return err
			}
		} else if rest := info.n - int64(shown); rest > 0 {
			v.omitted = true
			v.notePtr(ptr)
			var names []string
			for _, k := range info.kids[shown:] {
				if len(names) == 4 {
					break
				}
				names = append(names, quoteJSON(k.key))
			}
			line := inner + "… " + textfmt.Plural(rest, "more key")
			if len(names) > 0 {
				line += ": " + strings.Join(names, ", ")
				if rest > int64(len(names)) {
					line += ", …"
				}
			}
			if rest == 1 && len(names) == 1 {
				line += " (read it: " + v.in.ReadHint(v.req(ptrOf(append(toks[:len(toks):len(toks)], info.kids[shown].key)))) + ")"
			} else {
				line += " (the whole object: " + v.in.ReadHint(v.req(ptrOf(toks))) + ")"
			}
			*out = append(*out, line)
		}
		*out = append(*out, indent+close)
		return nil
	}
	// An array: its first elements, the omitted middle, its last element.
	shown := int64(0)
	for _, k := range info.kids {
		if shown == int64(limit) {
			break
		}
		if err := v.node(out, k, "", append(toks[:len(toks):len(toks)], strconv.FormatInt(k.index, 10)), d+1, inner, lv, false); err != nil {
			return err
		}
		shown++
	}
	if info.open {
		line, err := v.openArrayRest(info, toks, shown, stream)
		if err != nil {
			return err
		}
		*out = append(*out, inner+line)
		if err := v.tailLines(out, info, toks, d, inner, lv); err != nil {
			return err
		}
		*out = append(*out, indent+close)
		return nil
	}
	last := info.n - 1
	if info.n > shown {
		if gap := last - shown; gap > 0 {
			v.omitted = true
			from := append(toks[:len(toks):len(toks)], strconv.FormatInt(shown, 10))
			to := append(toks[:len(toks):len(toks)], strconv.FormatInt(last-1, 10))
			v.notePtr(ptrOf(from))
			q := recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Query: jqSlice(toks, shown, last, stream)}
			if !v.jqOK() {
				// No jq on a document this large: the lines that hold
				// them.
				var err error
				if q, err = v.spanRead(info.kids[min(int(shown), len(info.kids)-1)].start, info.last.start); err != nil {
					return err
				}
			}
			line := inner + "… " + textfmt.Plural(gap, "more item") + ": " + ptrText(ptrOf(from))
			if gap > 1 {
				line += " … " + ptrText(ptrOf(to))
			}
			*out = append(*out, line+" (all of them: "+v.in.ReadHint(q)+")")
		}
		lc := info.last
		if err := v.node(out, &lc, "", append(toks[:len(toks):len(toks)], strconv.FormatInt(last, 10)), d+1, inner, lv, false); err != nil {
			return err
		}
	}
	*out = append(*out, indent+close)
	return nil
}

func ptrOf(toks []string) string { return jsonscan.Pointer(toks...) }

// countNote counts the members or elements of a recorded container, with
// its size; for one still open where a sampled document's first part
// ends, the count read so far.
func (v *jsonView) countNote(c *ochild) string {
	word := "key"
	if c.kind == jsonscan.BeginArray {
		word = "item"
	}
	if c.info.open {
		return "at least " + textfmt.Plural(v.p.rootCount(c.info), word)
	}
	return textfmt.Plural(c.info.n, word) + ", " + textfmt.Size(c.end-c.start)
}

// ptrText writes a pointer for a view: as it is, or in single quotes (as
// a shell would want it) when it holds white space, quotes, commas or
// parentheses, so that where it ends is never in doubt.
func ptrText(p string) string {
	if p != "" && !strings.ContainsAny(p, " \t\n\r'\",()#") {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// notePtr remembers the first pointer of an omitted part.
func (v *jsonView) notePtr(p string) {
	if v.firstPtr == nil && p != "" {
		v.firstPtr = &p
	}
}

// jqSlice is the jq expression for elements [from, to) of the array at
// toks.
func jqSlice(toks []string, from, to int64, stream bool) string {
	base := jqPathOf(toks)
	if base != "." {
		base = strings.TrimSuffix(base, ".")
	}
	return fmt.Sprintf("%s[%d:%d]", base, from, to)
}

// jqPathOf writes a concrete pointer's tokens as a jq path; tokens that
// are array indexes become [i]. It reads the kinds from the tokens alone:
// a token made of digits is taken as an index, which jq also accepts on
// objects only as a key, so keys that look like numbers are quoted.
func jqPathOf(toks []string) string {
	if len(toks) == 0 {
		return "."
	}
	var b strings.Builder
	for _, t := range toks {
		if _, ok := parseIndexTok(t); ok {
			b.WriteString("[" + t + "]")
		} else {
			b.WriteString(jqKey(t))
		}
	}
	s := b.String()
	if strings.HasPrefix(s, "[") {
		return "." + s
	}
	return s
}

func parseIndexTok(t string) (int64, bool) {
	if t == "" || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	return n, err == nil && n >= 0 && t[0] != '+' && t[0] != '-'
}

// describe says what a shape node holds: "string", "array (0-5 items) of
// string", "object (3 keys) or null", with example values.
func describeShape(n *shapeNode, samples int) string {
	var parts []string
	if n.kinds[kObject] > 0 {
		parts = append(parts, "object ("+openRange(n.minMembers, n.maxMembers, "key", n.open)+")")
	}
	if n.kinds[kArray] > 0 {
		s := "array (" + openRange(n.minLen, n.maxLen, "item", n.open) + ")"
		if e := n.elem; e != nil && e.count > 0 {
			s += " of " + kindsOf(e)
		}
		parts = append(parts, s)
	}
	if n.kinds[kString] > 0 {
		parts = append(parts, "string")
	}
	if n.kinds[kNumber] > 0 {
		parts = append(parts, "number")
	}
	if t, f := n.kinds[kTrue], n.kinds[kFalse]; t+f > 0 {
		switch {
		case f == 0:
			parts = append(parts, "true")
		case t == 0:
			parts = append(parts, "false")
		default:
			parts = append(parts, fmt.Sprintf("boolean (true %s, false %s)", textfmt.Int(t), textfmt.Int(f)))
		}
	}
	if n.kinds[kNull] > 0 {
		parts = append(parts, "null")
	}
	s := strings.Join(parts, " or ")
	ex := n.samples
	if len(ex) == 0 && n.elem != nil && n.kinds[kArray] > 0 {
		ex = n.elem.samples
	}
	if len(ex) > samples {
		ex = ex[:samples]
	}
	if len(ex) > 0 {
		s += ", e.g. " + strings.Join(ex, ", ")
	}
	return s
}

// kindsOf names the kinds of values a node holds, briefly.
func kindsOf(n *shapeNode) string {
	names := [nKinds]string{"objects", "arrays", "strings", "numbers", "booleans", "booleans", "nulls"}
	var parts []string
	seen := map[string]bool{}
	for k := 0; k < nKinds; k++ {
		if n.kinds[k] > 0 && !seen[names[k]] {
			seen[names[k]] = true
			parts = append(parts, names[k])
		}
	}
	return strings.Join(parts, " and ")
}

// openRange is rangeOf for the lengths of a path where one instance was
// still open where a sampled document's first part ends: the largest is a
// lower bound.
func openRange(lo, hi int64, word string, open bool) string {
	switch {
	case !open:
		return rangeOf(lo, hi, word)
	case lo < 0 || lo >= hi:
		return "at least " + textfmt.Plural(hi, word)
	}
	return textfmt.Int(lo) + " to at least " + textfmt.Int(hi) + " " + word + "s"
}

func rangeOf(lo, hi int64, word string) string {
	if lo < 0 {
		lo = 0
	}
	if lo == hi {
		return textfmt.Plural(hi, word)
	}
	return textfmt.Int(lo) + "-" + textfmt.Int(hi) + " " + word + "s"
}

// shapeBlock describes the objects of one array path.
type shapeBlock struct {
	jq    string
	arr   *shapeNode // the array node (nil for the top-level stream)
	elem  *shapeNode
	items int64 // elements in all instances
	// mapKeys is set for the values of a map: its most keys.
	mapKeys int64
}

// blocks lists the arrays of objects in the shape, nearest the root first.
func (v *jsonView) blocks() []shapeBlock {
	type qe struct {
		n     *shapeNode
		jq    string
		depth int
	}
	var out []shapeBlock
	var queue []qe
	if v.p.values > 1 {
		if e := v.p.top.elem; e != nil && e.kinds[kObject] > 0 {
			out = append(out, shapeBlock{jq: ".[]", elem: e, items: v.p.outer.n})
		}
		if e := v.p.top.elem; e != nil {
			queue = append(queue, qe{e, ".[]", 1})
		}
	} else if e := v.p.top.elem; e != nil {
		queue = append(queue, qe{e, "", 0})
	}
	for len(queue) > 0 && len(out) < 12 {
		q := queue[0]
		queue = queue[1:]
		if q.depth > 8 {
			continue
		}
		n := q.n
		if e := n.elem; e != nil && n.kinds[kArray] > 0 {
			jq := q.jq + "[]"
			if q.jq == "" {
				jq = ".[]"
			}
			if e.kinds[kObject] > 0 && (n.maxLen > 1 || e.count > 1) {
				out = append(out, shapeBlock{jq: jq, arr: n, elem: e, items: n.items})
			}
			queue = append(queue, qe{e, jq, q.depth + 1})
		}
		if o := n.other; o != nil {
			// An object with more keys than the shape names is a map
			// (keyed by ids, paths, versions): its values share a shape.
			jq := q.jq + "[]"
			if q.jq == "" {
				jq = ".[]"
			}
			if o.kinds[kObject] > 0 && o.count > 1 {
				out = append(out, shapeBlock{jq: jq, elem: o, items: o.count, mapKeys: n.maxMembers})
			}
			queue = append(queue, qe{o, jq, q.depth + 1})
			continue
		}
		for _, k := range n.keys {
			queue = append(queue, qe{k.node, q.jq + jqKey(k.name), q.depth + 1})
		}
	}
	return out
}

// slevel is how much of the shape is shown.
type slevel struct {
	blocks  int
	keys    int
	samples int
}

var slevels = []slevel{{0, 0, 0}, {1, 8, 1}, {1, 16, 2}, {2, 16, 2}, {3, 24, 2}, {4, 32, 3}, {8, 40, 3}, {12, 40, 3}}

// shape renders the shape of the document's arrays of objects.
func (v *jsonView) shape(bs []shapeBlock, lv slevel) []string {
	var out []string
	for i, b := range bs {
		if i == lv.blocks {
			break
		}
		e := b.elem
		objs := e.kinds[kObject]
		head := "shape of " + b.jq + " ("
		// Counts of a sampled document are of what was read.
		least := v.atLeast(v.p.sampled)
		switch {
		case b.mapKeys > 0:
			head += "the values of an object used as a map, up to " + textfmt.Plural(b.mapKeys, "key") + "; the shape of " + textfmt.Int(e.count) + " of them"
		case objs == e.count && b.items > 0:
			head += least + textfmt.Plural(b.items, "object")
		case objs == e.count:
			head += least + textfmt.Plural(objs, "object")
		default:
			head += least + textfmt.Plural(max(b.items, e.count), "item") + ": " + kindsOf(e)
		}
		if e.count < b.items {
			head += ", " + textfmt.Int(e.count) + " read"
		}
		out = append(out, head+"):")
		for j, k := range e.keys {
			if j == lv.keys {
				v.omitted = true
				rest := len(e.keys) - j
				if !v.jqOK() {
					out = append(out, "  … "+textfmt.Plural(int64(rest), "more key")+": "+v.firstOf(e.keys[j:]))
					break
				}
				out = append(out, fmt.Sprintf("  … %s (all keys: %s)", textfmt.Plural(int64(rest), "more key"), v.in.ReadHint(recall.Request{Ref: v.in.Ref, Rev: v.in.Rev(), Query: "[" + b.jq + " | keys[]] | unique"})))
				break
			}
			line := "  " + jqKey(k.name) + ": " + describeShape(k.node, lv.samples)
			if k.node.count < objs {
				line += " (in " + textfmt.Int(k.node.count) + " of " + textfmt.Int(objs) + ")"
			}
			out = append(out, line)
		}
		if e.other != nil {
			names := make([]string, len(e.otherNames))
			for i, n := range e.otherNames {
				names[i] = quoteJSON(n)
			}
			out = append(out, "  more keys, e.g. "+strings.Join(names, ", ")+": "+describeShape(e.other, lv.samples))
		}
	}
	return out
}

// firstOf names keys of the shape that it leaves out, each with the
// pointer of its first member, for a document too large for jq queries.
func (v *jsonView) firstOf(keys []*shapeKey) string {
	var parts []string
	for _, k := range keys {
		if len(parts) == 3 {
			parts = append(parts, "…")
			break
		}
		p := jqKey(k.name)
		if k.first != "" {
			p += " (the first: " + v.in.ReadHint(v.req(k.first)) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// jqExample picks a jq query that fits the document, for the footer.
func (v *jsonView) jqExample(bs []shapeBlock) string {
	for _, b := range bs {
		for _, k := range b.elem.keys {
			n := k.node
			if n.kinds[kString] > 0 && len(n.samples) >= 2 && n.kinds[kObject]+n.kinds[kArray] == 0 && len(n.samples[1]) <= 32 {
				return b.jq + " | select(" + jqKey(k.name) + " == " + n.samples[1] + ")"
			}
		}
	}
	if len(bs) > 0 {
		return "[" + bs[0].jq + "] | length"
	}
	if v.p.values > 1 {
		return ".[0]"
	}
	return "keys"
}
