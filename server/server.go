// Package server is crumb's HTTP sidecar: JSON over HTTP for agents written
// in any language, and for fleets of workers that share one store.
//
// A client posts a tool result's raw bytes to /v1/results and gets back the
// view a model should see, exactly as "crumb project --json" prints it; it
// reads the rest with the continuation each view and page carries, either
// by its crumb command line ("argv") or by its HTTP request ("http"). The
// routes, their parameters and their answers are described by the OpenAPI
// document the server serves at /openapi.json ([OpenAPI]).
//
// # Namespaces and authentication
//
// Every bearer token is bound to a namespace, and every namespace has a
// store of its own (see [Opener]): a ref stored in one namespace reads as
// missing from every other. A server given no tokens serves everyone in the
// namespace [DefaultNamespace]; it is meant for a loopback address only.
//
// # Errors
//
// Every error is answered as {"error": {"code", "message", "hint"}}, with a
// stable code a client may branch on (see [CodeMissing] and the others).
package server

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/store"
)

// OpenAPI is the OpenAPI 3.1 document of the API, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

// DefaultNamespace is the namespace of every request to a server that has
// no tokens.
const DefaultNamespace = "default"

// Defaults for a zero Options.
const (
	DefaultMaxResult       = 1 << 30
	DefaultMaxRequest      = 64 << 20
	DefaultReadTimeout     = 10 * time.Minute
	DefaultWriteTimeout    = 10 * time.Minute
	DefaultHeaderTimeout   = 10 * time.Second
	DefaultIdleTimeout     = 2 * time.Minute
	DefaultShutdownTimeout = 30 * time.Second
)

// Opener opens the store of a namespace. The server calls it once per
// namespace, the first time a request uses it, and closes the store (when it
// is an io.Closer) on Close. Each namespace must get a store of its own: a
// ref stored in one must not be readable from another.
type Opener func(namespace string) (store.Store, error)

// DirOpener returns an Opener of disk stores, one directory per namespace
// under root (root/NAMESPACE), each opened with opts.
func DirOpener(root string, opts store.DirOptions) Opener {
	return func(ns string) (store.Store, error) {
		if !ValidNamespace(ns) {
			return nil, fmt.Errorf("server: bad namespace %q", ns)
		}
		if err := os.MkdirAll(root, 0o700); err != nil {
			return nil, fmt.Errorf("server: creating the store directory: %w", err)
		}
		return store.OpenDir(filepath.Join(root, ns), opts)
	}
}

// Options configures a Server.
type Options struct {
	// Open opens the store of each namespace. It is required.
	Open Opener
	// Tokens are the bearer tokens that may use the API, each bound to a
	// namespace. Nil or empty serves every request, unauthenticated, in
	// DefaultNamespace.
	Tokens *Tokens
	// Budget is the view budget when a request gives none. Zero means
	// crumb.DefaultBudget.
	Budget int
	// PageBudget is the page budget of a read or a search that gives
	// none, whatever the budget its view had. Zero means
	// crumb.DefaultPageBudget.
	PageBudget int
	// MaxResult is the largest result body POST /v1/results accepts, and
	// MaxRequest the largest body of the other routes (a thread to compact,
	// a jq expression). Zero means 1 GiB and 64 MiB.
	MaxResult, MaxRequest int64
	// Timeouts of the HTTP server (see net/http.Server); zero means the
	// defaults above. ShutdownTimeout is how long Serve waits for requests
	// in flight once its context ends.
	ReadTimeout, WriteTimeout, ReadHeaderTimeout, IdleTimeout, ShutdownTimeout time.Duration
	// Logger receives warnings. Nil discards them.
	Logger *slog.Logger
}

// Server serves the API. It is an http.Handler; [Server.Serve] runs it with
// the configured timeouts and a graceful shutdown.
type Server struct {
	opts    Options
	mux     *http.ServeMux
	routes  []route
	metrics *metrics

	mu         sync.Mutex
	stores     map[string]store.Store
	compactors map[compactKey]*history.Compactor
	closed     bool
}

