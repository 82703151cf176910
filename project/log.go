package project

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/recall"
)

// How much of a log the view reads. A log up to logSample.full bytes is
// read whole; a larger one is sampled: its first and last logSample.ends
// bytes and logSample.windows windows of logSample.window bytes spread
// evenly between them, so that projecting a 1 GB log reads no more than a
// 28 MB one, and the view says that its counts are the sample's. Tests make
// these smaller.
var logSample = struct {
	full, ends, window int64
	windows            int
}{full: 32 << 20, ends: 8 << 20, window: 512 << 10, windows: 24}

const (
	// logLineCap is how much of a line classification and mining look at.
	logLineCap = 4096
	// logBlock is the unit of reads while scanning, the store's chunk size.
	logBlock = 1 << 20
	// logSniff is how much of each end of a text decides whether it is a
	// log.
	logSniff = 64 << 10
	// logMaxErrorExcerpts bounds the error excerpts of a view: each costs
	// an omission marker.
	logMaxErrorExcerpts = 24
	// logRecordLines is the most lines after an error that are shown with
	// it as part of its record (a stack trace, PostgreSQL's DETAIL and
	// STATEMENT lines).
	logRecordLines = 8
	// logTraceLines is the most lines of a stack trace a record may take
	// to reach the first frame in the program's own code.
	logTraceLines = 48
	// logLeadLines is the most lines before an error that show with it
	// when they share its timestamp: what led to it.
	logLeadLines = 3
	// logFollowLines is the most lines after an error's record that show
	// with it when they share its timestamp and level but not its
	// template: the rest of one event, written as several lines.
	logFollowLines = 2
	// logBurstLines is the most lines that may share a timestamp for
	// those around an error to count as part of its event.
	logBurstLines = 8
	// logRareCount is the most lines a template may have to be rare: the
	// one-off lines that tell the story of a log.
	logRareCount = 2
	// logKeptOthers is how many lines of each level that no template took
	// are remembered for the view.
	logKeptOthers = 8
	// logTemplateWidth bounds how much of a template a view shows.
	logTemplateWidth = 200
	// logMaxCandidates bounds the candidate lines a view tries to show.
	logMaxCandidates = 6 * logMaxErrorExcerpts
)

// logFormat is what the first and last lines of a text say about it as a
// log.
type logFormat struct {
	// timestamped: most lines open a record with a timestamp, so a line
	// without one continues the record before it.
	timestamped bool
	// keywords: the log writes no levels; words such as "error" and
	// "failed" stand in for them.
	keywords bool
	// numbered: a tool numbered the lines (cat -n, nl, grep -n, a
	// counter or a bracketed index before each): a line's timestamp and
	// level are read behind its number.
	numbered bool
}

// classify finds a line's timestamp and level (see classifyLogLine),
// behind its number when the log is numbered.
func (f logFormat) classify(line []byte) classify.LogLine {
	p := 0
	if f.numbered {
		_, p = logNumberPrefix(line)
	}
	ll := classify.ClassifyLogLine(line[p:], f.keywords)
	if ll.TsEnd > 0 {
		ll.TsStart += p
		ll.TsEnd += p
	}
	ll.Skip = p
	return ll
}

// logNumberPrefix reads the number a tool put before a line: "     7\t"
// (cat -n, nl), "7:" and "7-" (grep -n), "logs/app.log:7:" (grep -Hn),
// "000007 " (a counter), "[7] ". It returns the number and the prefix's
// length, or 0, 0.
func logNumberPrefix(line []byte) (int64, int) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	if i == 0 && len(line) > 0 && !classify.LogDigit(line[0]) && line[0] != '[' {
		// A file's name: no spaces, then ":7:".
		c := bytes.IndexByte(line[:min(len(line), 256)], ':')
		if c <= 0 || bytes.ContainsAny(line[:c], " \t") {
			return 0, 0
		}
		n, p := logNumberPrefix(line[c+1:])
		if p == 0 || line[c+p] != ':' && line[c+p] != '-' {
			return 0, 0
		}
		return n, c + 1 + p
	}
	bracket := i < len(line) && line[i] == '['
	if bracket {
		i++
	}
	j := i
	var n int64
	for j < len(line) && j-i < 12 && classify.LogDigit(line[j]) {
		n = n*10 + int64(line[j]-'0')
		j++
	}
	if j == i || j >= len(line) {
		return 0, 0
	}
	switch c := line[j]; {
	case bracket:
		if c != ']' {
			return 0, 0
		}
		j++
		if j < len(line) && line[j] == ' ' {
			j++
		}
		return n, j
	case c == '\t' || c == ':' || c == '-' || c == ' ':
		return n, j + 1
	}
	return 0, 0
}

// logNumbered reports whether a tool numbered the lines of a text, given
// its first lines: nine in ten of them start with a number larger than
// the line's before.
func logNumbered(head [][]byte) bool {
	var n, up int
	prev := int64(0)
	for _, l := range head {
		k, p := logNumberPrefix(l)
		n++
		if p > 0 && k > prev {
			up++
			prev = k
		}
	}
	return n >= 3 && up*10 >= n*9
}

// detectLog reports whether a text is a log: most of the lines at its two
// ends carry a timestamp or a level (or are JSON objects with a time or a
// level).
func detectLog(doc *lines.Doc) (logFormat, bool, error) {
	size := doc.Size()
	head, err := doc.ReadRange(0, min(size, logSniff))
	if err != nil {
		return logFormat{}, false, err
	}
	var sample [][]byte
	hl := bytes.Split(head, []byte{'\n'})
	if int64(len(head)) < size && len(hl) > 1 {
		hl = hl[:len(hl)-1] // a cut last line
	}
	sample = append(sample, hl...)
	numbered := logNumbered(hl)
	if tailFrom := max(int64(len(head)), size-logSniff); tailFrom < size {
		tail, err := doc.ReadRange(tailFrom, size)
		if err != nil {
			return logFormat{}, false, err
		}
		tl := bytes.Split(tail, []byte{'\n'})
		if len(tl) > 1 {
			tl = tl[1:] // a cut first line
		}
		sample = append(sample, tl...)
	}
	f, ok := logFormatOf(sample, numbered)
	return f, ok, nil
}

