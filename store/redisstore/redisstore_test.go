package redisstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore/redistest"
	"github.com/crumb-dev/crumb/store/storetest"
)

// hookReader yields data and calls hook once, when `at` bytes were read.
type hookReader struct {
	data []byte
	off  int
	at   int
	hook func()
}

func (r *hookReader) Read(p []byte) (int, error) {
	if r.hook != nil && r.off >= r.at {
		r.hook()
		r.hook = nil
	}
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	end := len(r.data)
	if r.hook != nil {
		end = min(end, r.at)
	}
	n := copy(p[:min(len(p), 64<<10)], r.data[r.off:end])
	r.off += n
	return n, nil
}

// wantFoundOrMissing checks that ref reads as exactly data or as missing,
// and reports which.
func wantFoundOrMissing(t *testing.T, s store.Store, ref store.Ref, data []byte) bool {
	t.Helper()
	got, err := store.ReadAll(context.Background(), s, ref)
	switch {
	case err == nil && bytes.Equal(got, data):
		return true
	case err == nil:
		t.Errorf("ReadAll(%s) = %d bytes that differ from the %d stored", ref, len(got), len(data))
	case !errors.Is(err, store.ErrMissing) || errors.Is(err, store.ErrBroken):
		t.Errorf("ReadAll(%s): %v; want the stored bytes or ErrMissing", ref, err)
	}
	return false
}

// TestRestartMidWrite restarts Redis while a Put streams a large result in:
// the result is never found partial. Without persistence the staged chunks
// are lost and the Put fails; with an append-only file they may survive
// and the Put may succeed, but then with the whole result.
func TestRestartMidWrite(t *testing.T) {
	for _, tt := range []struct {
		name     string
		args     []string
		mustFail bool
	}{
		{"no persistence", nil, true},
		{"append-only file", []string{"--appendonly", "yes", "--appendfsync", "always"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t, tt.args...)
			s := openTest(t, srv, Options{})
			data := storetest.Content(1, 4*store.ChunkSize+321)
			ref := storetest.RefFor(data)
			r := &hookReader{data: data, at: 5 * store.ChunkSize / 2, hook: func() {
				if _, err := s.Stat(context.Background(), ref); !errors.Is(err, store.ErrMissing) {
					t.Errorf("Stat while the result is written: %v; want ErrMissing", err)
				}
				srv.Restart()
			}}
			info, err := s.Put(context.Background(), r, store.Meta{})
			if tt.mustFail && err == nil {
				t.Fatalf("Put across a restart that lost its staged chunks succeeded: %+v", info)
			}
			if err != nil {
				if !errors.Is(err, ErrRedis) {
					t.Errorf("Put across a restart: %v; want an error wrapping ErrRedis", err)
				}
				_, serr := s.Stat(context.Background(), ref)
				if !errors.Is(serr, store.ErrMissing) {
					t.Errorf("Stat after a failed Put: %v; want ErrMissing", serr)
				}
				if list, lerr := s.List(context.Background()); lerr != nil || len(list) != 0 {
					t.Errorf("List after a failed Put = %d results, %v; want none", len(list), lerr)
				}
				t.Logf("Put failed as it should: %v", err)
			} else if !wantFoundOrMissing(t, s, ref, data) {
				t.Errorf("Put across a restart succeeded but the result reads as missing")
			}
			// The store works again.
			if _, err := s.Put(context.Background(), bytes.NewReader(data), store.Meta{}); err != nil {
				t.Fatal(err)
			}
			if !wantFoundOrMissing(t, s, ref, data) {
				t.Errorf("result stored after the restart reads as missing")
			}
		})
	}
}