// route is one endpoint.
type route struct {
	method, path string
	// public routes need no token.
	public bool
	// unstored routes answer even when the namespace's store cannot be
	// opened: POST /v1/results gives the view of a result it could not
	// keep, which says why.
	unstored bool
	h        func(w http.ResponseWriter, r *http.Request, c *call) error
}

// call is what a handler is given about its request.
type call struct {
	ns string
	st store.Store
}

// New returns a Server with opts.
func New(opts Options) (*Server, error) {
	if opts.Open == nil {
		return nil, errors.New("server: Options.Open is required")
	}
	if opts.Tokens == nil {
		opts.Tokens = &Tokens{}
	}
	if opts.Budget <= 0 {
		opts.Budget = crumb.DefaultBudget
	}
	if opts.PageBudget <= 0 {
		opts.PageBudget = crumb.DefaultPageBudget
	}
	def := func(p *int64, d int64) {
		if *p <= 0 {
			*p = d
		}
	}
	def(&opts.MaxResult, DefaultMaxResult)
	def(&opts.MaxRequest, DefaultMaxRequest)
	for _, t := range []struct {
		p *time.Duration
		d time.Duration
	}{{&opts.ReadTimeout, DefaultReadTimeout}, {&opts.WriteTimeout, DefaultWriteTimeout}, {&opts.ReadHeaderTimeout, DefaultHeaderTimeout},
		{&opts.IdleTimeout, DefaultIdleTimeout}, {&opts.ShutdownTimeout, DefaultShutdownTimeout}} {
		if *t.p <= 0 {
			*t.p = t.d
		}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), stores: map[string]store.Store{}, compactors: map[compactKey]*history.Compactor{}}
	s.metrics = newMetrics(s)
	s.routes = []route{
		{method: "POST", path: "/v1/results", unstored: true, h: s.project},
		{method: "GET", path: "/v1/results", h: s.list},
		{method: "GET", path: "/v1/stats", h: s.stats},
		{method: "GET", path: "/v1/results/{ref}", h: s.read},
		{method: "GET", path: "/v1/results/{ref}/raw", h: s.raw},
		{method: "GET", path: "/v1/results/{ref}/grep", h: s.grep},
		{method: "POST", path: "/v1/results/{ref}/query", h: s.query},
		{method: "POST", path: "/v1/compact", h: s.compact},
		{method: "GET", path: "/metrics", h: s.serveMetrics},
		{method: "GET", path: "/healthz", public: true, h: s.health},
		{method: "GET", path: "/openapi.json", public: true, h: s.openapi},
	}
	for _, rt := range s.routes {
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	return s, nil
}

// Routes lists the routes the server registers, as "METHOD /path".
func (s *Server) Routes() []string {
	out := make([]string, len(s.routes))
	for i, rt := range s.routes {
		out[i] = rt.method + " " + rt.path
	}
	return out
}

// ServeHTTP answers a request; a path or method the API does not have gets
// a JSON error too.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// The mux's own answer: a redirect, a 404 or a 405 (with Allow set).
	probe := &statusWriter{ResponseWriter: discardBody{w}}
	h.ServeHTTP(probe, r)
	switch probe.status {
	case http.StatusMethodNotAllowed:
		writeError(w, &apiError{http.StatusMethodNotAllowed, CodeBadRequest, fmt.Sprintf("%s does not take %s", r.URL.Path, r.Method), "GET /openapi.json describes every route"})
	case http.StatusNotFound:
		writeError(w, &apiError{http.StatusNotFound, CodeMissing, fmt.Sprintf("no route %s", r.URL.Path), "GET /openapi.json describes every route"})
	default:
		w.WriteHeader(probe.status)
	}
}

