package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/crumb-dev/crumb/internal/config"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/mcpproxy"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "mcp",
		summary: "put crumb in front of an MCP server: large tool results are kept, the model gets a view",
		usage: `Usage: crumb mcp [flags] -- UPSTREAM_COMMAND [ARGS...]
       crumb mcp [flags] --upstream URL

A transparent MCP proxy. It serves MCP on standard input and output (or over
streamable HTTP with --listen) and relays everything to the upstream server:
a command it starts, or a URL. The client sees the upstream's tools,
resources, prompts and notifications as they are, plus three tools of crumb's:
crumb_read, crumb_search and crumb_query.

A tool result that fits the budget passes through unchanged. A larger one is
stored exactly and the client gets a small view of it, within the budget,
that names what it leaves out and the exact crumb_read call that reads it,
from the store, without running the tool again. Pages of crumb_read,
crumb_search and crumb_query take up to --page-budget tokens (2,000 unless
given), whatever --budget: a 600-token view is read on in pages of 2,000.

The upstream's standard error goes to crumb's. If the upstream exits, calls
in flight and later calls get an error that says how it ended and what its
standard error said went wrong. Lines it writes on its standard output that
are not JSON-RPC (a banner) are skipped and logged.

Examples:
  crumb mcp -- npx -y @modelcontextprotocol/server-filesystem ~/src
  crumb mcp --budget 4000 -- uvx mcp-server-git
  crumb mcp --upstream https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN"
  crumb mcp --listen 127.0.0.1:8931 -- npx -y @modelcontextprotocol/server-everything

A configuration file (--config, or $CRUMB_CONFIG; TOML or YAML) sets the
budget, the page budget (page_budget), per-tool budgets and thresholds
matched by glob, tools never to project, the store and the names of
crumb's tools. Flags override it.

` + summaryHelp,
		run: runMCP,
	})
}

// headerFlags collects repeated --header values.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

func runMCP(e *env, args []string) error {
	c := commands["mcp"]
	fs := newFlags(e, c)
	configFile := fs.String("config", "", "configuration `FILE` (TOML or YAML; default $CRUMB_CONFIG)")
	budget := limitFlag(fs, "budget", 0, limits.ProxyBudget, "most `TOKENS` a view may take (default 2000, or the config file's)")
	pageBudget := pageBudgetFlag(fs, 0, "most `TOKENS` a page of crumb_read and crumb_search may take, whatever --budget (default 2000, or the config file's page_budget)")
	threshold := limitFlag(fs, "threshold", 0, limits.Threshold, "most `TOKENS` a result may have and pass whole (default: the budget)")
	storeDir := storeFlag(fs)
	upstreamURL := fs.String("upstream", "", "reach the upstream server at `URL` over streamable HTTP")
	var headers headerFlags
	fs.Var(&headers, "header", "add `NAME: VALUE` to every request to --upstream (repeatable)")
	listen := fs.String("listen", "", "serve MCP over streamable HTTP at `ADDR` (host:port) instead of stdio")
	summary := addSummaryFlags(fs, "every result that is projected")
	logLevel := fs.String("log-level", "warn", "log messages of `LEVEL` and above to stderr: debug, info, warn or error")
	// The upstream command's own flags follow it, so flags stop at the
	// first argument that is not one.
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(e.stdout, c, fs)
			return flag.ErrHelp
		}
		return flagError(c, err)
	}
	upstreamCmd := fs.Args()
	switch {
	case *upstreamURL == "" && len(upstreamCmd) == 0:
		return usagef(c.name, "give the upstream server: -- COMMAND [ARGS...], or --upstream URL")
	case *upstreamURL != "" && len(upstreamCmd) > 0:
		return usagef(c.name, "give the upstream server as a command or as --upstream URL, not both")
	case len(headers) > 0 && *upstreamURL == "":
		return usagef(c.name, "--header applies to --upstream URL only")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usagef(c.name, "--log-level: want debug, info, warn or error")
	}
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))

	var cfg config.File
	if *configFile == "" {
		*configFile = e.getenv("CRUMB_CONFIG")
	}
	if *configFile != "" {
		f, err := config.Load(*configFile)
		if err != nil {
			return withHint(err, "see 'crumb mcp --help' and docs/mcp.md for the keys a configuration file takes")
		}
		cfg = *f
	}
	guard := cfg.Guard()
	if *budget > 0 {
		guard.Budget = *budget
	}
	if *threshold > 0 {
		guard.Threshold = *threshold
	}
	d, err := openMCPStore(e, c, *storeDir, &cfg, logger)
	if err != nil {
		return err
	}
	defer d.Close()
	guard.Store = d
	if guard.Summarizer, err = summarizer(e, summary, &cfg.Summary, d); err != nil {
		return err
	}
	names := mcpproxy.Names{Read: cfg.MCP.ReadTool, Search: cfg.MCP.SearchTool, Query: cfg.MCP.QueryTool}
	guard.PageBudget = cfg.PageBudgetFor(withDefault(names.Read, mcpproxy.DefaultNames.Read))
	if *pageBudget > 0 {
		guard.PageBudget = *pageBudget
	}
	p, err := mcpproxy.New(mcpproxy.Config{Guard: guard, Names: names, Logger: logger})
	if err != nil {
		return err
	}
	defer p.Close()

	upstream := func() mcpproxy.Transport {
		if *upstreamURL != "" {
			h := http.Header{}
			for _, kv := range headers {
				k, v, _ := strings.Cut(kv, ":")
				h.Add(strings.TrimSpace(k), strings.TrimSpace(v))
			}
			return &mcpproxy.HTTPTransport{Endpoint: *upstreamURL, Header: h}
		}
		return &mcpproxy.CommandTransport{Command: exec.Command(upstreamCmd[0], upstreamCmd[1:]...), Stderr: e.stderr}
	}
	for _, kv := range headers {
		if k, _, ok := strings.Cut(kv, ":"); !ok || strings.TrimSpace(k) == "" {
			return usagef(c.name, "--header %q: want NAME: VALUE", kv)
		}
	}
	if *listen != "" {
		return serveMCPHTTP(e, p, *listen, upstream)
	}
	err = p.Serve(e.ctx, mcpproxy.Stdio(e.stdin, e.stdout), upstream())
	if err != nil && len(upstreamCmd) > 0 {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return withHint(err, "check that the upstream command is installed and on $PATH")
		}
	}
	return err
}

func withDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// openMCPStore opens the store a long-running proxy uses: --store, else the
// config file's, else $CRUMB_STORE, else the user cache directory. It
// collects garbage itself as results come in. A store that cannot be opened
// does not stop the proxy (see openResultStore).
func openMCPStore(e *env, c *command, flagDir string, cfg *config.File, logger *slog.Logger) (cliStore, error) {
	dir := flagDir
	if dir == "" {
		d, err := cfg.StoreDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return openResultStore(e, c, dir, store.DirOptions{TTL: time.Duration(cfg.Store.TTL), MaxBytes: int64(cfg.Store.MaxSize), Logger: logger})
}

// serveMCPHTTP serves the proxy over streamable HTTP until the context ends.
func serveMCPHTTP(e *env, p *mcpproxy.Proxy, addr string, upstream func() mcpproxy.Transport) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	h := mcpproxy.NewHTTPHandler(p, upstream)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "crumb mcp: serving MCP at http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		h.Close()
		return err
	case <-e.ctx.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	h.Close()
	return nil
}
