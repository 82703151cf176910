package project

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/jsonscan"
	"github.com/crumb-dev/crumb/project/rank"
)

// The JSON projector reads a document once with the structural scanner of
// internal/jsonscan and keeps bounded state: a shape tree (one node per
// path with array indices generalized, capped in keys and nodes), an outline
// of the document's top (offsets of the first members and elements of the
// containers near the root, and of each array's last element), and the
// offsets of base64 strings. Only what the view shows is decoded, later.
const (
	// sampleHead is how many elements of each array are read for the
	// shape; past them, every 2nd, 4th, 8th... element is, so that about
	// sampleHead/2 more are read for each doubling of the array's length.
	sampleHead = 256
	// shapeKeyCap is the most keys of one object path the shape names;
	// further keys share one merged shape (maps keyed by ids, paths...).
	shapeKeyCap = 40
	// shapeNodeCap bounds the shape tree.
	shapeNodeCap = 3000
	// shapeSamples is how many distinct example values a path keeps.
	shapeSamples = 3
	// sampleMaxBytes is the longest raw value kept as an example.
	sampleMaxBytes = 48
	// outlineMembers and outlineElems are how many members of an object
	// and first elements of an array the outline records offsets for.
	outlineMembers = 64
	outlineElems   = 24
	// outlineDepth and outlineCap bound the outline.
	outlineDepth = 10
	outlineCap   = 2000
	// assetCap is how many base64 strings are kept for extraction.
	assetCap = 16
	// assetMinLen is the shortest string (raw, with quotes) checked for
	// being base64 data.
	assetMinLen = 258
)

// shapeNode sums up the values found at one path, array indices merged.
type shapeNode struct {
	count  int64
	kinds  [nKinds]int64
	keys   []*shapeKey
	keyIdx map[string]int
	// other merges the members whose keys came after the first
	// shapeKeyCap; otherNames are the first few of those keys.
	other      *shapeNode
	otherNames []string
	minMembers int64
	maxMembers int64
	elem       *shapeNode
	minLen     int64
	maxLen     int64
	items      int64 // elements of all its arrays
	minStr     int64
	maxStr     int64
	samples    []string
	// open is set when an instance was still open where the scan of a
	// sampled document stopped: its length then is a lower bound.
	open bool
}

type shapeKey struct {
	name string
	node *shapeNode
	// first is the pointer of the key's first member, kept when the
	// document is sampled, where no jq query may list the keys.
	first string
}

// value kinds counted by a shape node
const (
	kObject = iota
	kArray
	kString
	kNumber
	kTrue
	kFalse
	kNull
	nKinds
)

func kindIndex(k jsonscan.Kind) int {
	switch k {
	case jsonscan.BeginObject:
		return kObject
	case jsonscan.BeginArray:
		return kArray
	case jsonscan.String:
		return kString
	case jsonscan.Number:
		return kNumber
	case jsonscan.True:
		return kTrue
	case jsonscan.False:
		return kFalse
	}
	return kNull
}

// cinfo is the outline's record of one container near the top.
type cinfo struct {
	ptr        string
	kind       jsonscan.Kind // BeginObject or BeginArray
	start, end int64
	n          int64     // members or elements
	kids       []*ochild // the first members or elements
	last       ochild    // an array's last element
	// open is set when the container was still open where the scan of a
	// sampled document stopped: n counts what was read, and end is the
	// document's.
	open bool
}

// ochild is a member or an element of a recorded container.
type ochild struct {
	key        string
	keyCut     bool
	index      int64
	kind       jsonscan.Kind
	start, end int64
	info       *cinfo // set for containers the outline recorded
}

// asset is a string that may hold base64 data.
type asset struct {
	ptr        string
	start, end int64
}

// frame is an open container during the pass.
type frame struct {
	obj      bool
	detail   bool       // its members are added to the shape
	node     *shapeNode // its shape node, when detail
	info     *cinfo     // its outline record, or nil
	n        int64      // members or elements so far
	keyStart int64      // the current member's key
	keyEnd   int64
	start    int64
	self     *ochild // this container in its parent's record
	depth    int
	// keyLv is what the current member's key holds of the intent, keyTight
	// how much of the key that is; hit gathers the container's matches
	// (see json_intent.go).
	keyLv    rank.Levels
	keyTight uint8
	hit      *hitAcc
	// label is the span of an object's first short string value, which
	// names the object in the context of a match inside it.
	labelStart, labelEnd int64
}

