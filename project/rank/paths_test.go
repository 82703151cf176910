package rank

import (
	"slices"
	"testing"
)

func TestWithoutPaths(t *testing.T) {
	for _, c := range []struct {
		intent string
		words  []string
		keys   []string
	}{
		{"the Equal function in require/require.go", []string{"equal"}, nil},
		{"how require/ uses require.New", []string{"require", "uses", "new"}, []string{"require.new"}},
		{"retry in net/http/transport.go and the transport's dial", []string{"retry", "transport", "dial"}, nil},
		{"is core-js locked", []string{"core", "locked"}, []string{"core-js"}},
	} {
		it := Parse(c.intent).WithoutPaths()
		var words []string
		for _, w := range it.Words {
			words = append(words, w.Text)
		}
		if !slices.Equal(words, c.words) || !slices.Equal(it.Keys, c.keys) {
			t.Errorf("%q without its paths: words %q, keys %q; want %q, %q", c.intent, words, it.Keys, c.words, c.keys)
		}
	}
}
