package project

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project/internal/view"
	"github.com/crumb-dev/crumb/project/rank"
	"github.com/crumb-dev/crumb/project/teststream"
	"github.com/crumb-dev/crumb/recall"
)

// A result that holds a machine-readable test report (go test -json,
// cargo test's libtest JSON, jest --json and vitest's JSON reporter,
// JUnit XML) is shown decoded, whatever carries it: a command's output, a
// JSON document, JUnit XML read as a file or as text, an MCP text block
// (projected as the kind its bytes are), a file or text that sniffing sends
// to the command projector. First the failing tests, each with its
// message and where it failed and the raw events or elements that hold
// them, quoted as they are with their line numbers; then the run's
// summary and the end of each suite; then, while the budget lasts, the
// evidence that ranks next (skipped and slow tests, trouble reported
// outside the report). Failures that repeat one another (the same message
// with other values, at the same place) are shown once and counted. Every
// unit is scored by rank.Score (see teststream.Units); the view takes them
// best first, in the order of their sections.
//
// The view quotes raw lines whole or names the raw range a decoded line
// comes from; its continuation reads every line it does not quote whole,
// in order, once.

// reportQuoteCap is the most tokens one raw line may take when quoted
// whole; of a longer one its start is shown, then its unit's decoded
// lines.
const reportQuoteCap = 160

// reportRangeCost is about what one more omitted range costs the header's
// next read.
const reportRangeCost = 6

// projectTestReport shows in as a decoded test report, and reports false
// when it holds none (or it is small enough to be shown whole by the
// projector of its kind).
func projectTestReport(ctx context.Context, in *Input, k Kind) (Output, bool, error) {
	if a := in.Call(); k == KindFile && (a.HasRange || a.Tail > 0 || a.Symbol != "" || a.Pattern != "") {
		return Output{}, false, nil // a read of a part of the file shows that part
	}
	size := in.Source.Size()
	if size == 0 || size > cmdSample.full {
		// A report larger than the command projector reads whole is
		// sampled by it instead: decoding it all would cost more than
		// the projection may.
		return Output{}, false, nil
	}
	if size <= int64(in.Budget)*4 && tokensOf(in, size)+100 <= in.Budget {
		// Small enough that the view of its kind shows it whole.
		return Output{}, false, nil
	}
	head := make([]byte, min(size, 16<<10))
	if _, err := in.Source.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return Output{}, false, err
	}
	tail := make([]byte, min(size, 16<<10))
	if _, err := in.Source.ReadAt(tail, size-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return Output{}, false, err
	}
	f := teststream.Sniff(head, tail)
	if f == teststream.None {
		return Output{}, false, nil
	}
	if (k == KindFile || k == KindText) && f != teststream.JUnit {
		// Sniffing sends a stream of test events read as a file or as text
		// to the command projector, and a JSON report to the JSON one,
		// unless the file's name says it is something else (source code
		// that holds such output): they decode it.
		return Output{}, false, nil
	}
	if k == KindFile && langOf(in.Call().Path, nil) != nil {
		return Output{}, false, nil // source code, whatever it holds
	}
	rep, err := teststream.Decode(ctx, in.Source, size, f)
	if err != nil {
		if ctx.Err() != nil {
			return Output{}, false, ctx.Err()
		}
		// Not a report after all, or a broken one: the projector of its
		// kind shows it and names what is wrong.
		return Output{}, false, nil
	}
	if rep.Passed+rep.Failed+rep.Skipped == 0 && len(rep.Suites) == 0 {
		return Output{}, false, nil
	}
	e, err := newExcerptor(in, false)
	if err != nil {
		return Output{}, false, err
	}
	v := &reportView{in: in, e: e, rep: rep, kind: k, quoted: map[int64]bool{}}
	out, err := v.render(teststream.Units(rep, rank.Parse(in.Call().Intent)))
	if err != nil {
		return Output{}, false, err
	}
	if size <= int64(in.Budget)*16 && in.Counter.Count(out.Text) >= tokensOf(in, size) {
		return Output{}, false, nil // no smaller than the report itself
	}
	return out, true, nil
}

