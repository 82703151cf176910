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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
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
	// maxBudget bounds the budget a request may ask for.
	maxBudget = 1 << 20
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
	h      func(w http.ResponseWriter, r *http.Request, c *call) error
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
		{method: "POST", path: "/v1/results", h: s.project},
		{method: "GET", path: "/v1/results", h: s.list},
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
			if err != nil {
				writeError(sw, classify(fmt.Errorf("opening the store of namespace %s: %w", c.ns, err)))
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

// discardBody keeps headers but drops the mux's plain-text error bodies.
type discardBody struct{ http.ResponseWriter }

func (discardBody) Write(b []byte) (int, error) { return len(b), nil }
func (d discardBody) WriteHeader(code int) {
	if code >= 300 && code < 400 {
		d.ResponseWriter.WriteHeader(code)
	}
}

// params reads a route's query parameters, refusing any it does not take.
type params struct {
	q   url.Values
	err error
}

func newParams(r *http.Request, allowed ...string) *params {
	p := &params{q: r.URL.Query()}
	for k := range p.q {
		known := false
		for _, a := range allowed {
			known = known || k == a
		}
		if !known {
			p.err = badRequest(fmt.Sprintf("unknown parameter %q", k), "this route takes: "+strings.Join(allowed, ", "))
			return p
		}
	}
	return p
}

func (p *params) has(name string) bool { return p.q.Has(name) }
func (p *params) str(name string) string {
	return p.q.Get(name)
}

// int reads a whole number from lo to hi, or def when absent.
func (p *params) int(name string, def, lo, hi int) int {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		p.err = badRequest(fmt.Sprintf("parameter %s=%q: want a whole number from %d to %d", name, v, lo, hi), "")
		return def
	}
	return n
}

func (p *params) bool(name string) bool {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		p.err = badRequest(fmt.Sprintf("parameter %s=%q: want true or false", name, v), "")
	}
	return b
}

func (p *params) span(name string) *recall.Span {
	v := p.q.Get(name)
	if !p.q.Has(name) || p.err != nil {
		return nil
	}
	sp, err := recall.ParseSpan(v)
	if err != nil {
		p.err = badRequest(fmt.Sprintf("parameter %s: %v", name, err), "lines are 1-based and inclusive (41:240); bytes are offsets, the end excluded (0:4096)")
		return nil
	}
	return &sp
}

func refOf(r *http.Request) (store.Ref, error) {
	ref, err := store.ParseRef(r.PathValue("ref"))
	if err != nil {
		return "", badRequest(err.Error(), "a ref is the 16 hex digits a view names")
	}
	return ref, nil
}

// link returns how the sidecar's clients follow a continuation: the HTTP
// request that performs it, carrying the budget the client asked for.
func link(budget int) wire.Link {
	return func(req recall.Request) wire.HTTPCall {
		base := "/v1/results/" + string(req.Ref)
		q := url.Values{}
		call := wire.HTTPCall{Method: "GET", Path: base}
		switch {
		case req.Grep != nil:
			g := req.Grep
			call.Path += "/grep"
			q.Set("pattern", g.Pattern)
			if g.IgnoreCase {
				q.Set("ignore_case", "true")
			}
			for _, v := range []struct {
				k string
				n int64
			}{{"context", int64(g.Context)}, {"max", int64(g.Max)}, {"from", g.From}, {"skip", int64(g.Skip)}} {
				if v.n > 0 {
					q.Set(v.k, strconv.FormatInt(v.n, 10))
				}
			}
		case req.Query != "":
			call.Method, call.Path = "POST", base+"/query"
			q.Set("jq", req.Query)
		case req.Pointer != nil:
			q.Set("pointer", *req.Pointer)
		case req.Bytes != nil:
			q.Set("bytes", req.Bytes.String())
		case req.Lines != nil:
			q.Set("lines", req.Lines.String())
		}
		if req.Rev != "" {
			q.Set("rev", req.Rev)
		}
		if budget > 0 {
			q.Set("budget", strconv.Itoa(budget))
		}
		call.Query = q.Encode()
		return call
	}
}

