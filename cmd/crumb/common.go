package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/store/redisstore"
)

// newFlags returns a flag set for a command whose --help prints the
// command's usage text and then its flags.
func newFlags(e *env, c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("crumb "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parse parses flags that may come before, between and after positional
// arguments ("crumb read REF --lines 1:9"), as people type them. "--" ends
// the flags. It prints the command's help for -h and --help.
func parse(e *env, c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printHelp(e.stdout, c, fs)
				return nil, flag.ErrHelp
			}
			return nil, flagError(c, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse consumed a "--" if it stopped there.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func printHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n", strings.TrimSpace(c.usage))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nFlags:\n")
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		head := "  " + dash + f.Name
		if name != "" {
			head += " " + name
		}
		if len(head) <= 22 {
			fmt.Fprintf(w, "%-24s%s", head, usage)
		} else {
			fmt.Fprintf(w, "%s\n%24s%s", head, "", usage)
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// storeFlag adds --store to a flag set.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", "", "store `DIR`ectory, or redis://HOST:PORT/DB, redis+cluster://HOST:PORT or redis+sentinel://HOST:PORT?master=NAME URL (default $CRUMB_STORE or the user cache directory)")
}

// parseNoArgs adds --store to fs, parses a command that takes no positional
// arguments, and opens the store.
func parseNoArgs(e *env, c *command, fs *flag.FlagSet, args []string) (cliStore, error) {
	storeDir := storeFlag(fs)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		return nil, usagef(c.name, "unexpected argument %q", pos[0])
	}
	return openStore(e, *storeDir)
}

// cliStore is a store the commands use: the directory store, or the Redis
// store when --store or $CRUMB_STORE is a redis:// or rediss:// URL.
type cliStore interface {
	store.Store
	io.Closer
	// Path names the store in messages.
	Path() string
}

// openStore opens the store: --store, else $CRUMB_STORE, else the user
// cache directory. Collections are started by startGC, never inline (but a
// Put that takes the store over its cap evicts at once). The store's
// lifecycle settings come from its settings file (see store.DirOptions) or,
// for Redis, its settings key.
func openStore(e *env, dir string) (cliStore, error) {
	return openStoreWith(e, dir, store.DirOptions{ManualGC: true})
}

// openStoreWith is openStore with the given options. A Redis store takes
// the lifecycle settings of opts, and its namespace from the URL's
// namespace parameter, else $CRUMB_NAMESPACE.
func openStoreWith(e *env, dir string, opts store.DirOptions) (cliStore, error) {
	if dir == "" {
		dir = e.getenv("CRUMB_STORE")
	}
	if err := checkStoreLocation(dir); err != nil {
		return nil, err
	}
	if redisstore.IsURL(dir) {
		ns := e.getenv("CRUMB_NAMESPACE")
		if u, err := url.Parse(dir); err == nil && u.Query().Has("namespace") {
			ns = "" // the URL's
		}
		s, err := redisstore.Open(e.ctx, dir, redisstore.Options{TTL: opts.TTL, MaxBytes: opts.MaxBytes, Namespace: ns, Logger: opts.Logger})
		if err != nil {
			return nil, withHint(err, "check that Redis runs at the --store URL (redis://HOST:PORT/DB, rediss://USER:PASSWORD@HOST:PORT/DB, redis+cluster://HOST:PORT or redis+sentinel://HOST:PORT?master=NAME)")
		}
		return s, nil
	}
	if dir == "" {
		p, err := store.DefaultPath()
		if err != nil {
			return nil, err
		}
		dir = p
	}
	d, err := store.OpenDir(dir, opts)
	if err != nil {
		return nil, withHint(err, "pass --store DIR or set CRUMB_STORE to a writable directory")
	}
	return d, nil
}

// checkStoreLocation refuses a --store or $CRUMB_STORE value that is a URL
// of a scheme no backend opens, naming the schemes known, rather than
// taking it for a directory to create.
func checkStoreLocation(loc string) error {
	if err := store.CheckLocation(loc); err != nil {
		return withHint(err, "pass --store DIR for a directory, or redis://HOST:PORT/DB (rediss:// for TLS), redis+cluster://HOST:PORT or redis+sentinel://HOST:PORT?master=NAME for Redis")
	}
	return nil
}

// openResultStore opens the store of a command that must deliver its result
// whatever becomes of the store (project, run, mcp): a store that cannot be
// opened (Redis down, a directory other users may write to, a path that
// cannot be written) is named in one line on stderr and replaced by
// store.Unavailable, so that the command still runs and its result still
// reaches its reader: small results unchanged, larger ones as the bounded
// view of a result that could not be stored, which says why. A --store value
// that is not a store crumb knows how to open is still an error.
func openResultStore(e *env, c *command, dir string, opts store.DirOptions) (cliStore, error) {
	s, err := openStoreWith(e, dir, opts)
	if err == nil {
		return s, nil
	}
	if errors.Is(err, redisstore.ErrBadURL) || errors.Is(err, store.ErrUnknownScheme) {
		return nil, err
	}
	where := dir
	if where == "" {
		where = e.getenv("CRUMB_STORE")
	}
	if redisstore.IsURL(where) {
		where = redisstore.Redact(where)
	}
	u := store.NewUnavailable(where, err)
	fmt.Fprintf(e.stderr, "crumb %s: warning: results are not kept: %s\n", c.name, u.Err())
	return u, nil
}

// quietRedis discards go-redis's own log lines (four of them for every
// command sent to a Redis that does not answer): the error each store
// operation returns says what failed, once.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quietRedis{}) }

// storeUsage returns what a directory store holds besides results (the
// leftovers of interrupted writes); a Redis store has none (its staged
// writes expire).
func storeUsage(e *env, s cliStore) (store.Usage, error) {
	if d, ok := s.(*store.Dir); ok {
		return d.Usage(e.ctx)
	}
	return store.Usage{}, nil
}

// startGC starts "crumb gc" as a detached process when a collection of a
// directory store is due, so that the store stays within its limits without
// any command waiting for it. CRUMB_GC=off turns it off (tests do). A Redis
// store needs none: results expire natively and a Put evicts over the cap.
func startGC(e *env, s cliStore) {
	d, ok := s.(*store.Dir)
	if !ok || e.getenv("CRUMB_GC") == "off" || !d.GCDue() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, "gc", "--quiet", "--store", d.Path())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// parseRef validates a ref argument with a hint on what refs look like.
func parseRef(s string) (store.Ref, error) {
	ref, err := store.ParseRef(s)
	if err != nil {
		return "", withHint(err, "a ref is the 16 hex digits a view names (\"ref 1a2b3c4d5e6f7a8b\"); 'crumb ls' lists stored results")
	}
	return ref, nil
}

// hintFor suggests what to do next for the errors every command may meet.
func hintFor(err error) string {
	switch {
	case errors.Is(err, store.ErrMissing):
		return "the result expired or was evicted; run the tool again ('crumb ls' lists what is stored)"
	case errors.Is(err, store.ErrBroken):
		return "the stored copy is damaged; run the tool again to store a fresh one"
	case errors.Is(err, recall.ErrOutOfRange):
		return "ask for a range inside the result; the first page's header gives its size"
	case errors.Is(err, recall.ErrRevision):
		return "the content changed; start again from its newest view"
	case errors.Is(err, recall.ErrBinary):
		return "use --all to write the exact bytes to a file"
	}
	return ""
}

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error { return wire.Write(w, v) }

// writeText writes s and ends it with a newline if it has none, as
// terminals and pipes expect.
func writeText(w io.Writer, s string) error {
	if _, err := io.WriteString(w, s); err != nil {
		return err
	}
	if !strings.HasSuffix(s, "\n") {
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}
