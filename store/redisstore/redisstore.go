// Package redisstore is a [store.Store] kept in Redis (or Valkey), for
// fleets of agents and workers that share results: one process stores a
// result, another reads it by its ref.
//
// It keeps every guarantee of the disk store ([store.Dir]): the same refs
// and digests for the same bytes, every chunk verified against its digest
// and the line index on every read, answers found, missing
// ([store.ErrMissing]) or broken ([store.ErrBroken]), a time-to-live
// refreshed on use, a size cap with least-recently-used eviction, and
// atomic publication: a result is visible only when complete.
//
// Keys of a namespace NS. Its results are spread over 128 buckets, each
// with a hash tag of its own, {NS:XX} (XX the bucket's number in hex), so
// that on a Redis Cluster a namespace's results spread over every shard
// while every script touches one slot: a result, its staging key and its
// index entries share the bucket of its ref (the ref's first two hex
// digits, modulo 128).
//
//	crumb:{NS:XX}:r:<ref>    the result: a hash whose field "rec" holds its
//	                         record (the Info as JSON, format version "v")
//	                         and whose fields "0", "1", ... hold its chunks of
//	                         store.ChunkSize bytes. It expires natively
//	                         (PEXPIRE) TTL after its last use, and a use
//	                         refreshes the expiry.
//	crumb:{NS:XX}:s:<random> a result being written: the same hash, staged.
//	                         Put renames it to crumb:{NS:XX}:r:<ref> in a
//	                         script that first checks it holds every chunk,
//	                         so a write cut short (a crash, a Redis restart,
//	                         an eviction) never reads as found; a staged
//	                         leftover expires.
//	crumb:{NS:XX}:lru        a sorted set of the bucket's refs scored by
//	                         their last use (Unix milliseconds)
//	crumb:{NS:XX}:sizes      a hash of ref to size, and crumb:{NS:XX}:usage
//	                         their sum
//	crumb:{NS}:total         the namespace's usage, the sum of its buckets'
//	                         (kept by the Puts and deletions, recounted by GC):
//	                         the bytes the size cap counts
//	crumb:{NS}:settings      the lifecycle settings (TTL, size cap) as JSON,
//	                         in the form of the disk store's settings file
//
// A namespace written by an earlier version of crumb kept every key under
// the one tag {NS} (crumb:{NS}:r:<ref>, crumb:{NS}:lru, crumb:{NS}:sizes,
// crumb:{NS}:usage): that legacy bucket is still read (a ref absent from
// its bucket is looked up there), listed, collected and evicted, but never
// written; a result stored again moves to its bucket.
//
// Redis itself may evict results under maxmemory; an evicted result reads as
// missing. Use a volatile-* maxmemory-policy (volatile-lru) so that Redis
// evicts only results, never the index keys, which have no expiry; a lost
// index is rebuilt by [Store.GC].
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/store"
)

// ErrRedis means a request to Redis failed: the server could not be
// reached, the connection was lost, or the server refused the command (for
// example when it is out of memory). It is neither ErrMissing nor ErrBroken:
// the result may well be stored.
var ErrRedis = errors.New("redisstore: Redis request failed")

// ErrBadURL means a store URL is not a redis:// or rediss:// URL the store
// can use.
var ErrBadURL = errors.New("redisstore: bad store URL")

// DefaultNamespace is the namespace of a store opened without one.
const DefaultNamespace = "default"

// stageTTL is how long a staged result is kept after its last write: a Put
// that stops writing for that long (a crash) leaves nothing behind.
const stageTTL = 15 * time.Minute

// recordVersion is the format version of a record; it is the disk store's.
const recordVersion = 1

// recField is the hash field that holds the record.
const recField = "rec"

