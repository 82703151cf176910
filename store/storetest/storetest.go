// Package storetest is the conformance suite for implementations of
// [store.Store]. Every backend runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return newEmptyStore(t) })
//	}
//
// [RunBackend] takes optional hooks that unlock more checks: a controllable
// clock (expiry and use times) and a way to damage stored content (tamper
// detection and repair).
package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/crumb-dev/crumb/store"
)

// Backend describes a store implementation to the suite. Only New is
// required.
type Backend struct {
	// New returns a new, empty store. It should register any cleanup with
	// t.Cleanup. If the store implements io.Closer, the suite may close it
	// before the cleanup runs, so closing twice must be harmless.
	New func(t *testing.T) store.Store

	// Clocked, if set, returns a new, empty store that reads the time from
	// now and lets a result expire when it has been unused for longer than
	// ttl. The expiry and use-time tests run only with it.
	Clocked func(t *testing.T, now func() time.Time, ttl time.Duration) store.Store

	// Corrupt, if set, damages the stored content of ref behind the store's
	// back: it inverts the byte at offset off. The tamper tests run only with
	// it.
	Corrupt func(t *testing.T, s store.Store, ref store.Ref, off int64)

	// Capped, if set, returns a new, empty store whose size cap is maxBytes.
	// The size-cap tests run only with it.
	Capped func(t *testing.T, maxBytes int64) store.Store

	// EditInfo, if set, changes the facts a store keeps about ref behind its
	// back: fn changes the stored Info in place (its digests, size, line
	// index). The tests of tampered facts run only with it.
	EditInfo func(t *testing.T, s store.Store, ref store.Ref, fn func(*store.Info))

	// Shared, if set, returns two handles on one new, empty store, as two
	// processes sharing it open it: what one stores the other reads. The
	// sharing tests run only with it.
	Shared func(t *testing.T) (a, b store.Store)

	// Tenants, if set, returns two new, empty stores kept by one backend
	// for two tenants (namespaces), which must not see each other's
	// results. The isolation tests run only with it.
	Tenants func(t *testing.T) (a, b store.Store)
}

// Run runs the conformance suite against the stores that newStore returns.
// It is RunBackend with only Backend.New set.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	t.Helper()
	RunBackend(t, Backend{New: newStore})
}

// RunBackend runs the conformance suite against b, with every optional
// check whose hook b provides. Each test gets a store of its own; tests run
// in parallel.
func RunBackend(t *testing.T, b Backend) {
	t.Helper()
	if b.New == nil {
		t.Fatal("storetest: Backend.New is nil")
	}
	s := &suite{b: b}
	tests := []struct {
		name string
		fn   func(t *testing.T)
	}{
		{"RoundTrip", s.testRoundTrip},
		{"MetaRoundTrip", s.testMetaRoundTrip},
		{"SameContentSameRef", s.testSameContent},
		{"ConcurrentSameContent", s.testConcurrentSameContent},
		{"DistinctContentDistinctRefs", s.testDistinctContent},
		{"StatAndOpen", s.testStatAndOpen},
		{"List", s.testList},
		{"Delete", s.testDelete},
		{"Missing", s.testMissing},
		{"MalformedRefs", s.testMalformedRefs},
		{"ReadAtBoundaries", s.testReadAt},
		{"ReadAtEmpty", s.testReadAtEmpty},
		{"Limit", s.testLimit},
		{"Concurrent", s.testConcurrent},
		{"CancelAndSourceError", s.testCancel},
		{"Closed", s.testClosed},
		{"Expiry", s.testExpiry},
		{"UseTimes", s.testUseTimes},
		{"Tamper", s.testTamper},
		{"CopyOfDamaged", s.testCopyOfDamaged},
		{"FutureUse", s.testFutureUse},
		{"CapAtPut", s.testCapAtPut},
		{"TamperedFacts", s.testTamperedFacts},
		{"Annotate", s.testAnnotate},
		{"Stage", s.testStage},
		{"Shared", s.testShared},
		{"Tenants", s.testTenants},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t)
		})
	}
}

type suite struct{ b Backend }

