package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrUnknownScheme means a store location has the form of a URL
// (scheme://...) whose scheme no backend opens. Such a location is refused
// rather than taken for a directory, so a typo (redsi://) or a backend
// crumb lacks (redis+cluster://) never silently becomes a directory named
// "redsi:" in the working directory.
var ErrUnknownScheme = errors.New("store: unknown store URL scheme")

var (
	schemesMu sync.Mutex
	schemes   []string // sorted
)

// RegisterScheme records that a backend opens store locations of the form
// scheme://... (the Redis store registers "redis" and "rediss"). Backends
// call it from an init function, as image formats register themselves.
func RegisterScheme(scheme string) {
	schemesMu.Lock()
	defer schemesMu.Unlock()
	if i, found := slices.BinarySearch(schemes, scheme); !found {
		schemes = slices.Insert(schemes, i, scheme)
	}
}

// Schemes returns the URL schemes registered with [RegisterScheme], sorted.
func Schemes() []string {
	schemesMu.Lock()
	defer schemesMu.Unlock()
	return slices.Clone(schemes)
}

// URLScheme returns the scheme of a store location of the form
// scheme://..., lowercased, or "" when loc is a directory path. A scheme is
// at least two characters of letters, digits, "+", "-" and ".", starting
// with a letter (RFC 3986); a single letter is a drive, not a scheme.
func URLScheme(loc string) string {
	scheme, _, ok := strings.Cut(loc, "://")
	if !ok || len(scheme) < 2 {
		return ""
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(scheme)
}

// CheckLocation checks a store location (a --store flag or $CRUMB_STORE):
// a directory path, or a URL whose scheme a backend registered. A URL of
// any other scheme is an error wrapping [ErrUnknownScheme] that names the
// schemes known.
func CheckLocation(loc string) error {
	scheme := URLScheme(loc)
	if scheme == "" || slices.Contains(Schemes(), scheme) {
		return nil
	}
	return unknownSchemeErr(scheme)
}

func unknownSchemeErr(scheme string) error {
	known := "none (only a directory path)"
	if s := Schemes(); len(s) > 0 {
		known = strings.Join(s, "://, ") + "://, or a directory path"
	}
	return fmt.Errorf("%w %q: crumb opens %s", ErrUnknownScheme, scheme+"://", known)
}
