# go.sh: command cases from the Go toolchain, on throwaway modules with
# failures put in on purpose. Sourced by make.sh.

# gomod NAME MODULE: a fresh module directory.
gomod() {
	fresh "$1"
	go mod init "$2" >/dev/null 2>&1
}

# ------------------------------------------------ go build: compile errors
if selected command-go-build-errors; then
	gomod go-build-errors example.com/ledger
	mkdir -p money store api
	cat >money/money.go <<'EOF'
// Package money holds amounts in minor units.
package money

import "fmt"

// Amount is an amount of money in cents.
type Amount struct {
	Cents    int64
	Currency string
}

// Add returns a + b; both must be in the same currency.
func (a Amount) Add(b Amount) (Amount, error) {
	if a.Currency != b.Currency {
		return Amount{}, fmt.Errorf("money: adding %s to %s", b.Currency, a.Currency)
	}
	return Amount{Cents: a.Cents + b.Cents, Currency: a.Currency}, nil
}

// String formats an amount as 12.34 EUR.
func (a Amount) String() string {
	return fmt.Sprintf("%d.%02d %s", a.Cents/100, a.Cents%100, a.Currency)
}
EOF
	cat >store/store.go <<'EOF'
// Package store keeps account balances.
package store

import (
	"errors"
	"sync"

	"example.com/ledger/money"
)

// ErrNoAccount is returned for an unknown account.
var ErrNoAccount = errors.New("store: no such account")

// Store maps account ids to balances.
type Store struct {
	mu       sync.Mutex
	balances map[string]money.Amount
}

// New returns an empty store.
func New() *Store { return &Store{balances: map[string]money.Amount{}} }

// Credit adds an amount to an account.
func (s *Store) Credit(id string, amt money.Amount) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bal, ok := s.balances[id]
	if !ok {
		return ErrNoAccount
	}
	s.balances[id] = bal.Add(amt)
	return nil
}

// Debit takes an amount from an account.
func (s *Store) Debit(id string, amt money.Amount) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bal := s.balances[id]
	if bal.Minor < amt.Minor {
		return errors.New("store: insufficient funds")
	}
	s.balances[id] = money.Amount{Cents: bal.Cents - amt.Cents, Currency: bal.Currency}
	return nil
}

// Total sums every balance in one currency.
func (s *Store) Total(currency string) money.Amount {
	total := money.Amount{Currency: currency}
	for _, b := range s.balances {
		if b.Currency == currency {
			total, _ = total.Add(b)
		}
	}
	return total.Cents
}
EOF
	cat >api/api.go <<'EOF'
// Package api serves balances over HTTP.
package api

import (
	"encoding/json"
	"net/http"

	"example.com/ledger/store"
)

// Handler serves GET /balance?id=ID.
func Handler(s *store.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		bal, err := s.Balance(id)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(bal)
	})
}
EOF
	needle 'store/store.go:31:19: assignment mismatch: 1 variable but bal.Add returns 2 values' 'the first compile error, at file:line:col: Add now returns an error too'
	needle 'store/store.go:40:9: bal.Minor undefined (type money.Amount has no field or method Minor)' 'the renamed field, at file:line:col'
	needle_re 'store/store\.go:\d+:\d+: cannot use total\.Cents \(variable of type int64\) as money\.Amount value in return statement' 'the last error: Total returns the wrong type'
	cmd_case go-build-errors 'go build ./...' 'Build all packages'
fi

# ------------------------------------------------------------ go vet: findings
if selected command-go-vet; then
	gomod go-vet example.com/notify
	mkdir -p mail queue web
	cat >mail/mail.go <<'EOF'
// Package mail formats and sends notification mail.
package mail

import (
	"context"
	"fmt"
	"log"
	"time"
)

// Message is one notification.
type Message struct {
	To      string `json:"to"`
	Subject string `json:"subject,omitempty"`
	Retries int    `json:retries`
}

