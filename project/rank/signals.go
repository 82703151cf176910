package rank

import "math"

// Structure is what a unit is in the shape of its result.
type Structure int

// The structures a unit may have, in no order of weight.
const (
	Plain      Structure = iota
	Heading              // a section's heading: HTML h1–h6, Markdown #, a man page's SECTION, a numbered clause
	Definition           // a definition's first line: func, class, a key that opens an object
	Summary              // a line that sums up a run: "ok  pkg 0.1s", "FAIL", "Tests: 3 failed", an exit status
)

// Severity is how strongly a unit reports trouble.
type Severity int

// The severities, weakest first.
const (
	Quiet   Severity = iota
	Notice           // a note, a remark, "can inline", a hint
	Warning          // a warning, a deprecation
	Error            // an error, a failure, a panic, a non-zero exit
)

// Signals are what a kind knows of one unit; Score weighs them the same
// way for every kind.
type Signals struct {
	// Intent is the unit's intent score (Stats.Score or Fields.Score).
	Intent float64
	// Count is how often the unit's template occurs in the result, Total
	// how many units were mined: a template met once among thousands is
	// rare, one met thousands of times is repetition. Zero when not mined.
	Count, Total int64
	// Severity is how strongly the unit reports trouble.
	Severity Severity
	// Structure is what the unit is in its result's shape.
	Structure Structure
	// Edge is 1 for a unit at the head or the tail of its result, falling
	// to 0 in the middle: an outcome is usually at the end, a title at the
	// start.
	Edge float64
}

// Rarity is how rare a template met count times among total units is: 1
// for a one-off among many, 0 for a template that is all there is. It is 1
// when nothing was mined.
func Rarity(count, total int64) float64 {
	if count <= 0 || total <= 1 {
		return 1
	}
	if count >= total {
		return 0
	}
	return math.Log(float64(total)/float64(count)) / math.Log(float64(total))
}

// The weights of the signals. Severity weighs by rarity: an error line
// whose template repeats thousands of times says less than the one that
// occurs once. The intent weighs most: it is what the agent asked.
const (
	intentWeight    = 4.0
	severityWeight  = 3.0
	rarityWeight    = 1.0
	structureWeight = 1.5
	summaryWeight   = 2.0
	edgeWeight      = 0.5
)

// severityValue is what each severity counts for before rarity.
var severityValue = [...]float64{Quiet: 0, Notice: 0.1, Warning: 0.5, Error: 1}

// Score weighs a unit's signals into one number; higher is better evidence.
func Score(s Signals) float64 {
	r := Rarity(s.Count, s.Total)
	score := intentWeight * s.Intent
	score += severityWeight * severityValue[s.Severity] * (0.25 + 0.75*r)
	if s.Total > 0 {
		score += rarityWeight * r
	}
	switch s.Structure {
	case Heading, Definition:
		score += structureWeight * (0.5 + min(s.Intent, 2)/2)
	case Summary:
		score += summaryWeight
	}
	return score + edgeWeight*s.Edge
}
