package rank

import (
	"bytes"
	"math/bits"
)

// Compounds: an identifier written as two words of the intent run
// together ("reverseproxy" for "reverse proxy", "cookiejar" for "cookie
// jar", "httptrace" for "http trace") names what the intent names. Split
// at no camelCase joint, it would meet each word only in part.

// initJoins records the runs of two words of the intent in a row.
func (m *Matcher) initJoins() {
	m.joins = m.joins[:0]
	for i := 0; i+1 < len(m.text); i++ {
		m.joins = append(m.joins, append(append([]byte(nil), m.text[i]...), m.text[i+1]...))
	}
}

// compounds raises the levels of two words in a row that the identifier
// last split (m.ident, m.parts) writes run together: whole when a part of
// it, or all of it, is the two words; in another form when it holds them,
// unless one of them is short (see Word.Short).
func (m *Matcher) compounds(held uint32, lv *Levels) {
	for set := held & (held >> 1); set != 0; set &= set - 1 {
		i := bits.TrailingZeros32(set)
		if i >= len(m.joins) || !bytes.Contains(m.ident, m.joins[i]) {
			continue
		}
		level := Form
		if bytes.Equal(m.ident, m.joins[i]) {
			level = Whole
		}
		for _, p := range m.parts {
			if bytes.Equal(m.ident[p[0]:p[1]], m.joins[i]) {
				level = Whole
			}
		}
		if level < Whole && m.short&(3<<i) != 0 {
			continue
		}
		lv.Raise(i, level)
		lv.Raise(i+1, level)
	}
}
