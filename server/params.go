package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

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

// int reads a whole number within lim (the range every surface checks
// that number against), or def when absent.
func (p *params) int(name string, def int, lim limits.Limit) int {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return def
	}
	n, err := number(name, v, lim)
	if err != nil {
		p.err = err
		return def
	}
	return int(n)
}

// number parses the value v of parameter name within lim; an error is a
// bad request that names the range.
func number(name, v string, lim limits.Limit) (int64, error) {
	n, err := lim.Parse(v)
	if err != nil {
		return 0, badRequest(fmt.Sprintf("parameter %s: %v", name, err), "")
	}
	return n, nil
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

// wireRequest is the JSON form of a recall.Request (see its MarshalJSON).
// The sidecar reads a request's parameters and writes continuations through
// it, so they take every form of range that recall reads and writes.
type wireRequest struct {
	Ref     store.Ref        `json:"ref"`
	Rev     string           `json:"rev,omitempty"`
	Lines   string           `json:"lines,omitempty"`
	Bytes   string           `json:"bytes,omitempty"`
	Grep    *recall.GrepSpec `json:"grep,omitempty"`
	Pointer *string          `json:"pointer,omitempty"`
	Query   string           `json:"jq,omitempty"`
}

// request returns the recall.Request w describes, validated.
func (w wireRequest) request() (recall.Request, error) {
	b, err := json.Marshal(w)
	if err != nil {
		return recall.Request{}, err
	}
	var req recall.Request
	if err := json.Unmarshal(b, &req); err != nil {
		return recall.Request{}, badRequest(err.Error(), "lines are 1-based and inclusive (41:240); bytes are offsets, the end excluded (0:4096)")
	}
	return req, nil
}

// wireOf returns the JSON form of req.
func wireOf(req recall.Request) (wireRequest, error) {
	var w wireRequest
	b, err := json.Marshal(req)
	if err == nil {
		err = json.Unmarshal(b, &w)
	}
	return w, err
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
		w, err := wireOf(req)
		if err != nil {
			// A request that does not marshal never reaches a view.
			panic(fmt.Sprintf("server: continuation %v: %v", req, err))
		}
		base := "/v1/results/" + string(w.Ref)
		q := url.Values{}
		call := wire.HTTPCall{Method: "GET", Path: base}
		switch {
		case w.Grep != nil:
			g := w.Grep
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
		case w.Query != "":
			call.Method, call.Path = "POST", base+"/query"
			q.Set("jq", w.Query)
		case w.Pointer != nil:
			q.Set("pointer", *w.Pointer)
		case w.Bytes != "":
			q.Set("bytes", w.Bytes)
		case w.Lines != "":
			q.Set("lines", w.Lines)
		}
		if w.Rev != "" {
			q.Set("rev", w.Rev)
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