// tokensOf counts the tokens of a small input's first size bytes.
func tokensOf(in *Input, size int64) int {
	all := make([]byte, size)
	if n, _ := in.Source.ReadAt(all, 0); n < len(all) {
		all = all[:n]
	}
	return in.Counter.Count(string(all))
}

// reportView is one view of a decoded report.
type reportView struct {
	in     *Input
	e      *view.Excerptor
	rep    *teststream.Report
	kind   Kind           // the kind of the result, which the header names
	quoted map[int64]bool // the raw lines the view quotes whole
}

// reportBlock is a unit rendered: its lines and the raw lines it quotes
// whole.
type reportBlock struct {
	u      *teststream.Unit
	lines  []string
	at     []int64 // where each line is in the raw result: quotes are shown in its order
	quoted []int64
	cost   int
	prefix []string // the starts of the lines too long to quote whole
}

// inPrefix reports whether a decoded line is shown in the start of a
// long line quoted, as it is or escaped as JSON escapes it.
func (b *reportBlock) inPrefix(l string) bool {
	t := strings.TrimSpace(l)
	if t == "" {
		return len(b.prefix) > 0
	}
	esc, _ := json.Marshal(t)
	for _, p := range b.prefix {
		if strings.Contains(p, t) || strings.Contains(p, strings.Trim(string(esc), `"`)) {
			return true
		}
	}
	return false
}

func (v *reportView) render(units []teststream.Unit) (Output, error) {
	in, e := v.in, v.e
	var prelude []string
	if in.ExitCode != nil || in.Signal != "" || in.TimedOut {
		prelude = append(prelude, ExitSummary(in.ExitCode, in.Signal, in.TimedOut, in.Duration))
	}
	command := ""
	if cmd := in.CommandLine(); cmd != "" {
		command = "$ " + textfmt.Clip(textfmt.CleanLine([]byte(cmd)), 240, "…")
	}
	// The room for the units: the budget less a header naming many
	// omitted ranges (it names at most three and a count), the command
	// and the store's note.
	worst := textfmt.Int(e.Total)
	wg := view.Gap{Req: recall.Request{Ref: in.Ref, Rev: in.Rev(), Lines: &recall.Span{From: e.Total, To: e.Total}}}
	header := v.header(prelude, "lines "+worst+"-"+worst+", lines "+worst+"-"+worst+" and 9 more",
		in.ReadHint(view.Continuation([]view.Gap{wg, wg})))
	room := in.Budget - e.Cost(header) - e.Cost(command) - 2
	if in.StoreError != "" {
		room -= e.Cost(storeNote(in))
	}
	// Units best first, each shortened to a share of the room; the view
	// shows them by section.
	var picked []*reportBlock
	used := 0
	for i := range units {
		u := &units[i]
		share := room - used
		if u.Role == teststream.RoleFailure {
			share = min(share, max(room/3, 200))
		} else {
			share = min(share, max(room/6, 80))
		}
		if share <= 8 {
			continue
		}
		b, err := v.block(u, share)
		if err != nil {
			return Output{}, err
		}
		if (b == nil || used+b.cost > room) && u.Role == teststream.RoleFailure {
			b = v.brief(u, room-used) // a failure named is better than none
		}
		if b == nil || used+b.cost > room {
			continue
		}
		used += b.cost
		picked = append(picked, b)
		for _, n := range b.quoted {
			v.quoted[n] = true
		}
	}
	// Room left, as the view stands: the units picked, best first, may
	// show more of themselves (a failure's further output lines).
	text, _, err := v.assemble(prelude, command, picked)
	if err != nil {
		return Output{}, err
	}
	room, used = in.Budget-4, in.Counter.Count(text)
	for i, b := range picked {
		if used >= room-8 {
			break
		}
		for _, n := range b.quoted {
			delete(v.quoted, n)
		}
		nb, err := v.block(b.u, b.cost+room-used)
		if err != nil {
			return Output{}, err
		}
		if nb == nil || nb.cost < b.cost {
			nb = b
		}
		used += nb.cost - b.cost
		picked[i] = nb
		for _, n := range nb.quoted {
			v.quoted[n] = true
		}
	}
	// By section, the run's summary first in its own; the lines of text
	// outside the report last, in their order.
	slices.SortStableFunc(picked, func(a, b *reportBlock) int {
		switch {
		case a.u.Role != b.u.Role:
			return int(a.u.Role) - int(b.u.Role)
		case a.u.Run != b.u.Run:
			if a.u.Run {
				return -1
			}
			return 1
		case a.u.Role == teststream.RoleSummary:
			return cmpInt64(a.u.Extent.From, b.u.Extent.From) // the suites in the order they ended
		}
		ta, tb := a.u.Title == "", b.u.Title == ""
		switch {
		case ta && tb:
			return cmpInt64(a.u.Extent.From, b.u.Extent.From)
		case ta:
			return 1
		case tb:
			return -1
		}
		return 0
	})
	for {
		text, next, err := v.assemble(prelude, command, picked)
		if err != nil {
			return Output{}, err
		}
		if in.Counter.Count(text) <= in.Budget || len(picked) <= 1 {
			return Output{Text: text, Next: next, Complete: next == nil && in.StoreError == ""}, nil
		}
		// Over the budget (the estimate of the header was short): drop the
		// unit that ranks lowest.
		low := 0
		for i, b := range picked {
			if b.u.Score < picked[low].u.Score {
				low = i
			}
		}
		for _, n := range picked[low].quoted {
			delete(v.quoted, n)
		}
		picked = slices.Delete(picked, low, low+1)
	}
}

