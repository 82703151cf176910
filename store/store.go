// Package store keeps tool results exactly and hands them back verified.
//
// A [Store] is content-addressed: [Store.Put] streams a result in, hashing it
// with SHA-256 as it is written, and returns the [Ref] that names it. A ref is
// derived from the digest of what was stored, so the same bytes always get the
// same ref and a ref never contains a path a caller chose.
//
// Every read verifies what it returns. Content is hashed in chunks of
// [ChunkSize] bytes; an [Object] checks each chunk it touches against the
// digest recorded when the result was stored, and a read of the whole object
// also checks the whole digest. A read therefore answers one of three ways:
// found (the bytes are exactly those stored), missing ([ErrMissing]: never
// stored, expired or evicted) or broken ([ErrBroken]: the stored bytes or their
// record were damaged or tampered with).
//
// [Dir] is the default backend, a directory on disk that several processes may
// share. Other backends (Redis, for a fleet) live in their own packages and
// must pass the conformance suite in package storetest.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/crumb-dev/crumb/internal/textfmt"
)

// ChunkSize is the size of the pieces a stored result is hashed in. A read
// verifies only the chunks it touches, so reading a page of a 1 GB result does
// not hash the whole result.
const ChunkSize = 1 << 20

// Sentinel errors. Errors returned by a Store wrap one of these where the
// caller may branch on the cause; test with [errors.Is].
var (
	// ErrMissing means the ref names nothing the store holds: it was never
	// stored here, or it expired or was evicted. It is never an empty success.
	ErrMissing = errors.New("store: result not found (expired, evicted or never stored)")

	// ErrBroken means the store holds something under the ref but it does not
	// verify: its bytes or its record were changed or damaged after storing.
	ErrBroken = errors.New("store: stored result is broken (content does not match its digest)")

	// ErrBadRef means a string is not a well-formed ref.
	ErrBadRef = errors.New("store: malformed ref")

	// ErrClosed means the store was used after Close.
	ErrClosed = errors.New("store: closed")
)

// RefLen is the number of hex digits in a ref: the first 64 bits of the
// SHA-256 digest of the stored content.
const RefLen = 16

// Ref is an opaque, validated handle to a stored result. It is the first
// [RefLen] lowercase hex digits of the SHA-256 digest of the stored bytes.
type Ref string

// ParseRef validates s as a ref. It accepts an optional "crumb:" prefix and
// surrounding white space, and returns an error wrapping [ErrBadRef] for
// anything else, so that no caller-controlled string ever reaches a path.
func ParseRef(s string) (Ref, error) {
	orig := s
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	if len(s) > 6 && s[:6] == "crumb:" {
		s = s[6:]
	}
	if len(s) != RefLen {
		return "", fmt.Errorf("%w %q: want %d hex digits", ErrBadRef, textfmt.Clip(orig, 40, "..."), RefLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", fmt.Errorf("%w %q: want %d lowercase hex digits", ErrBadRef, textfmt.Clip(orig, 40, "..."), RefLen)
		}
	}
	return Ref(s), nil
}

// RefOf returns the ref of content whose SHA-256 digest, in lowercase hex, is
// hexDigest.
func RefOf(hexDigest string) Ref {
	if len(hexDigest) < RefLen {
		return Ref(hexDigest)
	}
	return Ref(hexDigest[:RefLen])
}

// Meta describes a result being stored. Everything in it is optional.
type Meta struct {
	// Tool is the name of the tool that produced the result.
	Tool string `json:"tool,omitempty"`
	// Kind is the kind of the result (text, command, json, ...).
	Kind string `json:"kind,omitempty"`
	// Args are the tool's arguments, as JSON.
	Args json.RawMessage `json:"args,omitempty"`
	// Attrs holds small facts about the result, such as an exit code.
	Attrs map[string]string `json:"attrs,omitempty"`
	// Limit, when positive, is the most bytes kept: a longer stream is read to
	// its end and counted, but only its first Limit bytes are stored and the
	// returned Info says it was truncated.
	Limit int64 `json:"-"`
}

// Info describes a stored result.
type Info struct {
	Ref Ref `json:"ref"`
	// Digest is the SHA-256 digest of the stored bytes, in lowercase hex.
	Digest string `json:"digest"`
	// Size is the number of bytes stored.
	Size int64 `json:"size"`
	// Chunks holds the SHA-256 digest of each ChunkSize piece, in order.
	Chunks []string `json:"chunks,omitempty"`
	// Newlines is the number of newline bytes in the stored content, and
	// ChunkNewlines[i] the number before chunk i, so that a reader can find
	// line N without scanning from the start. Backends count them while
	// hashing; both are absent (nil) when a backend does not record them.
	Newlines      *int64  `json:"newlines,omitempty"`
	ChunkNewlines []int64 `json:"chunk_newlines,omitempty"`
	// Lines is the number of lines: the newlines, plus one for a last line
	// that has none. Absent when the backend does not count them.
	Lines *int64 `json:"lines,omitempty"`
	// Created is when the result was first stored.
	Created time.Time `json:"created"`
	// Used is when the result was last stored or read; the time-to-live and
	// the least-recently-used eviction count from it.
	Used time.Time `json:"used"`
	// Truncated reports that the stream was longer than Meta.Limit, and
	// SourceSize is then its full length.
	Truncated  bool  `json:"truncated,omitempty"`
	SourceSize int64 `json:"source_size,omitempty"`
	Meta
}