// Send pretends to send m, giving up after the context's deadline.
func Send(parent context.Context, m Message) error {
	ctx, _ := context.WithTimeout(parent, 5*time.Second)
	log.Printf("sending %d to %s", m.Subject, m.To)
	select {
	case <-ctx.Done():
		return ctx.Err()
	default:
	}
	fmt.Sprintf("sent %s", m.Subject)
	return nil
}
EOF
	cat >queue/queue.go <<'EOF'
// Package queue holds messages waiting to be sent.
package queue

import "sync"

// Queue is a FIFO of message ids.
type Queue struct {
	mu  sync.Mutex
	ids []string
}

// Snapshot returns a copy of q for reporting.
func Snapshot(q Queue) Queue { return q }

// Len reports the number of waiting messages.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.ids)
	panic("unreachable")
}

// Push adds an id.
func (q *Queue) Push(id string) {
	q.mu.Lock()
	q.ids = append(q.ids, id)
	q.mu.Unlock()
	if id == id {
		return
	}
}
EOF
	cat >web/web.go <<'EOF'
// Package web exposes the queue.
package web

import (
	"fmt"
	"net/http"
)

// Status writes the queue length.
func Status(w http.ResponseWriter, n int) {
	fmt.Fprintf(w, "waiting: %s\n", n)
	fmt.Println("status served", w)
	var err error
	if err != nil {
		fmt.Errorf("status: %v", err)
	}
}
EOF
	needle 'mail/mail.go:20:7: the cancel function returned by context.WithTimeout should be called, not discarded, to avoid a context leak' 'a context leak at file:line:col'
	needle_re 'mail/mail\.go:\d+:\d+: log\.Printf format %d has arg m\.Subject of wrong type string' 'a printf finding at file:line:col'
	needle_re 'queue/queue\.go:\d+:\d+: Snapshot passes lock by value: .*' 'the copylocks finding'
	needle_re 'queue/queue\.go:\d+:\d+: unreachable code' 'the unreachable statement'
	needle_re 'web/web\.go:\d+:\d+: fmt\.Fprintf format %s has arg n of wrong type int' 'a finding in the last package'
	cmd_case go-vet 'go vet ./...' 'Run go vet on all packages'
fi

# ------------------------------------- go test -v: one failure deep inside
if selected command-go-test-v-deep-fail; then
	gomod go-test-v-deep-fail example.com/geo
	mkdir -p coord parse distance
	cat >coord/coord.go <<'EOF'
// Package coord holds points on a sphere.
package coord

import "math"

// Point is a latitude and longitude in degrees.
type Point struct{ Lat, Lon float64 }

// EarthRadiusKm is the mean radius of the Earth.
const EarthRadiusKm = 6371.0

// Haversine returns the great-circle distance between a and b in km.
func Haversine(a, b Point) float64 {
	rad := math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLon := (b.Lon - a.Lon) * rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * EarthRadiusKm * math.Asin(math.Sqrt(h))
}
EOF
	{
		printf 'package coord\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
		printf 'func TestHaversineGrid(t *testing.T) {\n\tfor lat := -80; lat <= 80; lat += 4 {\n\t\tfor lon := -170; lon <= 170; lon += 20 {\n'
		printf '\t\t\tt.Run(fmt.Sprintf("lat=%%d/lon=%%d", lat, lon), func(t *testing.T) {\n'
		printf '\t\t\t\tp := Point{float64(lat), float64(lon)}\n\t\t\t\tif d := Haversine(p, p); d != 0 {\n\t\t\t\t\tt.Errorf("distance to itself = %%v", d)\n\t\t\t\t}\n'
		printf '\t\t\t\tt.Logf("checked %%v", p)\n\t\t\t})\n\t\t}\n\t}\n}\n'
	} >coord/coord_test.go
	cat >parse/parse.go <<'EOF'
// Package parse reads "lat,lon" pairs.
package parse

import (
	"fmt"
	"strconv"
	"strings"

	"example.com/geo/coord"
)