// Clock is a fake clock safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock that starts at start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (back when d is negative, as when a
// machine's clock is set back).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Content returns n deterministic pseudo-random bytes; different seeds give
// different bytes.
func Content(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// Digest returns the digest a store must give to content b (see store.Sum).
func Digest(b []byte) string { return store.Sum(b) }

// RefFor returns the ref a store must give to content b.
func RefFor(b []byte) store.Ref { return store.RefOf(Digest(b)) }

// ChunkDigests returns the per-chunk digests a store must record for b.
func ChunkDigests(b []byte) []string {
	var out []string
	for i := 0; i < len(b); i += store.ChunkSize {
		s := sha256.Sum256(b[i:min(len(b), i+store.ChunkSize)])
		out = append(out, hex.EncodeToString(s[:]))
	}
	return out
}

func put(t *testing.T, s store.Store, data []byte, meta store.Meta) store.Info {
	t.Helper()
	info, err := s.Put(context.Background(), bytes.NewReader(data), meta)
	if err != nil {
		t.Fatalf("Put(%d bytes): %v", len(data), err)
	}
	return info
}

// checkInfo checks the facts of info that follow from the stored bytes.
func checkInfo(t *testing.T, what string, info store.Info, data []byte) {
	t.Helper()
	if want := RefFor(data); info.Ref != want {
		t.Errorf("%s: Ref = %q, want %q", what, info.Ref, want)
	}
	if want := Digest(data); info.Digest != want {
		t.Errorf("%s: Digest = %q, want %q", what, info.Digest, want)
	}
	if info.Size != int64(len(data)) {
		t.Errorf("%s: Size = %d, want %d", what, info.Size, len(data))
	}
	if want := ChunkDigests(data); !(len(info.Chunks) == 0 && len(want) == 0) && !reflect.DeepEqual(info.Chunks, want) {
		t.Errorf("%s: Chunks = %d digests, want %d (first differs: %v)", what, len(info.Chunks), len(want), firstDiff(info.Chunks, want))
	}
	if info.Created.IsZero() || info.Used.IsZero() {
		t.Errorf("%s: Created = %v, Used = %v: want both set", what, info.Created, info.Used)
	}
	if info.Used.Before(info.Created) {
		t.Errorf("%s: Used %v before Created %v", what, info.Used, info.Created)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// readBack opens ref and reads it twice, with ReadAt and with store.Copy,
// checking both against data.
func readBack(t *testing.T, s store.Store, ref store.Ref, data []byte) {
	t.Helper()
	ctx := context.Background()
	obj, err := s.Open(ctx, ref)
	if err != nil {
		t.Fatalf("Open(%s): %v", ref, err)
	}
	defer obj.Close()
	if obj.Size() != int64(len(data)) {
		t.Errorf("Open(%s).Size() = %d, want %d", ref, obj.Size(), len(data))
	}
	checkInfo(t, "Object.Info", obj.Info(), data)
	got := make([]byte, len(data)+1)
	n, err := obj.ReadAt(got, 0)
	if n != len(data) || err != io.EOF {
		t.Errorf("ReadAt(%d bytes, 0) = %d, %v; want %d, io.EOF", len(got), n, err, len(data))
	}
	if !bytes.Equal(got[:n], data) {
		t.Errorf("ReadAt: content differs from what was stored")
	}
	var buf bytes.Buffer
	cn, err := store.Copy(ctx, obj, &buf)
	if err != nil || cn != int64(len(data)) {
		t.Errorf("Copy = %d, %v; want %d, nil", cn, err, len(data))
	}
	if !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("Copy: content differs from what was stored")
	}
}

func (s *suite) testRoundTrip(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	sizes := []int{0, 1, 100, 4096, store.ChunkSize - 1, store.ChunkSize, store.ChunkSize + 1,
		2 * store.ChunkSize, 5*store.ChunkSize + 12345}
	for i, n := range sizes {
		data := Content(uint64(i+1), n)
		var r io.Reader = bytes.NewReader(data)
		if n < 1<<16 {
			r = iotest.HalfReader(r) // short reads must not matter
		}
		info, err := st.Put(ctx, r, store.Meta{Tool: "t"})
		if err != nil {
			t.Fatalf("Put(%d bytes): %v", n, err)
		}
		what := fmt.Sprintf("Put(%d bytes)", n)
		checkInfo(t, what, info, data)
		if info.Truncated || info.SourceSize != 0 {
			t.Errorf("%s: Truncated = %v, SourceSize = %d; want false, 0", what, info.Truncated, info.SourceSize)
		}
		sinfo, err := st.Stat(ctx, info.Ref)
		if err != nil {
			t.Fatalf("Stat after %s: %v", what, err)
		}
		checkInfo(t, "Stat after "+what, sinfo, data)
		readBack(t, st, info.Ref, data)
		got, err := store.ReadAll(ctx, st, info.Ref)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("ReadAll after %s: %d bytes, %v; want the stored bytes", what, len(got), err)
		}
	}
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func sameMeta(a, b store.Meta) bool {
	return a.Tool == b.Tool && a.Kind == b.Kind && sameJSON(a.Args, b.Args) &&
		(len(a.Attrs) == 0 && len(b.Attrs) == 0 || reflect.DeepEqual(a.Attrs, b.Attrs))
}

func (s *suite) testMetaRoundTrip(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	meta := store.Meta{
		Tool:  "read_file",
		Kind:  "file",
		Args:  json.RawMessage(`{"path":"/etc/hosts","n":[1,2]}`),
		Attrs: map[string]string{"exit_code": "1", "mime": "text/plain"},
	}
	data := []byte("hello, meta\n")
	info := put(t, st, data, meta)
	if !sameMeta(info.Meta, meta) {
		t.Errorf("Put returned Meta %+v, want %+v", info.Meta, meta)
	}
	sinfo, err := st.Stat(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !sameMeta(sinfo.Meta, meta) {
		t.Errorf("Stat returned Meta %+v, want %+v", sinfo.Meta, meta)
	}
	obj, err := st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if !sameMeta(obj.Info().Meta, meta) {
		t.Errorf("Open returned Meta %+v, want %+v", obj.Info().Meta, meta)
	}
}

func (s *suite) testSameContent(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	data := Content(7, store.ChunkSize+10)
	first := put(t, st, data, store.Meta{Tool: "first"})
	time.Sleep(5 * time.Millisecond)
	second := put(t, st, data, store.Meta{Tool: "second", Kind: "text"})
	if first.Ref != second.Ref {
		t.Fatalf("same bytes stored twice got refs %q and %q", first.Ref, second.Ref)
	}
	checkInfo(t, "second Put", second, data)
	if !second.Created.Truncate(time.Millisecond).Equal(first.Created.Truncate(time.Millisecond)) {
		t.Errorf("second Put: Created = %v, want the first Put's %v", second.Created, first.Created)
	}
	if second.Used.Before(first.Used) {
		t.Errorf("second Put: Used = %v, before the first Put's %v", second.Used, first.Used)
	}
	info, err := st.Stat(ctx, first.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if info.Tool != "second" || info.Kind != "text" {
		t.Errorf("Stat after storing again: Tool, Kind = %q, %q; want the latest meta %q, %q", info.Tool, info.Kind, "second", "text")
	}
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Errorf("List after storing the same bytes twice has %d results, want 1", len(list))
	}
	readBack(t, st, first.Ref, data)
}

func (s *suite) testConcurrentSameContent(t *testing.T) {
	st := s.b.New(t)
	data := Content(8, 2*store.ChunkSize+3)
	want := RefFor(data)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			info, err := st.Put(context.Background(), bytes.NewReader(data), store.Meta{Tool: fmt.Sprint(i)})
			if err != nil {
				t.Errorf("concurrent Put %d: %v", i, err)
				return
			}
			if info.Ref != want {
				t.Errorf("concurrent Put %d: ref %q, want %q", i, info.Ref, want)
			}
		})
	}
	wg.Wait()
	readBack(t, st, want, data)
}

func (s *suite) testDistinctContent(t *testing.T) {
	st := s.b.New(t)
	base := Content(9, 300)
	var contents [][]byte
	for i := range 40 {
		c := bytes.Clone(base)
		c[i*7%len(c)] ^= byte(1 + i) // each differs from base in one byte
		contents = append(contents, c)
	}
	contents = append(contents, base, base[:299], append(bytes.Clone(base), 0), []byte{}, []byte{0})
	refs := make(map[store.Ref]int)
	for i, c := range contents {
		info := put(t, st, c, store.Meta{})
		if j, ok := refs[info.Ref]; ok {
			t.Fatalf("contents %d and %d differ but got the same ref %q", i, j, info.Ref)
		}
		refs[info.Ref] = i
	}
	for ref, i := range refs {
		got, err := store.ReadAll(context.Background(), st, ref)
		if err != nil || !bytes.Equal(got, contents[i]) {
			t.Errorf("ReadAll(%s) = %d bytes, %v; want content %d (%d bytes)", ref, len(got), err, i, len(contents[i]))
		}
	}
}

