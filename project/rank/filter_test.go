package rank

import "testing"

// FuzzMatcherFilter checks that the one-pass filter of Levels loses
// nothing: any intent against any text gives the levels and keys that
// matching without it gives.
func FuzzMatcherFilter(f *testing.F) {
	f.Add("idle connections put back", "func (t *Transport) tryPutIdleConn(pconn *persistConn) error {")
	f.Add("is core-js used, or @types/node?", `"node_modules/@types/node": {"core-js": "3"}`)
	f.Add("why is lodash pinned", `lodash.debounce@^4.0.8, lodash@^4.17.21:`)
	f.Add("ÄÖÜ straße", "Straße_ÄÖÜ x")
	f.Add("abc", "ab")
	f.Add("the gc and io", "func (d *Dir) gc(ctx) GCStats; run gc")
	f.Add("os", "os")
	f.Fuzz(func(t *testing.T, intent, text string) {
		it := Parse(intent)
		fast, slow := NewMatcher(it), NewMatcher(it)
		slow.noFilter = true
		if a, b := fast.Levels([]byte(text)), slow.Levels([]byte(text)); a != b {
			t.Errorf("intent %q in %q: levels %x with the filter, %x without", intent, text, a, b)
		}
	})
}

// BenchmarkMatcherLevels matches an intent against the short texts of a
// JSON document (keys and values) and against log lines.
func BenchmarkMatcherLevels(b *testing.B) {
	m := NewMatcher(Parse("Find the directory and doc of net/http/httptrace"))
	texts := [][]byte{
		[]byte(`"ImportPath"`), []byte(`"crypto/internal/fips140/sha256"`), []byte(`"Dir"`),
		[]byte(`"/usr/local/go/src/crypto/sha256"`), []byte(`"Doc": "Package sha256 implements the SHA224 and SHA256 hash algorithms as defined in FIPS 180-4."`),
		[]byte(`2024-05-01T10:00:01Z INFO replication sync to primary 10.0.0.1:6379 started (offset 12345)`),
		[]byte(`"net/http/httptrace"`), []byte(`true`), []byte(`"Standard"`),
	}
	n := 0
	for _, t := range texts {
		n += len(t)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for range b.N {
		for _, t := range texts {
			m.Levels(t)
		}
	}
}