// Object is an open, verified stored result. Its ReadAt verifies every chunk
// it reads from and returns an error wrapping [ErrBroken] when one does not
// match; it is safe for use by one goroutine at a time.
type Object interface {
	io.ReaderAt
	io.Closer
	// Info describes the object.
	Info() Info
	// Size is the number of bytes stored.
	Size() int64
}

// GCStats reports what a garbage-collection pass did.
type GCStats struct {
	Scanned      int   `json:"scanned"`
	Expired      int   `json:"expired"`
	Evicted      int   `json:"evicted"`
	BytesFreed   int64 `json:"bytes_freed"`
	BytesKept    int64 `json:"bytes_kept"`
	ResultsKept  int   `json:"results_kept"`
	Skipped      bool  `json:"skipped,omitempty"` // another process was collecting
	Partial      bool  `json:"partial,omitempty"` // the context ended first
	BrokenPurged int   `json:"broken_purged,omitempty"`
	// Leftovers counts the files of interrupted writes removed (their bytes
	// are in BytesFreed): temp files no writer holds, content files without
	// a record.
	Leftovers int `json:"leftovers,omitempty"`
	// BytesInProgress is the size of the temp files of writes still in
	// progress, which count against the size cap.
	BytesInProgress int64 `json:"bytes_in_progress,omitempty"`
	// SideExpired counts the side entries ([SideStore]) removed once
	// expired.
	SideExpired int `json:"side_expired,omitempty"`
}

// Store keeps results exactly. Implementations must be safe for concurrent
// use by many goroutines, and the disk store also by many processes sharing
// one directory: no torn reads, no lost writes.
type Store interface {
	// Put streams r into the store, hashing it as it is written, and returns
	// the stored result's Info once it is durably stored. Memory use does not
	// grow with the size of r. Storing bytes that are already stored refreshes
	// their use time and metadata and returns the same ref.
	Put(ctx context.Context, r io.Reader, meta Meta) (Info, error)

	// Open returns the stored result named by ref, or an error wrapping
	// ErrMissing or ErrBroken. Opening counts as a use for expiry and eviction.
	Open(ctx context.Context, ref Ref) (Object, error)

	// Stat describes the stored result named by ref without counting as a
	// use, with the same errors as Open.
	Stat(ctx context.Context, ref Ref) (Info, error)

	// List describes every result the store holds, most recently used first.
	List(ctx context.Context) ([]Info, error)

	// Delete removes a stored result. Deleting a missing ref is not an error.
	Delete(ctx context.Context, ref Ref) error

	// GC removes expired results, then evicts the least recently used until
	// the store fits its size cap.
	GC(ctx context.Context) (GCStats, error)

	// Every backend also keeps these rules, which the conformance suite
	// checks: a Put that takes the store over its size cap evicts before it
	// returns (the newest result is never evicted); a result whose last use
	// lies more than a few minutes ahead of the store's clock (a clock set
	// back, an edited record) counts as expired; and a read that relies on a
	// fact of the result that no longer matches its content (its size, its
	// line index) fails with ErrBroken.
}

// ReadAll returns the whole of a stored result, verified chunk by chunk and
// against its whole digest. It is meant for small results; use Open and
// [Copy] to stream large ones.
func ReadAll(ctx context.Context, s Store, ref Ref) ([]byte, error) {
	obj, err := s.Open(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	info := obj.Info()
	if err := checkList(info); err != nil {
		return nil, brokenErr(info.Ref, err.Error())
	}
	buf := make([]byte, obj.Size())
	if err := readFull(ctx, obj, buf, 0); err != nil {
		return nil, err
	}
	return buf, nil
}

// Annotator is implemented by stores that can add facts to a stored result's
// record after it was stored, such as the size of the view a model was shown
// (for crumb stats). Annotate merges attrs into the record's Meta.Attrs; it
// returns an error wrapping ErrMissing when the ref is not stored.
type Annotator interface {
	Annotate(ctx context.Context, ref Ref, attrs map[string]string) error
}

// Tallier is implemented by stores that can add to counts kept in a stored
// result's Meta.Attrs in one step, cheaper than reading the record and
// annotating it: the pages read back of a result, charged on every read
// (recall.Charge). Tally adds each delta to the attribute of its name, an
// integer in decimal (a missing or malformed one counts as zero). A count
// is a statistic: a crash just after a Tally may undo it, never damage the
// record. It returns an error wrapping ErrMissing when the ref is not
// stored.
type Tallier interface {
	Tally(ctx context.Context, ref Ref, deltas map[string]int64) error
}

// Stager is implemented by stores that can store a result in two steps, so
// that a caller can work on the result while it is being made durable: the
// Guard projects a result while the store syncs it to disk, and returns the
// view only once Commit has succeeded (the exact result is durably stored
// before any view omits part of it).
type Stager interface {
	// Stage streams r in and hashes it as Put does, but does not make it
	// durable or visible: a Stat or Open of its ref does not find it until
	// Commit returns. Exactly one of Commit and Abort must be called.
	Stage(ctx context.Context, r io.Reader, meta Meta) (Staged, error)
}

// Staged is a result written but not yet committed.
type Staged interface {
	// Info describes the staged result, as Put's Info would.
	Info() Info
	// Object reads the staged bytes, verified as an Object read from the
	// store is; it stays readable after Commit or Abort until it is closed.
	Object() Object
	// Commit makes the result durable and visible under its ref, as Put
	// does, and returns its Info. It may run while Object is being read.
	Commit(ctx context.Context) (Info, error)
	// Abort discards the staged result. It is a no-op after Commit.
	Abort() error
}