// header returns a query parameter, else its X-Crumb-* header.
func header(r *http.Request, p *params, name, hdr string) string {
	if p.has(name) {
		return p.str(name)
	}
	return r.Header.Get("X-Crumb-" + hdr)
}

// project stores a result streamed in as the body and answers its view.
func (s *Server) project(w http.ResponseWriter, r *http.Request, c *call) error {
	p := newParams(r, "kind", "tool", "args", "exit_code", "budget", "threshold", "intent")
	if p.err != nil {
		return p.err
	}
	if r.ContentLength > s.opts.MaxResult {
		return &apiError{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the result is %d bytes; this server takes at most %d", r.ContentLength, s.opts.MaxResult), "raise the server's limit (crumb serve --max-result)"}
	}
	kind, err := project.ParseKind(header(r, p, "kind", "Kind"))
	if err != nil {
		return badRequest(err.Error(), "")
	}
	res := crumb.Result{Tool: header(r, p, "tool", "Tool"), Kind: kind}
	if a := header(r, p, "args", "Args"); a != "" {
		if !json.Valid([]byte(a)) {
			return badRequest("args is not valid JSON", "pass the tool's arguments as a JSON object")
		}
		res.Args = json.RawMessage(a)
	}
	if in := header(r, p, "intent", "Intent"); in != "" {
		if res.Args, err = wire.SetIntent(res.Args, in); err != nil {
			return badRequest("intent needs args to be a JSON object", "")
		}
	}
	if ec := header(r, p, "exit_code", "Exit-Code"); ec != "" {
		n, err := strconv.Atoi(ec)
		if err != nil {
			return badRequest(fmt.Sprintf("exit_code wants a whole number, got %q", ec), "")
		}
		res.ExitCode = &n
	}
	budget, threshold := s.opts.Budget, 0
	for _, v := range []struct {
		name, hdr string
		p         *int
	}{{"budget", "Budget", &budget}, {"threshold", "Threshold", &threshold}} {
		if x := header(r, p, v.name, v.hdr); x != "" {
			n, err := strconv.Atoi(x)
			if err != nil || n < 1 || n > maxBudget {
				return badRequest(fmt.Sprintf("%s %q: want a whole number from 1 to %d", v.name, x, maxBudget), "")
			}
			*v.p = n
		}
	}
	res.Reader = http.MaxBytesReader(w, r.Body, s.opts.MaxResult)
	g, err := crumb.New(crumb.Config{Store: c.st, Budget: budget, Threshold: threshold, MaxKeep: s.opts.MaxResult, Logger: s.opts.Logger})
	if err != nil {
		return err
	}
	v, err := g.Project(r.Context(), res)
	if err != nil {
		var mb *http.MaxBytesError
		if !errors.As(err, &mb) && (errors.Is(err, io.ErrUnexpectedEOF) || r.Context().Err() != nil) {
			return badRequest("the result's body ended early: "+err.Error(), "nothing was stored; send the whole result again")
		}
		return err
	}
	s.metrics.projected(c.ns, v)
	writeJSON(w, http.StatusOK, wire.ViewOf(v, link(0)))
	return nil
}

// readOptions are the page options of a read or a search.
func (s *Server) readOptions(ctx context.Context, st store.Store, p *params) recall.Options {
	return recall.Options{Budget: p.int("budget", 0, 1, maxBudget), Numbers: p.bool("n"), Line: crumb.LineRenderer(ctx, st)}
}

// page answers a page of a read or a search.
func (s *Server) page(w http.ResponseWriter, r *http.Request, c *call, req recall.Request, p *params) error {
	opts := s.readOptions(r.Context(), c.st, p)
	if p.err != nil {
		return p.err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	var (
		pg  recall.Page
		err error
	)
	if req.Grep != nil {
		if _, err := recall.Compile(*req.Grep); err != nil {
			return badRequest(err.Error(), "the pattern is an RE2 regular expression")
		}
		pg, err = recall.Grep(r.Context(), c.st, req, opts)
	} else {
		pg, err = recall.Read(r.Context(), c.st, req, opts)
	}
	if err != nil {
		return err
	}
	s.metrics.read(c.ns, req.Mode())
	budget := 0
	if p.has("budget") {
		budget = opts.Budget
	}
	writeJSON(w, http.StatusOK, wire.PageOf(pg, link(budget)))
	return nil
}

// read answers a page of lines or bytes, or a JSON pointer's value.
func (s *Server) read(w http.ResponseWriter, r *http.Request, c *call) error {
	ref, err := refOf(r)
	if err != nil {
		return err
	}
	p := newParams(r, "lines", "bytes", "pointer", "rev", "budget", "n")
	req := recall.Request{Ref: ref, Rev: p.str("rev"), Lines: p.span("lines"), Bytes: p.span("bytes")}
	if p.has("pointer") {
		ptr := p.str("pointer")
		req.Pointer = &ptr
	}
	return s.page(w, r, c, req, p)
}

// grep answers a page of a search.
func (s *Server) grep(w http.ResponseWriter, r *http.Request, c *call) error {
	ref, err := refOf(r)
	if err != nil {
		return err
	}
	p := newParams(r, "pattern", "ignore_case", "context", "max", "from", "skip", "rev", "budget")
	g := &recall.GrepSpec{Pattern: p.str("pattern"), IgnoreCase: p.bool("ignore_case"),
		Context: p.int("context", 0, 0, 1<<20), Max: p.int("max", 0, 0, 1<<30), From: int64(p.int("from", 0, 0, 1<<62)), Skip: p.int("skip", 0, 0, 1<<30)}
	if p.err == nil && g.Pattern == "" {
		return badRequest("grep needs a pattern", "GET /v1/results/{ref}/grep?pattern=RE2")
	}
	return s.page(w, r, c, recall.Request{Ref: ref, Rev: p.str("rev"), Grep: g}, p)
}

// query answers a page of a jq query; the expression is the body or the
// jq parameter.
func (s *Server) query(w http.ResponseWriter, r *http.Request, c *call) error {
	ref, err := refOf(r)
	if err != nil {
		return err
	}
	p := newParams(r, "jq", "rev", "budget")
	expr := p.str("jq")
	if !p.has("jq") {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxRequest))
		if err != nil {
			return err
		}
		expr = strings.TrimSpace(string(b))
	}
	if p.err == nil && expr == "" {
		return badRequest("a query needs a jq expression", "send the expression as the body, or as the jq parameter")
	}
	return s.page(w, r, c, recall.Request{Ref: ref, Rev: p.str("rev"), Query: expr}, p)
}

