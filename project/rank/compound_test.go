package rank

import "testing"

// TestCompounds checks that two words of an intent written run together
// are met whole, and not when apart or out of order.
func TestCompounds(t *testing.T) {
	for _, c := range []struct {
		intent, text string
		want         [2]Level // the levels of the first two words
	}{
		{"reverse proxy", "/usr/local/go/src/net/http/httputil/reverseproxy.go", [2]Level{Whole, Whole}},
		{"the cookie jar", "net/http/cookiejar:", [2]Level{Whole, Whole}},
		{"cookie jar", "newCookieJarFor", [2]Level{Whole, Whole}},
		{"http trace", `"net/http/httptrace"`, [2]Level{Exact, Whole}}, // "http" alone too
		{"reverse proxy", "reverseproxytest", [2]Level{Form, Form}},
		{"proxy reverse", "reverseproxy.go", [2]Level{Part, Part}},
	} {
		m := NewMatcher(Parse(c.intent))
		lv := m.Levels([]byte(c.text))
		if got := [2]Level{lv.At(0), lv.At(1)}; got != c.want {
			t.Errorf("%q in %q: levels %v, want %v", c.intent, c.text, got, c.want)
		}
	}
}