// assemble renders the view of the picked blocks.
func (v *reportView) assemble(prelude []string, command string, picked []*reportBlock) (string, *recall.Request, error) {
	in, e := v.in, v.e
	xs, err := v.excerpts()
	if err != nil {
		return "", nil, err
	}
	gs, err := e.Gaps(xs)
	if err != nil {
		return "", nil, err
	}
	var b strings.Builder
	omitted := ""
	var next *recall.Request
	if len(gs) > 0 {
		var labels []string
		for i, g := range gs {
			if i == 3 {
				labels = append(labels, "and "+textfmt.Int(int64(len(gs)-3))+" more")
				break
			}
			labels = append(labels, g.Label)
		}
		omitted = strings.Join(labels, ", ")
		if in.Ref != "" {
			r := view.Continuation(gs)
			next = &r
		}
	}
	nextHint := ""
	if len(gs) > 0 {
		nextHint = in.ReadHint(view.Continuation(gs))
	}
	b.WriteString(v.header(prelude, omitted, nextHint))
	if in.StoreError != "" {
		b.WriteString("\n" + storeNote(in))
	}
	if command != "" {
		b.WriteString("\n" + command)
	}
	role := teststream.Role(-1)
	for _, bl := range picked {
		if bl.u.Role != role && role >= 0 {
			b.WriteByte('\n')
		}
		role = bl.u.Role
		for _, l := range bl.lines {
			b.WriteByte('\n')
			b.WriteString(l)
		}
	}
	return b.String(), next, nil
}

func storeNote(in *Input) string {
	return "[crumb could not store this result: " + in.StoreError + "; what is omitted here cannot be read back]"
}

// header says what the view is, what it quotes and omits, and the next
// read.
func (v *reportView) header(facts []string, omitted, next string) string {
	in, e := v.in, v.e
	var b strings.Builder
	b.WriteString("[crumb ")
	b.WriteString(string(v.kind))
	b.WriteString(": ")
	for _, f := range facts {
		b.WriteString(f + ", ")
	}
	b.WriteString("a " + v.rep.Format.String() + " report, decoded, ")
	b.WriteString(textfmt.Plural(e.Total, "line") + ", " + textfmt.Size(e.SourceSize()))
	if in.Ref != "" {
		b.WriteString(", ref " + string(in.Ref))
	}
	b.WriteString("; shown: its failures, its summary and what ranks next")
	if len(v.quoted) > 0 {
		b.WriteString(", quoting " + textfmt.Plural(int64(len(v.quoted)), "raw line") + " whole, by number")
	}
	if omitted == "" {
		b.WriteString("]")
		return b.String()
	}
	b.WriteString("; omitted as raw lines: " + omitted)
	if in.Truncated {
		b.WriteString("; only the first " + textfmt.Size(e.Doc.Size()) + " of " + textfmt.Size(in.SourceSize) + " were kept")
	}
	b.WriteString("; next: " + next + "]")
	return b.String()
}

