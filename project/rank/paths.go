package rank

import "strings"

// WithoutPaths returns the intent without what only its paths name: the
// keys that are paths, and the words met nowhere outside them. Once a path
// has selected the region it heads ("Equal in require/require.go"), the
// rest of the intent ranks what is inside it: "require" would only find the
// region's header again.
func (it *Intent) WithoutPaths() *Intent {
	if len(it.Paths) == 0 {
		return it
	}
	rest := it.Raw
	for _, p := range it.Paths {
		rest = replaceFold(rest, p)
	}
	outside := map[string]bool{}
	for _, w := range Parse(rest).Words {
		outside[w.Text] = true
	}
	paths := map[string]bool{}
	for _, p := range it.Paths {
		paths[p] = true
	}
	out := it.Without(func(w Word) bool { return !outside[w.Text] })
	out.Keys = nil
	for _, k := range it.Keys {
		if !paths[strings.TrimPrefix(k, "./")] {
			out.Keys = append(out.Keys, k)
		}
	}
	return out
}

// replaceFold blanks every occurrence of the lower-case sub in s, in any
// case.
func replaceFold(s, sub string) string {
	low := strings.ToLower(s)
	if len(low) != len(s) {
		return strings.ReplaceAll(low, sub, " ")
	}
	var b strings.Builder
	for {
		i := strings.Index(low, sub)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		s, low = s[i+len(sub):], low[i+len(sub):]
	}
}