func (s *suite) testStatAndOpen(t *testing.T) {
	ctx := context.Background()
	data := Content(10, 1000)
	if s.b.Clocked == nil {
		st := s.b.New(t)
		info := put(t, st, data, store.Meta{})
		a, err := st.Stat(ctx, info.Ref)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
		b, err := st.Stat(ctx, info.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Used.Equal(b.Used) {
			t.Errorf("Stat changed the use time from %v to %v; Stat must not count as a use", a.Used, b.Used)
		}
		readBack(t, st, info.Ref, data)
		c, err := st.Stat(ctx, info.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if c.Used.Before(b.Used) {
			t.Errorf("use time went back from %v to %v after Open", b.Used, c.Used)
		}
		return
	}
	clock := NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	st := s.b.Clocked(t, clock.Now, 24*time.Hour)
	info := put(t, st, data, store.Meta{})
	t0 := clock.Now()
	clock.Advance(10 * time.Minute)
	a, err := st.Stat(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Used.Equal(t0) {
		t.Errorf("Stat: Used = %v, want the Put time %v (Stat is not a use)", a.Used, t0)
	}
	checkInfo(t, "Stat", a, data)
	obj, err := st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	b, err := st.Stat(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Used.Equal(clock.Now()) {
		t.Errorf("Stat after Open: Used = %v, want the Open time %v (Open is a use)", b.Used, clock.Now())
	}
	if !b.Created.Equal(t0) {
		t.Errorf("Stat after Open: Created = %v, want %v", b.Created, t0)
	}
}

func (s *suite) testList(t *testing.T) {
	ctx := context.Background()
	var (
		st    store.Store
		clock *Clock
	)
	if s.b.Clocked != nil {
		clock = NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
		st = s.b.Clocked(t, clock.Now, 24*time.Hour)
	} else {
		st = s.b.New(t)
	}
	if l, err := st.List(ctx); err != nil || len(l) != 0 {
		t.Fatalf("List of an empty store = %d results, %v; want none", len(l), err)
	}
	var refs []store.Ref
	want := make(map[store.Ref][]byte)
	for i := range 5 {
		data := Content(uint64(100+i), 10+i*store.ChunkSize/3)
		info := put(t, st, data, store.Meta{Tool: fmt.Sprint("tool", i)})
		refs = append(refs, info.Ref)
		want[info.Ref] = data
		if clock != nil {
			clock.Advance(time.Minute)
		} else {
			time.Sleep(2 * time.Millisecond)
		}
	}
	obj, err := st.Open(ctx, refs[0]) // now the most recently used
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(refs) {
		t.Fatalf("List = %d results, want %d", len(list), len(refs))
	}
	for i, info := range list {
		data, ok := want[info.Ref]
		if !ok {
			t.Errorf("List[%d] = unknown ref %q", i, info.Ref)
			continue
		}
		checkInfo(t, fmt.Sprintf("List[%d]", i), info, data)
		if i > 0 && info.Used.After(list[i-1].Used) {
			t.Errorf("List not sorted most recently used first: [%d] used %v after [%d] used %v", i, info.Used, i-1, list[i-1].Used)
		}
	}
	if clock != nil {
		wantOrder := []store.Ref{refs[0], refs[4], refs[3], refs[2], refs[1]}
		var got []store.Ref
		for _, info := range list {
			got = append(got, info.Ref)
		}
		if !reflect.DeepEqual(got, wantOrder) {
			t.Errorf("List order = %v, want %v (most recently used first)", got, wantOrder)
		}
	}
}

func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error = %v, want one wrapping %q", what, err, target)
		return
	}
	for _, other := range []error{store.ErrMissing, store.ErrBroken, store.ErrBadRef} {
		if other != target && errors.Is(err, other) {
			t.Errorf("%s: error %v wraps both %q and %q", what, err, target, other)
		}
	}
}

func (s *suite) testDelete(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	keep := Content(11, 500)
	gone := Content(12, store.ChunkSize+500)
	keepInfo := put(t, st, keep, store.Meta{})
	goneInfo := put(t, st, gone, store.Meta{})
	if err := st.Delete(ctx, goneInfo.Ref); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err := st.Open(ctx, goneInfo.Ref)
	wantErr(t, "Open after Delete", err, store.ErrMissing)
	_, err = st.Stat(ctx, goneInfo.Ref)
	wantErr(t, "Stat after Delete", err, store.ErrMissing)
	_, err = store.ReadAll(ctx, st, goneInfo.Ref)
	wantErr(t, "ReadAll after Delete", err, store.ErrMissing)
	list, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Ref != keepInfo.Ref {
		t.Errorf("List after Delete = %v, want only %s", list, keepInfo.Ref)
	}
	if err := st.Delete(ctx, goneInfo.Ref); err != nil {
		t.Errorf("Delete of a deleted ref: %v, want nil", err)
	}
	if err := st.Delete(ctx, RefFor([]byte("never stored"))); err != nil {
		t.Errorf("Delete of a never stored ref: %v, want nil", err)
	}
	readBack(t, st, keepInfo.Ref, keep)
	// Storing it again brings it back.
	put(t, st, gone, store.Meta{})
	readBack(t, st, goneInfo.Ref, gone)
}

func (s *suite) testMissing(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	put(t, st, []byte("something else"), store.Meta{})
	for _, ref := range []store.Ref{RefFor([]byte("never stored")), "0000000000000000", "ffffffffffffffff"} {
		obj, err := st.Open(ctx, ref)
		if obj != nil {
			t.Errorf("Open(%s) returned an object for a missing ref", ref)
			obj.Close()
		}
		wantErr(t, fmt.Sprintf("Open(%s)", ref), err, store.ErrMissing)
		_, err = st.Stat(ctx, ref)
		wantErr(t, fmt.Sprintf("Stat(%s)", ref), err, store.ErrMissing)
		b, err := store.ReadAll(ctx, st, ref)
		if b != nil {
			t.Errorf("ReadAll(%s) returned %d bytes for a missing ref", ref, len(b))
		}
		wantErr(t, fmt.Sprintf("ReadAll(%s)", ref), err, store.ErrMissing)
	}
}

func (s *suite) testMalformedRefs(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	data := []byte("x")
	info := put(t, st, data, store.Meta{})
	bad := []store.Ref{
		"", "a", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF",
		"0123456789abcdeg", "../../etc/passwd", "../" + info.Ref[3:], info.Ref[:15] + "/",
		"01234567/9abcdef", "0123456789abcde\x00", info.Ref + "/../x", "/" + info.Ref[1:],
		store.Ref(string(info.Ref[:8]) + "\\" + string(info.Ref[9:])), "crumb:", "0123456789abcdef.json",
	}
	for _, ref := range bad {
		_, err := st.Open(ctx, ref)
		wantErr(t, fmt.Sprintf("Open(%q)", ref), err, store.ErrBadRef)
		_, err = st.Stat(ctx, ref)
		wantErr(t, fmt.Sprintf("Stat(%q)", ref), err, store.ErrBadRef)
		err = st.Delete(ctx, ref)
		wantErr(t, fmt.Sprintf("Delete(%q)", ref), err, store.ErrBadRef)
		if _, err := store.ParseRef(string(ref)); !errors.Is(err, store.ErrBadRef) {
			t.Errorf("ParseRef(%q) = %v, want ErrBadRef", ref, err)
		}
	}
	readBack(t, st, info.Ref, data)
}

// wantReadAt checks one ReadAt call against the io.ReaderAt contract.
func wantReadAt(t *testing.T, obj store.Object, data []byte, off int64, n int) {
	t.Helper()
	p := make([]byte, n)
	got, err := obj.ReadAt(p, off)
	size := int64(len(data))
	wantN := 0
	if off < size {
		wantN = int(min(int64(n), size-off))
	}
	what := fmt.Sprintf("ReadAt(len %d, off %d) of %d bytes", n, off, size)
	if got != wantN {
		t.Errorf("%s: n = %d, want %d", what, got, wantN)
		return
	}
	switch {
	case off+int64(n) < size:
		if err != nil {
			t.Errorf("%s: err = %v, want nil", what, err)
		}
	case off+int64(n) == size || n == 0:
		if err != nil && err != io.EOF {
			t.Errorf("%s: err = %v, want nil or io.EOF", what, err)
		}
	default:
		if err != io.EOF {
			t.Errorf("%s: err = %v, want io.EOF", what, err)
		}
	}
	if wantN > 0 && !bytes.Equal(p[:got], data[off:off+int64(wantN)]) {
		t.Errorf("%s: wrong bytes", what)
	}
}

func (s *suite) testReadAt(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	const C = store.ChunkSize
	data := Content(13, 2*C+1000)
	size := int64(len(data))
	info := put(t, st, data, store.Meta{})
	obj, err := st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	offs := []int64{0, 1, C - 1, C, C + 1, 2*C - 1, 2 * C, size - 1, size, size + 1, size + C}
	lens := []int{0, 1, 2, 4096, C - 1, C, C + 1, 2*C + 5, int(size) + 10}
	for _, off := range offs {
		for _, n := range lens {
			wantReadAt(t, obj, data, off, n)
		}
	}
	if n, err := obj.ReadAt(make([]byte, 10), -1); err == nil {
		t.Errorf("ReadAt at offset -1 = %d, nil; want an error", n)
	}
	// Random pages in random order, then sequential pages: all exact.
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		off := r.Int64N(size + 10)
		wantReadAt(t, obj, data, off, 1+r.IntN(3*C/2))
	}
	var whole []byte
	page := make([]byte, 64<<10)
	for off := int64(0); ; {
		n, err := obj.ReadAt(page, off)
		whole = append(whole, page[:n]...)
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("sequential ReadAt at %d: %v", off, err)
		}
	}
	if !bytes.Equal(whole, data) {
		t.Errorf("sequential 64 KB pages: %d bytes read, differ from the %d stored", len(whole), len(data))
	}
}