// Point parses "52.52,13.405".
func Point(s string) (coord.Point, error) {
	a, b, ok := strings.Cut(s, ",")
	if !ok {
		return coord.Point{}, fmt.Errorf("parse: %q: want lat,lon", s)
	}
	lat, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil {
		return coord.Point{}, fmt.Errorf("parse: latitude: %w", err)
	}
	lon, err := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err != nil {
		return coord.Point{}, fmt.Errorf("parse: longitude: %w", err)
	}
	return coord.Point{Lat: lat, Lon: lon}, nil
}
EOF
	{
		printf 'package parse\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
		printf 'func TestPointRoundTrip(t *testing.T) {\n\tfor i := 0; i < 600; i++ {\n\t\tlat, lon := float64(i%%180-90)+0.25, float64(i%%360-180)+0.5\n'
		printf '\t\tt.Run(fmt.Sprintf("case_%%03d", i), func(t *testing.T) {\n\t\t\ts := fmt.Sprintf("%%g,%%g", lat, lon)\n'
		printf '\t\t\tp, err := Point(s)\n\t\t\tif err != nil || p.Lat != lat || p.Lon != lon {\n\t\t\t\tt.Fatalf("Point(%%q) = %%v, %%v", s, p, err)\n\t\t\t}\n\t\t})\n\t}\n}\n'
	} >parse/parse_test.go
	cat >distance/distance.go <<'EOF'
// Package distance measures routes between cities.
package distance

import "example.com/geo/coord"

// Cities are the places routes go through.
var Cities = map[string]coord.Point{
	"berlin":    {52.5200, 13.4050},
	"paris":     {48.8566, 2.3522},
	"madrid":    {40.4168, -3.7038},
	"rome":      {41.9028, 12.4964},
	"vienna":    {48.2082, 16.3738},
	"warsaw":    {52.2297, 21.0122},
	"amsterdam": {52.3676, 4.9041},
	"lisbon":    {38.7223, -9.1393},
	"prague":    {50.0755, 14.4378},
	"oslo":      {59.9139, 10.7522},
}

// Length sums the legs of a route through the named cities, rounding each
// leg to whole kilometres.
func Length(names ...string) float64 {
	total := 0.0
	for i := 1; i < len(names); i++ {
		total += float64(int(coord.Haversine(Cities[names[i-1]], Cities[names[i]])))
	}
	return total
}
EOF
	cat >distance/distance_test.go <<'EOF'
package distance

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"example.com/geo/coord"
)

