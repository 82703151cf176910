package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/history"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

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
		if res.Args, err = wire.ParseArgs(a); err != nil {
			return badRequest("args: "+err.Error(), "pass the tool's arguments as a JSON object")
		}
	}
	if in := header(r, p, "intent", "Intent"); in != "" {
		if res.Args, err = wire.SetIntent(res.Args, in); err != nil {
			return badRequest("intent needs args to be a JSON object", "")
		}
	}
	budget, threshold, exit := s.opts.Budget, 0, -1
	for _, v := range []struct {
		name, hdr string
		p         *int
		lim       limits.Limit
	}{{"exit_code", "Exit-Code", &exit, limits.ExitCode}, {"budget", "Budget", &budget, limits.Budget}, {"threshold", "Threshold", &threshold, limits.Threshold}} {
		if x := header(r, p, v.name, v.hdr); x != "" {
			n, err := number(v.name, x, v.lim)
			if err != nil {
				return err
			}
			*v.p = int(n)
		}
	}
	if exit >= 0 {
		res.ExitCode = &exit
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

// readOptions are the page options of a read or a search: the request's
// budget, else the server's page budget.
func (s *Server) readOptions(ctx context.Context, st store.Store, p *params) recall.Options {
	return recall.Options{Budget: p.int("budget", s.opts.PageBudget, limits.Budget), Numbers: p.bool("n"), Line: crumb.LineRenderer(ctx, st)}
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
	// What is read back counts against the savings GET /v1/stats reports,
	// as crumb read and the MCP proxy count theirs. It is charged before
	// the page is answered, so a client's next stats see it.
	if err := recall.Charge(r.Context(), c.st, req.Ref, pg.Tokens); err != nil {
		s.opts.Logger.Warn("server: counting a page read back", "ref", string(req.Ref), "err", err)
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
	wr := wireRequest{Ref: ref, Rev: p.str("rev"), Lines: p.str("lines"), Bytes: p.str("bytes")}
	if p.has("pointer") {
		ptr := p.str("pointer")
		wr.Pointer = &ptr
	}
	if p.err != nil {
		return p.err
	}
	req, err := wr.request()
	if err != nil {
		return err
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
		Context: p.int("context", 0, limits.Context), Max: p.int("max", 0, limits.Matches), From: int64(p.int("from", 0, limits.From)), Skip: p.int("skip", 0, limits.Skip)}
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
	limit := p.int("limit", 1000, limits.List)
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

// stats answers how much of the namespace's results stayed out of context,
// as crumb stats --json prints it (without the store's path).
func (s *Server) stats(w http.ResponseWriter, r *http.Request, c *call) error {
	if p := newParams(r); p.err != nil {
		return p.err
	}
	infos, err := c.st.List(r.Context())
	if err != nil {
		return err
	}
	var st wire.Stats
	if u, ok := c.st.(usager); ok {
		us, err := u.Usage(r.Context())
		if err != nil {
			return err
		}
		st.Leftovers, st.LeftoverBytes = us.Leftovers, us.LeftoverBytes
	}
	st.Add(infos)
	writeJSON(w, http.StatusOK, st)
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
	k := compactKey{ns: c.ns, format: f, budget: p.int("budget", 0, limits.CompactBudget), recent: p.int("recent", history.DefaultRecent, limits.Recent),
		step: p.int("fold_step", history.DefaultFoldStep, limits.FoldStep), crumbsAbove: p.int("breadcrumb_over", history.DefaultBreadcrumbOver, limits.BreadcrumbOver)}
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
		"Tokens-After": res.TokensAfter, "Breadcrumbs": res.Breadcrumbs, "Folds": len(res.Folds), "Budget": res.Budget,
		"Tokens-Task": res.TaskTokens, "Tokens-Summary": res.SummaryTokens, "Tokens-Older": res.OlderTokens, "Tokens-Recent": res.RecentTokens} {
		h.Set("X-Crumb-"+name, strconv.Itoa(n))
	}
	h.Set("X-Crumb-Over-Budget", strconv.FormatBool(res.OverBudget))
	// What did not fit, in the words crumb compact prints on stderr.
	h.Set("X-Crumb-Budget-Note", res.BudgetNote())
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(append(res.Body, '\n'))
	return nil
}

// compactHint names the read of a breadcrumb or a summary block in a thread
// the sidecar compacted as the HTTP request that performs it, the "http" of
// the continuations its views carry ("GET /v1/results/REF"): an agent that
// reaches crumb only through this server may have no crumb command to run.
func compactHint(r recall.Request) string {
	call := link(0)(r)
	s := call.Method + " " + call.Path
	if call.Query != "" {
		s += "?" + call.Query
	}
	return s
}

// compactorLimit bounds how many Compactors the server keeps.
const compactorLimit = 64

func (s *Server) compactor(k compactKey, st store.Store) (*history.Compactor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.compactors[k]; ok {
		return c, nil
	}
	c, err := history.New(history.Options{Store: st, Format: k.format, Budget: k.budget, Recent: k.recent, FoldStep: k.step, BreadcrumbOver: k.crumbsAbove, Hint: compactHint})
	if err != nil {
		return nil, badRequest(err.Error(), "")
	}
	if len(s.compactors) >= compactorLimit {
		clear(s.compactors)
	}
	s.compactors[k] = c
	return c, nil
}

// healthTimeout bounds the checks of one GET /healthz.
const healthTimeout = 5 * time.Second

// healthAnswer is the answer of GET /healthz.
type healthAnswer struct {
	// Status is "ok", or "degraded" when a store cannot take results: the
	// server still answers, and POST /v1/results gives views of results it
	// does not keep.
	Status  string      `json:"status"`
	Version string      `json:"version"`
	Store   storeHealth `json:"store"`
}

// storeHealth is the state of the stores: "ok", or "unavailable" and why.
type storeHealth struct {
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// health answers whether the server can keep results: 200 when every store
// it checks can take one, else 503 with the reason.
func (s *Server) health(w http.ResponseWriter, r *http.Request, c *call) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := s.Check(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, healthAnswer{Status: "degraded", Version: crumb.Version, Store: storeHealth{State: "unavailable", Error: err.Error()}})
		return nil
	}
	writeJSON(w, http.StatusOK, healthAnswer{Status: "ok", Version: crumb.Version, Store: storeHealth{State: "ok"}})
	return nil
}

// Check checks the stores as GET /healthz does: those opened so far (the
// default namespace's, opened now, when none is), each with its own check
// (store.Checker). It returns the first failure, in the order of the
// namespaces, or nil when every store can take results.
func (s *Server) Check(ctx context.Context) error {
	stores := s.openStores()
	if len(stores) == 0 {
		st, err := s.store(DefaultNamespace)
		if err != nil {
			return unavailable(DefaultNamespace, err)
		}
		stores[DefaultNamespace] = st
	}
	names := make([]string, 0, len(stores))
	for ns := range stores {
		names = append(names, ns)
	}
	sort.Strings(names)
	for _, ns := range names {
		if c, ok := stores[ns].(store.Checker); ok {
			if err := c.Check(ctx); err != nil {
				return fmt.Errorf("namespace %s: %w", ns, store.UnavailableError(err))
			}
		}
	}
	return nil
}

func (s *Server) openapi(w http.ResponseWriter, r *http.Request, c *call) error {
	w.Header().Set("Content-Type", "application/json")
	w.Write(OpenAPI)
	return nil
}
