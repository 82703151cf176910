package jsonscan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// ParsePointer splits a JSON pointer (RFC 6901) into its reference tokens,
// with "~1" read as "/" and "~0" as "~". The empty pointer names the whole
// document and has no tokens.
func ParsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q must be empty or start with /", textfmt.Clip(p, 60, "..."))
	}
	parts := strings.Split(p[1:], "/")
	for i, t := range parts {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 < len(t) && (t[j+1] == '0' || t[j+1] == '1') {
				if t[j+1] == '0' {
					b.WriteByte('~')
				} else {
					b.WriteByte('/')
				}
				j++
				continue
			}
			return nil, fmt.Errorf("JSON pointer %q: '~' must be followed by 0 or 1 (write ~0 for ~ and ~1 for /)", textfmt.Clip(p, 60, "..."))
		}
		parts[i] = b.String()
	}
	return parts, nil
}

// EscapeToken escapes a reference token for a JSON pointer: "~" becomes
// "~0" and "/" becomes "~1".
func EscapeToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// Pointer joins reference tokens into a JSON pointer.
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

// Found is a value located by a pointer.
type Found struct {
	// Kind is the kind of the value's first token: BeginObject, BeginArray
	// or a scalar kind.
	Kind Kind
	// Start and End are the value's byte offsets, End exclusive.
	Start, End int64
	// Stream reports that the document holds several top-level values,
	// which pointers address as the elements of an array.
	Stream bool
	// Whole reports that the pointer named the whole stream: the value is
	// the array of all top-level values, which spans [Start, End) as a
	// sequence, not as one JSON value.
	Whole bool
}

// NotFoundError says that a pointer names nothing, and what is there
// instead: the deepest prefix that exists and the members it has.
type NotFoundError struct {
	// Pointer is the pointer asked for.
	Pointer string
	// Prefix is the deepest prefix of Pointer that names a value.
	Prefix string
	// Kind is the kind of the value at Prefix.
	Kind Kind
	// Missing is the reference token that was not found in it.
	Missing string
	// Keys are the first keys of the object at Prefix, and Members the
	// number of its members.
	Keys    []string
	Members int64
	// Len is the length of the array at Prefix.
	Len int64
	// Stream reports that Prefix is the stream of top-level values.
	Stream bool
}

func (e *NotFoundError) Error() string {
	at := e.Prefix
	if at == "" {
		at = "the document's root"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "JSON pointer %s names nothing: ", textfmt.Clip(e.Pointer, 60, "..."))
	switch e.Kind {
	case BeginObject:
		fmt.Fprintf(&b, "the object at %s has no key %q; it has %d key", at, textfmt.Clip(e.Missing, 60, "..."), e.Members)
		if e.Members != 1 {
			b.WriteString("s")
		}
		if len(e.Keys) > 0 {
			b.WriteString(": ")
			for i, k := range e.Keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.Quote(k))
			}
			if int64(len(e.Keys)) < e.Members {
				fmt.Fprintf(&b, " and %d more", e.Members-int64(len(e.Keys)))
			}
		}
	case BeginArray:
		what := "the array"
		if e.Stream {
			what = "the stream of top-level values"
		}
		if _, err := strconv.ParseUint(e.Missing, 10, 63); err != nil || (len(e.Missing) > 1 && e.Missing[0] == '0') {
			fmt.Fprintf(&b, "%s at %s is indexed by whole numbers, not %q", what, at, textfmt.Clip(e.Missing, 60, "..."))
		} else {
			fmt.Fprintf(&b, "index %s is past the end of %s at %s", e.Missing, what, at)
		}
		if e.Len == 0 {
			b.WriteString(", which is empty")
		} else {
			fmt.Fprintf(&b, ", which has %d elements (0-%d)", e.Len, e.Len-1)
		}
	default:
		fmt.Fprintf(&b, "the value at %s is a %s, which has no members", at, kindWord(e.Kind))
	}
	return b.String()
}

func kindWord(k Kind) string {
	switch k {
	case True, False:
		return "boolean"
	case BeginObject:
		return "object"
	case BeginArray:
		return "array"
	}
	return k.String()
}

// maxKeysNamed is how many keys a NotFoundError lists.
const maxKeysNamed = 20

// Find locates the value at pointer ptr in the JSON held by the first size
// bytes of r, scanning only as far as it must and skipping what it passes
// over without decoding it. A document that holds several top-level values
// is addressed as an array of them ("/0" is the first). Errors are a
// *NotFoundError when the pointer names nothing, a *SyntaxError for input
// that is not JSON, or the reader's error.
func Find(ctx context.Context, r io.ReaderAt, size int64, ptr string) (Found, error) {
	toks, err := ParsePointer(ptr)
	if err != nil {
		return Found{}, err
	}
	s := New(r, size)
	first, err := s.Next()
	if err != nil {
		return Found{}, err
	}
	f, nf, err := descend(ctx, s, first, toks, ptr)
	if err != nil {
		return Found{}, err
	}
	// Is there more than one top-level value? Scan to the end of the first.
	for s.Depth() > 0 {
		if _, err := s.Skip(); err != nil {
			return Found{}, err
		}
	}
	if _, err := s.Next(); err == io.EOF {
		if nf != nil {
			return Found{}, nf
		}
		return f, nil
	} else if err != nil {
		return Found{}, err
	}
	return findInStream(ctx, r, size, toks, ptr)
}