// jsonPass is the state of the pass over a document.
type jsonPass struct {
	s      *jsonscan.Scanner
	frames []frame
	top    *shapeNode // shape of the top-level values, as elements of an array
	outer  *cinfo     // outline of the top-level values, as an array
	nodes  int
	infos  int
	assets []asset
	// moreAssets counts base64 strings found past assetCap.
	moreAssets int
	values     int64
	syntax     *jsonscan.SyntaxError
	size       int64
	// intent is set when the call carries an intent with words.
	intent *intentState

	// sampled is set when the document is too large to read whole;
	// scanned is how much of its start was scanned, read where the tokens
	// understood end, and tail what was read of its end (see
	// json_sample.go).
	sampled bool
	scanned int64
	read    int64
	tail    *jsonTail
}

// scanJSON reads the document once and returns what the view is built
// from. With a matcher, it also finds the containers whose keys and values
// hold the intent's words. A syntax error is returned in the pass, not as
// an error; errors are read failures and the context's end. A document
// larger than jsonSample.full is read only in part (see jsonSample).
func scanJSON(ctx context.Context, r io.ReaderAt, size int64, m *rank.Matcher) (*jsonPass, error) {
	limit, sampled := jsonScanLimit(size)
	p := newJSONPass(r, size, limit, sampled, m)
	p.s.Prefetch()
	defer p.s.Close()
	cut, err := p.run(ctx)
	if err != nil {
		return nil, err
	}
	return p, p.finish(ctx, r, cut)
}

// jsonScanLimit returns how much of a document of size bytes the pass
// reads from its start, and whether that is a sample's first part.
func jsonScanLimit(size int64) (int64, bool) {
	if size > jsonSample.full {
		return min(jsonSample.head, size), true
	}
	return size, false
}

// newJSONPass returns a pass over the first limit bytes of r, a document
// of size bytes, that reads no token yet; sampled says that limit cuts
// the document.
func newJSONPass(r io.ReaderAt, size, limit int64, sampled bool, m *rank.Matcher) *jsonPass {
	p := &jsonPass{s: jsonscan.New(r, limit), size: size}
	if sampled {
		p.s.Cut()
		p.sampled, p.scanned = true, limit
	}
	if m != nil {
		p.intent = &intentState{m: m, st: rank.NewStats(m)}
	}
	p.top = p.newNode()
	p.outer = &cinfo{kind: jsonscan.BeginArray, start: 0, end: size}
	p.frames = append(p.frames, frame{detail: true, node: p.top, info: p.outer, depth: -1})
	return p
}

// run reads the tokens of the pass, to the end of what it reads or to a
// syntax error (kept in the pass), and reports whether it reached the end
// of a sample's first part.
func (p *jsonPass) run(ctx context.Context) (cut bool, err error) {
	for i := 0; ; i++ {
		if i&0xfff == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		t, err := p.s.Next()
		if err != nil {
			if err == io.EOF {
				break
			}
			if err == jsonscan.ErrCut {
				cut = true
				break
			}
			var se *jsonscan.SyntaxError
			if errors.As(err, &se) {
				p.syntax = se
				break
			}
			return false, err
		}
		p.read = t.End
		switch t.Kind {
		case jsonscan.Key:
			f := &p.frames[len(p.frames)-1]
			f.keyStart, f.keyEnd = t.Start, t.End
			if p.intent != nil {
				if f.keyLv, f.keyTight, err = p.matchToken(t); err != nil {
					return false, err
				}
			}
		case jsonscan.EndObject, jsonscan.EndArray:
			if err := p.close(t.End); err != nil {
				return false, err
			}
		default:
			if err := p.value(t); err != nil {
				if err == jsonscan.ErrCut {
					cut = true
					break
				}
				var se *jsonscan.SyntaxError
				if errors.As(err, &se) {
					p.syntax = se
					break
				}
				return false, err
			}
		}
		if p.syntax != nil || cut {
			break
		}
	}
	return cut, nil
}

// finish completes the pass once its tokens are read; r reads the whole
// document, for the end of a sampled one.
func (p *jsonPass) finish(ctx context.Context, r io.ReaderAt, cut bool) error {
	p.values = p.s.Values()
	p.outer.n = p.frames[0].n
	if cut {
		if err := p.finishCut(ctx, r); err != nil {
			return err
		}
	}
	if p.values <= 1 && p.syntax == nil {
		for i := range p.assets {
			p.assets[i].ptr = strings.TrimPrefix(p.assets[i].ptr, "/0")
		}
		p.trimFirst()
	}
	return nil
}