// Options configures a [Store]. The zero value of every field means its
// default.
//
// TTL and MaxBytes are the lifecycle settings every process sharing the
// namespace applies alike, with the disk store's precedence: a setting given
// here (non-zero) is used and kept in the namespace's settings key, so that
// every later opener that leaves it zero uses it too; a zero setting takes
// the settings key's value, else the default ([store.DefaultTTL],
// [store.DefaultMaxBytes]).
type Options struct {
	// Namespace separates tenants: a store reads only the results stored in
	// its namespace. Letters, digits, '.', '_' and '-', at most 64
	// (default "default").
	Namespace string
	// TTL is how long a result is kept after its last use.
	TTL time.Duration
	// MaxBytes is the size cap of the namespace: a Put that takes it over
	// evicts the least recently used results at once, down to 7/8 of the
	// cap. The newest result is never evicted.
	MaxBytes int64
	// Now is the clock (default time.Now); tests set it.
	Now func() time.Time
	// Logger receives reports of failed evictions (default: none).
	Logger *slog.Logger
}

// Store is a [store.Store] in Redis. Create one with [Open] or [New]. It is
// safe for concurrent use by many goroutines and many processes.
type Store struct {
	c         redis.UniversalClient
	ownClient bool
	ns        string
	prefix    string
	where     string // the URL without its password, for messages
	ttl       time.Duration
	maxBytes  int64
	now       func() time.Time
	log       *slog.Logger

	bufs sync.Pool // *[]byte of store.ChunkSize, used by Put

	mu     sync.Mutex
	closed bool
	open   int // objects open; the client is closed when the last one is
}

var (
	_ store.Store     = (*Store)(nil)
	_ store.Annotator = (*Store)(nil)
)