// raw streams the exact stored bytes.
func (s *Server) raw(w http.ResponseWriter, r *http.Request, c *call) error {
	ref, err := refOf(r)
	if err != nil {
		return err
	}
	p := newParams(r, "rev")
	if p.err != nil {
		return p.err
	}
	obj, err := recall.Open(r.Context(), c.st, recall.Request{Ref: ref, Rev: p.str("rev")})
	if err != nil {
		return err
	}
	defer obj.Close()
	info := obj.Info()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(obj.Size(), 10))
	h.Set("X-Crumb-Digest", info.Digest)
	h.Set("ETag", `"`+info.Digest+`"`)
	w.WriteHeader(http.StatusOK)
	s.metrics.read(c.ns, "raw")
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := store.Copy(r.Context(), obj, w); err != nil {
		return fmt.Errorf("writing %s: %w", ref, err)
	}
	return nil
}

// listItem is one stored result in a list.
type listItem struct {
	Ref        store.Ref         `json:"ref"`
	Digest     string            `json:"digest"`
	Size       int64             `json:"size"`
	Lines      *int64            `json:"lines,omitempty"`
	Kind       string            `json:"kind,omitempty"`
	Tool       string            `json:"tool,omitempty"`
	Args       json.RawMessage   `json:"args,omitempty"`
	Attrs      map[string]string `json:"attrs,omitempty"`
	Created    time.Time         `json:"created"`
	Used       time.Time         `json:"used"`
	Truncated  bool              `json:"truncated,omitempty"`
	SourceSize int64             `json:"source_size,omitempty"`
}