func (s *suite) testReadAtEmpty(t *testing.T) {
	st := s.b.New(t)
	info := put(t, st, nil, store.Meta{})
	obj, err := st.Open(context.Background(), info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	for _, n := range []int{0, 1, 100} {
		wantReadAt(t, obj, nil, 0, n)
		wantReadAt(t, obj, nil, 5, n)
	}
	got, err := store.ReadAll(context.Background(), st, info.Ref)
	if err != nil || len(got) != 0 || got == nil {
		t.Errorf("ReadAll of empty result = %v, %v; want an empty, non-nil slice", got, err)
	}
}

func (s *suite) testLimit(t *testing.T) {
	st := s.b.New(t)
	ctx := context.Background()
	small := Content(14, 100)
	big := Content(15, 3*store.ChunkSize+3)
	tests := []struct {
		name  string
		data  []byte
		limit int64
		keep  int
	}{
		{"shorter", small, 10, 10},
		{"one byte", small, 1, 1},
		{"exact", small, 100, 100},
		{"longer", small, 1000, 100},
		{"empty", nil, 5, 0},
		{"multi-chunk mid-chunk", big, store.ChunkSize + 5, store.ChunkSize + 5},
		{"multi-chunk on boundary", big, 2 * store.ChunkSize, 2 * store.ChunkSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, err := st.Put(ctx, iotest.HalfReader(bytes.NewReader(tt.data)), store.Meta{Limit: tt.limit, Tool: tt.name})
			if err != nil {
				t.Fatal(err)
			}
			kept := tt.data[:tt.keep]
			checkInfo(t, "Put", info, kept)
			truncated := tt.keep < len(tt.data)
			if info.Truncated != truncated {
				t.Errorf("Truncated = %v, want %v", info.Truncated, truncated)
			}
			wantSource := int64(0)
			if truncated {
				wantSource = int64(len(tt.data))
			}
			if info.SourceSize != wantSource {
				t.Errorf("SourceSize = %d, want %d", info.SourceSize, wantSource)
			}
			sinfo, err := st.Stat(ctx, info.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if sinfo.Truncated != truncated || sinfo.SourceSize != wantSource {
				t.Errorf("Stat: Truncated, SourceSize = %v, %d; want %v, %d", sinfo.Truncated, sinfo.SourceSize, truncated, wantSource)
			}
			readBack(t, st, info.Ref, kept)
		})
	}
}

func (s *suite) testConcurrent(t *testing.T) {
	st := s.b.New(t)
	var contents [][]byte
	for i := range 6 {
		n := 100 * (i + 1)
		if i%3 == 0 {
			n = store.ChunkSize + 1000*i
		}
		contents = append(contents, Content(uint64(200+i), n))
	}
	byRef := make(map[store.Ref][]byte)
	for _, c := range contents {
		byRef[RefFor(c)] = c
	}
	iters := 40
	if testing.Short() {
		iters = 15
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			ctx := context.Background()
			r := rand.New(rand.NewPCG(uint64(g), 3))
			for range iters {
				c := contents[r.IntN(len(contents))]
				ref := RefFor(c)
				switch op := r.IntN(10); {
				case op < 4:
					info, err := st.Put(ctx, bytes.NewReader(c), store.Meta{Tool: fmt.Sprint(g)})
					if err != nil {
						t.Errorf("Put: %v", err)
					} else if info.Ref != ref {
						t.Errorf("Put: ref %q, want %q", info.Ref, ref)
					}
				case op < 7:
					got, err := store.ReadAll(ctx, st, ref)
					if err != nil && !errors.Is(err, store.ErrMissing) {
						t.Errorf("ReadAll(%s): %v; want found or missing", ref, err)
					} else if err == nil && !bytes.Equal(got, c) {
						t.Errorf("ReadAll(%s): %d bytes that differ from the %d stored", ref, len(got), len(c))
					}
				case op < 8:
					info, err := st.Stat(ctx, ref)
					if err != nil && !errors.Is(err, store.ErrMissing) {
						t.Errorf("Stat(%s): %v; want found or missing", ref, err)
					} else if err == nil && (info.Size != int64(len(c)) || info.Digest != Digest(c)) {
						t.Errorf("Stat(%s): size %d digest %.12s, want %d %.12s", ref, info.Size, info.Digest, len(c), Digest(c))
					}
				case op < 9:
					if err := st.Delete(ctx, ref); err != nil {
						t.Errorf("Delete(%s): %v", ref, err)
					}
				default:
					list, err := st.List(ctx)
					if err != nil {
						t.Errorf("List: %v", err)
					}
					for _, info := range list {
						if c, ok := byRef[info.Ref]; !ok || info.Size != int64(len(c)) {
							t.Errorf("List: unexpected %s of %d bytes", info.Ref, info.Size)
						}
					}
				}
			}
		})
	}
	wg.Wait()
	for _, c := range contents {
		put(t, st, c, store.Meta{})
		readBack(t, st, RefFor(c), c)
	}
}

