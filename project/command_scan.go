package project

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/crumb-dev/crumb/internal/topk"
	"github.com/crumb-dev/crumb/project/internal/classify"
)

// The command projector learns what it needs from one pass over the output:
// which lines are evidence (errors, failures, panics, summaries) and where the
// output repeats itself. The pass keeps bounded state whatever the size of
// the output: the evidence its ranker keeps (the first lines of each
// template of evidence, see command_rank.go), the longest cmdMaxRuns runs of
// near-identical lines, and counters. Its cost per line is a few byte
// comparisons; the precise matchers only run on lines whose first byte or
// first colon makes them candidates, and only evidence lines (and, with an
// intent, the lines that hold its words) are mined into templates.

// Limits of the scan's state.
const (
	cmdMaxRuns     = 48  // runs of near-identical lines kept, longest first
	cmdMinRun      = 6   // shortest run worth naming
	cmdRunWindow   = 16  // a line may repeat the shape of any of the 16 before it
	cmdSampleBytes = 128 // bytes of a line a note reads for its sample
)

// cmdRun is a stretch of near-identical lines: each line after the first has
// the shape of one of the few lines before it (progress lines, "Downloading
// ...", a warning repeated, "=== RUN" and "--- PASS" alternating); see
// cmdShapeKey.
type cmdRun struct {
	first, last int64  // line numbers
	from, to    int64  // byte offsets; to is where the line after the run starts
	key         uint64 // the shape of the line that started the run

	// likes counts the run's lines from since on by what a note would
	// call them (cmdLikeKey), for the first cmdRunLikes kinds that come;
	// the lines of other kinds, and those no key is given, are not
	// counted. A note states only counts made here or by reading lines.
	likes [cmdLikeLevels][cmdRunLikes]cmdLike
	since int64 // the first line counted: the lines before it are not
}

// cmdRunLikes is how many kinds of line a run counts exactly.
const cmdRunLikes = 4

// cmdLike counts the lines of one kind in a run.
type cmdLike struct {
	key       uint64 // cmdLikeKey; 0 for a slot not used
	n         int64  // lines of the run, from since on, of this kind
	line, off int64  // the first of them
}

// like counts line no, which starts at off and has the key key (see
// cmdLikeKey), among the run's lines.
func (r *cmdRun) like(lv int, key uint64, no, off int64) {
	for i := range r.likes[lv] {
		l := &r.likes[lv][i]
		switch l.key {
		case key:
			l.n++
			return
		case 0:
			*l = cmdLike{key: key, n: 1, line: no, off: off}
			return
		}
	}
}

func (r *cmdRun) lines() int64 { return r.last - r.first + 1 }

// shorterRun reports whether run a ranks below b: shorter, or as long and
// later. The runs kept are a topk heap by it.
func shorterRun(a, b cmdRun) bool {
	if a.lines() != b.lines() {
		return a.lines() < b.lines()
	}
	return a.first > b.first
}

// cmdLikeMemo remembers the key (cmdLikeKey) of a line start, by its hash
// with digits taken as equal (cmdLineHash): lines that differ only in the
// values of their digits have the same key, and most lines of a run do.
type cmdLikeMemo struct {
	hash uint64
	keys [cmdLikeLevels]uint64
	ok   bool
}

// likeKeys returns cmdLikeKey(text, lv) at each level, from the memo when
// a line like it came before.
func (s *cmdScan) likeKeys(text []byte) ([cmdLikeLevels]uint64, bool) {
	b := text[:min(len(text), cmdSampleBytes)]
	h := cmdLineHash(b)
	if len(text) > cmdSampleBytes {
		h = ^h
	}
	m := &s.likes[h%uint64(len(s.likes))]
	if m.hash == h && h != 0 {
		return m.keys, m.ok
	}
	keys, ok := cmdLikeKeys(text)
	*m = cmdLikeMemo{hash: h, keys: keys, ok: ok}
	return keys, ok
}

// cmdSlot remembers the last line of a shape, for finding repeats.
type cmdSlot struct {
	key       uint64
	line, off int64
}

// cmdScan is the state of a scan. Feed it the output with Write, in order,
// then call finish.
type cmdScan struct {
	off  int64 // offset of the next byte
	line int64 // number of the line being read
	seen int64 // lines scanned: fewer than line-1 when the scan jumps

	// A line that straddles writes: its start and its first bytes.
	partial   bool
	partStart int64
	partBuf   []byte

	// ev is the evidence, best first, once the scan is finished (see
	// cmdRanker); counts the evidence lines found per family.
	ev     []cmdEvidence
	rk     cmdRanker
	counts [classify.NumFamilies]int64

	slots  [64]cmdSlot // the last line of each recent shape, by key
	likes  [256]cmdLikeMemo
	inRun  bool
	floor  int64 // the first line a new run may start at: after the last run kept
	cur    cmdRun
	runs   []cmdRun // the longest, a topk heap by shorterRun
	closed bool
}