func TestLegs(t *testing.T) {
	var names []string
	for n := range Cities {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, a := range names {
		for _, b := range names {
			if a == b {
				continue
			}
			t.Run(a+"_to_"+b, func(t *testing.T) {
				want := coord.Haversine(Cities[a], Cities[b])
				got := Length(a, b)
				t.Logf("%s -> %s: %.1f km", a, b, got)
				if math.Abs(got-want) > 1 {
					t.Errorf("Length(%q, %q) = %.1f km, want %.1f km (±1)", a, b, got, want)
				}
			})
		}
	}
}

func TestTour(t *testing.T) {
	tours := [][]string{
		{"lisbon", "madrid", "paris", "amsterdam", "berlin", "warsaw"},
		{"rome", "vienna", "prague", "berlin", "oslo"},
		{"paris", "berlin", "vienna", "rome", "madrid", "lisbon", "paris"},
	}
	for i, tour := range tours {
		t.Run(fmt.Sprintf("tour_%d", i), func(t *testing.T) {
			exact := 0.0
			for j := 1; j < len(tour); j++ {
				exact += coord.Haversine(Cities[tour[j-1]], Cities[tour[j]])
			}
			got := Length(tour...)
			t.Logf("tour %v: %.1f km (exact %.1f km)", tour, got, exact)
			if math.Abs(got-exact) > 2.6 {
				t.Errorf("Length(%v) = %.1f km, want %.1f km (±2.6): legs are truncated, not rounded", tour, got, exact)
			}
		})
	}
}
EOF
	needle '--- FAIL: TestTour/tour_2' 'the failing subtest, deep in a long -v run'
	needle_re 'distance_test\.go:\d+: Length\(\[paris berlin vienna rome madrid lisbon paris\]\) = [0-9.]+ km, want [0-9.]+ km \(±2\.6\): legs are truncated, not rounded' 'its assertion message at file:line: the cause of the bug'
	needle '--- FAIL: TestTour (' 'the failing top-level test'
	needle_re 'FAIL\texample\.com/geo/distance\t' 'the package that failed, in the middle of the run'
	needle_re 'ok  \texample\.com/geo/parse\t' 'the package after it passed: the failure is isolated'
	cmd_case go-test-v-deep-fail 'go test -v ./...' 'Run all tests verbosely'
fi

# --------------------------------------- go test: a panic in a nested call
if selected command-go-test-panic; then
	gomod go-test-panic example.com/kv
	mkdir -p cache
	cat >cache/shard.go <<'EOF'
// Package cache is a sharded LRU cache.
package cache

import (
	"container/list"
	"hash/fnv"
)

// Cache spreads keys over shards.
type Cache struct {
	shards []*shard
}

type shard struct {
	cap   int
	order *list.List
	items map[string]*list.Element
}

type entry struct {
	key string
	val []byte
}

// New returns a cache of n shards holding at most per items each.
func New(n, per int) *Cache {
	c := &Cache{}
	for i := 0; i < n; i++ {
		c.shards = append(c.shards, &shard{cap: per, order: list.New()})
	}
	return c
}

func (c *Cache) shardFor(key string) *shard {
	h := fnv.New32a()
	h.Write([]byte(key))
	return c.shards[h.Sum32()%uint32(len(c.shards))]
}

// Get returns the value of key.
func (c *Cache) Get(key string) ([]byte, bool) {
	s := c.shardFor(key)
	if el, ok := s.items[key]; ok {
		s.order.MoveToFront(el)
		return el.Value.(*entry).val, true
	}
	return nil, false
}

// Put stores a value.
func (c *Cache) Put(key string, val []byte) {
	c.shardFor(key).put(key, val)
}

func (s *shard) put(key string, val []byte) {
	if el, ok := s.items[key]; ok {
		el.Value.(*entry).val = val
		s.order.MoveToFront(el)
		return
	}
	s.items[key] = s.order.PushFront(&entry{key, val})
	if s.order.Len() > s.cap {
		s.evict()
	}
}

func (s *shard) evict() {
	el := s.order.Back()
	s.order.Remove(el)
	delete(s.items, el.Value.(*entry).key)
}
EOF
	{
		printf 'package cache\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
		printf 'func TestEmpty(t *testing.T) {\n\tfor i := 0; i < 150; i++ {\n\t\tt.Run(fmt.Sprintf("miss_%%03d", i), func(t *testing.T) {\n'
		printf '\t\t\tc := New(4, 8)\n\t\t\tif _, ok := c.Get(fmt.Sprint("k", i)); ok {\n\t\t\t\tt.Fatal("hit in an empty cache")\n\t\t\t}\n\t\t})\n\t}\n}\n\n'
		printf 'func TestPutGet(t *testing.T) {\n\tc := New(4, 8)\n\tc.Put("a", []byte("1"))\n\tif v, ok := c.Get("a"); !ok || string(v) != "1" {\n\t\tt.Fatalf("Get(a) = %%q, %%v", v, ok)\n\t}\n}\n'
	} >cache/cache_test.go
	needle 'panic: assignment to entry in nil map' 'the panic message'
	needle '--- FAIL: TestPutGet' 'the test that panicked'
	needle_re '/tmp/crumb-corpus/work/go-test-panic/cache/shard\.go:\d+' 'the first frame in our code, at file:line: shard.put writes to a map New never made'
	needle_re 'FAIL\texample\.com/kv/cache\t' 'the package that failed'
	cmd_case go-test-panic 'go test -v ./...' 'Run the cache tests verbosely'
fi

# ------------------------------------------ go run: a deadlocked worker pool
if selected command-go-run-deadlock; then
	gomod go-run-deadlock example.com/thumbs
	cat >main.go <<'EOF'
// Command thumbs resizes images with a pool of workers.
package main

import (
	"fmt"
	"sync"
)

type job struct{ id, size int }
type result struct{ id, bytes int }

func worker(id int, jobs <-chan job, results chan<- result, wg *sync.WaitGroup) {
	defer wg.Done()
	for j := range jobs {
		results <- result{j.id, j.size / 4}
	}
}

func main() {
	jobs := make(chan job)
	results := make(chan result)
	var wg sync.WaitGroup
	for i := 0; i < 48; i++ {
		wg.Add(1)
		go worker(i, jobs, results, &wg)
	}
	go func() {
		for i := 0; i < 200; i++ {
			jobs <- job{i, 1000 + i}
		}
		close(jobs)
	}()
	wg.Wait()
	close(results)
	total := 0
	for r := range results {
		total += r.bytes
	}
	fmt.Println("resized", total, "bytes")
}
EOF
	needle 'fatal error: all goroutines are asleep - deadlock!' 'why the program stopped'
	needle 'goroutine 1 [sync.WaitGroup.Wait]:' 'main is stuck waiting on the WaitGroup'
	needle '/tmp/crumb-corpus/work/go-run-deadlock/main.go:33 +0x' 'the line main waits at: results are never read before Wait'
	needle '/tmp/crumb-corpus/work/go-run-deadlock/main.go:15 +0x' 'where the workers are blocked: sending results nobody reads yet'
	needle 'exit status 2' 'the exit status go run reports'
	cmd_case go-run-deadlock 'go run .' 'Run the thumbnail resizer'
fi

# ---------------------------------------------------- go test -race: a race
if selected command-go-test-race; then
	gomod go-test-race example.com/hits
	mkdir -p counter
	cat >counter/counter.go <<'EOF'
// Package counter counts page hits.
package counter

import "sync"

// Counter counts hits per path.
type Counter struct {
	mu    sync.Mutex
	hits  map[string]int
	total int
}

// New returns an empty counter.
func New() *Counter { return &Counter{hits: map[string]int{}} }

// Hit records one hit of path.
func (c *Counter) Hit(path string) {
	c.mu.Lock()
	c.hits[path]++
	c.mu.Unlock()
	c.total++
}

// Total returns the number of hits.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}
EOF
	cat >counter/counter_test.go <<'EOF'
package counter

import (
	"fmt"
	"sync"
	"testing"
)

func TestSequential(t *testing.T) {
	c := New()
	for i := 0; i < 100; i++ {
		c.Hit(fmt.Sprint("/page/", i%7))
	}
	if c.Total() != 100 {
		t.Fatalf("Total = %d", c.Total())
	}
}

func TestConcurrentHits(t *testing.T) {
	c := New()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				c.Hit(fmt.Sprint("/page/", i%13))
			}
		}()
	}
	wg.Wait()
	if got := c.Total(); got != 4000 {
		t.Errorf("Total = %d, want 4000", got)
	}
}
EOF
	mkdir -p agg
	printf 'package agg\n\n// Sum adds xs.\nfunc Sum(xs ...int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n' >agg/agg.go
	{
		printf 'package agg\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n'
		printf 'func TestSumWindows(t *testing.T) {\n\tfor w := 1; w <= 250; w++ {\n\t\tt.Run(fmt.Sprintf("window_%%03d", w), func(t *testing.T) {\n'
		printf '\t\t\txs := make([]int, w)\n\t\t\tfor i := range xs {\n\t\t\t\txs[i] = i\n\t\t\t}\n\t\t\tgot := Sum(xs...)\n\t\t\tt.Logf("sum of %%d hits = %%d", w, got)\n'
		printf '\t\t\tif got != w*(w-1)/2 {\n\t\t\t\tt.Errorf("Sum = %%d", got)\n\t\t\t}\n\t\t})\n\t}\n}\n'
	} >agg/agg_test.go
	needle 'WARNING: DATA RACE' 'the race detector fired'
	needle '/tmp/crumb-corpus/work/go-test-race/counter/counter.go:21 +0x' 'the racy access, at file:line: total is incremented outside the lock'
	needle_re 'testing\.go:\d+: race detected during execution of test' 'the test failed because of the race'
	needle '--- FAIL: TestConcurrentHits' 'the test that raced'
	needle_re 'FAIL\texample\.com/hits/counter\t' 'the package that failed'
	cmd_case go-test-race 'go test -race -v ./...' 'Run the tests with the race detector'