// logFormatOf tells from lines of a text's two ends whether it is a log,
// and what kind of log; numbered says a tool numbered its lines.
func logFormatOf(sample [][]byte, numbered bool) (logFormat, bool) {
	nf := logFormat{numbered: numbered}
	var n, records, levels, either int
	for _, l := range sample {
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		n++
		ll := nf.classify(l[:min(len(l), logLineCap)])
		if ll.Record {
			records++
		}
		if ll.Hit.Level != classify.SevNone {
			levels++
		}
		if ll.Record || ll.Hit.Level != classify.SevNone {
			either++
		}
	}
	if n < 3 || either*2 < n {
		return logFormat{}, false
	}
	return logFormat{timestamped: records*2 >= n, keywords: levels*10 < n, numbered: numbered}, true
}

// logOcc is one line of a log: its number and offset, and those of the
// record it belongs to (the line itself, or the timestamped line it
// continues).
type logOcc struct {
	line, off       int64
	recLine, recOff int64
}

// logCluster is what the scan learns of one template.
type logCluster struct {
	level       classify.Level
	first, last logOcc
}

// logGroups keeps the lines of different levels, and those of different
// statuses in an access log, apart: the template miner joins lines of one
// group only. A group is a level, or a status with its level.
type logGroups struct {
	byCode [1000]uint8      // the group of each status seen, 0 for none yet
	level  []classify.Level // by group; the first numSev groups are the levels
	code   []uint16         // by group; 0 for the levels
}

// logMaxGroups bounds the groups; statuses past it share their level's.
const logMaxGroups = 200

func newLogGroups() *logGroups {
	g := &logGroups{}
	for l := classify.SevNone; l < classify.NumSev; l++ {
		g.level = append(g.level, l)
		g.code = append(g.code, 0)
	}
	return g
}

// of returns the group of a line with this level.
func (g *logGroups) of(h classify.LevelHit) uint8 {
	if h.Code == 0 || h.Code >= 1000 {
		return uint8(h.Level)
	}
	if id := g.byCode[h.Code]; id != 0 {
		return id
	}
	if len(g.level) >= logMaxGroups {
		return uint8(h.Level)
	}
	id := uint8(len(g.level))
	g.level = append(g.level, h.Level)
	g.code = append(g.code, h.Code)
	g.byCode[h.Code] = id
	return id
}

// find returns the group of a line with this level, without making one.
func (g *logGroups) find(h classify.LevelHit) uint8 {
	if h.Code != 0 && h.Code < 1000 {
		if id := g.byCode[h.Code]; id != 0 {
			return id
		}
	}
	return uint8(h.Level)
}

// levelOf returns the level of a group's lines.
func (g *logGroups) levelOf(group uint8) classify.Level {
	if int(group) < len(g.level) {
		return g.level[group]
	}
	return classify.SevNone
}

// codeOf returns the status of a group's lines, or 0.
func (g *logGroups) codeOf(group uint8) uint16 {
	if int(group) < len(g.code) {
		return g.code[group]
	}
	return 0
}

// logOthers are the lines of one level that no template took.
type logOthers struct {
	count int64
	occ   []logOcc
}

// logSpan is a span of bytes.
type logSpan struct{ from, to int64 }

// logScan is the state of one scan of a log. Its size is bounded by the
// miner's cap on clusters, whatever the size of the log.
type logScan struct {
	f        logFormat
	miner    *drain.Miner
	groups   *logGroups
	intent   *logIntent   // nil when the call has no intent
	clusters []logCluster // by cluster id
	others   [classify.NumSev]logOthers
	bySev    [classify.NumSev]int64
	spells   [classify.NumSev][]string

	lines, bytes int64 // scanned
	sampled      bool
	pipe         *logPipe // while lines go through one (see startPipe)
	windows      int      // windows read besides the two ends, when sampled
	lastRecord   logOcc
	haveRecord   bool
}

// logPlan returns the spans a scan reads: the whole log, or a sample.
func logPlan(size int64) (spans []logSpan, sampled bool) {
	p := logSample
	if size <= p.full {
		return []logSpan{{0, size}}, false
	}
	spans = append(spans, logSpan{0, p.ends})
	from, to := p.ends, size-p.ends
	step := (to - from) / int64(p.windows+1)
	w := min(p.window, step)
	for k := int64(1); k <= int64(p.windows); k++ {
		a := from + k*step - w/2
		spans = append(spans, logSpan{a, a + w})
	}
	spans = append(spans, logSpan{to, size})
	return spans, true
}

// scanLog reads the log (or a sample of it), mining templates and counting
// levels.
func scanLog(ctx context.Context, in *Input, doc *lines.Doc, f logFormat) (*logScan, error) {
	size := doc.Size()
	// A prescan may have scanned the first lines already, while the log
	// was being stored: the scan carries on from where it stopped.
	s, done := takeLog(ctx, in.Prescan, f, size)
	if s == nil {
		s, done = newLogScan(f, in.Call().Intent), 0
	}
	spans, sampled := logPlan(size)
	s.sampled = sampled
	if sampled {
		s.windows = len(spans) - 2
	}
	var planned int64
	for _, sp := range spans {
		planned += max(0, min(sp.to, size)-max(sp.from, done))
	}
	if planned >= logPipeMin {
		s.startPipe()
		defer s.stopPipe()
	}
	buf := make([]byte, logBlock)
	for k, sp := range spans {
		from := max(sp.from, done)
		if from >= sp.to || from >= size {
			continue
		}
		if from > 0 {
			// Start at a line start: the first one at or after from.
			var b [1]byte
			if _, err := in.Source.ReadAt(b[:], from-1); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if b[0] != '\n' {
				l, err := doc.ReadLine(from, 0)
				if err != nil {
					if errors.Is(err, io.EOF) {
						continue
					}
					return nil, err
				}
				from = l.End
				if from >= sp.to {
					done = from
					continue
				}
			}
		}
		num, err := doc.LineAt(from)
		if err != nil {
			return nil, err
		}
		if k > 0 || done == 0 {
			// Records do not span windows; the first span goes on with
			// the record a prescan saw last.
			s.endRecord()
		}
		end, err := s.window(ctx, in.Source, size, from, sp.to, num, buf)
		if err != nil {
			return nil, err
		}
		s.bytes += end - from
		done = end
	}
	s.stopPipe()
	return s, nil
}

// newLogScan returns the state of a scan that has read nothing yet.
func newLogScan(f logFormat, intent string) *logScan {
	return &logScan{f: f, miner: drain.New(drain.Options{}), groups: newLogGroups(), intent: newLogIntent(intent)}
}