// cancelReader yields data, calling cancel once `at` bytes have been read.
type cancelReader struct {
	data   []byte
	off    int
	at     int
	cancel func()
	err    error // returned instead of cancelling, if set
}

func (r *cancelReader) Read(p []byte) (int, error) {
	if r.off >= r.at && r.at >= 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.cancel()
		r.at = -1
	}
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 64<<10)], r.data[r.off:])
	r.off += n
	return n, nil
}

func (s *suite) testCancel(t *testing.T) {
	st := s.b.New(t)
	data := Content(16, 4*store.ChunkSize+100)
	wantEmpty := func(what string) {
		t.Helper()
		list, err := st.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 0 {
			t.Errorf("%s: List = %d results, want none: nothing partial may remain", what, len(list))
		}
		_, err = st.Stat(context.Background(), RefFor(data))
		wantErr(t, what+": Stat of the whole", err, store.ErrMissing)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := st.Put(ctx, bytes.NewReader(data), store.Meta{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context: %v, want context.Canceled", err)
	}
	wantEmpty("cancelled before")

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = st.Put(ctx, &cancelReader{data: data, at: 5 * store.ChunkSize / 2, cancel: cancel}, store.Meta{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Put cancelled mid-stream: %v, want context.Canceled", err)
	}
	wantEmpty("cancelled mid-stream")

	boom := errors.New("boom: the tool crashed")
	_, err = st.Put(context.Background(), &cancelReader{data: data, at: 3 * store.ChunkSize / 2, err: boom}, store.Meta{})
	if !errors.Is(err, boom) {
		t.Errorf("Put from a failing source: %v, want the source's error", err)
	}
	wantEmpty("source failed")
}

func (s *suite) testClosed(t *testing.T) {
	st := s.b.New(t)
	c, ok := st.(io.Closer)
	if !ok {
		t.Skip("store has no Close method")
	}
	ctx := context.Background()
	info := put(t, st, []byte("before close"), store.Meta{})
	obj, err := st.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err = st.Put(ctx, bytes.NewReader([]byte("after")), store.Meta{})
	wantErr(t, "Put after Close", err, store.ErrClosed)
	_, err = st.Open(ctx, info.Ref)
	wantErr(t, "Open after Close", err, store.ErrClosed)
	_, err = st.Stat(ctx, info.Ref)
	wantErr(t, "Stat after Close", err, store.ErrClosed)
	_, err = st.List(ctx)
	wantErr(t, "List after Close", err, store.ErrClosed)
	wantErr(t, "Delete after Close", st.Delete(ctx, info.Ref), store.ErrClosed)
	_, err = st.GC(ctx)
	wantErr(t, "GC after Close", err, store.ErrClosed)
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

const suiteTTL = time.Hour

func (s *suite) clocked(t *testing.T) (store.Store, *Clock) {
	t.Helper()
	if s.b.Clocked == nil {
		t.Skip("Backend.Clocked not set")
	}
	clock := NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	return s.b.Clocked(t, clock.Now, suiteTTL), clock
}

func (s *suite) testExpiry(t *testing.T) {
	st, clock := s.clocked(t)
	ctx := context.Background()
	data := Content(17, store.ChunkSize+1)
	info := put(t, st, data, store.Meta{})
	clock.Advance(suiteTTL - time.Second)
	readBack(t, st, info.Ref, data) // a use: the TTL starts again
	clock.Advance(suiteTTL + time.Second)
	obj, err := st.Open(ctx, info.Ref)
	if obj != nil {
		t.Errorf("Open of an expired result returned an object")
		obj.Close()
	}
	wantErr(t, "Open after expiry", err, store.ErrMissing)
	_, err = st.Stat(ctx, info.Ref)
	wantErr(t, "Stat after expiry", err, store.ErrMissing)
	b, err := store.ReadAll(ctx, st, info.Ref)
	if len(b) != 0 {
		t.Errorf("ReadAll after expiry returned %d bytes", len(b))
	}
	wantErr(t, "ReadAll after expiry", err, store.ErrMissing)
	if list, err := st.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List after expiry = %d results, %v; want none", len(list), err)
	}
	// Storing it again makes a new result.
	again := put(t, st, data, store.Meta{})
	if !again.Created.Equal(clock.Now()) {
		t.Errorf("Put after expiry: Created = %v, want now (%v): the old result had expired", again.Created, clock.Now())
	}
	readBack(t, st, info.Ref, data)
}

func (s *suite) testUseTimes(t *testing.T) {
	st, clock := s.clocked(t)
	ctx := context.Background()
	step := suiteTTL * 3 / 4
	opened := put(t, st, []byte("opened"), store.Meta{})
	stated := put(t, st, []byte("stated"), store.Meta{})
	reput := put(t, st, []byte("put again"), store.Meta{})
	clock.Advance(step)
	obj, err := st.Open(ctx, opened.Ref)
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	if _, err := st.Stat(ctx, stated.Ref); err != nil {
		t.Fatal(err)
	}
	put(t, st, []byte("put again"), store.Meta{})
	clock.Advance(step)
	if _, err := st.Stat(ctx, opened.Ref); err != nil {
		t.Errorf("result opened %v ago, stored %v ago: %v; Open must count as a use", step, 2*step, err)
	}
	if _, err := st.Stat(ctx, reput.Ref); err != nil {
		t.Errorf("result stored again %v ago: %v; Put must refresh the use time", step, err)
	}
	_, err = st.Stat(ctx, stated.Ref)
	wantErr(t, "result only Stat'ed since it was stored 2×(3/4 TTL) ago", err, store.ErrMissing)
}

func (s *suite) testTamper(t *testing.T) {
	if s.b.Corrupt == nil {
		t.Skip("Backend.Corrupt not set")
	}
	st := s.b.New(t)
	ctx := context.Background()
	const C = store.ChunkSize
	tests := []struct {
		name string
		size int
		off  int64
	}{
		{"first byte of one byte", 1, 0},
		{"middle chunk", 3*C - 10, C + 5},
		{"last byte", 3*C - 10, 3*C - 11},
		{"first byte of many", 2 * C, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := Content(uint64(300+i), tt.size)
			info := put(t, st, data, store.Meta{})
			s.b.Corrupt(t, st, info.Ref, tt.off)
			if obj, err := st.Open(ctx, info.Ref); err != nil {
				wantErr(t, "Open of a damaged result", err, store.ErrBroken)
			} else {
				p := make([]byte, 10)
				start := max(0, tt.off-3)
				_, err := obj.ReadAt(p, start)
				wantErr(t, fmt.Sprintf("ReadAt(%d) over the damaged byte %d", start, tt.off), err, store.ErrBroken)
				_, err = store.Copy(ctx, obj, io.Discard)
				wantErr(t, "Copy of a damaged result", err, store.ErrBroken)
				obj.Close()
			}
			b, err := store.ReadAll(ctx, st, info.Ref)
			if b != nil {
				t.Errorf("ReadAll of a damaged result returned %d bytes", len(b))
			}
			wantErr(t, "ReadAll of a damaged result", err, store.ErrBroken)
			// Running the tool again repairs it.
			put(t, st, data, store.Meta{})
			readBack(t, st, info.Ref, data)
		})
	}
}

// testCopyOfDamaged checks that Copy of a damaged result writes nothing when
// the result is small enough to verify first, and otherwise says plainly
// that the output is incomplete.
func (s *suite) testCopyOfDamaged(t *testing.T) {
	if s.b.Corrupt == nil {
		t.Skip("Backend.Corrupt not set")
	}
	st := s.b.New(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name      string
		size      int
		prefix    bool // some output may precede the error
		corruptAt int64
	}{
		{"small, damaged near the end", 3*store.ChunkSize + 7, false, 3 * store.ChunkSize},
		{"largest verified first", store.CopyVerifyFirst, false, store.CopyVerifyFirst - 1},
		{"large, damaged near the end", store.CopyVerifyFirst + 5, true, store.CopyVerifyFirst},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := Content(uint64(tt.size), tt.size)
			info := put(t, st, data, store.Meta{})
			s.b.Corrupt(t, st, info.Ref, tt.corruptAt)
			obj, err := st.Open(ctx, info.Ref)
			if err != nil {
				wantErr(t, "Open of a damaged result", err, store.ErrBroken)
				return
			}
			defer obj.Close()
			var buf bytes.Buffer
			n, err := store.Copy(ctx, obj, &buf)
			wantErr(t, "Copy of a damaged result", err, store.ErrBroken)
			if int64(buf.Len()) != n {
				t.Errorf("Copy returned %d, wrote %d bytes", n, buf.Len())
			}
			switch {
			case !tt.prefix && buf.Len() > 0:
				t.Errorf("Copy of a damaged %d-byte result wrote %d bytes before failing; want nothing", tt.size, buf.Len())
			case tt.prefix && buf.Len() > 0 && (err == nil || !strings.Contains(err.Error(), "incomplete")):
				t.Errorf("Copy wrote %d bytes and failed with %v; want the error to say the output is incomplete", buf.Len(), err)
			}
		})
	}
}

