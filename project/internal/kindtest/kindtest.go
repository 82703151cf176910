// Package kindtest holds what the tests of every kind package share: an
// input over bytes as if stored ([Input]) and the golden views under
// testdata ([Golden]).
package kindtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/crumb-dev/crumb/internal/golden"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// Input returns an input over b as if stored, with the o200k counter.
func Input(t testing.TB, b []byte, budget int) *project.Input {
	t.Helper()
	src := project.BytesSource(b)
	info := src.Info()
	return &project.Input{Source: src, Ref: info.Ref, Digest: info.Digest, Budget: budget, Counter: tokens.O200k()}
}

// Golden compares got with the golden file at path, or rewrites the file
// when the tests run with -update.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	golden.Check(t, path, got)
}

// Store keeps what a projector stores apart (Input.Put), by ref, in memory.
type Store map[store.Ref][]byte

// Put stores data and returns its ref, as a store would.
func (s Store) Put(_ context.Context, data []byte, _ store.Meta) (store.Ref, error) {
	ref := store.RefOf(store.Sum(data))
	s[ref] = bytes.Clone(data)
	return ref, nil
}