// window scans the lines that start in [from, to), from (a line start)
// holding line num. It returns where the last line it read ends.
func (s *logScan) window(ctx context.Context, src io.ReaderAt, size, from, to, num int64, buf []byte) (int64, error) {
	pos := from
	for pos < to && pos < size {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b, err := readBlock(src, buf, pos, size)
		if err != nil {
			return 0, err
		}
		i := 0
		for i < len(b) {
			start := pos + int64(i)
			if start >= to {
				return start, nil
			}
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				if pos+int64(len(b)) >= size { // the last line, without a newline
					s.add(b[i:min(len(b), i+logLineCap)], start, num)
					return size, nil
				}
				if i > 0 {
					break // read on from this line's start
				}
				// A line longer than a block: its head counts, the rest
				// is skipped.
				s.add(b[:logLineCap], start, num)
				end, err := skipLine(src, buf, pos+int64(len(b)), size)
				if err != nil {
					return 0, err
				}
				num++
				i = -1
				pos = end
				break
			}
			s.add(b[i:i+min(j, logLineCap)], start, num)
			num++
			i += j + 1
		}
		if i >= 0 {
			pos += int64(i)
		}
	}
	return pos, nil
}

// readBlock reads up to len(buf) bytes at pos.
func readBlock(src io.ReaderAt, buf []byte, pos, size int64) ([]byte, error) {
	n := min(int64(len(buf)), size-pos)
	k, err := src.ReadAt(buf[:n], pos)
	if err != nil && !(errors.Is(err, io.EOF) && int64(k) == n) {
		return nil, fmt.Errorf("project: reading the log at byte %d: %w", pos, err)
	}
	return buf[:k], nil
}

// skipLine returns the offset just past the newline at or after pos.
func skipLine(src io.ReaderAt, buf []byte, pos, size int64) (int64, error) {
	for pos < size {
		b, err := readBlock(src, buf, pos, size)
		if err != nil {
			return 0, err
		}
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			return pos + int64(j) + 1, nil
		}
		pos += int64(len(b))
	}
	return size, nil
}

// add takes one line (its first logLineCap bytes, without the newline).
func (s *logScan) add(line []byte, off, num int64) {
	if s.pipe != nil {
		s.pipe.add(line, off, num)
		return
	}
	line = bytes.TrimSuffix(line, []byte{'\r'})
	s.addClassified(line, s.f.classify(line), off, num, nil, 0)
}

// addClassified takes one line, classified as ll: split by the miner, or,
// when b is not nil, split already as line i of b.
func (s *logScan) addClassified(line []byte, ll classify.LogLine, off, num int64, b *drain.Batch, i int) {
	s.lines++
	occ := logOcc{line: num, off: off, recLine: num, recOff: off}
	if ll.Record {
		s.lastRecord, s.haveRecord = occ, true
	} else if s.f.timestamped && s.haveRecord && num-s.lastRecord.line <= logRecordLines {
		occ.recLine, occ.recOff = s.lastRecord.line, s.lastRecord.off
	}
	sev := ll.Hit.Level
	s.bySev[sev]++
	if sev >= classify.SevWarn && ll.Hit.Spell != "" {
		s.addSpell(sev, ll.Hit.Spell)
	}
	lv := s.intent.match(line)
	var id int
	if b != nil {
		id = s.miner.AddBatched(s.groups.of(ll.Hit), b, i, num)
	} else {
		t, ts, te := ll.Mined(line)
		id = s.miner.AddStamped(s.groups.of(ll.Hit), t, ts, te, num)
	}
	if lv != 0 {
		s.intent.add(lv, id, occ)
	}
	if id == drain.Other {
		o := &s.others[sev]
		o.count++
		if len(o.occ) < logKeptOthers {
			o.occ = append(o.occ, occ)
		}
		return
	}
	if id == len(s.clusters) {
		s.clusters = append(s.clusters, logCluster{level: sev, first: occ, last: occ})
		return
	}
	s.clusters[id].last = occ
}

// addSpell remembers how a level is written, for the search the view
// offers; a few spellings at most, in the order first seen.
func (s *logScan) addSpell(sev classify.Level, spell string) {
	for _, x := range s.spells[sev] {
		if x == spell {
			return
		}
	}
	if len(s.spells[sev]) < 6 {
		s.spells[sev] = append(s.spells[sev], spell)
	}
}