// testFutureUse checks that a use time far in the future (the clock was set
// back) does not keep a result forever: it counts as expired.
func (s *suite) testFutureUse(t *testing.T) {
	st, clock := s.clocked(t)
	ctx := context.Background()
	near := put(t, st, []byte("stored a minute ahead"), store.Meta{})
	far := put(t, st, []byte("stored a day ahead"), store.Meta{})
	clock.Advance(-time.Minute) // clocks of processes differ a little
	if info, err := st.Stat(ctx, near.Ref); err != nil {
		t.Errorf("Stat of a result used a minute ahead of the clock: %v; want it found", err)
	} else if info.Used.After(clock.Now()) {
		t.Errorf("Stat of a result used a minute ahead of the clock: Used = %v, after now (%v); want it no later than now", info.Used, clock.Now())
	}
	if list, err := st.List(ctx); err != nil || len(list) != 2 || list[0].Used.After(clock.Now()) {
		t.Errorf("List a minute behind every use = %d results, %v; want both, used no later than now", len(list), err)
	}
	clock.Advance(-24 * time.Hour)
	_, err := st.Stat(ctx, far.Ref)
	wantErr(t, "Stat of a result used a day ahead of the clock", err, store.ErrMissing)
	if list, err := st.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List with every use a day ahead of the clock = %d results, %v; want none", len(list), err)
	}
	if _, err := st.GC(ctx); err != nil {
		t.Fatal(err)
	}
	// Storing it again makes it readable again.
	again := put(t, st, []byte("stored a day ahead"), store.Meta{})
	readBack(t, st, again.Ref, []byte("stored a day ahead"))
}

// testCapAtPut checks that the size cap holds when Put returns, not only
// after the next collection.
func (s *suite) testCapAtPut(t *testing.T) {
	if s.b.Capped == nil {
		t.Skip("Backend.Capped not set")
	}
	ctx := context.Background()
	const capBytes = 1 << 20
	total := func(st store.Store) (int64, int) {
		list, err := st.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, in := range list {
			n += in.Size
		}
		return n, len(list)
	}
	t.Run("each larger than the cap", func(t *testing.T) {
		st := s.b.Capped(t, capBytes)
		var last store.Info
		for i := range 4 {
			data := Content(uint64(900+i), 5*capBytes/2)
			last = put(t, st, data, store.Meta{})
			if n, k := total(st); k != 1 {
				t.Errorf("after Put %d of %d bytes under a %d-byte cap: %d results (%d bytes) kept; want only the newest", i+1, len(data), capBytes, k, n)
			}
			readBack(t, st, last.Ref, data)
		}
	})
	t.Run("many smaller ones", func(t *testing.T) {
		st := s.b.Capped(t, capBytes)
		for i := range 12 {
			data := Content(uint64(950+i), 300<<10)
			info := put(t, st, data, store.Meta{})
			if n, k := total(st); n > capBytes {
				t.Errorf("after Put %d: %d results hold %d bytes, over the %d-byte cap", i+1, k, n, capBytes)
			}
			readBack(t, st, info.Ref, data)
		}
	})
}