// newCmdScan starts a scan; lines that hold the intent's words are
// evidence too.
func newCmdScan(intent string) *cmdScan {
	s := &cmdScan{line: 1, partBuf: make([]byte, 0, classify.ClassifyBytes)}
	s.rk.init(intent)
	return s
}

// Write scans p, which continues what was written before. It never fails.
func (s *cmdScan) Write(p []byte) (int, error) {
	n := len(p)
	base := s.off
	i := 0
	if s.partial {
		j := bytes.IndexByte(p, '\n')
		end := j
		if j < 0 {
			end = len(p)
		}
		if room := classify.ClassifyBytes - len(s.partBuf); room > 0 {
			s.partBuf = append(s.partBuf, p[:min(room, end)]...)
		}
		if j < 0 {
			s.off += int64(n)
			return n, nil
		}
		s.onLine(s.partBuf, s.partStart)
		s.partial = false
		s.partBuf = s.partBuf[:0]
		i = j + 1
	}
	for i < len(p) {
		j := bytes.IndexByte(p[i:], '\n')
		if j < 0 {
			s.partial = true
			s.partStart = base + int64(i)
			s.partBuf = append(s.partBuf[:0], p[i:min(len(p), i+classify.ClassifyBytes)]...)
			break
		}
		s.onLine(p[i:i+min(j, classify.ClassifyBytes)], base+int64(i))
		i += j + 1
	}
	s.off += int64(n)
	return n, nil
}

// finish ends the scan: a last line without a newline counts.
func (s *cmdScan) finish() {
	if s.closed {
		return
	}
	s.closed = true
	if s.partial {
		s.onLine(s.partBuf, s.partStart)
		s.partial = false
	}
	s.endRun(s.off)
	s.ev = s.rk.rank(s.seen, s.lines())
}

// lines returns the number of lines scanned.
func (s *cmdScan) lines() int64 { return s.line - 1 }

// jump moves a sampling scan to off, the start of line number line, past
// bytes it does not read. A line left unfinished counts by its first bytes,
// and no run goes on across the jump.
func (s *cmdScan) jump(off, line int64) {
	if s.partial {
		s.onLine(s.partBuf, s.partStart)
		s.partial = false
		s.partBuf = s.partBuf[:0]
	}
	s.endRun(s.off)
	s.slots = [64]cmdSlot{}
	s.off, s.line = off, line
}

// onLine handles one line: text is its first bytes (without the newline),
// start its offset.
func (s *cmdScan) onLine(text []byte, start int64) {
	no := s.line
	s.line++
	s.seen++
	k := classify.Indent(text)
	s.repeat(text, k, no, start)
	if k == len(text) {
		return
	}
	m, t, ti := classify.ClassifyLine(text[k:], k)
	switch {
	case m.Fam != classify.FamNone:
		s.counts[m.Fam]++
	case s.rk.m == nil:
		// No evidence and no intent: the ranker only follows where the
		// line stands, and only a line that is not indented moves it.
		if k == 0 {
			s.rk.follow(text, no, start)
		}
		return
	}
	s.rk.add(t, no, start, ti, m)
}

// repeat follows runs of near-identical lines. A line continues a run when
// a line of its shape came at most cmdRunWindow lines before it. indent is
// the length of the line's indentation.
func (s *cmdScan) repeat(text []byte, indent int, no, start int64) {
	key := cmdShapeKeyAt(text, indent)
	sl := &s.slots[key%uint64(len(s.slots))]
	if sl.key == key && sl.line > 0 && sl.line >= no-cmdRunWindow && sl.line >= s.floor {
		if !s.inRun {
			s.inRun = true
			s.cur = cmdRun{first: sl.line, from: sl.off, key: key, since: no}
		}
		s.cur.last = no
		if keys, ok := s.likeKeys(text); ok {
			for lv, key := range keys {
				s.cur.like(lv, key, no, start)
			}
		}
	} else if s.inRun {
		s.endRun(start)
	}
	sl.key, sl.line, sl.off = key, no, start
}

// endRun closes the current run at offset to, where the line after it
// starts, keeping it when it is among the longest.
func (s *cmdScan) endRun(to int64) {
	if !s.inRun {
		return
	}
	s.inRun = false
	r := s.cur
	r.to = to
	if r.lines() < cmdMinRun {
		return
	}
	s.floor = r.last + 1 // runs kept do not overlap
	// A run starts after every run kept, so a run as long as the
	// shortest kept never replaces it.
	topk.Keep(&s.runs, cmdMaxRuns, r, shorterRun)
}

// cmdShapeKey hashes the shape of a line: its first 16 bytes after the
// indentation and any leading number or timestamp, with each run of digits
// taken as one digit ("2024-05-01T12:00:00Z INFO x", "   11 | int x;",
// "test_a.go:12: msg" and "day 9: acc-7" keep their shape when the numbers
// change, whatever their widths), and how many bytes that was. It looks at
// no more than the first 64 bytes.
func cmdShapeKey(t []byte) uint64 { return cmdShapeKeyAt(t, classify.Indent(t)) }

