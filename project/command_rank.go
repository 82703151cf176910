package project

import (
	"math"
	"slices"

	"github.com/crumb-dev/crumb/internal/drain"
	"github.com/crumb-dev/crumb/internal/topk"
	"github.com/crumb-dev/crumb/project/internal/classify"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/project/sections"
)

// A command's evidence is ranked by the shared ranker (project/rank), from
// the signals every kind shares:
//
//   - severity and structure, from the classifier (cmdClassify): an error,
//     a warning, a compiler's note, a summary line such as "ok  pkg 0.1s";
//   - rarity: the evidence lines are mined into templates by the log view's
//     miner (internal/drain), so that each carries how often its template
//     occurs among the lines of the output. The one "undefined" error among
//     thousands of "can inline" notes, or the one eslint error among
//     hundreds of warnings, is a template met once and ranks above those
//     met a thousand times;
//   - the call's intent (crumb run --intent, the description of a Bash call),
//     matched by rank.Matcher and weighed by rank.Stats over every line, so
//     that a word most lines hold counts for little;
//   - position: the first and last lines of the output.
//
// State stays bounded: the first few evidence lines of each template (at
// most cmdMaxCand lines of cmdMaxTemplates templates), the best of the
// evidence the miner could not place once full, and the lines the intent
// names best.

// Limits of the ranker's state.
const (
	cmdMaxTemplates  = 1024    // templates mined; further lines count as others
	cmdMaxPerTmpl    = 3       // evidence lines kept per template
	cmdMaxPerSummary = 64      // summary lines kept per template ("ok  pkg", one per package)
	cmdMaxCand       = 4096    // evidence lines kept as the first of their templates
	cmdMaxOther      = 400     // evidence lines kept that fit no template (or no longer fit in cand), best first
	cmdMaxIntent     = 128     // lines kept for the intent alone, best first
	cmdMaxKnown      = 1 << 16 // lines remembered by hash, to skip the miner when one repeats
)

// cmdEvidence is a line worth showing, found by the scan.
type cmdEvidence struct {
	line   int64 // line number, from 1
	off    int64 // offset of its first byte
	score  int16 // its class (see the scores in command_match.go)
	fam    classify.Family
	after  uint8 // lines after it that belong with it
	before uint8 // lines before it that belong with it
	// headLine and headOff locate the line it belongs under (see
	// cmdMatch.head), or the file of a bundle it is in (regionHead);
	// headLine is 0 when none.
	headLine, headOff int64
	// recLine and recOff locate the first line of the commit it is in
	// (git log -p, git show), recN the lines of its heading: the commit
	// line and its header lines (Author:, Date:). recLine is 0 outside one.
	recLine, recOff int64
	recN            uint8
	tmpl            int           // its template, or drain.Other
	lv              rank.Levels   // the intent's words it holds
	def             bool          // it defines a name the intent names (rank.Matcher.Defines)
	rank            float64       // rank.Score of its signals, once ranked
	sev             rank.Severity // the severity its class gives, once ranked
}

// better reports whether a ranks above b: higher rank, then higher class,
// then earlier.
func (a cmdEvidence) better(b cmdEvidence) bool {
	switch {
	case a.rank != b.rank:
		return a.rank > b.rank
	case a.score != b.score:
		return a.score > b.score
	}
	return a.line < b.line
}

// severe is 1 for evidence that reports an error (see cmdMatch.signals), 0
// for the rest.
func (a cmdEvidence) severe() int {
	if a.sev == rank.Error {
		return 1
	}
	return 0
}

// worseEvidence reports whether a ranks below b: the order of the topk
// heaps of evidence, whose root is the worst kept, the one a better line
// replaces.
func worseEvidence(a, b cmdEvidence) bool { return b.better(a) }

// cmdRanker keeps a scan's evidence and ranks it.
type cmdRanker struct {
	miner *drain.Miner
	count []int64        // lines met, per template
	known map[uint64]int // the template of lines met before, by cmdLineHash
	kept  []uint8        // evidence lines kept, per template
	cand  []cmdEvidence  // the first evidence lines of each template
	other []cmdEvidence  // evidence the miner could not place (ranked by class while scanning)
	hits  []cmdEvidence  // lines kept for the intent (ranked by a first guess while scanning)

	m  *rank.Matcher // nil without an intent
	st *rank.Stats

	topLine, topOff int64 // the last line that is not indented
	// regLine and regOff locate the line that heads the bundle's region
	// the scan is in (see regionHead); regLine is 0 outside one.
	regLine, regOff int64
	// recLine, recOff and recN locate the heading of the commit the scan
	// is in (see cmdEvidence.recLine).
	recLine, recOff int64
	recN            uint8
}

