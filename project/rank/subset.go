package rank

import "math/bits"

// Without returns the intent without the words drop reports: words that
// name the result or the act of reading it ("log", "listing", "tree")
// rather than what is sought in it. Its keys and paths stay.
func (it *Intent) Without(drop func(Word) bool) *Intent {
	out := *it
	out.Words = nil
	for _, w := range it.Words {
		if !drop(w) {
			out.Words = append(out.Words, w)
		}
	}
	return &out
}

// Words returns the words met at least at a level, as a bit set: bit i for
// word i.
func (l Levels) Words(least Level) uint32 {
	var w uint32
	for i := range MaxWords {
		if l.At(i) >= max(least, Part) {
			w |= 1 << i
		}
	}
	return w
}

// AddUnmatched counts n units that hold none of the words: a scan that
// matches only some of its units counts the rest at the end.
func (s *Stats) AddUnmatched(n int64) { s.units += max(n, 0) }

// DF returns how many units hold word i at a level: whole or in another
// form for Form and above, at any level below.
func (s *Stats) DF(i int, level Level) int64 {
	if level >= Form {
		return s.whole[i]
	}
	return s.any[i]
}

// The bits of Levels that hold the 1, 2 and 4 of each word's level.
const (
	levelBits1 Levels = 0o111111111111111111111111111111111111111111111111 & (1<<keyShift - 1)
	levelBits2        = levelBits1 << 1
	levelBits4        = levelBits1 << 2
)

// Sum adds up the levels of the words met, counting each key met whole as
// a word met exactly: a measure of how much of the intent one text holds,
// before the words' rarity.
func (l Levels) Sum() int {
	return bits.OnesCount64(uint64(l&levelBits1)) + 2*bits.OnesCount64(uint64(l&levelBits2)) +
		4*bits.OnesCount64(uint64(l&levelBits4)) + l.Keys()*int(Exact)
}
