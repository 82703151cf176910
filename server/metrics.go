package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/store"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg        *prometheus.Registry
	handler    http.Handler
	kept       *prometheus.CounterVec
	bytesOut   *prometheus.CounterVec
	tokensOut  *prometheus.CounterVec
	views      *prometheus.CounterVec
	reads      *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	storeBytes *prometheus.Desc
	storeCount *prometheus.Desc
	s          *Server
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), s: s}
	ns := []string{"namespace"}
	m.kept = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crumb_results_kept_total", Help: "Results stored exactly and shown as a projection."}, ns)
	m.bytesOut = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crumb_bytes_kept_out_total", Help: "Bytes of results kept out of context: each stored result's size less its view's."}, ns)
	m.tokensOut = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crumb_tokens_kept_out_total", Help: "Tokens of results kept out of context: each stored result's tokens less its view's (results whose tokens were counted or estimated)."}, ns)
	m.views = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crumb_views_total", Help: "Views answered, by output: exact, projected, summarized or fallback."}, []string{"namespace", "output"})
	m.reads = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "crumb_reads_total", Help: "Reads of stored results, by mode: lines, bytes, pointer, query, grep or raw."}, []string{"namespace", "mode"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "crumb_http_request_duration_seconds", Help: "Time to answer a request, by route and status code.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route", "code"})
	m.storeBytes = prometheus.NewDesc("crumb_store_bytes", "Bytes of the results a namespace's store holds.", ns, nil)
	m.storeCount = prometheus.NewDesc("crumb_store_results", "Results a namespace's store holds.", ns, nil)
	m.reg.MustRegister(m.kept, m.bytesOut, m.tokensOut, m.views, m.reads, m.latency, m,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

// Describe and Collect make the store sizes a collector: they are measured
// when scraped, for every namespace used since the server started.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.storeBytes
	ch <- m.storeCount
}

// usager is a store that counts what it holds cheaply (the disk store).
type usager interface {
	Usage(ctx context.Context) (store.Usage, error)
}

func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ns, st := range m.s.openStores() {
		var n int
		var size int64
		if u, ok := st.(usager); ok {
			us, err := u.Usage(ctx)
			if err != nil {
				continue
			}
			n, size = us.Results, us.ResultBytes
		} else {
			infos, err := st.List(ctx)
			if err != nil {
				continue
			}
			for _, in := range infos {
				n, size = n+1, size+in.Size
			}
		}
		ch <- prometheus.MustNewConstMetric(m.storeBytes, prometheus.GaugeValue, float64(size), ns)
		ch <- prometheus.MustNewConstMetric(m.storeCount, prometheus.GaugeValue, float64(n), ns)
	}
}

func (m *metrics) observe(route string, code int, d time.Duration) {
	if code == 0 {
		code = http.StatusOK
	}
	m.latency.WithLabelValues(route, strconv.Itoa(code)).Observe(d.Seconds())
}

// projected counts a view.
func (m *metrics) projected(ns string, v *crumb.View) {
	rc := v.Receipt
	m.views.WithLabelValues(ns, rc.Output).Inc()
	if !rc.Stored {
		return
	}
	m.kept.WithLabelValues(ns).Inc()
	if out := rc.Bytes - int64(rc.ViewBytes); out > 0 {
		m.bytesOut.WithLabelValues(ns).Add(float64(out))
	}
	if rc.Tokens != nil {
		if out := *rc.Tokens - rc.ViewTokens; out > 0 {
			m.tokensOut.WithLabelValues(ns).Add(float64(out))
		}
	}
}

func (m *metrics) read(ns, mode string) { m.reads.WithLabelValues(ns, mode).Inc() }

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request, c *call) error {
	s.metrics.handler.ServeHTTP(w, r)
	return nil
}