// validNamespace reports whether ns is 1 to 64 letters, digits, '.', '_'
// or '-'. (As a regular expression, the bounded repetition compiles to 64
// copies of the class, on every start of every crumb command.)
func validNamespace(ns string) bool {
	if len(ns) < 1 || len(ns) > 64 {
		return false
	}
	for i := 0; i < len(ns); i++ {
		c := ns[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Schemes are the URL schemes of Redis stores: one server (redis,
// rediss), a Redis Cluster (redis+cluster, rediss+cluster) and a primary
// that Sentinel fails over (redis+sentinel, rediss+sentinel). The rediss
// forms speak TLS.
var Schemes = []string{"redis", "rediss", "redis+cluster", "rediss+cluster", "redis+sentinel", "rediss+sentinel"}

func init() {
	for _, sc := range Schemes {
		store.RegisterScheme(sc)
	}
}

// IsURL reports whether s names a Redis store (one of [Schemes]) rather
// than a directory.
func IsURL(s string) bool {
	sc, _, ok := strings.Cut(s, "://")
	return ok && slices.Contains(Schemes, strings.ToLower(sc))
}

// urlForms is the usage of the store URLs, for errors.
const urlForms = "want redis://[USER:PASSWORD@]HOST:PORT/DB (rediss:// for TLS), " +
	"redis+cluster://[USER:PASSWORD@]HOST:PORT[?addr=HOST:PORT&...] for a Redis Cluster, " +
	"or redis+sentinel://[USER:PASSWORD@]HOST:PORT[?addr=HOST:PORT&...]&master=NAME for a primary that Sentinel fails over"

// Open connects to the Redis server, cluster or Sentinel-managed primary
// that rawURL names and opens the store in it. The URL is one of:
//
//	redis://[USER:PASSWORD@]HOST:PORT/DB           one server
//	redis+cluster://[USER:PASSWORD@]HOST:PORT[?addr=HOST2:PORT2&addr=...]
//	                                               a Redis Cluster: its seed
//	                                               nodes (go-redis's cluster URL)
//	redis+sentinel://[USER:PASSWORD@]HOST:PORT[?addr=HOST2:PORT2&...]&master=NAME
//	                                               the primary NAME that the
//	                                               Sentinels at HOST:PORT, ...
//	                                               fail over (go-redis's failover
//	                                               URL; USER:PASSWORD are the
//	                                               Sentinels', username= and
//	                                               password= the primary's)
//
// with rediss in place of redis for TLS, and the query parameters go-redis
// accepts (such as dial_timeout) and "namespace", which sets
// Options.Namespace when that is empty. The store owns the connection and
// closes it on Close.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	if !IsURL(rawURL) {
		return nil, fmt.Errorf("%w: %q: %s", ErrBadURL, redact(rawURL), urlForms)
	}
	c, addrs, where, ns, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if opts.Namespace == "" {
		opts.Namespace = ns
	}
	if err := reachable(ctx, addrs, c.dialTimeout); err != nil {
		return nil, fmt.Errorf("%w: connecting to %s: %v", ErrRedis, where, err)
	}
	client := c.client()
	s, err := newStore(ctx, client, opts, where)
	if err != nil {
		client.Close()
		return nil, err
	}
	s.ownClient = true
	return s, nil
}

// clientSpec is what a store URL says about the client to make.
type clientSpec struct {
	one         *redis.Options
	cluster     *redis.ClusterOptions
	failover    *redis.FailoverOptions
	dialTimeout time.Duration
}

func (c clientSpec) client() redis.UniversalClient {
	switch {
	case c.cluster != nil:
		return redis.NewClusterClient(c.cluster)
	case c.failover != nil:
		return redis.NewFailoverClient(c.failover)
	}
	return redis.NewClient(c.one)
}

// parseURL parses a store URL into the client it names, the addresses to
// dial first, the URL without its password (for messages), and its
// namespace parameter.
func parseURL(rawURL string) (c clientSpec, addrs []string, where, ns string, err error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadURL, redact(rawURL), fmt.Sprintf(format, a...))
	}
	u, perr := url.Parse(rawURL)
	if perr != nil {
		return c, nil, "", "", bad("%v", perr)
	}
	q := u.Query()
	ns = q.Get("namespace")
	q.Del("namespace")
	u.RawQuery = q.Encode()
	where = redact(u.String())
	base, kind, _ := strings.Cut(strings.ToLower(u.Scheme), "+")
	u.Scheme = base
	if kind == "sentinel" {
		if m := q.Get("master"); m != "" {
			q.Set("master_name", m)
		}
		q.Del("master")
	}
	u.RawQuery = q.Encode()
	if u.Host == "" || u.Port() == "" {
		return c, nil, "", "", bad("no HOST:PORT; %s", urlForms)
	}
	for _, a := range q["addr"] {
		if _, port, serr := net.SplitHostPort(a); serr != nil || port == "" {
			return c, nil, "", "", bad("addr=%q is not HOST:PORT", a)
		}
	}
	switch kind {
	case "":
		if q.Has("addr") {
			return c, nil, "", "", bad("addr= names more nodes, which only redis+cluster:// and redis+sentinel:// URLs take")
		}
		if c.one, err = redis.ParseURL(u.String()); err != nil {
			return c, nil, "", "", bad("%v", err)
		}
		addrs, c.dialTimeout = []string{c.one.Addr}, c.one.DialTimeout
	case "cluster":
		if u.Path != "" && u.Path != "/" {
			return c, nil, "", "", bad("a Redis Cluster has only database 0, so the URL takes no /DB")
		}
		u.Path = ""
		if c.cluster, err = redis.ParseClusterURL(u.String()); err != nil {
			return c, nil, "", "", bad("%v", err)
		}
		addrs, c.dialTimeout = c.cluster.Addrs, c.cluster.DialTimeout
	case "sentinel":
		if c.failover, err = redis.ParseFailoverURL(u.String()); err != nil {
			return c, nil, "", "", bad("%v", err)
		}
		if c.failover.MasterName == "" {
			return c, nil, "", "", bad("no master=NAME: name the primary the Sentinels fail over")
		}
		addrs, c.dialTimeout = c.failover.SentinelAddrs, c.failover.DialTimeout
	}
	return c, addrs, where, ns, nil
}