// testTamperedFacts checks that a read relying on a fact of a result that
// was changed after storing (its line index, size or line count) reads as
// broken, never as the wrong content or the wrong lines.
func (s *suite) testTamperedFacts(t *testing.T) {
	if s.b.EditInfo == nil {
		t.Skip("Backend.EditInfo not set")
	}
	st := s.b.New(t)
	ctx := context.Background()
	// Numbered lines over four chunks, the last one short.
	var b bytes.Buffer
	for i := 1; b.Len() < 3*store.ChunkSize+1000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	data := b.Bytes()
	tests := []struct {
		name  string
		edit  func(*store.Info)
		chunk int64 // a read of this chunk must fail
		lines bool  // needs a line index
	}{
		{"chunk newlines lowered", func(in *store.Info) { in.ChunkNewlines[2] -= 5 }, 2, true},
		{"chunk newlines lowered, chunk before", func(in *store.Info) { in.ChunkNewlines[2] -= 5 }, 1, true},
		{"chunk newlines raised", func(in *store.Info) { in.ChunkNewlines[1] += 3 }, 1, true},
		{"newlines total lowered", func(in *store.Info) { *in.Newlines -= 2; *in.Lines -= 2 }, 3, true},
		{"line count raised", func(in *store.Info) { *in.Lines += 1 }, 3, true},
		{"size lowered", func(in *store.Info) { in.Size -= 10 }, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := put(t, st, data, store.Meta{})
			if tt.lines && info.Newlines == nil {
				t.Skip("the store keeps no line index")
			}
			s.b.EditInfo(t, st, info.Ref, tt.edit)
			obj, err := st.Open(ctx, info.Ref)
			if err != nil {
				wantErr(t, "Open after the edit", err, store.ErrBroken)
			} else {
				p := make([]byte, 100)
				_, err := obj.ReadAt(p, tt.chunk*store.ChunkSize)
				if err == nil || errors.Is(err, io.EOF) {
					// A store may also verify when it opens the object,
					// but a read of the chunk the fact covers must fail.
					t.Errorf("ReadAt of chunk %d after %s: %v; want an error wrapping ErrBroken", tt.chunk, tt.name, err)
				} else {
					wantErr(t, "ReadAt after the edit", err, store.ErrBroken)
				}
				obj.Close()
			}
			// Storing it again repairs it.
			put(t, st, data, store.Meta{})
			readBack(t, st, info.Ref, data)
		})
	}
}

// testAnnotate checks a store that implements store.Annotator: Annotate
// merges attributes into the record, keeps the rest of it, does not count
// as a use, and answers ErrMissing and ErrBadRef as reads do.
func (s *suite) testAnnotate(t *testing.T) {
	var (
		st    store.Store
		clock *Clock
	)
	if s.b.Clocked != nil {
		clock = NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
		st = s.b.Clocked(t, clock.Now, suiteTTL)
	} else {
		st = s.b.New(t)
	}
	an, ok := st.(store.Annotator)
	if !ok {
		t.Skip("store does not implement store.Annotator")
	}
	ctx := context.Background()
	data := Content(40, store.ChunkSize+77)
	info := put(t, st, data, store.Meta{Tool: "grep", Attrs: map[string]string{"exit_code": "0", "view_bytes": "1"}})
	if clock != nil {
		clock.Advance(suiteTTL / 2)
	}
	if err := an.Annotate(ctx, info.Ref, map[string]string{"view_bytes": "120", "view_tokens": "30"}); err != nil {
		t.Fatalf("Annotate: %v", err)
	}
	got, err := st.Stat(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"exit_code": "0", "view_bytes": "120", "view_tokens": "30"}
	if !reflect.DeepEqual(got.Attrs, want) || got.Tool != "grep" {
		t.Errorf("after Annotate: Tool %q, Attrs %v; want %q, %v", got.Tool, got.Attrs, "grep", want)
	}
	checkInfo(t, "Stat after Annotate", got, data)
	if !got.Used.Equal(info.Used) {
		t.Errorf("after Annotate: Used = %v, want the Put's %v (Annotate is not a use)", got.Used, info.Used)
	}
	readBack(t, st, info.Ref, data)
	wantErr(t, "Annotate of a ref never stored", an.Annotate(ctx, RefFor([]byte("never stored")), want), store.ErrMissing)
	wantErr(t, "Annotate of a malformed ref", an.Annotate(ctx, "../x", want), store.ErrBadRef)
	if clock != nil {
		clock.Advance(2 * suiteTTL)
		wantErr(t, "Annotate of an expired result", an.Annotate(ctx, info.Ref, want), store.ErrMissing)
	}
}

// testShared checks two handles on one store: each reads what the other
// stores, and a deletion by one is seen by the other.
func (s *suite) testShared(t *testing.T) {
	if s.b.Shared == nil {
		t.Skip("Backend.Shared not set")
	}
	a, b := s.b.Shared(t)
	ctx := context.Background()
	data := Content(41, 2*store.ChunkSize+5)
	info := put(t, a, data, store.Meta{Tool: "from a"})
	readBack(t, b, info.Ref, data)
	if got, err := b.Stat(ctx, info.Ref); err != nil || got.Tool != "from a" {
		t.Errorf("Stat by the other handle: Tool %q, %v; want %q", got.Tool, err, "from a")
	}
	if list, err := b.List(ctx); err != nil || len(list) != 1 || list[0].Ref != info.Ref {
		t.Errorf("List by the other handle = %v, %v; want %s", list, err, info.Ref)
	}
	if err := b.Delete(ctx, info.Ref); err != nil {
		t.Fatal(err)
	}
	_, err := a.Stat(ctx, info.Ref)
	wantErr(t, "Stat of a result the other handle deleted", err, store.ErrMissing)
}