// TestStagedIsInvisibleAndExpires looks at a Put in the middle of its
// write: its chunks are under a staging key that expires on its own, and
// nothing reads as found.
func TestStagedIsInvisibleAndExpires(t *testing.T) {
	srv := redistest.Start(t)
	s := openTest(t, srv, Options{})
	c := srv.Client(t)
	ctx := context.Background()
	data := storetest.Content(2, 3*store.ChunkSize)
	r := &hookReader{data: data, at: 2 * store.ChunkSize, hook: func() {
		keys, err := keysOf(ctx, c, s, "s:*").Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("staging keys during a Put = %v, %v; want one", keys, err)
		}
		if ttl := c.PTTL(ctx, keys[0]).Val(); ttl <= 0 || ttl > stageTTL {
			t.Errorf("staging key expires in %v; want within %v", ttl, stageTTL)
		}
		if n := c.Exists(ctx, s.dataKey(storetest.RefFor(data))).Val(); n != 0 {
			t.Errorf("the result's key exists before the Put ends")
		}
		if list, err := s.List(ctx); err != nil || len(list) != 0 {
			t.Errorf("List during a Put = %d results, %v; want none", len(list), err)
		}
	}}
	if _, err := s.Put(ctx, r, store.Meta{}); err != nil {
		t.Fatal(err)
	}
	if keys := keysOf(ctx, c, s, "s:*").Val(); len(keys) != 0 {
		t.Errorf("staging keys after the Put: %v; want none", keys)
	}
	if !wantFoundOrMissing(t, s, storetest.RefFor(data), data) {
		t.Error("result missing after its Put")
	}
}