// cmdShapeKeyAt is cmdShapeKey for a line whose first k bytes are its
// indentation (cmdIndent), which the scan has measured already.
func cmdShapeKeyAt(t []byte, k int) uint64 {
	i, digits := min(k, 40), false
	if i < len(t) && classify.IsLetter(t[i]) {
		goto done // most lines: no number leads them
	}
	for i < len(t) && i < 40 {
		c := t[i]
		switch {
		case c == ' ' || c == '\t':
		case classify.IsDigit(c):
			digits = true
		case c == '[' && !digits && i+1 < len(t) && classify.IsDigit(t[i+1]):
		case digits && (c == '-' || c == ':' || c == '.' || c == ',' || c == '/' || c == 'T' || c == 'Z' || c == '+' || c == ']'):
		default:
			goto done
		}
		i++
	}
done:
	var w1, w2 uint64
	n := min(len(t)-i, 16)
	if n == 16 {
		w1 = binary.LittleEndian.Uint64(t[i:])
		w2 = binary.LittleEndian.Uint64(t[i+8:])
	} else {
		var buf [16]byte
		copy(buf[:], t[i:])
		w1 = binary.LittleEndian.Uint64(buf[:8])
		w2 = binary.LittleEndian.Uint64(buf[8:])
	}
	if cmdNotDigits(w1)&cmdNotDigits(w2) != 0x8080808080808080 { // a digit in them
		w1, w2, n = cmdShapeDigits(t, i)
	}
	h := w1*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(w2*0xC2B2AE3D27D4EB4F, 31) ^ uint64(n)*0x165667B19E3779F9
	return h ^ h>>29
}

// cmdShapeDigits returns the first 16 bytes of t from i with each run of
// digits taken as one '0', as two words, and how many bytes that was. It
// looks at no more than 64 bytes of t, and copies the bytes between runs of
// digits 8 at a time.
func cmdShapeDigits(t []byte, i int) (w1, w2 uint64, n int) {
	var buf [24]byte // 8 bytes more, to copy a word at any n below 16
	end := min(len(t), i+64)
	prev := false // the byte before was a digit, written as buf[n-1] == '0'
	for i < end && n < 16 {
		if !prev && i+8 <= end {
			w := binary.LittleEndian.Uint64(t[i:])
			// The bytes before the first digit, all 8 when there is none.
			k := 8
			if m := cmdDigitBytes(w); m != 0 {
				k = bits.TrailingZeros64(m) / 8
			}
			if k > 0 {
				binary.LittleEndian.PutUint64(buf[n:], w)
				k = min(k, 16-n)
				n += k
				i += k
				continue
			}
		}
		c := t[i]
		i++
		d := classify.IsDigit(c)
		if d {
			if prev {
				continue
			}
			c = '0'
		}
		prev = d
		buf[n] = c
		n++
	}
	clear(buf[n:]) // what a word copied past the 16 bytes or the end
	return binary.LittleEndian.Uint64(buf[:8]), binary.LittleEndian.Uint64(buf[8:]), n
}

// cmdDigitBytes returns w with 0xff in each of its 8 bytes that is an ASCII
// digit and 0 in the others, without a branch.
func cmdDigitBytes(w uint64) uint64 {
	return ((^cmdNotDigits(w) & 0x8080808080808080) >> 7) * 0xff
}

// cmdNotDigits returns w with the high bit set in each of its 8 bytes that
// is not an ASCII digit, and every other bit clear.
func cmdNotDigits(w uint64) uint64 {
	const (
		low7  = 0x7f7f7f7f7f7f7f7f
		high  = 0x8080808080808080
		zeros = 0x3030303030303030
	)
	x := w ^ zeros                                      // a digit becomes 0x00-0x09
	return ((x & low7) + 0x7676767676767676 | x) & high // high bit set unless 0x00-0x09
}

// cmdLineHash hashes a whole line with its digits taken as equal: two
// lines with the same hash repeat each other but for their numbers. It
// works a word at a time.
func cmdLineHash(t []byte) uint64 {
	h := uint64(len(t)) * 0x165667B19E3779F9
	for i := 0; i < len(t); i += 8 {
		var w uint64
		if i+8 <= len(t) {
			w = binary.LittleEndian.Uint64(t[i:])
		} else {
			var buf [8]byte
			copy(buf[:], t[i:])
			w = binary.LittleEndian.Uint64(buf[:])
		}
		m := cmdDigitBytes(w)
		w = w&^m | 0x3030303030303030&m
		h = bits.RotateLeft64((h^w)*0x9E3779B97F4A7C15, 27)
	}
	return h ^ h>>31
}