func (p *jsonPass) newNode() *shapeNode {
	p.nodes++
	return &shapeNode{minMembers: -1, minLen: -1, minStr: -1}
}

// sampled reports whether element i of an array is read for the shape.
func sampled(i int64) bool {
	if i < sampleHead {
		return true
	}
	step := i / sampleHead
	stride := int64(2)
	for step > 1 {
		step >>= 1
		stride <<= 1
	}
	return i%stride == 0
}

// member returns the shape node of the member whose key is raw (with
// quotes), creating it while the caps allow.
func (p *jsonPass) member(n *shapeNode, raw []byte, cut bool) *shapeNode {
	name := raw[1 : len(raw)-1]
	esc := cut || bytes.IndexByte(raw, '\\') >= 0
	var key string
	if esc {
		key, _ = jsonscan.KeyText(raw, cut)
		if i, ok := n.keyIdx[key]; ok {
			return n.keys[i].node
		}
	} else if i, ok := n.keyIdx[string(name)]; ok {
		return n.keys[i].node
	} else {
		key = string(name)
	}
	if len(n.keys) < shapeKeyCap && !cut && p.nodes < shapeNodeCap {
		if n.keyIdx == nil {
			n.keyIdx = map[string]int{}
		}
		c := &shapeKey{name: key, node: p.newNode()}
		if p.sampled {
			if toks, _, ok, err := p.pathTokens(p.frames); err == nil && ok {
				c.first = jsonscan.Pointer(toks...)
			}
		}
		n.keyIdx[key] = len(n.keys)
		n.keys = append(n.keys, c)
		return c.node
	}
	if len(n.otherNames) < 4 {
		n.otherNames = append(n.otherNames, key)
	}
	if n.other == nil {
		if p.nodes >= shapeNodeCap {
			return nil
		}
		n.other = p.newNode()
	}
	return n.other
}

// value handles a value token: a scalar, or the start of a container.
func (p *jsonPass) value(t jsonscan.Token) error {
	f := &p.frames[len(p.frames)-1]
	idx := f.n
	f.n++
	var sn *shapeNode
	if f.detail {
		if f.obj {
			raw, err := p.s.Bytes(f.keyStart, f.keyEnd, 1024)
			if err != nil {
				return err
			}
			sn = p.member(f.node, raw, f.keyEnd-f.keyStart > 1024)
		} else if sampled(idx) {
			if f.node.elem == nil && p.nodes < shapeNodeCap {
				f.node.elem = p.newNode()
			}
			sn = f.node.elem
		}
	}
	// Record it in the outline?
	var self *ochild
	if f.info != nil && p.infos < outlineCap*4 && (f.obj && idx < outlineMembers || !f.obj && idx < outlineElems) {
		self = &ochild{index: idx, kind: t.Kind, start: t.Start, end: t.End}
		if f.obj {
			raw, err := p.s.Bytes(f.keyStart, f.keyEnd, 512)
			if err != nil {
				return err
			}
			self.key, self.keyCut = jsonscan.KeyText(raw, f.keyEnd-f.keyStart > 512)
		}
		f.info.kids = append(f.info.kids, self)
		p.infos++
	}
	if f.info != nil && !f.obj {
		f.info.last = ochild{index: idx, kind: t.Kind, start: t.Start, end: t.End}
	}
	if sn != nil {
		sn.count++
		sn.kinds[kindIndex(t.Kind)]++
	}
	if t.Kind != jsonscan.BeginObject && t.Kind != jsonscan.BeginArray {
		if sn != nil {
			if err := p.scalar(sn, t); err != nil {
				return err
			}
		}
		if p.intent != nil {
			if f.obj && f.labelEnd == 0 && t.Kind == jsonscan.String && t.End-t.Start <= hitLabelBytes {
				f.labelStart, f.labelEnd = t.Start, t.End
			}
			return p.intentScalar(f, t, idx)
		}
		return nil
	}
	// A container.
	var info *cinfo
	if self != nil && f.depth+1 < outlineDepth && p.infos < outlineCap*4 {
		info = &cinfo{kind: t.Kind, start: t.Start}
		self.info = info
		p.infos++
	}
	if sn == nil && info == nil && p.intent == nil {
		end, err := p.s.Skip()
		if err == jsonscan.ErrCut {
			// It runs past the first part of a sampled document.
			p.done(f, self, p.size)
		}
		if err != nil {
			return err
		}
		p.read = end
		p.done(f, self, end)
		return nil
	}
	p.frames = append(p.frames, frame{obj: t.Kind == jsonscan.BeginObject, detail: sn != nil, node: sn, info: info, start: t.Start, self: self, depth: f.depth + 1})
	if p.intent != nil {
		p.intentOpen(&p.frames[len(p.frames)-2], &p.frames[len(p.frames)-1])
	}
	return nil
}