// cmdMaxRecord bounds the lines of a commit's heading: its commit line,
// "Merge:", "Author:", "AuthorDate:", "Commit:" and "CommitDate:".
const cmdMaxRecord = 8

// record follows the commits of git log's and git show's output: a line
// that opens one ("commit <sha>"), and the header lines right after it.
// It reports whether the line is part of a commit's heading.
func (r *cmdRanker) record(t []byte, no, start int64, indent int) bool {
	switch {
	case indent != 0:
		return false
	case t[0] == 'c' && sections.IsCommit(t):
		r.recLine, r.recOff, r.recN = no, start, 1
		r.regLine = 0 // its files follow
		return true
	case r.recLine > 0 && no == r.recLine+int64(r.recN) && r.recN < cmdMaxRecord && sections.IsCommitHeader(t):
		r.recN++
		return true
	}
	return false
}

func (r *cmdRanker) init(intent string) {
	r.miner = drain.New(drain.Options{MaxClusters: cmdMaxTemplates})
	r.known = map[uint64]int{}
	if it := rank.Parse(intent); !it.Empty() {
		r.m = rank.NewMatcher(it)
		r.st = rank.NewStats(r.m)
	}
}

// add takes one line: t is its text without its indentation (indent bytes),
// m what the classifier made of it.
func (r *cmdRanker) add(t []byte, no, start int64, indent int, m classify.Match) {
	var lv rank.Levels
	if r.m != nil {
		lv = r.m.Levels(t)
		r.st.Add(lv)
	}
	topLine, topOff := r.topLine, r.topOff
	inRecord := indent == 0 && r.follow(t, no, start)
	if m.Fam == classify.FamNone && lv == 0 {
		return // most lines: neither evidence nor the intent's
	}
	r.keep(t, no, start, m, lv, inRecord, topLine, topOff)
}

// follow keeps up, for a line that is not indented, what later lines may
// belong under: the region of a bundle, the commit, the last line that is
// not indented. add calls it for each such line; cmdScan.onLine calls it
// alone for a line that is no evidence, when there is no intent. It
// reports whether the line is part of a commit's heading.
func (r *cmdRanker) follow(t []byte, no, start int64) (inRecord bool) {
	// Only the first bytes tell most lines apart.
	if c := t[0]; (c == 'd' || c == '=') && regionHead(t) {
		r.regLine, r.regOff = no, start
	}
	if t[0] == 'c' || r.recLine > 0 {
		inRecord = r.record(t, no, start, 0)
	}
	r.topLine, r.topOff = no, start
	return inRecord
}

// keep weighs line no as evidence, or as a line the intent names: t is its
// text without its indentation, m what the classifier made of it, lv the
// intent's words in it; inRecord tells whether it is part of a commit's
// heading, and topLine and topOff locate the last line above it that is
// not indented.
func (r *cmdRanker) keep(t []byte, no, start int64, m classify.Match, lv rank.Levels, inRecord bool, topLine, topOff int64) {
	ev := cmdEvidence{line: no, off: start, score: m.Score, fam: m.Fam, after: m.After, before: m.Before, tmpl: drain.Other, lv: lv}
	if lv != 0 {
		ev.def = r.m.Defines(t, lv) != 0
	}
	if !inRecord && r.recLine > 0 {
		ev.recLine, ev.recOff, ev.recN = r.recLine, r.recOff, r.recN
	}
	switch {
	case m.Head && topLine > 0:
		ev.headLine, ev.headOff = topLine, topOff
	case r.regLine > 0 && r.regLine < no:
		// The file of a diff it is in.
		ev.headLine, ev.headOff = r.regLine, r.regOff
	}
	if m.Fam != classify.FamNone {
		ev.tmpl = r.mine(m.Fam, t, no)
		if ev.tmpl == drain.Other {
			topk.Keep(&r.other, cmdMaxOther, ev, worseEvidence)
			return
		}
		limit := uint8(cmdMaxPerTmpl)
		if m.Fam == classify.FamSummary {
			limit = cmdMaxPerSummary
		}
		switch {
		case r.kept[ev.tmpl] >= limit:
		case len(r.cand) >= cmdMaxCand:
			topk.Keep(&r.other, cmdMaxOther, ev, worseEvidence)
			return
		default:
			r.kept[ev.tmpl]++
			r.cand = append(r.cand, ev)
			return
		}
	}
	if lv != 0 {
		if m.Fam == classify.FamNone {
			// Mined too, so that a line the intent names that repeats
			// its template a hundred times weighs as repetition.
			ev.tmpl = r.mine(classify.FamNone, t, no)
		}
		// A first guess at how well the line meets the intent: its score
		// by the words' rarity in the lines seen so far.
		ev.rank = r.st.Score(lv)
		if ev.def {
			ev.rank *= 2 // a definition is kept before the lines that use its name
		}
		topk.Keep(&r.hits, cmdMaxIntent, ev, worseEvidence)
	}
}