// wrap adds authentication, the namespace's store, error answers and
// metrics to a route.
func (s *Server) wrap(rt route) http.Handler {
	label := rt.method + " " + rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() { s.metrics.observe(label, sw.status, time.Since(start)) }()
		c := &call{ns: DefaultNamespace}
		if !rt.public && s.opts.Tokens.Len() > 0 {
			ns, ok := s.authenticate(r)
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="crumb"`)
				writeError(sw, &apiError{http.StatusUnauthorized, CodeUnauthorized, "a valid bearer token is required", "send Authorization: Bearer TOKEN with a token from the server's token list"})
				return
			}
			c.ns = ns
		}
		if strings.HasPrefix(rt.path, "/v1/") {
			st, err := s.store(c.ns)
			switch {
			case err == nil:
			case rt.unstored && !errors.Is(err, store.ErrClosed):
				// Not kept: the next request tries to open it again. (The
				// Guard logs that the result was not stored.)
				st = store.NewUnavailable("namespace "+c.ns, err)
			default:
				writeError(sw, classify(unavailable(c.ns, err)))
				return
			}
			c.st = st
		}
		if err := rt.h(sw, r, c); err != nil {
			if sw.status != 0 {
				// The answer has begun: end the connection so the client
				// sees a failure, not a short success.
				s.opts.Logger.Warn("server: request failed after its answer began", "route", label, "err", err)
				panic(http.ErrAbortHandler)
			}
			ae := classify(err)
			if ae.code == CodeInternal || ae.code == CodeBroken {
				s.opts.Logger.Warn("server: request failed", "route", label, "err", err)
			}
			writeError(sw, ae)
		}
	})
}

// unavailable is the error of a namespace whose store cannot be opened.
func unavailable(ns string, err error) error {
	if errors.Is(err, store.ErrClosed) {
		return err
	}
	return fmt.Errorf("namespace %s: %w", ns, store.UnavailableError(err))
}

func (s *Server) authenticate(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return s.opts.Tokens.Namespace(strings.TrimSpace(tok))
}

// store returns the store of a namespace, opening it on first use.
func (s *Server) store(ns string) (store.Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, store.ErrClosed
	}
	if st, ok := s.stores[ns]; ok {
		return st, nil
	}
	st, err := s.opts.Open(ns)
	if err != nil {
		return nil, err
	}
	s.stores[ns] = st
	return st, nil
}

// openStores returns the stores opened so far, by namespace.
func (s *Server) openStores() map[string]store.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]store.Store, len(s.stores))
	for k, v := range s.stores {
		out[k] = v
	}
	return out
}

// Close closes the stores the server opened. Call it once Serve returned.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for _, st := range s.stores {
		if c, ok := st.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	s.stores = nil
	return errors.Join(errs...)
}

// Serve serves the API on ln until ctx ends, then shuts down gracefully:
// it stops accepting connections and waits up to ShutdownTimeout for the
// requests in flight to finish. Requests still running then are cancelled;
// a result whose body had not been read to its end is discarded, never
// published half-written. Serve returns nil after a graceful shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadTimeout:       s.opts.ReadTimeout,
		WriteTimeout:      s.opts.WriteTimeout,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.opts.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		hs.Close()
		err = fmt.Errorf("server: requests still running after %s were cancelled: %w", s.opts.ShutdownTimeout, err)
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// writeJSON answers v with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	wire.Write(w, v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	type body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Hint    string `json:"hint,omitempty"`
	}
	writeJSON(w, e.status, struct {
		Error body `json:"error"`
	}{body{e.code, e.message, e.hint}})
}

// statusWriter records the status of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// discardBody keeps the headers the mux sets (Allow, Location) but drops
// its plain-text answers, whose status ServeHTTP writes itself.
type discardBody struct{ http.ResponseWriter }

func (discardBody) Write(b []byte) (int, error) { return len(b), nil }
func (discardBody) WriteHeader(int)             {}
