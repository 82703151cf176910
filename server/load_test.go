package server_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

// TestLoad runs 100 concurrent clients against a server on loopback for 30
// seconds, projecting results and reading them back (pages, searches and
// raw bytes), then reads every stored result once more: zero errors, zero
// lost and zero corrupt results. It is off unless CRUMB_LOAD=1;
// CRUMB_LOAD_CLIENTS and CRUMB_LOAD_DURATION change its size, and
// CRUMB_LOAD_NOSYNC=1 runs it over a store that skips fsync.
func TestLoad(t *testing.T) {
	if os.Getenv("CRUMB_LOAD") != "1" {
		t.Skip("set CRUMB_LOAD=1 to run the load test")
	}
	clients, dur := 100, 30*time.Second
	if v := os.Getenv("CRUMB_LOAD_CLIENTS"); v != "" {
		clients, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("CRUMB_LOAD_DURATION"); v != "" {
		dur, _ = time.ParseDuration(v)
	}
	var tok server.Tokens
	tok.ParseTokens("load-a:a,load-b:b")
	opts := server.Options{Tokens: &tok}
	if os.Getenv("CRUMB_LOAD_NOSYNC") == "1" {
		// Without fsync: what the server costs, apart from the disk.
		opts.Open = server.DirOpener(t.TempDir(), store.DirOptions{NoSync: true})
	}
	ts := newServer(t, opts)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}

	type stored struct {
		ref, token string
		sum        [32]byte
		size       int
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      []string
		all       []stored
		requests  int
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
		mu.Unlock()
	}
	do := func(method, path, token string, body []byte) (int, []byte, time.Duration, error) {
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, b, time.Since(start), err
	}
	cpu0 := cpuTime()
	stop := time.Now().Add(dur)
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			token := []string{"load-a", "load-b"}[c%2]
			var mine []stored
			var lat []time.Duration
			n := 0
			for i := 0; time.Now().Before(stop); i++ {
				var (
					status int
					b      []byte
					d      time.Duration
					err    error
					what   string
				)
				switch op := rng.IntN(10); {
				case op < 4 || len(mine) == 0:
					var body bytes.Buffer
					lines := 1 + rng.IntN(8000)
					for l := 1; l <= lines; l++ {
						fmt.Fprintf(&body, "client %d result %d line %d value %d\n", c, i, l, rng.Int())
					}
					what = "POST /v1/results"
					status, b, d, err = do("POST", "/v1/results?kind=text&budget=500", token, body.Bytes())
					if err == nil && status == 200 {
						var v struct {
							View    string
							Ref     string
							Receipt struct{ Bytes int }
						}
						if jerr := json.Unmarshal(b, &v); jerr != nil || v.Receipt.Bytes != body.Len() {
							fail("%s: bad view (%v) for %d bytes: %.200s", what, jerr, body.Len(), b)
						} else if v.Ref == "" && v.View != body.String() {
							fail("%s: a small result did not pass through", what)
						} else if v.Ref != "" {
							mine = append(mine, stored{v.Ref, token, sha256.Sum256(body.Bytes()), body.Len()})
						}
					}
				case op < 7:
					s := mine[rng.IntN(len(mine))]
					what = "GET raw"
					status, b, d, err = do("GET", "/v1/results/"+s.ref+"/raw", token, nil)
					if err == nil && status == 200 && sha256.Sum256(b) != s.sum {
						fail("%s %s: %d bytes that are not the stored ones", what, s.ref, len(b))
					}
				case op < 9:
					s := mine[rng.IntN(len(mine))]
					what = "GET page"
					status, b, d, err = do("GET", "/v1/results/"+s.ref+"?lines=2:", token, nil)
					if err == nil && status == 200 && !bytes.Contains(b, []byte(fmt.Sprintf("client %d result", c))) {
						fail("%s %s: the page is not the result's: %.200s", what, s.ref, b)
					}
				default:
					s := mine[rng.IntN(len(mine))]
					what = "GET grep"
					status, b, d, err = do("GET", "/v1/results/"+s.ref+"/grep?pattern=line+1[0-9]+value&max=5", token, nil)
				}
				n++
				if err != nil || status != 200 {
					fail("%s: %v %d %.200s", what, err, status, b)
					continue
				}
				lat = append(lat, d)
			}
			mu.Lock()
			latencies = append(latencies, lat...)
			all = append(all, mine...)
			requests += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	cpu := cpuTime() - cpu0
	elapsed := dur
	// Every stored result reads back exactly: none lost, none corrupt.
	lost, corrupt := 0, 0
	for _, s := range all {
		status, b, _, err := do("GET", "/v1/results/"+s.ref+"/raw", s.token, nil)
		switch {
		case err != nil || status == 404:
			lost++
		case status != 200 || len(b) != s.size || sha256.Sum256(b) != s.sum:
			corrupt++
		}
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(q*float64(len(latencies))))]
	}
	t.Logf("%d clients, %s: %d requests, %.0f requests/s; latency p50 %s, p99 %s, max %s; %d results stored and read back: %d lost, %d corrupt; %d errors; CPU %s (%s a request, clients included)",
		clients, dur, requests, float64(requests)/elapsed.Seconds(), p(0.5).Round(time.Microsecond), p(0.99).Round(time.Microsecond), p(1).Round(time.Microsecond), len(all), lost, corrupt, len(errs),
		cpu.Round(time.Millisecond), (cpu / time.Duration(max(requests, 1))).Round(time.Microsecond))
	for _, e := range errs {
		t.Error(e)
	}
	if lost+corrupt > 0 {
		t.Errorf("%d results lost, %d corrupt", lost, corrupt)
	}
}