fi

# ------------------------------------------------ go test: a test that hangs
if selected command-go-test-timeout; then
	gomod go-test-timeout example.com/jobs
	mkdir -p queue
	cat >queue/queue.go <<'EOF'
// Package queue runs jobs on a fixed pool of workers.
package queue

import "sync"

// Queue runs funcs on workers.
type Queue struct {
	work chan func()
	done sync.WaitGroup
	wg   sync.WaitGroup
}

// New starts n workers.
func New(n int) *Queue {
	q := &Queue{work: make(chan func())}
	for i := 0; i < n; i++ {
		q.wg.Add(1)
		go q.loop()
	}
	return q
}

func (q *Queue) loop() {
	defer q.wg.Done()
	for f := range q.work {
		f()
		q.done.Done()
	}
}

// Submit queues f.
func (q *Queue) Submit(f func()) {
	q.done.Add(1)
	go func() { q.work <- f }()
}

// Drain waits for every submitted func, then stops the workers.
func (q *Queue) Drain() {
	q.wg.Wait()
	close(q.work)
	q.done.Wait()
}
EOF
	cat >queue/queue_test.go <<'EOF'
package queue

import (
	"sync/atomic"
	"testing"
)

func TestSubmit(t *testing.T) {
	q := New(4)
	var n atomic.Int64
	for i := 0; i < 10; i++ {
		q.Submit(func() { n.Add(1) })
	}
	for n.Load() < 10 {
	}
}

