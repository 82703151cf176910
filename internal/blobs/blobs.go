// Package blobs finds base64 blobs and data: URLs inside text and replaces
// each with a short reference to its decoded bytes, which are stored apart.
// A screenshot pasted into a log or an HTML page costs the model a dozen
// tokens instead of tens of thousands.
package blobs

import (
	"encoding/base64"
	"strings"

	"github.com/crumb-dev/crumb/internal/lazyre"
	"github.com/crumb-dev/crumb/internal/sniff"
	"github.com/crumb-dev/crumb/internal/textfmt"
)

// MinRun is the shortest run of base64 characters (without a data: prefix)
// treated as a blob. Shorter runs are keys, hashes and identifiers.
const MinRun = 256

// minDataURL is the shortest data: URL payload replaced.
const minDataURL = 64

var (
	dataURL = lazyre.New(`data:([a-zA-Z0-9.+-]+/[a-zA-Z0-9.+-]+)?((?:;[a-zA-Z0-9_.+-]+=[a-zA-Z0-9_.+-]+)*);base64,([A-Za-z0-9+/_-]*={0,2})`)
	rawRun  = lazyre.New(`[A-Za-z0-9+/_-]{256,}={0,2}`)
)

// Put stores decoded bytes and returns a reference to show for them, such as
// "ref 1a2b3c4d5e6f7a8b". It may return an error, in which case the blob is
// still replaced but said not to be kept.
type Put func(data []byte) (string, error)

// Replace returns s with every data: URL and long base64 run replaced by a
// bracketed note naming its type and size and, when put is not nil, the
// reference put returns for the decoded bytes. When fragment is true, s is a
// part of a longer line, and a run that touches either end of s may be cut:
// it is collapsed without being stored. Replace reports whether it replaced
// anything.
func Replace(s string, put Put, fragment bool) (string, bool) {
	if len(s) < minDataURL || !mayHold(s) {
		return s, false
	}
	changed := false
	s = replaceAll(s, dataURL, func(m []int) (string, bool) {
		payload := s[m[6]:m[7]]
		if len(payload) < minDataURL {
			return "", false
		}
		mime := ""
		if m[2] >= 0 {
			mime = s[m[2]:m[3]]
		}
		partial := fragment && (m[0] == 0 || m[1] == len(s))
		return note(mime, payload, put, partial), true
	}, &changed)
	s = replaceAll(s, rawRun, func(m []int) (string, bool) {
		run := s[m[0]:m[1]]
		if !looksBase64(run) {
			return "", false
		}
		partial := fragment && (m[0] == 0 || m[1] == len(s))
		return note("", run, put, partial), true
	}, &changed)
	return s, changed
}

// replaceAll replaces the matches of re in s for which f returns true.
func replaceAll(s string, re *lazyre.Regexp, f func(m []int) (string, bool), changed *bool) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		r, ok := f(m)
		if !ok {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(r)
		last = m[1]
		*changed = true
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// mayHold is a quick test that s could hold a blob at all.
func mayHold(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_' {
			run++
			if run >= minDataURL {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// looksBase64 tells a base64 run from a long identifier or a hex string: it
// mixes upper case, lower case and digits, and decodes.
func looksBase64(s string) bool {
	upper, lower, digit := 0, 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper++
		case c >= 'a' && c <= 'z':
			lower++
		case c >= '0' && c <= '9':
			digit++
		}
	}
	if upper*20 < len(s) || lower*20 < len(s) || digit*50 < len(s) {
		return false
	}
	return decode(s) != nil
}

func decode(s string) []byte {
	s = strings.TrimRight(s, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b
		}
	}
	return nil
}

func note(mime, payload string, put Put, cut bool) string {
	if cut {
		return "[base64 data" + typed(mime) + ", at least " + textfmt.Size(int64(len(payload))*3/4) + ", continues past this view]"
	}
	data := decode(payload)
	if data == nil {
		return "[base64 data" + typed(mime) + ", " + textfmt.Size(int64(len(payload))*3/4) + ", not valid base64]"
	}
	if mime == "" {
		mime = sniff.MIME(data)
		if i := strings.IndexByte(mime, ';'); i >= 0 {
			mime = mime[:i]
		}
	}
	desc := "[base64 " + mime + ", " + textfmt.Size(int64(len(data)))
	if strings.HasPrefix(mime, "image/") {
		if d := sniff.Describe(data); strings.Contains(d, ", ") {
			desc = "[base64 " + d + ", " + textfmt.Size(int64(len(data)))
		}
	}
	if put == nil {
		return desc + "]"
	}
	ref, err := put(data)
	if err != nil {
		return desc + ", not kept: " + err.Error() + "]"
	}
	return desc + ", " + ref + "]"
}

func typed(mime string) string {
	if mime == "" {
		return ""
	}
	return " " + mime
}