// done records the end of a value in its parent.
func (p *jsonPass) done(f *frame, self *ochild, end int64) {
	if self != nil {
		self.end = end
		if self.info != nil {
			self.info.end = end
		}
	}
	if f.info != nil && !f.obj {
		f.info.last.end = end
	}
}

// close ends the innermost container.
func (p *jsonPass) close(end int64) error {
	if p.intent != nil {
		if err := p.intentClose(&p.frames[len(p.frames)-1], end); err != nil {
			return err
		}
	}
	g := p.frames[len(p.frames)-1]
	p.frames = p.frames[:len(p.frames)-1]
	if g.node != nil {
		if g.obj {
			if g.node.minMembers < 0 || g.n < g.node.minMembers {
				g.node.minMembers = g.n
			}
			g.node.maxMembers = max(g.node.maxMembers, g.n)
		} else {
			if g.node.minLen < 0 || g.n < g.node.minLen {
				g.node.minLen = g.n
			}
			g.node.maxLen = max(g.node.maxLen, g.n)
			g.node.items += g.n
		}
	}
	if g.info != nil {
		g.info.n = g.n
	}
	p.done(&p.frames[len(p.frames)-1], g.self, end)
	return nil
}

// scalar adds a scalar to its shape node: a few distinct examples, string
// lengths, and base64 strings found.
func (p *jsonPass) scalar(sn *shapeNode, t jsonscan.Token) error {
	n := t.End - t.Start
	if t.Kind == jsonscan.String {
		if sn.minStr < 0 || n-2 < sn.minStr {
			sn.minStr = n - 2
		}
		sn.maxStr = max(sn.maxStr, n-2)
		if n >= assetMinLen {
			if err := p.maybeAsset(t); err != nil {
				return err
			}
		}
	}
	if len(sn.samples) < shapeSamples && n <= sampleMaxBytes && t.Kind != jsonscan.True && t.Kind != jsonscan.False && t.Kind != jsonscan.Null {
		raw, err := p.s.Bytes(t.Start, t.End, sampleMaxBytes)
		if err != nil {
			return err
		}
		for _, s := range sn.samples {
			if s == string(raw) {
				return nil
			}
		}
		sn.samples = append(sn.samples, string(raw))
	}
	return nil
}

// maybeAsset notes a long string that opens like base64 data or a data:
// URL.
func (p *jsonPass) maybeAsset(t jsonscan.Token) error {
	head, err := p.s.Bytes(t.Start, t.End, 512)
	if err != nil {
		return err
	}
	if !looksAssetHead(head[1:]) {
		return nil
	}
	if len(p.assets) >= assetCap {
		p.moreAssets++
		return nil
	}
	ptr, err := p.pointer()
	if err != nil {
		return err
	}
	p.assets = append(p.assets, asset{ptr: ptr, start: t.Start, end: t.End})
	return nil
}

// looksAssetHead reports whether the start of a string's text looks like a
// data: URL or base64 (a long run of the base64 alphabet mixing cases and
// digits).
func looksAssetHead(b []byte) bool {
	if bytes.HasPrefix(b, []byte("data:")) {
		i := bytes.Index(b, []byte(";base64,"))
		return i > 0 && i < 200
	}
	upper, lower, digit := 0, 0, 0
	for _, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		case c == '+' || c == '/' || c == '-' || c == '_' || c == '=':
		case c == '"':
			// The end of a short head.
		default:
			return false
		}
	}
	n := len(b)
	return upper*20 >= n && lower*20 >= n && digit*50 >= n
}

// pointer returns the JSON pointer of the value being read, reading the
// keys of the open containers back from the input. Its first token is the
// index among the top-level values; finish drops it when there is only one.
func (p *jsonPass) pointer() (string, error) {
	toks := make([]string, 0, len(p.frames))
	for _, f := range p.frames {
		if !f.obj {
			toks = append(toks, strconv.FormatInt(f.n-1, 10))
			continue
		}
		raw, err := p.s.Bytes(f.keyStart, f.keyEnd, 4096)
		if err != nil {
			return "", err
		}
		k, _ := jsonscan.KeyText(raw, f.keyEnd-f.keyStart > 4096)
		toks = append(toks, k)
	}
	return jsonscan.Pointer(toks...), nil
}