// testTenants checks that two tenants of one backend cannot read, list or
// delete each other's results, even results of the same bytes.
func (s *suite) testTenants(t *testing.T) {
	if s.b.Tenants == nil {
		t.Skip("Backend.Tenants not set")
	}
	a, b := s.b.Tenants(t)
	ctx := context.Background()
	secret := Content(42, store.ChunkSize+9)
	info := put(t, a, secret, store.Meta{Tool: "a's"})
	obj, err := b.Open(ctx, info.Ref)
	if obj != nil {
		obj.Close()
		t.Errorf("Open by another tenant returned an object")
	}
	wantErr(t, "Open by another tenant", err, store.ErrMissing)
	_, err = b.Stat(ctx, info.Ref)
	wantErr(t, "Stat by another tenant", err, store.ErrMissing)
	if list, err := b.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List by another tenant = %d results, %v; want none", len(list), err)
	}
	if err := b.Delete(ctx, info.Ref); err != nil {
		t.Fatal(err)
	}
	if _, err := b.GC(ctx); err != nil {
		t.Fatal(err)
	}
	readBack(t, a, info.Ref, secret)
	// The same bytes stored by both are two results: deleting one leaves
	// the other.
	put(t, b, secret, store.Meta{Tool: "b's"})
	if got, err := a.Stat(ctx, info.Ref); err != nil || got.Tool != "a's" {
		t.Errorf("Stat by the first tenant after the second stored the same bytes: Tool %q, %v; want %q", got.Tool, err, "a's")
	}
	if err := a.Delete(ctx, info.Ref); err != nil {
		t.Fatal(err)
	}
	readBack(t, b, info.Ref, secret)
}

// readObject reads the whole of obj with ReadAt and checks it is data.
func readObject(t *testing.T, what string, obj store.Object, data []byte) {
	t.Helper()
	if err := readWhole(obj, data, make([]byte, len(data)+1)); err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// readWhole reads the whole of obj with one ReadAt into buf, which must hold
// len(data)+1 bytes, and reports how the read differs from data and io.EOF.
func readWhole(obj store.Object, data, buf []byte) error {
	n, err := obj.ReadAt(buf, 0)
	if n != len(data) || err != io.EOF || !bytes.Equal(buf[:n], data) {
		return fmt.Errorf("ReadAt = %d bytes, %v; want the %d staged bytes and io.EOF", n, err, len(data))
	}
	return nil
}

// StageWhileReading stages a result and commits it while another goroutine
// reads the staged object over and over, rounds times, for a store that
// implements store.Stager. Every read, before, during or after Commit, must
// return all the staged bytes: a short read or a missing result fails the
// test. Each round's result has content of its own (two chunks, so that
// reads alternate between them and fetch each time) and is deleted after
// the round.
func StageWhileReading(t *testing.T, st store.Store, rounds int) {
	t.Helper()
	sg, ok := st.(store.Stager)
	if !ok {
		t.Fatalf("storetest: %T does not implement store.Stager", st)
	}
	ctx := context.Background()
	data := Content(52, store.ChunkSize+17)
	buf := make([]byte, len(data)+1)
	early := 0 // reads that began before Commit returned
	for round := range rounds {
		binary.LittleEndian.PutUint64(data[len(data)-8:], uint64(round))
		staged, err := sg.Stage(ctx, bytes.NewReader(data), store.Meta{Tool: "stress"})
		if err != nil {
			t.Fatalf("round %d: Stage: %v", round, err)
		}
		obj := staged.Object()
		var committed atomic.Bool
		type outcome struct {
			early int
			err   error
		}
		done := make(chan outcome, 1)
		go func() {
			var o outcome
			for {
				after := committed.Load()
				if err := readWhole(obj, data, buf); err != nil {
					when := "before"
					if after {
						when = "after"
					}
					o.err = fmt.Errorf("read %d (begun %s Commit returned): %w", o.early+1, when, err)
					break
				}
				if after {
					break
				}
				o.early++
			}
			done <- o
		}()
		_, cerr := staged.Commit(ctx)
		committed.Store(true)
		o := <-done
		obj.Close()
		early += o.early
		if cerr != nil {
			t.Fatalf("round %d: Commit: %v", round, cerr)
		}
		if o.err != nil {
			t.Fatalf("round %d of %d: %v", round, rounds, o.err)
		}
		if err := st.Delete(ctx, staged.Info().Ref); err != nil {
			t.Fatalf("round %d: Delete after Commit: %v", round, err)
		}
	}
	t.Logf("%d rounds; %d reads of a staged object began before its Commit returned", rounds, early)
}

// testStage checks a store that implements store.Stager: a staged result is
// invisible until Commit, its object reads it verified before, during and
// after Commit (or after Abort, until closed), and Abort leaves nothing.
func (s *suite) testStage(t *testing.T) {
	st := s.b.New(t)
	sg, ok := st.(store.Stager)
	if !ok {
		t.Skip("store does not implement store.Stager")
	}
	ctx := context.Background()
	t.Run("commit while reading", func(t *testing.T) {
		data := Content(50, 3*store.ChunkSize+17)
		staged, err := sg.Stage(ctx, bytes.NewReader(data), store.Meta{Tool: "staged"})
		if err != nil {
			t.Fatal(err)
		}
		checkInfo(t, "Staged.Info", staged.Info(), data)
		_, err = st.Stat(ctx, RefFor(data))
		wantErr(t, "Stat of a staged result before Commit", err, store.ErrMissing)
		if list, err := st.List(ctx); err != nil || len(list) != 0 {
			t.Errorf("List before Commit = %d results, %v; want none", len(list), err)
		}
		obj := staged.Object()
		defer obj.Close()
		readObject(t, "before Commit", obj, data)
		done := make(chan error, 1)
		go func() {
			_, err := staged.Commit(ctx)
			done <- err
		}()
		readObject(t, "during Commit", obj, data)
		if err := <-done; err != nil {
			t.Fatalf("Commit: %v", err)
		}
		readObject(t, "after Commit", obj, data)
		info, err := st.Stat(ctx, RefFor(data))
		if err != nil {
			t.Fatalf("Stat after Commit: %v", err)
		}
		checkInfo(t, "Stat after Commit", info, data)
		readBack(t, st, info.Ref, data)
		if _, err := staged.Commit(ctx); err == nil {
			t.Errorf("a second Commit succeeded; want an error")
		}
		if err := staged.Abort(); err != nil {
			t.Errorf("Abort after Commit: %v; want a no-op", err)
		}
		readBack(t, st, info.Ref, data)
	})
	t.Run("abort", func(t *testing.T) {
		data := Content(51, 2*store.ChunkSize+1)
		staged, err := sg.Stage(ctx, bytes.NewReader(data), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		obj := staged.Object()
		if err := staged.Abort(); err != nil {
			t.Fatalf("Abort: %v", err)
		}
		readObject(t, "after Abort", obj, data)
		obj.Close()
		_, err = st.Stat(ctx, RefFor(data))
		wantErr(t, "Stat of an aborted result", err, store.ErrMissing)
		if _, err := staged.Commit(ctx); err == nil {
			t.Errorf("Commit after Abort succeeded; want an error")
		}
		_, err = st.Stat(ctx, RefFor(data))
		wantErr(t, "Stat after Commit of an aborted result", err, store.ErrMissing)
	})
}