func TestDrainQueue(t *testing.T) {
	q := New(32)
	var n atomic.Int64
	for i := 0; i < 100; i++ {
		q.Submit(func() { n.Add(1) })
	}
	q.Drain()
	if n.Load() != 100 {
		t.Fatalf("ran %d jobs, want 100", n.Load())
	}
}
EOF
	needle 'panic: test timed out after 5s' 'the run timed out'
	needle 'TestDrainQueue (5s)' 'the test that was running when it did'
	needle_re 'example\.com/jobs/queue\.\(\*Queue\)\.Drain\(.*\)' 'the frame it hangs in: Drain waits for the workers before closing their channel'
	needle '/tmp/crumb-corpus/work/go-test-timeout/queue/queue.go:39 +0x' 'the line it hangs at: q.wg.Wait() before close(q.work)'
	needle_re 'FAIL\texample\.com/jobs/queue\t' 'the package that failed'
	cmd_case go-test-timeout 'go test -timeout 5s ./...' 'Run the tests with a 5s timeout'
fi

# ------------------------------------------------- go test: all pass (small)
if selected command-go-test-pass; then
	gomod go-test-pass example.com/tiny
	for p in alpha beta gamma; do
		mkdir -p "$p"
		printf 'package %s\n\n// Twice doubles n.\nfunc Twice(n int) int { return 2 * n }\n' "$p" >"$p/$p.go"
		printf 'package %s\n\nimport "testing"\n\nfunc TestTwice(t *testing.T) {\n\tif Twice(3) != 6 {\n\t\tt.Fatal("Twice(3) != 6")\n\t}\n}\n' "$p" >"$p/${p}_test.go"
	done
	mkdir -p cmd/tiny
	printf 'package main\n\nfunc main() {}\n' >cmd/tiny/main.go
	needle_re 'ok  \texample\.com/tiny/gamma\t' 'the last package passed'
	needle '?   	example.com/tiny/cmd/tiny	[no test files]' 'a package with no tests'
	cmd_case go-test-pass 'go test ./...' 'Run all tests'
fi