// pattern returns an RE2 pattern that finds every error and warning line
// the scan saw, or "" when there were none.
func (s *logScan) pattern() string {
	var parts []string
	for _, sev := range []classify.Level{classify.SevError, classify.SevWarn} {
		parts = append(parts, s.spells[sev]...)
	}
	if len(parts) == 0 {
		return ""
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range parts {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return strings.Join(out, "|")
}

// problems returns the number of error and warning lines, and of their
// templates.
func (s *logScan) problems(sev classify.Level) (lines int64, templates int) {
	for _, c := range s.clusters {
		if c.level == sev {
			templates++
		}
	}
	return s.bySev[sev], templates
}

// logView renders the view of a log.
type logView struct {
	e      *view.Excerptor
	s      *logScan
	size   int64
	total  int64                    // lines
	levels map[int64]classify.Level // levels of lines shown, by offset
	intent []logIntentPick          // the best matches of the call's intent
	counts map[int]int64            // lines by template id, once needed
	recs   map[logRecKey]logRecord
}

// logRecKey is what a record depends on: the line, and whether the lines
// that led to it were asked for.
type logRecKey struct {
	off  int64
	lead bool
}

func init() {
	RegisterLog(func(doc *lines.Doc) (any, bool, error) { return detectLog(doc) }, ProjectorFunc(projectLogKind))
}

// projectLogKind is the projector of KindLog: it shows the log in the
// format the detector found, or finds it itself when the input was not
// handed over by detection.
func projectLogKind(ctx context.Context, in *Input) (Output, error) {
	f, ok := in.Detected.(logFormat)
	if !ok {
		var err error
		if f, _, err = detectLog(in.Doc()); err != nil {
			return Output{}, err
		}
	}
	return viewLog(ctx, in, f)
}

// viewLog shows a log: the templates of its lines with their counts, its
// errors and warnings as they were written (first occurrences and rare ones
// before repeats), and its head and tail.
func viewLog(ctx context.Context, in *Input, f logFormat) (Output, error) {
	e, err := newExcerptor(in, true)
	if err != nil {
		return Output{}, err
	}
	s, err := scanLog(ctx, in, e.Doc, f)
	if err != nil {
		return Output{}, err
	}
	v := &logView{e: e, s: s, size: e.Doc.Size(), total: e.Total, levels: map[int64]classify.Level{}}
	v.intent = s.intent.best(s.lines)
	return v.render(ctx)
}

// scope says what the counts of the view cover.
func (v *logView) scope() string {
	if !v.s.sampled {
		return "all " + textfmt.Plural(v.s.lines, "line")
	}
	return fmt.Sprintf("a sample of %s of the %s (%s of %s: the first and the last %s and %d windows of %s spread between)",
		textfmt.Int(v.s.lines), textfmt.Plural(v.total, "line"), textfmt.Size(v.s.bytes), textfmt.Size(v.size),
		textfmt.Size(logSample.ends), v.s.windows, textfmt.Size(logSample.window))
}

// facts are the header's facts: the numbers of errors and warnings.
func (v *logView) facts() []string {
	var parts []string
	if n := v.s.bySev[classify.SevError]; n > 0 {
		parts = append(parts, textfmt.Plural(n, "error line"))
	}
	if n := v.s.bySev[classify.SevWarn]; n > 0 {
		parts = append(parts, textfmt.Plural(n, "warning line"))
	}
	if len(parts) == 0 {
		return nil
	}
	f := strings.Join(parts, ", ")
	if v.s.sampled {
		f += " in a sample"
	}
	return []string{f}
}

// templateLines lists the most frequent templates of lines that are
// neither errors nor warnings, within room tokens, leaving out those whose
// every line the view shows (skip).
func (v *logView) templateLines(room int, skip map[int]bool) []string {
	var cs []drain.Cluster
	all := 0
	for _, c := range v.s.miner.Clusters() {
		if v.s.groups.levelOf(c.Group) < classify.SevWarn {
			all++
			if skip[c.ID] {
				continue
			}
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	head := fmt.Sprintf("Line templates (<*> marks what varies), %s in %s; the most frequent first, errors and warnings apart:",
		textfmt.Plural(int64(all), "template"), v.scope())
	used := v.e.Cost(head)
	if used > room {
		return nil
	}
	width := len(textfmt.Int(cs[0].Count))
	list := v.fitClusters(cs, room-used, func(c drain.Cluster) string {
		return fmt.Sprintf("×%*s  %s (e.g. line %s)", width, textfmt.Int(c.Count), v.template(c), textfmt.Int(c.First))
	})
	if list == nil {
		return nil
	}
	out := append([]string{head}, list...)
	if k := all - len(cs); k > 0 {
		out = append(out, fmt.Sprintf("… and %s whose lines are all shown below", textfmt.Plural(int64(k), "template")))
	}
	var other int64
	for sev := classify.SevNone; sev < classify.SevWarn; sev++ {
		other += v.s.others[sev].count
	}
	if other > 0 {
		out = append(out, fmt.Sprintf("… and %s that fit no template (the template miner was full)", textfmt.Plural(other, "line")))
	}
	return out
}

// template renders a cluster's template for the view: an access log's
// templates show their status, which all their lines share.
func (v *logView) template(c drain.Cluster) string {
	return showTemplate(withStatus(c.Template, v.s.groups.codeOf(c.Group)))
}

// withStatus writes a status into a template in place of the wildcard that
// stands for it: after the quoted request (`" <*> `), or after "code "; or,
// when neither is found, at its end.
func withStatus(t string, code uint16) string {
	if code == 0 {
		return t
	}
	n := strconv.Itoa(int(code))
	for _, at := range []string{`" ` + drain.Wildcard + " ", "code " + drain.Wildcard + ","} {
		if i := strings.Index(t, at); i >= 0 {
			j := i + strings.Index(at, drain.Wildcard)
			return t[:j] + n + t[j+len(drain.Wildcard):]
		}
	}
	if strings.HasSuffix(t, `" `+drain.Wildcard) {
		return t[:len(t)-len(drain.Wildcard)] + n
	}
	return t + " [status " + n + "]"
}

// showTemplate cleans a template for a view and bounds its length.
func showTemplate(t string) string {
	t = textfmt.CleanLine([]byte(t))
	if len(t) > logTemplateWidth {
		t = string(textfmt.CutUTF8([]byte(t), logTemplateWidth)) + "…"
	}
	return t
}

// problemTemplates returns the error and warning templates, errors first,
// then the rarest, then the earliest, leaving out those in skip.
func (v *logView) problemTemplates(skip map[int]bool) []drain.Cluster {
	var cs []drain.Cluster
	for _, c := range v.s.miner.Clusters() {
		if v.s.groups.levelOf(c.Group) >= classify.SevWarn && !skip[c.ID] {
			cs = append(cs, c)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if la, lb := v.s.groups.levelOf(a.Group), v.s.groups.levelOf(b.Group); la != lb {
			return la > lb
		}
		if a.Count != b.Count {
			return a.Count < b.Count
		}
		return a.First < b.First
	})
	return cs
}

// fitClusters renders clusters, most important first, as many as fit in
// room tokens, keeping room for a last line that counts the rest. It
// returns nil when not even one fits.
func (v *logView) fitClusters(cs []drain.Cluster, room int, line func(drain.Cluster) string) []string {
	var out []string
	var lines, shownLines int64
	for _, c := range cs {
		lines += c.Count
	}
	used := 0
	for i, c := range cs {
		s := line(c)
		rest := 0
		if i+1 < len(cs) {
			rest = 24 // the line that counts the rest
		}
		n := v.e.Cost(s)
		if used+n+rest > room {
			break
		}
		out = append(out, s)
		used += n
		shownLines += c.Count
	}
	if len(out) == 0 {
		return nil
	}
	if k := len(cs) - len(out); k > 0 {
		out = append(out, fmt.Sprintf("… %s more with %s", textfmt.Plural(int64(k), "template"), textfmt.Plural(lines-shownLines, "line")))
	}
	return out
}

// problemLines lists the error and warning templates within room tokens,
// leaving out those whose every line the view shows (skip).
func (v *logView) problemLines(room int, skip map[int]bool) []string {
	cs := v.problemTemplates(skip)
	if len(cs) == 0 {
		return nil
	}
	width := 0
	for _, c := range cs {
		width = max(width, len(textfmt.Int(c.Count)))
	}
	out := v.fitClusters(cs, room, func(c drain.Cluster) string {
		where := "line " + textfmt.Int(c.First)
		if c.Count > 1 {
			where = "first line " + textfmt.Int(c.First) + ", last " + textfmt.Int(c.Last)
		}
		return fmt.Sprintf("×%*s %-7s %s (%s)", width, textfmt.Int(c.Count), v.s.groups.levelOf(c.Group).String(), v.template(c), where)
	})
	skipped := 0
	for _, c := range v.s.miner.Clusters() {
		if skip[c.ID] && v.s.groups.levelOf(c.Group) >= classify.SevWarn {
			skipped++
		}
	}
	if skipped > 0 {
		out = append(out, fmt.Sprintf("… and %s whose lines are all shown below", textfmt.Plural(int64(skipped), "template")))
	}
	var other int64
	for sev := classify.SevWarn; sev < classify.NumSev; sev++ {
		other += v.s.others[sev].count
	}
	if other > 0 {
		out = append(out, fmt.Sprintf("… and %s that fit no template", textfmt.Plural(other, "line")))
	}
	return out
}

// problemSummary is the line that opens the list of errors and warnings:
// how many there are, how many the view shows, and the search that finds
// them all.
func (v *logView) problemSummary(shown int64) string {
	var parts []string
	for _, sev := range []classify.Level{classify.SevError, classify.SevWarn} {
		n, t := v.s.problems(sev)
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s (%s)", textfmt.Plural(n, sev.String()+" line"), textfmt.Plural(int64(t), "template")))
		}
	}
	all := v.s.bySev[classify.SevError] + v.s.bySev[classify.SevWarn]
	var b strings.Builder
	b.WriteString("Errors and warnings")
	if v.s.sampled {
		b.WriteString(" in the sample")
	}
	b.WriteString(": ")
	b.WriteString(strings.Join(parts, ", "))
	fmt.Fprintf(&b, "; %s shown below (first occurrences and rare ones first), %s similar omitted",
		textfmt.Int(shown), textfmt.Int(max(0, all-shown)))
	if p := v.s.pattern(); p != "" {
		if v.s.sampled {
			b.WriteString("; the rest of the log was not searched")
		}
		b.WriteString("; find them all: ")
		b.WriteString(v.e.In.ReadHint(recall.Request{Ref: v.e.In.Ref, Rev: v.e.In.Rev, Grep: &recall.GrepSpec{Pattern: p}}))
	}
	b.WriteString(":")
	return b.String()
}

// logCand is a line that the view may show besides its head and tail.
type logCand struct {
	level classify.Level
	count int64 // lines of its template, or of its shape of match
	occ   logOcc
	// lead: the lines before it that share its timestamp may show with it.
	lead bool
}

// candidates returns the lines worth showing besides the head and the
// tail, best first:
//   - the best matches of the call's intent, the first line of each shape
//     of match, the best first;
//   - the first line of each error and warning template, errors before
//     warnings, rare templates before common ones, with the lines that led
//     to it;
//   - the last line of each of those that repeat: when it stopped;
//   - the first line of each rare template of the other levels (at most
//     logRareCount lines), in order: the one-off events that tell the
//     story of a log.
func (v *logView) candidates() []logCand {
	levelOf := func(id int) classify.Level {
		if id >= 0 && id < len(v.s.clusters) {
			return v.s.clusters[id].level
		}
		return classify.SevNone
	}
	var firsts, problems, lasts, rare []logCand
	for _, p := range v.intent {
		firsts = append(firsts, logCand{level: levelOf(p.key.cluster), count: p.count, occ: p.first})
	}
	var plasts []logCand
	for id, c := range v.s.clusters {
		n := v.count(id)
		switch {
		case c.level >= classify.SevWarn:
			problems = append(problems, logCand{level: c.level, count: n, occ: c.first, lead: true})
			if n > 1 && c.last.line != c.first.line {
				plasts = append(plasts, logCand{level: c.level, count: n, occ: c.last})
			}
		case c.level != classify.SevDetail && n <= logRareCount:
			rare = append(rare, logCand{level: c.level, count: n, occ: c.first})
		}
	}
	for sev := classify.SevWarn; sev < classify.NumSev; sev++ {
		for _, o := range v.s.others[sev].occ {
			problems = append(problems, logCand{level: sev, count: 1, occ: o, lead: true})
		}
	}
	rank := func(cs []logCand) {
		sort.SliceStable(cs, func(i, j int) bool {
			a, b := cs[i], cs[j]
			if a.level != b.level {
				return a.level > b.level
			}
			if a.count != b.count {
				return a.count < b.count
			}
			return a.occ.line < b.occ.line
		})
	}
	rank(problems)
	rank(plasts)
	for _, p := range v.intent {
		if p.count > 1 && p.last.line != p.first.line {
			lasts = append(lasts, logCand{level: levelOf(p.key.cluster), count: p.count, occ: p.last})
		}
	}
	lasts = append(lasts, plasts...)
	out := append(firsts, problems...)
	out = append(out, lasts...)
	return append(out, rare...)
}

// logRecord is what shows with a line: the lines before it that led to
// it, the lines that continue it, and the lines that follow it as part of
// the same event.
type logRecord struct {
	// lead is where the lines before it that share its timestamp start
	// (the line's own start when there are none, or none were asked for).
	lead int64
	// end is where the record ends.
	end int64
	// must is where the part of the record that says what it is about
	// ends: the line itself, or the first frame in the program's own code
	// of the stack trace it holds.
	must int64
}

// record returns the record of the line at off: the lines that continue
// it (lines without a timestamp in a timestamped log, PostgreSQL's detail
// lines), at most logRecordLines of them, or as many as a stack trace
// needs to reach its first frame in the program's own code; then the lines
// that share its timestamp and level but not its template (Python's
// http.server writes the error, then the request). With lead, it also
// finds the lines just before it that share its timestamp.
func (v *logView) record(off int64, lead bool) (logRecord, error) {
	k := logRecKey{off, lead}
	if r, ok := v.recs[k]; ok {
		return r, nil
	}
	r, err := v.readRecord(off, lead)
	if err != nil {
		return logRecord{}, err
	}
	if v.recs == nil {
		v.recs = map[logRecKey]logRecord{}
	}
	v.recs[k] = r
	return r, nil
}

// readRecord reads the record of the line at off; see record.
func (v *logView) readRecord(off int64, lead bool) (logRecord, error) {
	l, err := v.e.Doc.ReadLine(off, logLineCap)
	if err != nil {
		return logRecord{}, err
	}
	text := bytes.TrimSuffix(l.Text, []byte{'\r'})
	ll := v.s.f.classify(text)
	r := logRecord{lead: off, end: l.End, must: l.End}
	var ends []int64
	user := -1      // the index of the last continuation line the first frame in the program's code needs
	frames := false // the record holds a stack trace
	// A Python traceback ends with its exception, the first line after
	// its header that is not indented: the record reaches it.
	traceback := bytes.HasSuffix(bytes.TrimSpace(text), tracebackHead)
	exception := -1
	pos := l.End
	for k := 0; k < logTraceLines && pos < v.size; k++ {
		if k >= logRecordLines && !traceback && !(frames && (user < 0 || k <= user)) {
			break
		}
		n, err := v.e.Doc.ReadLine(pos, logLineCap)
		if err != nil {
			return logRecord{}, err
		}
		t := bytes.TrimSuffix(n.Text, []byte{'\r'})
		if len(bytes.TrimSpace(t)) == 0 {
			break
		}
		cl := logFormat{numbered: v.s.f.numbered}.classify(t)
		if !(v.s.f.timestamped && !cl.Record) && cl.Hit.Level != classify.SevDetail {
			break
		}
		pos = n.End
		ends = append(ends, pos)
		switch {
		case bytes.HasPrefix(bytes.TrimSpace(t), tracebackHead):
			traceback = true
		case traceback && len(t) > 0 && t[0] != ' ' && t[0] != '\t':
			traceback, exception = false, k
		}
		if i := classify.Indent(t); i < len(t) {
			m := classify.Classify(t[i:min(len(t), i+classify.ClassifyBytes)], i)
			if m.Fam == classify.FamFrame || m.Fam == classify.FamPanic {
				frames = true
			}
			if m.Fam == classify.FamFrame && m.Score == classify.ScoreDetail && user < 0 {
				user = k + int(m.After)
			}
		}
	}
	keep := min(len(ends), logRecordLines)
	if user >= 0 {
		need := min(len(ends), user+1)
		keep = max(keep, need)
		r.must = ends[need-1]
	}
	if exception >= 0 {
		keep = max(keep, exception+1)
		r.must = max(r.must, ends[exception])
	}
	if keep > 0 {
		r.end = ends[keep-1]
	}
	if ll.TsEnd == 0 {
		return r, nil
	}
	// The lines around it that share its timestamp: those after it that
	// are the rest of the event, those before it that led to it; none when
	// the timestamp is shared by more than logBurstLines lines, a busy
	// second rather than one event. Lines of templates more frequent than
	// its own are the log's background, not part of its event.
	ts := text[ll.TsStart:ll.TsEnd]
	id := v.s.miner.Match(v.s.groups.find(ll.Hit), text[ll.Skip:])
	count := v.count(id)
	related := func(t []byte, cl classify.LogLine) (int, bool) {
		k := v.s.miner.Match(v.s.groups.find(cl.Hit), t[cl.Skip:])
		return k, k != drain.Other && v.count(k) <= count
	}
	same := func(t []byte) (classify.LogLine, bool) {
		cl := v.s.f.classify(t)
		return cl, cl.TsEnd > 0 && bytes.Equal(t[cl.TsStart:cl.TsEnd], ts)
	}
	burst := 1
	follow := r.end
	if keep == len(ends) {
		following := ll.Hit.Level >= classify.SevWarn
		for pos, k := r.end, 0; k < logBurstLines && pos < v.size; k++ {
			n, err := v.e.Doc.ReadLine(pos, logLineCap)
			if err != nil {
				return logRecord{}, err
			}
			t := bytes.TrimSuffix(n.Text, []byte{'\r'})
			cl, ok := same(t)
			if !ok {
				break
			}
			burst++
			tid, rel := related(t, cl)
			following = following && k < logFollowLines && cl.Hit.Level >= classify.SevWarn && rel && tid != id
			if following {
				follow = n.End
			}
			pos = n.End
		}
	}
	from := off
	leading := lead
	for k := 0; k < logBurstLines && burst <= logBurstLines && from > 0; k++ {
		start, err := v.e.Doc.PrevLineStart(from)
		if err != nil {
			return logRecord{}, err
		}
		n, err := v.e.Doc.ReadLine(start, logLineCap)
		if err != nil {
			return logRecord{}, err
		}
		t := bytes.TrimSuffix(n.Text, []byte{'\r'})
		cl, ok := same(t)
		if !ok {
			break
		}
		burst++
		_, rel := related(t, cl)
		leading = leading && k < logLeadLines && cl.Hit.Level < classify.SevWarn && rel
		if leading {
			r.lead = start
		}
		from = start
	}
	if burst > logBurstLines {
		r.lead = off
		return r, nil
	}
	r.end = follow
	return r, nil
}

// tracebackHead opens a Python traceback.
var tracebackHead = []byte("Traceback (most recent call last):")

// count returns the number of lines of template id; 0 for drain.Other.
func (v *logView) count(id int) int64 {
	if id == drain.Other {
		return 0
	}
	if v.counts == nil {
		v.counts = map[int]int64{}
		for _, c := range v.s.miner.Clusters() {
			v.counts[c.ID] = c.Count
		}
	}
	return v.counts[id]
}

// pick chooses the records of candidate lines to show, in rank order,
// within room tokens, each paying for the omission marker it may add,
// around the excerpts already shown (head and tail); the excerpts do not
// overlap. It returns them and the tokens they take.
func (v *logView) pick(cands []logCand, shown []view.Excerpt, room, marker, most int) ([]view.Excerpt, int, error) {
	var picks []view.Excerpt
	used := 0
	limit := max(room/4, 80) // the most one record may take, unless it must take more
	taken := func(yield func(view.Excerpt) bool) {
		for _, x := range shown {
			if !x.Empty() && !yield(x) {
				return
			}
		}
		for _, p := range picks {
			if !yield(p) {
				return
			}
		}
	}
	for rank, c := range cands {
		if len(picks) >= most || room-used < marker+8 || rank >= logMaxCandidates {
			break
		}
		off := c.occ.off
		// The room between the excerpts taken before and after the line.
		lo, hi := int64(0), v.size
		loCut, hiCut, covered := false, false, false
		for x := range taken {
			switch {
			case off >= x.From && off < x.To:
				covered = true
			case x.To <= off && x.To > lo:
				lo, loCut = x.To, x.CutEnd
			case x.From > off && x.From < hi:
				hi, hiCut = x.From, x.CutStart
			}
		}
		if covered {
			continue
		}
		r, err := v.record(off, c.lead && off == c.occ.recOff)
		if err != nil {
			return nil, 0, err
		}
		start := func(want int64) int64 {
			switch {
			case want >= lo:
				return want
			case loCut:
				return off
			}
			return lo
		}
		end := min(r.end, hi)
		must := min(r.must, end)
		left := room - used - marker
		// With the lines that led to it, within a third of the room;
		// then without them, within the record's share of the room, and,
		// if that cuts what the record must show, within half the room.
		type try struct {
			from  int64
			avail int
		}
		tries := []try{{start(c.occ.recOff), min(left, limit)}, {start(c.occ.recOff), min(left, max(limit, room/2))}}
		if r.lead < c.occ.recOff && start(r.lead) < tries[0].from {
			tries = append([]try{{start(r.lead), min(left, max(limit, room/3))}}, tries...)
		}
		var best view.Excerpt
		n := 0
		for _, t := range tries {
			x, k, err := v.e.Forward(t.from, end, t.avail)
			if err != nil {
				return nil, 0, err
			}
			if x.Empty() || x.To <= off || x.CutEnd && t.avail < limit {
				// The line does not fit whole in what is left; a line
				// too long for any record's share may show in part.
				continue
			}
			if best.Empty() {
				best, n = x, k
			}
			if x.To >= must {
				best, n = x, k
				break
			}
		}
		if best.Empty() {
			continue
		}
		// An excerpt that touches another one joins it: no marker.
		if !(best.From == lo && !loCut && !best.CutStart || best.To == hi && !hiCut && !best.CutEnd) {
			n += marker
		}
		picks = append(picks, best)
		used += n
	}
	return picks, used, nil
}

// markerCost is the most tokens one omission marker can take.
func (v *logView) markerCost() int {
	e := v.e
	label := "lines " + strings.Repeat("9", e.Width+e.Width/3) + "-" + strings.Repeat("9", e.Width+e.Width/3)
	g := view.Gap{From: 0, To: v.size, Label: label,
		Req: recall.Request{Ref: e.In.Ref, Rev: e.In.Rev, Lines: &recall.Span{From: e.Total + 1, To: e.Total + 1}}}
	return e.Cost(e.Marker(g, false))
}

// render lays the view out within the budget.
func (v *logView) render(ctx context.Context) (Output, error) {
	e := v.e
	base := view.Layout{Title: "text (log)", Facts: v.facts()}
	room := e.In.Budget - e.Overhead(base, 2)
	if room < 60 {
		return headTail(e, ctx, base)
	}
	marker := v.markerCost()
	cands := v.candidates()
	out, xs, err := v.renderWith(ctx, base, room, marker, cands, nil)
	if err != nil || xs == nil {
		return out, err
	}
	// The templates whose every line the view shows need no line of their
	// own in the lists: lay the view out again without them, and keep it if
	// it still shows all their lines.
	skip := v.shownTemplates(xs)
	if len(skip) == 0 {
		return out, nil
	}
	out2, xs2, err := v.renderWith(ctx, base, room, marker, cands, skip)
	if err != nil {
		return Output{}, err
	}
	if xs2 == nil || len(v.shownTemplates(xs2)) < len(skip) {
		return out, nil
	}
	for id := range skip {
		if !v.shownTemplates(xs2)[id] {
			return out, nil
		}
	}
	return out2, nil
}

// renderWith lays the view out within the budget, its lists leaving out
// the templates in skip. It returns the excerpts it shows, or none when
// nothing of the log view fits and the view is the plain one.
func (v *logView) renderWith(ctx context.Context, base view.Layout, room, marker int, cands []logCand, skip map[int]bool) (Output, []view.Excerpt, error) {
	e := v.e
	tmplRoom, listRoom := room*22/100, 0
	if v.s.bySev[classify.SevWarn]+v.s.bySev[classify.SevError] > 0 || len(v.intent) > 0 {
		tmplRoom, listRoom = room*15/100, room*13/100
	}
	templates := v.templateLines(tmplRoom, skip)
	problems := v.problemLines(listRoom, skip)
	if err := ctx.Err(); err != nil {
		return Output{}, nil, err
	}
	most := logMaxErrorExcerpts
	for {
		out, xs, over, picked, err := v.attempt(base, templates, problems, cands, most, room, marker)
		if err != nil {
			return Output{}, nil, err
		}
		if err := ctx.Err(); err != nil {
			return Output{}, nil, err
		}
		switch {
		case !over:
			// The room was counted with the longest header and markers
			// the view could have; what the view leaves of the budget
			// goes to its excerpts (half of it when all of it is too
			// much; two tries at most, since each lays the view out again).
			for i, slack := 0, e.In.Budget-e.In.Counter.Count(out.Text); i < 2 && slack > marker; i, slack = i+1, slack/2 {
				out2, xs2, over2, _, err := v.attempt(base, templates, problems, cands, most, room+slack, marker)
				if err != nil {
					return Output{}, nil, err
				}
				if !over2 && e.In.Counter.Count(out2.Text) <= e.In.Budget {
					return out2, xs2, nil
				}
			}
			return out, xs, nil
		case picked > 0:
			most = picked - 1
		case len(problems) > 0:
			problems = problems[:len(problems)-1]
		case len(templates) > 0:
			templates = templates[:len(templates)-1]
		default:
			// Nothing of the log view fits: the plain view, which
			// compacts its markers when it must.
			out, err := headTail(e, ctx, base)
			return out, nil, err
		}
	}
}

// shownTemplates returns the templates of at most logRareCount lines whose
// every line the excerpts show whole.
func (v *logView) shownTemplates(xs []view.Excerpt) map[int]bool {
	visible := func(n int64) bool {
		for _, x := range xs {
			if n >= x.First && n <= x.Last() && !(n == x.First && x.CutStart) && !(n == x.Last() && x.CutEnd) {
				return true
			}
		}
		return false
	}
	skip := map[int]bool{}
	for _, c := range v.s.miner.Clusters() {
		if c.Count <= logRareCount && visible(c.First) && visible(c.Last) {
			skip[c.ID] = true
		}
	}
	return skip
}

// attempt renders one layout: the prelude; a head and a tail; at most
// most error excerpts between them; then the head and tail grown into the
// room left. It trims head and tail until the view fits, and reports over
// when it does not fit even without them, and how many error excerpts it
// picked.
func (v *logView) attempt(base view.Layout, templates, problems []string, cands []logCand, most, room, marker int) (out Output, xs []view.Excerpt, over bool, picked int, err error) {
	e := v.e
	all := v.s.bySev[classify.SevError] + v.s.bySev[classify.SevWarn]
	withSummary := len(problems) > 0 || all > 0
	prelude := func(shown int64) []string {
		p := append([]string(nil), templates...)
		if len(v.intent) > 0 {
			p = append(p, v.intentSummary(v.intent))
		}
		if withSummary {
			p = append(p, v.problemSummary(shown))
			p = append(p, problems...)
		}
		return p
	}
	l := base
	// The summary counts what is shown, known only once the view fits:
	// lay it out with the largest count first.
	l.Prelude = prelude(all)
	left := room
	for _, p := range l.Prelude {
		left -= e.Cost(p)
	}
	left = max(left, 0)
	// The head and the tail get their shares; the candidates get what
	// they leave, and what the candidates leave grows the tail, then the
	// head.
	headRoom, tailRoom, withCands := left*3/10, left*7/10, len(cands) > 0 && most > 0
	if withCands {
		headRoom, tailRoom = left*8/100, left*15/100
	}
	head, hused, err := e.Forward(0, v.size, headRoom)
	if err != nil {
		return Output{}, nil, false, 0, err
	}
	tail, tused, err := e.Backward(v.size, head.To, tailRoom)
	if err != nil {
		return Output{}, nil, false, 0, err
	}
	errRoom := 0
	if withCands {
		errRoom = max(0, left-hused-tused)
	}
	xs, pused, err := v.pick(cands, []view.Excerpt{head, tail}, errRoom, marker, most)
	if err != nil {
		return Output{}, nil, false, 0, err
	}
	picks := len(xs)
	sort.Slice(xs, func(i, j int) bool { return xs[i].From < xs[j].From })
	// Grow the tail, then the head, into what is left.
	if spare := left - hused - tused - pused; spare > 0 && !tail.CutStart {
		limit := head.To
		if len(xs) > 0 {
			limit = xs[len(xs)-1].To
		}
		more, n, err := e.Backward(tail.From, limit, spare)
		if err != nil {
			return Output{}, nil, false, 0, err
		}
		if !more.Empty() && !more.CutStart {
			tail = appendExcerpt(more, tail)
			tused += n
		}
	}
	if spare := left - hused - tused - pused; spare > 0 && !head.CutEnd {
		limit := tail.From
		if len(xs) > 0 {
			limit = xs[0].From
		}
		more, n, err := e.Forward(head.To, limit, spare)
		if err != nil {
			return Output{}, nil, false, 0, err
		}
		if !more.Empty() && !more.CutEnd {
			head = appendExcerpt(head, more)
			hused += n
		}
	}
	// What the whole lines of the ends leave goes to more candidates.
	if spare := left - hused - tused - pused; spare > marker+8 && len(xs) < most {
		more, n, err := v.pick(cands, append([]view.Excerpt{head, tail}, xs...), spare, marker, most-len(xs))
		if err != nil {
			return Output{}, nil, false, 0, err
		}
		if len(more) > 0 {
			xs, pused, picks = append(xs, more...), pused+n, picks+len(more)
			sort.Slice(xs, func(i, j int) bool { return xs[i].From < xs[j].From })
		}
	}
	ends := []view.Excerpt{head, tail}
	for {
		l.Excerpts, err = v.join(append(append([]view.Excerpt{ends[0]}, xs...), ends[1]), marker)
		if err != nil {
			return Output{}, nil, false, 0, err
		}
		if withSummary {
			l.Prelude = prelude(v.shownProblems(l.Excerpts))
		}
		text, next, err := e.Assemble(l, false)
		if err != nil {
			return Output{}, nil, false, 0, err
		}
		out := Output{Text: text, Next: next, Complete: next == nil && e.In.StoreError == ""}
		if e.In.Counter.Count(text) <= e.In.Budget {
			return out, l.Excerpts, false, picks, nil
		}
		if !view.TrimLargest(ends, v.size) {
			return out, nil, true, picks, nil
		}
	}
}

// join merges excerpts that touch, and fills the gaps between excerpts
// that cost no more to show than their omission markers would.
func (v *logView) join(xs []view.Excerpt, marker int) ([]view.Excerpt, error) {
	var out []view.Excerpt
	for _, x := range xs {
		if x.Empty() {
			continue
		}
		if len(out) > 0 {
			last := &out[len(out)-1]
			if last.To < x.From && !last.CutEnd && !x.CutStart && x.First-last.Last() <= 4 {
				g, _, err := v.e.Forward(last.To, x.From, marker)
				if err != nil {
					return nil, err
				}
				if g.To == x.From && !g.CutEnd {
					*last = appendExcerpt(*last, g)
				}
			}
			if last.To == x.From && !last.CutEnd && !x.CutStart {
				*last = appendExcerpt(*last, x)
				continue
			}
		}
		x.Lines = append([]string(nil), x.Lines...)
		x.Offs = append([]int64(nil), x.Offs...)
		out = append(out, x)
	}
	return out, nil
}

// appendExcerpt returns a followed by b, which starts where a ends.
func appendExcerpt(a, b view.Excerpt) view.Excerpt {
	a.Lines = append(a.Lines, b.Lines...)
	a.Offs = append(a.Offs[:len(a.Offs)-1], b.Offs...)
	a.To, a.CutEnd = b.To, b.CutEnd
	return a
}

// shownProblems counts the error and warning lines the excerpts show from
// their start.
func (v *logView) shownProblems(xs []view.Excerpt) int64 {
	var n int64
	for _, x := range xs {
		for i := range x.Lines {
			if i == 0 && x.CutStart {
				continue
			}
			if v.lineLevel(x.Offs[i]) >= classify.SevWarn {
				n++
			}
		}
	}
	return n
}

// lineLevel classifies the line that starts at off.
func (v *logView) lineLevel(off int64) classify.Level {
	if l, ok := v.levels[off]; ok {
		return l
	}
	l, err := v.e.Doc.ReadLine(off, logLineCap)
	if err != nil {
		return classify.SevNone
	}
	lv := v.s.f.classify(bytes.TrimSuffix(l.Text, []byte{'\r'})).Hit.Level
	v.levels[off] = lv
	return lv
}
