package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/config"
	"github.com/crumb-dev/crumb/server"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "serve",
		summary: "serve crumb over HTTP, as a sidecar for agents in any language",
		usage: `Usage: crumb serve [--listen ADDR] [--store DIR] [--tokens FILE] [flags]

Serves crumb as JSON over HTTP: POST a tool result's raw bytes to
/v1/results and get back the view a model should see, as crumb project
--json prints it; read the rest with the continuation each view and page
carries ("next": "argv" is the crumb command, "http" the HTTP request).
A view takes up to --budget tokens unless its request gives a budget; a
page read back, up to --page-budget (2,000), whatever its view's budget.
GET /openapi.json describes every route; docs/serve.md walks through them.

Every bearer token is bound to a namespace, and each namespace has a store
of its own (a directory under --store): a ref stored in one reads as
missing from every other. Tokens come from --tokens FILE (lines of
"TOKEN NAMESPACE", # comments) and from $CRUMB_TOKENS
("token1:ns1,token2:ns2"). Without tokens every request is served in the
namespace "default", and crumb serve refuses to listen on an address other
than loopback unless --insecure is given.

SIGTERM or SIGINT stops it gracefully: it stops accepting connections and
waits up to --shutdown-timeout for requests in flight; a result whose body
had not arrived whole by then is discarded, never stored half-written.

Examples:
  crumb serve
  crumb serve --listen 0.0.0.0:8377 --tokens /etc/crumb/tokens
  CRUMB_TOKENS=s3cret:agents crumb serve --listen :8377
  curl -s --data-binary @build.log 'localhost:8377/v1/results?kind=text' | jq -r .view`,
		run: runServe,
	})
}

// storeSchemes opens --store values that are URLs of other backends, by
// scheme (a Redis backend registers "redis" and "rediss"): the opener gives
// each namespace a store of its own.
var storeSchemes = map[string]func(url string) (server.Opener, error){}

func runServe(e *env, args []string) error {
	c := commands["serve"]
	fs := newFlags(e, c)
	listen := fs.String("listen", "127.0.0.1:8377", "serve at `ADDR` (host:port)")
	tokensFile := fs.String("tokens", "", "read bearer tokens from `FILE`: lines of TOKEN NAMESPACE")
	insecure := fs.Bool("insecure", false, "serve without tokens on an address other than loopback")
	budget := budgetFlag(fs, crumb.DefaultBudget, "default view budget in `TOKENS`")
	pageBudget := pageBudgetFlag(fs, 0, "default page budget in `TOKENS` of a read or a search, whatever the view's budget (default 2000)")
	maxResult := fs.String("max-result", "1GiB", "largest result body `SIZE` POST /v1/results takes")
	maxRequest := fs.String("max-request", "64MiB", "largest body `SIZE` of the other routes (a thread to compact, a jq query)")
	readTimeout := durationFlag(fs, "read-timeout", server.DefaultReadTimeout, time.Second, 24*time.Hour, "most time `D` to read a request, body included")
	writeTimeout := durationFlag(fs, "write-timeout", server.DefaultWriteTimeout, time.Second, 24*time.Hour, "most time `D` to answer a request once its headers are read")
	shutdown := durationFlag(fs, "shutdown-timeout", server.DefaultShutdownTimeout, 0, time.Hour, "how long `D` a shutdown waits for requests in flight")
	storeDir := fs.String("store", "", "store `DIR`ectory, one subdirectory per namespace (default $CRUMB_STORE or the user cache directory)")
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	opts := server.Options{Budget: *budget, PageBudget: *pageBudget, ReadTimeout: *readTimeout, WriteTimeout: *writeTimeout, ShutdownTimeout: *shutdown,
		Logger: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	for _, s := range []struct {
		flag, v string
		p       *int64
	}{{"--max-result", *maxResult, &opts.MaxResult}, {"--max-request", *maxRequest, &opts.MaxRequest}} {
		n, err := config.ParseSize(s.v)
		if err != nil || n <= 0 {
			return usagef(c.name, "%s %q: want a size such as 64MiB", s.flag, s.v)
		}
		*s.p = int64(n)
	}
	tok := &server.Tokens{}
	if *tokensFile != "" {
		f, err := os.Open(*tokensFile)
		if err != nil {
			return fmt.Errorf("reading the tokens: %w", err)
		}
		err = tok.ReadTokens(f)
		f.Close()
		if err != nil {
			return withHint(fmt.Errorf("%s: %w", *tokensFile, err), "write one \"TOKEN NAMESPACE\" per line")
		}
	}
	if env := e.getenv("CRUMB_TOKENS"); env != "" {
		if err := tok.ParseTokens(env); err != nil {
			return withHint(fmt.Errorf("CRUMB_TOKENS: %w", err), "set CRUMB_TOKENS=token1:namespace1,token2:namespace2")
		}
	}
	opts.Tokens = tok
	if tok.Len() == 0 && !server.IsLoopback(*listen) && !*insecure {
		return withHint(fmt.Errorf("refusing to serve %s without tokens: anyone who reaches it could read every result", *listen),
			"give --tokens FILE or CRUMB_TOKENS, listen on 127.0.0.1, or pass --insecure")
	}
	if opts.Open, err = namespaceOpener(e, *storeDir); err != nil {
		return err
	}
	s, err := server.New(opts)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", *listen, err)
	}
	auth := "no tokens: every request is served in namespace default"
	if tok.Len() > 0 {
		auth = fmt.Sprintf("%d tokens", tok.Len())
	}
	fmt.Fprintf(e.stderr, "crumb serve: listening on http://%s (%s)\n", ln.Addr(), auth)
	if err := s.Check(e.ctx); err != nil {
		// The store may come back; until then results get views that say
		// they were not kept.
		fmt.Fprintf(e.stderr, "crumb serve: warning: results are not kept: %s (GET /healthz tells while it lasts)\n", err)
	}
	start := time.Now()
	if err := s.Serve(e.ctx, ln); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "crumb serve: stopped after %s\n", time.Since(start).Round(time.Second))
	return nil
}

// namespaceOpener opens the namespaces' stores: a backend's URL, or
// directories under the store directory.
func namespaceOpener(e *env, dir string) (server.Opener, error) {
	if dir == "" {
		dir = e.getenv("CRUMB_STORE")
	}
	if err := checkStoreLocation(dir); err != nil {
		return nil, err
	}
	if scheme := store.URLScheme(dir); scheme != "" {
		open, known := storeSchemes[scheme]
		if !known {
			return nil, withHint(errors.New("no store backend for "+scheme+"://"), "pass a store directory")
		}
		return open(dir)
	}
	if dir == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, err
		}
		dir = p
	}
	return server.DirOpener(dir, store.DirOptions{}), nil
}