// TestConnectionLostDuringRead stops Redis while a result is open: the read
// fails with an error that is neither success nor ErrMissing nor ErrBroken,
// and once Redis is back the result reads again (with persistence).
func TestConnectionLostDuringRead(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	s, err := Open(context.Background(), srv.URL(0)+"?dial_timeout=300ms&max_retries=1", Options{Namespace: redistest.Namespace()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	data := storetest.Content(3, 3*store.ChunkSize+5)
	info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	p := make([]byte, 100)
	if _, err := obj.ReadAt(p, 0); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	wantLost := func(what string, err error) {
		t.Helper()
		switch {
		case err == nil:
			t.Errorf("%s with Redis down succeeded", what)
		case errors.Is(err, store.ErrMissing), errors.Is(err, store.ErrBroken), errors.Is(err, io.EOF):
			t.Errorf("%s with Redis down: %v; want neither missing, broken nor the end of the result", what, err)
		case !errors.Is(err, ErrRedis):
			t.Errorf("%s with Redis down: %v; want an error wrapping ErrRedis", what, err)
		}
	}
	n, err := obj.ReadAt(p, store.ChunkSize+10)
	wantLost("ReadAt of the next chunk", err)
	if n != 0 {
		t.Errorf("ReadAt with Redis down returned %d bytes", n)
	}
	_, err = store.Copy(ctx, obj, io.Discard)
	wantLost("Copy", err)
	_, err = s.Stat(ctx, info.Ref)
	wantLost("Stat", err)
	_, err = s.Open(ctx, info.Ref)
	wantLost("Open", err)
	_, err = s.Put(ctx, bytes.NewReader([]byte("x")), store.Meta{})
	wantLost("Put", err)
	_, err = s.List(ctx)
	wantLost("List", err)
	if err != nil && strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "Redis") {
		t.Errorf("List error %q does not say Redis failed", err)
	}
	srv.Start()
	var buf bytes.Buffer
	if _, err := store.Copy(ctx, obj, &buf); err != nil || !bytes.Equal(buf.Bytes(), data) {
		t.Errorf("Copy once Redis is back: %d bytes, %v; want the stored bytes", buf.Len(), err)
	}
}

// TestEvictionUnderMaxmemory fills a Redis whose maxmemory is far below what
// is stored: Redis evicts results, which then read as missing, never as
// broken; GC then drops their index entries.
func TestEvictionUnderMaxmemory(t *testing.T) {
	srv := redistest.Start(t, "--maxmemory", "12mb", "--maxmemory-policy", "volatile-lru")
	s := openTest(t, srv, Options{})
	ctx := context.Background()
	var contents [][]byte
	for i := range 30 {
		data := storetest.Content(uint64(100+i), store.ChunkSize+1000*i)
		if _, err := s.Put(ctx, bytes.NewReader(data), store.Meta{}); err != nil {
			// Redis may evict a result while it is being written: the Put
			// fails and nothing is stored.
			if !errors.Is(err, ErrRedis) {
				t.Fatalf("Put %d: %v; want success or ErrRedis", i, err)
			}
			t.Logf("Put %d: %v", i, err)
		}
		contents = append(contents, data)
	}
	found := 0
	for _, data := range contents {
		if wantFoundOrMissing(t, s, storetest.RefFor(data), data) {
			found++
		}
	}
	if found == len(contents) || found == 0 {
		t.Fatalf("%d of %d results found after storing %d MiB under a 12 MB maxmemory; want some evicted, some kept", found, len(contents), len(contents))
	}
	list, err := s.List(ctx)
	if err != nil || len(list) != found {
		t.Errorf("List = %d results, %v; want the %d found", len(list), err, found)
	}
	st, err := s.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.ResultsKept != found || st.Expired < len(contents)-found-2 {
		t.Errorf("GC after eviction = %+v; want %d kept and the evicted ones dropped from the index", st, found)
	}
	var sum int64
	for _, in := range list {
		sum += in.Size
	}
	if st.BytesKept != sum {
		t.Errorf("GC counts %d bytes kept, the results hold %d", st.BytesKept, sum)
	}
}

// TestNativeExpiry checks that a result's key expires natively TTL after
// its last use, that Open restarts the expiry and Stat does not, and that a
// result Redis expired reads as missing and leaves the index on GC.
func TestNativeExpiry(t *testing.T) {
	srv := redistest.Start(t)
	s := openTest(t, srv, Options{TTL: time.Hour})
	c := srv.Client(t)
	ctx := context.Background()
	info, err := s.Put(ctx, bytes.NewReader([]byte("expiring\n")), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	key := s.dataKey(info.Ref)
	want := time.Hour + store.FutureSlack
	if ttl := c.PTTL(ctx, key).Val(); ttl <= want-time.Minute || ttl > want {
		t.Errorf("after Put the key expires in %v; want about %v", ttl, want)
	}
	c.PExpire(ctx, key, time.Minute)
	if _, err := s.Stat(ctx, info.Ref); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, key).Val(); ttl > time.Minute {
		t.Errorf("Stat restarted the expiry (%v): Stat is not a use", ttl)
	}
	obj, err := s.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	obj.Close()
	if ttl := c.PTTL(ctx, key).Val(); ttl <= want-time.Minute {
		t.Errorf("after Open the key expires in %v; want about %v (Open is a use)", ttl, want)
	}
	c.PExpire(ctx, key, time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	_, err = s.Stat(ctx, info.Ref)
	if !errors.Is(err, store.ErrMissing) {
		t.Errorf("Stat of a result Redis expired: %v; want ErrMissing", err)
	}
	st, err := s.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Expired != 1 || st.ResultsKept != 0 || st.BytesKept != 0 {
		t.Errorf("GC after native expiry = %+v; want 1 expired, nothing kept", st)
	}
	if n := len(keysOf(ctx, c, s, "lru").Val()) + len(keysOf(ctx, c, s, "sizes").Val()); n != 0 {
		t.Errorf("the index keeps %d entries of an expired result", n)
	}
}

// TestSettingsPrecedence checks the lifecycle settings: an explicit option,
// else the settings kept in the namespace, else the defaults, in the disk
// store's settings format.
func TestSettingsPrecedence(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	ns := redistest.Namespace()
	open := func(opts Options) (*Store, error) {
		opts.Namespace = ns
		s, err := Open(ctx, srv.URL(0), opts)
		if err == nil {
			s.Close()
		}
		return s, err
	}
	steps := []struct {
		opts Options
		want store.Settings
	}{
		{Options{}, store.Settings{TTL: store.DefaultTTL, MaxBytes: store.DefaultMaxBytes}},
		{Options{TTL: 2 * time.Hour}, store.Settings{TTL: 2 * time.Hour, MaxBytes: store.DefaultMaxBytes}},
		{Options{}, store.Settings{TTL: 2 * time.Hour, MaxBytes: store.DefaultMaxBytes}},
		{Options{MaxBytes: 5 << 20}, store.Settings{TTL: 2 * time.Hour, MaxBytes: 5 << 20}},
		{Options{TTL: time.Minute}, store.Settings{TTL: time.Minute, MaxBytes: 5 << 20}},
		{Options{}, store.Settings{TTL: time.Minute, MaxBytes: 5 << 20}},
	}
	for i, st := range steps {
		s, err := open(st.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Settings(); got != st.want {
			t.Errorf("step %d: opened with %+v: settings %+v, want %+v", i, st.opts, got, st.want)
		}
	}
	raw := c.Get(ctx, "crumb:{"+ns+"}:settings").Val()
	if parsed, err := store.ParseSettings([]byte(raw)); err != nil || parsed != (store.Settings{TTL: time.Minute, MaxBytes: 5 << 20}) {
		t.Errorf("settings key = %q (%+v, %v); want the disk store's format of the last settings", raw, parsed, err)
	}
	c.Set(ctx, "crumb:{"+ns+"}:settings", `{"ttl": "soon"}`, 0)
	if _, err := open(Options{}); err == nil || !strings.Contains(err.Error(), "settings") {
		t.Errorf("open with a bad settings key: %v; want an error naming the settings", err)
	}
}

// TestURLs checks store URLs: auth with a password and an ACL user, the
// namespace parameter, and errors that never show the password.
func TestURLs(t *testing.T) {
	srv := redistest.Start(t, "--requirepass", "s3cret-pw", "--user", "alice", "on", ">alice-pw", "~*", "+@all")
	ctx := context.Background()
	for _, tt := range []struct {
		name, url string
		ok        bool
	}{
		{"password", fmt.Sprintf("redis://:s3cret-pw@%s/0", srv.Addr()), true},
		{"user and password", fmt.Sprintf("redis://alice:alice-pw@%s/1?namespace=team-a", srv.Addr()), true},
		{"wrong password", fmt.Sprintf("redis://alice:wrong-pw@%s/0", srv.Addr()), false},
		{"no password", fmt.Sprintf("redis://%s/0", srv.Addr()), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, tt.url, Options{})
			if !tt.ok {
				if err == nil {
					s.Close()
					t.Fatal("Open succeeded")
				}
				if !errors.Is(err, ErrRedis) || strings.Contains(err.Error(), "pw") {
					t.Errorf("Open: %v; want an error wrapping ErrRedis without the password", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if strings.Contains(s.Path(), "pw") {
				t.Errorf("Path() = %q shows the password", s.Path())
			}
			info, err := s.Put(ctx, strings.NewReader("hello"), store.Meta{})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := store.ReadAll(ctx, s, info.Ref); err != nil || string(got) != "hello" {
				t.Errorf("ReadAll = %q, %v", got, err)
			}
		})
	}
	t.Run("namespace parameter", func(t *testing.T) {
		s, err := Open(ctx, fmt.Sprintf("redis://alice:alice-pw@%s/1?namespace=team-a", srv.Addr()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if s.Namespace() != "team-a" {
			t.Errorf("Namespace() = %q, want team-a", s.Namespace())
		}
	})
	for _, bad := range []string{"http://x", "redis://%zz", fmt.Sprintf("redis://%s/0?bogus=1", srv.Addr())} {
		if _, err := Open(ctx, bad, Options{}); !errors.Is(err, ErrBadURL) {
			t.Errorf("Open(%q): %v; want ErrBadURL", bad, err)
		}
	}
	for _, ns := range []string{"a b", "x}y", "a:b", strings.Repeat("n", 65)} {
		if _, err := Open(ctx, fmt.Sprintf("redis://:s3cret-pw@%s/0", srv.Addr()), Options{Namespace: ns}); err == nil {
			t.Errorf("Open with namespace %q succeeded; want an error", ns)
		}
	}
}

// TestTLS stores and reads through a rediss:// URL with a password, the
// server's certificate checked against a trusted file (SSL_CERT_FILE), and
// refuses a server whose certificate is not trusted.
func TestTLS(t *testing.T) {
	srv, certFile := redistest.StartTLS(t, "--requirepass", "tls-pw")
	other, _ := redistest.StartTLS(t)
	// Go reads SSL_CERT_FILE once, at the first TLS handshake that needs
	// the system's roots: set it before any.
	t.Setenv("SSL_CERT_FILE", certFile)
	ctx := context.Background()
	if _, err := Open(ctx, other.URL(0), Options{}); !errors.Is(err, ErrRedis) || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("Open of a TLS server whose certificate is not trusted: %v; want ErrRedis about the certificate", err)
	}
	url := strings.Replace(srv.URL(0), "rediss://", "rediss://:tls-pw@", 1)
	s, err := Open(ctx, url, Options{Namespace: redistest.Namespace()})
	if err != nil {
		t.Fatalf("Open(%s): %v", srv.URL(0), err)
	}
	defer s.Close()
	data := storetest.Content(5, store.ChunkSize+3)
	info, err := s.Put(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	if !wantFoundOrMissing(t, s, info.Ref, data) {
		t.Error("result stored over TLS reads as missing")
	}
}

// TestAbortLeavesNothing checks that an aborted staged result's key goes
// once its object is closed, and not before.
func TestAbortLeavesNothing(t *testing.T) {
	srv := redistest.Start(t)
	s := openTest(t, srv, Options{})
	c := srv.Client(t)
	ctx := context.Background()
	data := storetest.Content(6, store.ChunkSize+1)
	staged, err := s.Stage(ctx, bytes.NewReader(data), store.Meta{})
	if err != nil {
		t.Fatal(err)
	}
	obj := staged.Object()
	staged.Abort()
	if keys := keysOf(ctx, c, s, "s:*").Val(); len(keys) != 1 {
		t.Errorf("staging keys after Abort, with the object open: %v; want one", keys)
	}
	obj.Close()
	if keys := keysOf(ctx, c, s, "*").Val(); len(keys) != 0 {
		t.Errorf("keys after Abort and Close: %v; want none", keys)
	}
}

// genReader yields n bytes made of a block of pseudo-random bytes with
// the offset written into each block, without holding them.
type genReader struct {
	block []byte
	off   int64
	n     int64
}

func newGenReader(n int64) *genReader {
	return &genReader{block: storetest.Content(77, 64<<10), n: n}
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.off >= g.n {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && g.off < g.n {
		i := int(g.off % int64(len(g.block)))
		if i == 0 {
			binary.LittleEndian.PutUint64(g.block, uint64(g.off))
		}
		c := copy(p[k:], g.block[i:min(len(g.block), i+int(g.n-g.off))])
		k += c
		g.off += int64(c)
	}
	return k, nil
}

// digestOf returns the digest a store gives to what r yields.
func digestOf(t *testing.T, r io.Reader) string {
	var x store.Indexer
	buf := make([]byte, store.ChunkSize)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			x.AddChunk(buf[:n])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			t.Error(err)
			return ""
		}
	}
	var info store.Info
	x.Fill(&info)
	return info.Digest
}

// peakHeap samples the heap while the bytes written to it are counted.
type peakHeap struct {
	base, peak uint64
	n, next    int64
}

func (h *peakHeap) Write(p []byte) (int, error) {
	h.n += int64(len(p))
	if h.n >= h.next {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
		h.next += 4 << 20
	}
	return len(p), nil
}

// TestLargeStreamBoundedMemory stores a stream far larger than the memory a
// Put may use and reads it back: Put allocates about one chunk whatever the
// size, and a read holds a few chunks at a time.
func TestLargeStreamBoundedMemory(t *testing.T) {
	size := int64(96 << 20)
	if testing.Short() {
		size = 32 << 20
	}
	srv := redistest.Start(t)
	s := openTest(t, srv, Options{})
	ctx := context.Background()
	want := digestOf(t, newGenReader(size))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	info, err := s.Put(ctx, newGenReader(size), store.Meta{})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if info.Digest != want || info.Size != size {
		t.Fatalf("Put of a %d MB stream: digest %.12s size %d; want %.12s %d", size>>20, info.Digest, info.Size, want, size)
	}
	const bound = 8 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > bound {
		t.Errorf("Put of a %d MB stream allocated %d MB; want under %d MB", size>>20, alloc>>20, bound>>20)
	}
	obj, err := s.Open(ctx, info.Ref)
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	runtime.GC()
	runtime.ReadMemStats(&before)
	h := &peakHeap{base: before.HeapAlloc}
	if n, err := store.Copy(ctx, obj, h); err != nil || n != size {
		t.Fatalf("Copy = %d, %v; want %d verified bytes", n, err, size)
	}
	if grew := h.peak - min(h.peak, h.base); grew > 4*bound {
		t.Errorf("Copy of a %d MB result grew the heap by %d MB at most; want under %d MB", size>>20, grew>>20, 4*bound>>20)
	}
}

// TestGCCapAndLostIndex checks GC: it rebuilds an index that Redis lost
// (under an allkeys-* maxmemory-policy it may evict the index keys), counts
// the usage anew, and evicts the least recently used down to a cap that
// was lowered since.
func TestGCCapAndLostIndex(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	ns := redistest.Namespace()
	s := openTest(t, srv, Options{Namespace: ns})
	var refs []store.Ref
	for i := range 4 {
		info, err := s.Put(ctx, bytes.NewReader(storetest.Content(uint64(500+i), store.ChunkSize)), store.Meta{})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, info.Ref)
		time.Sleep(2 * time.Millisecond) // distinct use times
	}
	for _, b := range s.allBuckets() {
		c.Del(ctx, b.lru(), b.sizes(), b.usage())
	}
	c.Del(ctx, s.totalKey())
	if list, err := s.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("List with the index lost = %d results, %v; want none until GC", len(list), err)
	}
	st, err := s.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.ResultsKept != 4 || st.BytesKept != 4*store.ChunkSize {
		t.Errorf("GC with the index lost = %+v; want the 4 results re-indexed", st)
	}
	if list, err := s.List(ctx); err != nil || len(list) != 4 || list[0].Ref != refs[3] {
		t.Errorf("List after GC = %d results, %v; want all 4, newest first", len(list), err)
	}
	small := openTest(t, srv, Options{Namespace: ns, MaxBytes: 5 * store.ChunkSize / 2})
	st, err = small.GC(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Evicted != 2 || st.ResultsKept != 2 || st.BytesKept > 5*store.ChunkSize/2 {
		t.Errorf("GC under a lowered cap = %+v; want 2 evicted, 2 kept", st)
	}
	for i, ref := range refs {
		_, err := s.Stat(ctx, ref)
		if gone := errors.Is(err, store.ErrMissing); gone != (i < 2) || err != nil && !gone {
			t.Errorf("Stat of result %d after eviction: %v; want the 2 oldest missing, the rest found", i, err)
		}
	}
}

// keysOf returns the keys of s's namespace, in every bucket and the legacy
// one, whose names end in the pattern suffix (after "crumb:{NS...}:").
func keysOf(ctx context.Context, c *redis.Client, s *Store, suffix string) *redis.StringSliceCmd {
	all := redis.NewStringSliceCmd(ctx)
	var keys []string
	for _, pat := range []string{s.prefix + suffix, "crumb:{" + s.ns + ":*}:" + suffix} {
		ks, err := c.Keys(ctx, pat).Result()
		if err != nil {
			all.SetErr(err)
		}
		keys = append(keys, ks...)
	}
	all.SetVal(keys)
	return all
}