// reachable dials the first address that answers, with the client's dial
// timeout: a server that cannot be reached fails at once, rather than
// after go-redis's retries of every dial and every command (20 dials and
// some seconds for a port where nothing listens).
func reachable(ctx context.Context, addrs []string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	d := net.Dialer{Timeout: timeout}
	var errs []error
	for _, a := range addrs {
		conn, err := d.DialContext(ctx, "tcp", a)
		if err == nil {
			return conn.Close()
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// New opens the store on a client the caller owns (one client may serve
// stores of many namespaces); Close does not close the client.
func New(ctx context.Context, c redis.UniversalClient, opts Options) (*Store, error) {
	return newStore(ctx, c, opts, "redis")
}

func newStore(ctx context.Context, c redis.UniversalClient, opts Options, where string) (*Store, error) {
	ns := opts.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	if !validNamespace(ns) {
		return nil, fmt.Errorf("redisstore: namespace %q: want 1 to 64 letters, digits, '.', '_' or '-'", ns)
	}
	s := &Store{
		c:      c,
		ns:     ns,
		prefix: "crumb:{" + ns + "}:",
		where:  where,
		now:    opts.Now,
		log:    opts.Logger,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.bufs.New = func() any { b := make([]byte, store.ChunkSize); return &b }
	if err := s.applySettings(ctx, opts); err != nil {
		return nil, err
	}
	if err := s.countTotal(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// countTotal sets the namespace's total usage, the sum of its buckets',
// when it has none (a namespace written by an earlier version of crumb,
// which counted only its legacy bucket), so that the size cap counts it
// from the first Put.
func (s *Store) countTotal(ctx context.Context) error {
	n, err := s.c.Exists(ctx, s.totalKey()).Result()
	if err != nil || n == 1 {
		return s.failIf("reading the usage", err)
	}
	bs := s.allBuckets()
	cmds := make([]*redis.StringCmd, len(bs))
	if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, b := range bs {
			cmds[i] = p.Get(ctx, b.usage())
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return s.fail("reading the usage", err)
	}
	var total int64
	for _, c := range cmds {
		u, _ := c.Int64()
		total += u
	}
	if total == 0 {
		return nil
	}
	return s.failIf("counting the usage", s.c.SetNX(ctx, s.totalKey(), total, 0).Err())
}

// failIf is fail for an error that may be nil.
func (s *Store) failIf(what string, err error) error {
	if err == nil {
		return nil
	}
	return s.fail(what, err)
}

// Redact returns a store URL with its password hidden, for messages.
func Redact(raw string) string { return redact(raw) }

// redact returns a URL with its passwords hidden: the user information's
// and a password= parameter's (a Sentinel URL's password of the primary).
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "redis URL"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// Path names the store in messages: its URL without the password, and its
// namespace.
func (s *Store) Path() string { return s.where + " (namespace " + s.ns + ")" }

// Namespace returns the store's namespace.
func (s *Store) Namespace() string { return s.ns }

// Settings returns the lifecycle settings the store applies.
func (s *Store) Settings() store.Settings {
	return store.Settings{TTL: s.ttl, MaxBytes: s.maxBytes}
}

// buckets is the number of buckets a namespace's results are spread
// over. Every bucket has a hash tag of its own, {NS:XX}, so on a Redis
// Cluster each lives in a slot of its own and the buckets of a namespace
// spread over every shard; a result and its index entries share its
// bucket's tag, so every script touches one slot.
const buckets = 128

// bucket is the key prefix of a bucket: crumb:{NS:XX}: for the buckets of
// this layout, crumb:{NS}: for the legacy one, in which a store of an
// earlier version of crumb kept every result of the namespace.
type bucket string

func (b bucket) lru() string                { return string(b) + "lru" }
func (b bucket) sizes() string              { return string(b) + "sizes" }
func (b bucket) usage() string              { return string(b) + "usage" }
func (b bucket) data(r store.Ref) string    { return string(b) + "r:" + string(r) }
func (b bucket) stage(id string) string     { return string(b) + "s:" + id }
func (s *Store) settingsKey() string        { return s.prefix + "settings" }
func (s *Store) totalKey() string           { return s.prefix + "total" }
func (s *Store) legacy() bucket             { return bucket(s.prefix) }
func (s *Store) dataKey(r store.Ref) string { return s.bucketOf(r).data(r) }

// bucketN returns bucket i of the namespace.
func (s *Store) bucketN(i int) bucket {
	return bucket(fmt.Sprintf("crumb:{%s:%02x}:", s.ns, i))
}

// bucketOf returns the bucket of ref: the one its first two hex digits
// name (a ref is a digest, so results spread evenly).
func (s *Store) bucketOf(r store.Ref) bucket {
	n, err := strconv.ParseUint(string(r[:2]), 16, 8)
	if err != nil {
		n = 0
	}
	return s.bucketN(int(n) % buckets)
}

// allBuckets returns every bucket of the namespace, the legacy one last.
func (s *Store) allBuckets() []bucket {
	out := make([]bucket, 0, buckets+1)
	for i := range buckets {
		out = append(out, s.bucketN(i))
	}
	return append(out, s.legacy())
}

// applySettings sets the lifecycle settings: those in opts, else those kept
// in the settings key, else the defaults, and keeps the given ones.
func (s *Store) applySettings(ctx context.Context, opts Options) error {
	var saved store.Settings
	data, err := s.c.Get(ctx, s.settingsKey()).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return s.fail("reading the settings", err)
	default:
		if saved, err = store.ParseSettings(data); err != nil {
			return fmt.Errorf("redisstore: settings key %s: %w; correct it or delete it to use the defaults", s.settingsKey(), err)
		}
	}
	want := saved
	if opts.TTL > 0 {
		want.TTL = opts.TTL
	}
	if opts.MaxBytes > 0 {
		want.MaxBytes = opts.MaxBytes
	}
	if want != saved {
		if err := s.c.Set(ctx, s.settingsKey(), store.MarshalSettings(want), 0).Err(); err != nil {
			return s.fail("keeping the settings", err)
		}
	}
	s.ttl, s.maxBytes = want.TTL, want.MaxBytes
	if s.ttl <= 0 {
		s.ttl = store.DefaultTTL
	}
	if s.maxBytes <= 0 {
		s.maxBytes = store.DefaultMaxBytes
	}
	return nil
}

// fail wraps an error of a Redis request. The request's error is only
// formatted, never wrapped, so that a lost connection (which go-redis may
// report as io.EOF) never reads as the end of a result.
func (s *Store) fail(what string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("redisstore: %s: %w", what, err)
	}
	return fmt.Errorf("%w: %s at %s: %v", ErrRedis, what, s.where, err)
}

// Close marks the store closed: later calls return [store.ErrClosed].
// Objects already open stay readable; a client that Open made is closed
// when the last of them is. Closing twice is not an error.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.open == 0 && s.ownClient {
		return s.c.Close()
	}
	return nil
}

func (s *Store) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return store.ErrClosed
	}
	return nil
}