// excerpts are the runs of raw lines the view quotes whole.
func (v *reportView) excerpts() ([]view.Excerpt, error) {
	nums := make([]int64, 0, len(v.quoted))
	for n := range v.quoted {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	var xs []view.Excerpt
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		from, err := v.e.Doc.LineStart(nums[i])
		if err != nil {
			return nil, err
		}
		to, err := v.e.Doc.LineStart(nums[j] + 1)
		if err != nil {
			return nil, err
		}
		x := view.Excerpt{From: from, To: to, First: nums[i]}
		for k := i; k <= j; k++ {
			x.Lines = append(x.Lines, "")
		}
		xs = append(xs, x)
		i = j + 1
	}
	return xs, nil
}

// block renders a unit within room tokens: its title with where it is,
// then its raw quotes (those of whole lines numbered) or, for a line too
// long to quote, its decoded lines. Nil when not even the title fits.
func (v *reportView) block(u *teststream.Unit, room int) (*reportBlock, error) {
	b := &reportBlock{u: u}
	title := u.Title
	if title != "" {
		w, err := v.where(u)
		if err != nil {
			return nil, err
		}
		if w != "" {
			title += " (" + w + ")"
		}
		if !v.add(b, title, room) {
			return nil, nil
		}
	}
	// The last quote, a test's end, is kept: its room is taken first.
	// Then the key quotes (an error, a location in the project), then the
	// others; they are shown in the order of the result.
	decoded := false
	var order []int
	if n := len(u.Quote); n > 1 {
		order = append(order, n-1)
	}
	for pass := 0; pass < 2; pass++ {
		for i := range u.Quote {
			key := i < len(u.Key) && u.Key[i]
			if i != len(u.Quote)-1 || len(u.Quote) == 1 {
				if pass == 0 && (key || u.Key == nil) || pass == 1 && !key && u.Key != nil {
					order = append(order, i)
				}
			}
		}
	}
	for _, i := range order {
		ok, err := v.quote(b, u.Quote[i], room)
		if err != nil {
			return nil, err
		}
		decoded = decoded || !ok
	}
	// The title first, the quotes in the order of the result.
	idx := make([]int, len(b.lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(x, y int) int { return cmpInt64(b.at[x], b.at[y]) })
	lines, at := make([]string, len(idx)), make([]int64, len(idx))
	for k, i := range idx {
		lines[k], at[k] = b.lines[i], b.at[i]
	}
	b.lines, b.at = lines, at
	if decoded || len(u.Quote) == 0 {
		for _, l := range u.Lines {
			if b.inPrefix(l) {
				continue // shown in a quote's start
			}
			if !v.add(b, textfmt.CleanLine([]byte(l)), room) {
				break
			}
		}
	}
	if u.LikeCount > 0 {
		s := "[" + textfmt.Plural(u.LikeCount, "more failure") + " like it: " + strings.Join(u.Like, ", ")
		if int64(len(u.Like)) < u.LikeCount {
			s += ", …"
		}
		if u.LikeExtent.To > 0 {
			if w, err := v.span(u.LikeExtent); err == nil {
				s += " (" + w + ")"
			}
		}
		v.add(b, s+"]", room)
	}
	if len(b.lines) == 0 {
		return nil, nil
	}
	return b, nil
}

// brief renders a failure as its title and the first of its decoded
// lines that says most, for a view with no room for its quotes.
func (v *reportView) brief(u *teststream.Unit, room int) *reportBlock {
	b := &reportBlock{u: u}
	if !v.add(b, u.Title, room) {
		return nil
	}
	for _, l := range u.Lines {
		if strings.TrimSpace(l) != "" && v.add(b, textfmt.CleanLine([]byte(l)), room) {
			break
		}
	}
	return b
}

// add adds a line to b if it fits in room tokens.
func (v *reportView) add(b *reportBlock, s string, room int) bool { return v.addAt(b, s, room, -1) }

// addAt adds a line that is at offset at in the raw result.
func (v *reportView) addAt(b *reportBlock, s string, room int, at int64) bool {
	c := v.e.Cost(s)
	if b.cost+c > room {
		return false
	}
	b.lines = append(b.lines, s)
	b.at = append(b.at, at)
	b.cost += c
	return true
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// quote adds what fits in room of the raw span sp to b: its whole lines
// numbered, and the part of a line it holds as a fragment. It reports
// false when a whole line is too long to quote (the unit then shows its
// decoded lines).
func (v *reportView) quote(b *reportBlock, sp teststream.Span, room int) (bool, error) {
	e, in := v.e, v.in
	ln, err := e.Doc.LineAt(sp.From)
	if err != nil {
		return false, err
	}
	start, err := e.Doc.LineStart(ln)
	if err != nil {
		return false, err
	}
	for pos := start; pos < sp.To; ln++ {
		l, err := e.Doc.ReadLine(pos, min(e.MaxLineBytes(), reportQuoteCap*16))
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return false, err
		}
		pos = l.End
		from, to := max(sp.From, l.Start), min(sp.To, l.End)
		if from == l.Start && to == l.End {
			s := e.Render(l.Text, ln, false)
			if l.Cut || e.Cost(s) > reportQuoteCap {
				// Too long to quote whole: its start, as it is, and the
				// unit's decoded lines after it.
				if c := min(reportQuoteCap, room-b.cost); c >= 16 {
					k := e.FitPrefix(l.Text, ln, c-2)
					s := in.Line(l.Text[:k], true) + " …"
					if v.addAt(b, s, room, l.Start) {
						b.prefix = append(b.prefix, s)
					}
				}
				return false, nil
			}
			if v.quoted[ln] || slices.Contains(b.quoted, ln) {
				continue // quoted by a unit before
			}
			if v.addAt(b, textfmt.Int(ln)+"\t"+s, room, l.Start) {
				b.quoted = append(b.quoted, ln)
				if !v.quoted[ln-1] && !slices.Contains(b.quoted, ln-1) {
					b.cost += reportRangeCost // the next read names one more range
				}
			}
			continue
		}
		// A fragment of a line: as much of it as a quote may take.
		contentEnd := l.Start + int64(len(l.Text))
		if l.Cut {
			contentEnd = l.End
			if nl, err := e.Doc.ReadRange(l.End-1, l.End); err == nil && len(nl) == 1 && nl[0] == '\n' {
				contentEnd--
			}
		}
		k := min(to, contentEnd) - from
		if k <= 0 {
			continue
		}
		frag, err := e.Doc.ReadRange(from, from+min(k, int64(reportQuoteCap*16)))
		if err != nil {
			return false, err
		}
		cut := int64(len(frag)) < k
		if c := min(reportQuoteCap, room-b.cost); e.Cost(in.Line(frag, true)) > c {
			if c < 16 {
				continue
			}
			frag = frag[:e.FitPrefix(frag, ln, c-2)]
			cut = true
		}
		s := in.Line(frag, true)
		if cut {
			s += " …"
		}
		v.addAt(b, s, room, from)
	}
	return true, nil
}

// where names the place of a unit in the raw result: its JSON pointer, or
// its line range.
func (v *reportView) where(u *teststream.Unit) (string, error) {
	if u.Pointer != "" {
		return u.Pointer, nil
	}
	if u.Extent.To <= u.Extent.From || u.Role != teststream.RoleFailure {
		return "", nil
	}
	return v.span(u.Extent)
}

// span names a raw byte range by its lines, or its bytes when it lies in
// one line.
func (v *reportView) span(sp teststream.Span) (string, error) {
	a, err := v.e.Doc.LineAt(sp.From)
	if err != nil {
		return "", err
	}
	b, err := v.e.Doc.LineAt(max(sp.From, sp.To-1))
	if err != nil {
		return "", err
	}
	switch {
	case a == b && v.e.Total == 1:
		return "bytes " + textfmt.Int(sp.From) + "-" + textfmt.Int(sp.To), nil
	case a == b:
		return "line " + textfmt.Int(a), nil
	}
	return "lines " + textfmt.Int(a) + "-" + textfmt.Int(b), nil
}
