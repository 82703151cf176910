package bench

import "crypto/sha256"

// A Part is one of the two parts a corpus is split into by the names of its
// cases: [PartDev], the cases projectors may be tuned on, and [PartSealed],
// the cases nobody looks at while working, whose figures are the ones that
// count.
type Part string

// The parts of a corpus.
const (
	PartDev    Part = "dev"
	PartSealed Part = "sealed"
)

// Parts lists the parts in the order reports show them.
var Parts = []Part{PartDev, PartSealed}

// devBelow is the first byte of a name's SHA-256 under which a case is in
// the dev part: 171 of 256, about two thirds.
const devBelow = 171

// PartOf returns the part a case belongs to, from its name alone: dev when
// the first byte of the SHA-256 of the name is below 171, else sealed. The
// split is the same on every machine, and adding or removing a case never
// moves another.
func PartOf(name string) Part {
	if sum := sha256.Sum256([]byte(name)); sum[0] < devBelow {
		return PartDev
	}
	return PartSealed
}

// Part returns the part the case belongs to (see [PartOf]).
func (c *Case) Part() Part { return PartOf(c.Name) }

// Part returns the report restricted to the cases of part p, with its
// totals summed again over them.
func (r Report) Part(p Part) Report {
	out := Report{Strategy: r.Strategy, Err: r.Err}
	for _, c := range r.Cases {
		if PartOf(c.Case) == p {
			out.Cases = append(out.Cases, c)
		}
	}
	out.Total = total(out.Cases)
	return out
}

// PartSummaries returns the summaries of part p, one per strategy in the
// order of sums (see [Summary.Dev] and [Summary.Sealed]). A summary made
// without its parts gives an empty one.
func PartSummaries(sums []Summary, p Part) []Summary {
	out := make([]Summary, 0, len(sums))
	for _, s := range sums {
		ps := s.Dev
		if p == PartSealed {
			ps = s.Sealed
		}
		if ps == nil {
			ps = &Summary{Strategy: s.Strategy}
		}
		out = append(out, *ps)
	}
	return out
}