// objectClosed is called when an object is closed.
func (s *Store) objectClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.open--
	if s.open == 0 && s.closed && s.ownClient {
		s.c.Close()
	}
}

// record is the JSON document in a result's "rec" field.
type record struct {
	V int `json:"v"`
	store.Info
}

// expiry is the native expiry of a result: its TTL plus the slack allowed
// between the clocks of processes, so that Redis never drops a result that
// a process still counts as live.
func (s *Store) expiry() time.Duration { return s.ttl + store.FutureSlack }

// Put streams r into the store one chunk at a time (memory stays at one
// chunk), under a staging key, and publishes the result atomically once it
// is whole. If ctx ends or r fails, Put returns the error and nothing of the
// result becomes visible.
func (s *Store) Put(ctx context.Context, r io.Reader, meta store.Meta) (store.Info, error) {
	st, err := s.stage(ctx, r, meta)
	if err != nil {
		return store.Info{}, err
	}
	return st.commit(ctx)
}

// staged is a result written under a staging key, not yet published.
type staged struct {
	s    *Store
	key  string
	info store.Info
}

func (s *Store) stage(ctx context.Context, r io.Reader, meta store.Meta) (*staged, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("store: put cancelled: %w", err)
	}
	// The chunks go to a staging key in a bucket chosen at random, as the
	// ref is known only at the end; a result of one chunk (most) is written
	// there, in its ref's bucket, and one of more is moved there at the end.
	var rnd [13]byte
	rand.Read(rnd[:])
	id := hex.EncodeToString(rnd[1:])
	st := &staged{s: s, key: s.bucketN(int(rnd[0]) % buckets).stage(id)}
	ok := false
	defer func() {
		if !ok {
			st.abort()
		}
	}()
	var (
		idx        store.Indexer
		chunks     int
		sourceSize int64
		kept       int64
		bufp       = s.bufs.Get().(*[]byte)
		buf        = *bufp
		fill       int
	)
	defer s.bufs.Put(bufp)
	write := func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("store: put cancelled: %w", err)
		}
		_, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, st.key, strconv.Itoa(chunks), buf[:fill])
			p.PExpire(ctx, st.key, stageTTL)
			return nil
		})
		if err != nil {
			return s.fail("writing a chunk", err)
		}
		chunks++
		fill = 0
		return nil
	}
	flush := func() error {
		if fill == 0 {
			return nil
		}
		idx.AddChunk(buf[:fill])
		return write()
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("store: put cancelled: %w", err)
		}
		// Past Meta.Limit the rest is read to its end and counted only.
		draining := meta.Limit > 0 && kept >= meta.Limit
		dst := buf[fill:]
		if draining {
			dst = buf
		}
		n, rerr := r.Read(dst)
		sourceSize += int64(n)
		if !draining {
			keep := int64(n)
			if meta.Limit > 0 {
				keep = min(keep, meta.Limit-kept)
			}
			fill += int(keep)
			kept += keep
			if fill == store.ChunkSize || meta.Limit > 0 && kept >= meta.Limit {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("store: reading result: %w", rerr)
		}
	}
	if fill > 0 {
		idx.AddChunk(buf[:fill])
	}
	now := s.now()
	info := store.Info{Created: now, Used: now, Meta: meta}
	idx.Fill(&info)
	info.Meta.Limit = 0
	if meta.Limit > 0 && sourceSize > info.Size {
		info.Truncated = true
		info.SourceSize = sourceSize
	}
	st.info = info
	target := s.bucketOf(info.Ref).stage(id)
	if chunks == 0 {
		st.key = target
	}
	if fill > 0 {
		if err := write(); err != nil {
			return nil, err
		}
	}
	if st.key != target {
		if err := st.move(ctx, target, chunks); err != nil {
			return nil, err
		}
	}
	ok = true
	return st, nil
}