// mine returns the template of line no (t, of family f), or drain.Other,
// and counts it. A line that repeats one met before but for its numbers
// takes that line's template without the miner.
func (r *cmdRanker) mine(f classify.Family, t []byte, no int64) int {
	h := cmdLineHash(t) ^ uint64(f)*0x9E3779B97F4A7C15
	id, ok := r.known[h]
	if !ok {
		if id = r.miner.AddIn(uint8(f), t, no); id == drain.Other {
			return id
		}
		if len(r.known) < cmdMaxKnown {
			r.known[h] = id
		}
		for len(r.count) <= id {
			r.count = append(r.count, 0)
			r.kept = append(r.kept, 0)
		}
	}
	r.count[id]++
	return id
}

// rank weighs the evidence kept, once the scan has seen units lines of the
// lines numbered 1 to total, and returns it best first.
func (r *cmdRanker) rank(units, total int64) []cmdEvidence {
	evs := slices.Concat(r.cand, r.other, r.hits)
	// What one word met exactly, in one line only, scores: the intent's
	// unit, so that a line's intent says how many such words it holds.
	unit := rank.Exact.Weight() * math.Log(1+(float64(units)-0.5)/1.5)
	n := 0
	for i := range evs {
		ev := &evs[i]
		sev, st := classify.Match{Fam: ev.fam, Score: ev.score}.Signals()
		ev.sev = sev
		if ev.def && st == rank.Plain {
			st = rank.Definition
		}
		sig := rank.Signals{Severity: sev, Structure: st, Edge: cmdEdge(ev.line, total)}
		if ev.tmpl != drain.Other {
			sig.Count, sig.Total = r.count[ev.tmpl], units
		}
		if ev.lv != 0 && unit > 0 {
			sig.Intent = 2 * r.st.Score(ev.lv) / unit
		}
		switch {
		case ev.fam != classify.FamNone:
			// Evidence the intent names strongly ranks with the details
			// of failures at least: "ok  pkg" when asked whether pkg
			// passed.
			if sig.Intent >= 1 && ev.score < classify.ScoreDetail {
				ev.score = classify.ScoreDetail
			}
		// A line the intent names is evidence on its own: with the
		// details of failures, and the start of what it opens (an
		// option's description, a definition's body), when it holds half
		// a word no other line holds, or defines a name the intent
		// names; with warnings when it holds a quarter; not at all when
		// all it holds are words most lines hold.
		case sig.Intent >= 1 || ev.def:
			// A definition of a name the intent names is the name's
			// place, however common the name.
			ev.score, ev.after = classify.ScoreDetail, 1
		case sig.Intent >= 0.5:
			ev.score = classify.ScoreWarn
		default:
			continue
		}
		ev.rank = rank.Score(sig)
		evs[n] = *ev
		n++
	}
	evs = evs[:n]
	rank.SortBest(evs, cmdEvidence.better)
	// The best few of each template (the first few, and those the intent
	// names): the same line a hundred times is one piece of evidence.
	per := map[int]int{}
	n = 0
	for _, ev := range evs {
		if ev.tmpl != drain.Other {
			limit := cmdMaxPerTmpl
			if ev.fam == classify.FamSummary {
				limit = cmdMaxPerSummary
			}
			if per[ev.tmpl]++; per[ev.tmpl] > limit {
				continue
			}
		}
		evs[n] = ev
		n++
	}
	return evs[:n]
}

// cmdEdge is how near line no is to the start or the end of total lines: 1
// at the first and the last line, 0 from a fiftieth of the output in (at
// least three lines).
func cmdEdge(no, total int64) float64 {
	d := min(no-1, total-no)
	w := max(3, total/50)
	if d < 0 || d >= w {
		return 0
	}
	return 1 - float64(d)/float64(w)
}