// findInStream resolves a pointer over a stream of top-level values.
func findInStream(ctx context.Context, r io.ReaderAt, size int64, toks []string, ptr string) (Found, error) {
	if len(toks) == 0 {
		return Found{Kind: BeginArray, Start: 0, End: size, Stream: true, Whole: true}, nil
	}
	idx, ok := parseIndex(toks[0])
	s := New(r, size)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return Found{}, err
		}
		t, err := s.Next()
		if err == io.EOF {
			return Found{}, &NotFoundError{Pointer: ptr, Kind: BeginArray, Missing: toks[0], Len: n, Stream: true}
		}
		if err != nil {
			return Found{}, err
		}
		if ok && n == idx {
			f, nf, err := descend(ctx, s, t, toks[1:], ptr)
			if err != nil {
				return Found{}, err
			}
			if nf != nil {
				nf.Prefix = Pointer(toks[0]) + nf.Prefix
				return Found{}, nf
			}
			f.Stream = true
			return f, nil
		}
		if t.Kind == BeginObject || t.Kind == BeginArray {
			if _, err := s.Skip(); err != nil {
				return Found{}, err
			}
		}
		n++
		if !ok {
			// Count them all, for the error.
			continue
		}
	}
}

// parseIndex parses an array index token: digits without a leading zero.
func parseIndex(t string) (int64, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || t[0] == '+' {
		return 0, false
	}
	return n, true
}

// descend follows toks from the value whose first token is cur. It returns
// the value found, or a NotFoundError with a Prefix relative to cur.
func descend(ctx context.Context, s *Scanner, cur Token, toks []string, ptr string) (Found, *NotFoundError, error) {
	var steps int
	for i, t := range toks {
		prefix := Pointer(toks[:i]...)
		switch cur.Kind {
		case BeginObject:
			nf := &NotFoundError{Pointer: ptr, Prefix: prefix, Kind: BeginObject, Missing: t}
			found := false
			for !found {
				steps++
				if steps%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return Found{}, nil, err
					}
				}
				k, err := s.Next()
				if err != nil {
					return Found{}, nil, err
				}
				if k.Kind == EndObject {
					return Found{}, nf, nil
				}
				match, name, err := keyIs(s, k, t, len(nf.Keys) < maxKeysNamed)
				if err != nil {
					return Found{}, nil, err
				}
				v, err := s.Next()
				if err != nil {
					return Found{}, nil, err
				}
				if match {
					cur, found = v, true
					break
				}
				nf.Members++
				if len(nf.Keys) < maxKeysNamed {
					nf.Keys = append(nf.Keys, name)
				}
				if v.Kind == BeginObject || v.Kind == BeginArray {
					if _, err := s.Skip(); err != nil {
						return Found{}, nil, err
					}
				}
			}
		case BeginArray:
			idx, ok := parseIndex(t)
			var n int64
			for {
				steps++
				if steps%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return Found{}, nil, err
					}
				}
				v, err := s.Next()
				if err != nil {
					return Found{}, nil, err
				}
				if v.Kind == EndArray {
					return Found{}, &NotFoundError{Pointer: ptr, Prefix: prefix, Kind: BeginArray, Missing: t, Len: n}, nil
				}
				if ok && n == idx {
					cur = v
					break
				}
				if v.Kind == BeginObject || v.Kind == BeginArray {
					if _, err := s.Skip(); err != nil {
						return Found{}, nil, err
					}
				}
				n++
			}
		default:
			return Found{}, &NotFoundError{Pointer: ptr, Prefix: prefix, Kind: cur.Kind, Missing: t}, nil
		}
	}
	f := Found{Kind: cur.Kind, Start: cur.Start, End: cur.End}
	if cur.Kind == BeginObject || cur.Kind == BeginArray {
		end, err := s.Skip()
		if err != nil {
			return Found{}, nil, err
		}
		f.End = end
	}
	return f, nil, nil
}

// keyIs reports whether the key token k equals want, and returns the key's
// text when name is set (shortened when long).
func keyIs(s *Scanner, k Token, want string, name bool) (bool, string, error) {
	rawLen := k.End - k.Start - 2
	// A key's raw form is never shorter than its text, and an escape
	// takes at most 6 bytes for one byte of text.
	possible := rawLen >= int64(len(want)) && rawLen <= int64(len(want))*6
	if !possible && !name {
		return false, "", nil
	}
	limit := max(int64(len(want))*6+2, 256)
	raw, err := s.Bytes(k.Start, k.End, int(limit))
	if err != nil {
		return false, "", err
	}
	text, cut := KeyText(raw, k.End-k.Start > limit)
	match := possible && !cut && text == want
	if cut {
		text += "..."
	}
	return match, text, nil
}

// KeyText returns the text of a JSON string given with its quotes. cut
// says raw is only the start of the string; the text of what is there is
// returned, and reported cut.
func KeyText(raw []byte, cut bool) (string, bool) {
	if !cut && len(raw) >= 2 && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), false
	}
	if cut {
		// Drop a partial escape and close the string.
		body := raw[1:]
		if i := bytes.LastIndexByte(body, '\\'); i >= 0 && len(body)-i <= 6 {
			body = body[:i]
		}
		for len(body) > 0 && !utf8.Valid(body[len(body)-min(len(body), 3):]) {
			body = body[:len(body)-1]
		}
		raw = append(append([]byte{'"'}, body...), '"')
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return strings.ToValidUTF8(string(raw[1:max(1, len(raw)-1)]), "\uFFFD"), cut
	}
	return s, cut
}