// list answers the namespace's stored results, most recently used first.
func (s *Server) list(w http.ResponseWriter, r *http.Request, c *call) error {
	p := newParams(r, "limit")
	limit := p.int("limit", 1000, 1, 1<<20)
	if p.err != nil {
		return p.err
	}
	infos, err := c.st.List(r.Context())
	if err != nil {
		return err
	}
	out := struct {
		Total   int        `json:"total"`
		Results []listItem `json:"results"`
	}{Total: len(infos), Results: []listItem{}}
	for _, in := range infos[:min(limit, len(infos))] {
		out.Results = append(out.Results, listItem{in.Ref, in.Digest, in.Size, in.Lines, in.Kind, in.Tool, in.Args, in.Attrs, in.Created, in.Used, in.Truncated, in.SourceSize})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// compactKey names a Compactor: one per namespace and settings, so that a
// thread compacted turn after turn finds its caches warm.
type compactKey struct {
	ns                                string
	format                            history.Format
	budget, recent, step, crumbsAbove int
}

// compact answers a thread compacted by history.Compactor, in the shape it
// came in; what was done is in X-Crumb-* headers.
func (s *Server) compact(w http.ResponseWriter, r *http.Request, c *call) error {
	p := newParams(r, "format", "budget", "recent", "fold_step", "breadcrumb_over")
	f, err := history.ParseFormat(p.str("format"))
	if err != nil {
		return badRequest(err.Error(), "format is openai, anthropic or auto")
	}
	k := compactKey{ns: c.ns, format: f, budget: p.int("budget", 0, 0, 1<<30), recent: p.int("recent", history.DefaultRecent, 1, 1<<30),
		step: p.int("fold_step", history.DefaultFoldStep, 1, 1<<30), crumbsAbove: p.int("breadcrumb_over", history.DefaultBreadcrumbOver, 1, 1<<30)}
	if p.err != nil {
		return p.err
	}
	if r.ContentLength > s.opts.MaxRequest {
		return &apiError{http.StatusRequestEntityTooLarge, CodeTooLarge, fmt.Sprintf("the thread is %d bytes; this server takes at most %d", r.ContentLength, s.opts.MaxRequest), "store large tool results with POST /v1/results first"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxRequest))
	if err != nil {
		return err
	}
	comp, err := s.compactor(k, c.st)
	if err != nil {
		return err
	}
	res, err := comp.Compact(r.Context(), body)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("X-Crumb-Format", string(res.Format))
	for name, n := range map[string]int{"Messages": res.Messages, "Messages-After": res.MessagesAfter, "Tokens-Before": res.TokensBefore,
		"Tokens-After": res.TokensAfter, "Breadcrumbs": res.Breadcrumbs, "Folds": len(res.Folds)} {
		h.Set("X-Crumb-"+name, strconv.Itoa(n))
	}
	h.Set("X-Crumb-Over-Budget", strconv.FormatBool(res.OverBudget))
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(append(res.Body, '\n'))
	return nil
}

// compactorLimit bounds how many Compactors the server keeps.
const compactorLimit = 64

func (s *Server) compactor(k compactKey, st store.Store) (*history.Compactor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.compactors[k]; ok {
		return c, nil
	}
	c, err := history.New(history.Options{Store: st, Format: k.format, Budget: k.budget, Recent: k.recent, FoldStep: k.step, BreadcrumbOver: k.crumbsAbove})
	if err != nil {
		return nil, badRequest(err.Error(), "")
	}
	if len(s.compactors) >= compactorLimit {
		clear(s.compactors)
	}
	s.compactors[k] = c
	return c, nil
}

func (s *Server) health(w http.ResponseWriter, r *http.Request, c *call) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": crumb.Version})
	return nil
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request, c *call) error {
	w.Header().Set("Content-Type", "application/json")
	w.Write(OpenAPI)
	return nil
}