// move copies the staged chunks to the staging key target, in the bucket
// of the result's ref, one chunk at a time, and deletes the old staging
// key: keys of two buckets may be on two shards of a cluster, which no
// RENAME spans. On one server it renames the key.
func (st *staged) move(ctx context.Context, target string, chunks int) error {
	s, src := st.s, st.key
	if _, cluster := s.c.(*redis.ClusterClient); !cluster {
		// One server holds every slot: the key moves whole.
		if err := s.c.Rename(ctx, src, target).Err(); err != nil {
			if strings.Contains(err.Error(), "no such key") {
				return fmt.Errorf("%w: storing %s: the result was lost while it was written (did Redis restart or evict it?); nothing was stored", ErrRedis, st.info.Ref)
			}
			return s.fail("moving a staged result", err)
		}
		st.key = target
		return nil
	}
	st.key = target // what abort deletes from now on
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.c.Unlink(ctx, src)
	}()
	for i := range chunks {
		field := strconv.Itoa(i)
		b, err := s.c.HGet(ctx, src, field).Bytes()
		if errors.Is(err, redis.Nil) {
			return fmt.Errorf("%w: storing %s: part of the result was lost while it was written (did Redis restart or evict it?); nothing was stored", ErrRedis, st.info.Ref)
		}
		if err != nil {
			return s.fail("moving a chunk", err)
		}
		if _, err := s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, target, field, b)
			p.PExpire(ctx, target, stageTTL)
			return nil
		}); err != nil {
			return s.fail("moving a chunk", err)
		}
	}
	return nil
}

// abort deletes the staging key; its expiry removes it if Redis cannot be
// reached now.
func (st *staged) abort() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st.s.c.Unlink(ctx, st.key)
}

// publishScript renames a complete staged result into place and records
// its use and size in its bucket, in one atomic step, and returns the
// change of the bucket's usage. It refuses a staged result that
// lacks a field (a chunk lost with a Redis restart or an eviction).
//
//	KEYS: stage, data, lru, sizes, usage
//	ARGV: chunks expected, ref, size, use time (ms), expiry (ms), record
var publishScript = redis.NewScript(`
if redis.call('hlen', KEYS[1]) ~= tonumber(ARGV[1]) or redis.call('hexists', KEYS[1], 'rec') == 1 then
  return redis.error_reply('CRUMBPARTIAL the staged result is incomplete')
end
redis.call('hset', KEYS[1], 'rec', ARGV[6])
redis.call('rename', KEYS[1], KEYS[2])
redis.call('pexpire', KEYS[2], ARGV[5])
redis.call('zadd', KEYS[3], ARGV[4], ARGV[2])
local old = tonumber(redis.call('hget', KEYS[4], ARGV[2]) or '0')
redis.call('hset', KEYS[4], ARGV[2], ARGV[3])
redis.call('incrby', KEYS[5], tonumber(ARGV[3]) - old)
return tonumber(ARGV[3]) - old
`)

// commit publishes the staged result, then evicts if the namespace went
// over its size cap.
func (st *staged) commit(ctx context.Context) (store.Info, error) {
	s := st.s
	info := st.info
	b := s.bucketOf(info.Ref)
	key := b.data(info.Ref)
	published := false
	defer func() {
		if !published {
			st.abort()
		}
	}()
	// Keep the creation time of a live result of the same content.
	old, oldIn, err := s.lookup(ctx, info.Ref)
	if err == nil && old.Digest == info.Digest && old.Created.Before(info.Created) {
		info.Created = old.Created
	} else if err != nil && errors.Is(err, ErrRedis) {
		return store.Info{}, err
	}
	data, err := json.Marshal(record{V: recordVersion, Info: info})
	if err != nil {
		return store.Info{}, fmt.Errorf("store: writing result: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return store.Info{}, fmt.Errorf("store: put cancelled: %w", err)
	}
	delta, err := publishScript.Run(ctx, s.c,
		[]string{st.key, key, b.lru(), b.sizes(), b.usage()},
		len(info.Chunks), string(info.Ref), info.Size, info.Used.UnixMilli(), s.expiry().Milliseconds(), data).Int64()
	if err != nil {
		if strings.Contains(err.Error(), "CRUMBPARTIAL") {
			return store.Info{}, fmt.Errorf("%w: storing %s: part of the result was lost while it was written (did Redis restart or evict it?); nothing was stored", ErrRedis, info.Ref)
		}
		return store.Info{}, s.fail("publishing a result", err)
	}
	published = true
	usage, err := s.c.IncrBy(ctx, s.totalKey(), delta).Result()
	if err != nil {
		s.log.Warn("redisstore: counting the namespace's usage failed (the next GC recounts it)", "namespace", s.ns, "err", err)
	}
	if oldIn == s.legacy() {
		// Stored again in this layout: the legacy copy goes.
		if freed, err := s.remove(ctx, oldIn, info.Ref, ""); err == nil {
			usage -= max(0, freed)
		}
	}
	if usage > s.maxBytes {
		if _, err := s.evict(ctx, s.maxBytes-s.maxBytes/8, info.Ref, nil); err != nil {
			s.log.Warn("redisstore: eviction over the size cap failed", "namespace", s.ns, "err", err)
		}
	}
	return info, nil
}
