package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/crumb-dev/crumb/bench"
)

func init() {
	register(&command{
		name:    "bench",
		summary: "measure evidence kept per token against other systems' baselines, or speed",
		usage: `Usage: crumb bench [--cases DIR] [--strategy NAME]... [--budget TOKENS]... [-v [--unseal]] [--json | --markdown] [--svg FILE]
       crumb bench --speed [--sizes 10MB,100MB,300MB,1GB] [--kinds log,command,json] [--runs N] [--dir DIR] [--phases] [--json]

Runs a corpus of real tool outputs through several strategies and prints,
per strategy: the tokens of the first views (o200k_base), the needles (the
evidence an engineer needs next) visible in them, the needles found and the
tokens read when following each strategy's own continuations (re-reads count
against savings), the views larger than the output itself, binary bytes
leaked into views and media blocks kept. -v adds a table per case.

The corpus is split by a hash of each case's name into two parts, reported
apart: dev (about two thirds), the cases projectors may be tuned on, and
sealed, the cases nobody looks at while working, whose figures are the ones
that count. -v lists only the dev cases one by one; --unseal lists the
sealed ones too (for a final check, not while tuning). --json has every
case's figures and the summaries of both parts.

A corpus is a directory of cases, one folder each: output (the raw bytes)
and meta.json (kind, tool, args, needles; its fields are bench.Meta's, which
"go doc ./bench Meta" prints, and scripts/corpus/README.md shows the layout).
The default is testdata/corpus of the crumb repository, found from the
current directory upward.

Strategies: raw (no protection), cut50k (the first 50,000 bytes), b4
(B4.run: over 40,000 characters, 10 lines and a path), craft (Craft Agents:
over 15,000 estimated tokens, 2,000 characters and a path), claude-code
(over 50,000 characters, 2 KB and a path), headtail (Codex: head and tail
within 10 KiB and 256 lines), gemini (Gemini CLI: over 40,000 characters,
20% head, 80% tail and a path), headtail-same (head and tail cut to the size
of crumb's view), crumb (the default budget) and crumb@N (a budget of N
tokens; --budget N adds it). Default: all but crumb@N.

--speed measures instead how fast crumb stores and projects results of 10 MB,
100 MB, 300 MB and 1 GB made by repeating real outputs of the corpus (a log, a
command's output, JSON), each in a process of its own: throughput, peak
resident memory, and the ratio of crumb's time to copying the same bytes
into a file of the same directory with fsync, measured in the same run. It
also times a small result passing through untouched, and a page read and a
search of the largest log, in a process and as whole crumb read and crumb
grep processes (beside a crumb version process, and GNU grep -n on a raw
copy of the same bytes), and ends with each figure beside its target. It
writes up to 1 GB at a time under --dir (the
system's temporary directory by default) and removes it. --phases also times
the parts of crumb's work apart (hashing, storing, verifying, projecting), and
--cpuprofile DIR writes a CPU profile of each of crumb's runs, to tell where
its time goes.

Examples:
  crumb bench
  crumb bench -v --strategy crumb --strategy claude-code --budget 1000
  crumb bench --cases ./my-corpus --json > bench.json
  crumb bench --markdown --svg docs/bench.svg
  crumb bench --speed --sizes 1MB,100MB
  crumb bench --speed --sizes 1GB --kinds log --phases --cpuprofile /tmp/prof`,
		run: runBench,
	})
}

func runBench(e *env, args []string) error {
	c := commands["bench"]
	fs := newFlags(e, c)
	casesDir := fs.String("cases", "", "the corpus `DIR`ectory (default: testdata/corpus of the repository)")
	var names []string
	fs.Func("strategy", "a strategy to run, `NAME` (repeatable; default: all)", func(s string) error {
		names = append(names, s)
		return nil
	})
	fs.Func("budget", "also run crumb at a budget of `TOKENS` (repeatable)", func(s string) error {
		n, err := parseIntIn(s, 1, maxBudget, "tokens")
		if err != nil {
			return err
		}
		names = append(names, fmt.Sprintf("%s@%d", bench.NameCrumb, n))
		return nil
	})
	verbose := fs.Bool("v", false, "add tables with a row per case of the dev part")
	unseal := fs.Bool("unseal", false, "with -v, list the cases of the sealed part too")
	asJSON := fs.Bool("json", false, "print the summaries and per-case reports as JSON")
	markdown := fs.Bool("markdown", false, "print the side-by-side tables, one per part, as Markdown tables")
	svg := fs.String("svg", "", "write a chart of first-view tokens against needles seen to `FILE`")
	speed := fs.Bool("speed", false, "measure speed and memory instead of evidence")
	sizes := fs.String("sizes", "10MB,100MB,300MB,1GB", "result `SIZES` for --speed")
	kinds := fs.String("kinds", "log,command,json", "result `KINDS` for --speed")
	dir := fs.String("dir", "", "scratch `DIR`ectory for --speed (default: the system's temporary directory)")
	profile := fs.String("cpuprofile", "", "with --speed, write CPU profiles of crumb's runs to `DIR`")
	runs := intFlag(fs, "runs", 3, 1, 100, "runs", "with --speed, run each measurement `N` times in turn and report the median")
	phases := fs.Bool("phases", false, "with --speed, also time the phases of crumb's work apart: hashing, storing, verifying, projecting")
	one := fs.String("speed-one", "", "internal: run one speed measurement described by `JSON`")
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q", pos[0])
	}
	if *one != "" {
		return runSpeedOne(e, *one)
	}
	if *speed && (len(names) > 0 || *svg != "" || *verbose) {
		return usagef(c.name, "--speed does not combine with --strategy, --budget, --svg or -v")
	}
	if *unseal && !*verbose {
		return usagef(c.name, "--unseal goes with -v")
	}
	if !*speed && (*phases || *profile != "") {
		return usagef(c.name, "--phases and --cpuprofile go with --speed")
	}
	corpus, err := findCorpus(*casesDir)
	if err != nil {
		return err
	}
	if *speed {
		return runSpeed(e, corpus, *sizes, *kinds, *dir, *profile, *phases, *asJSON, *runs)
	}
	if len(names) == 0 {
		names = bench.DefaultStrategies()
	} else if onlyBudgets(names) {
		names = append(bench.DefaultStrategies(), names...)
	}
	for _, n := range names {
		if n == bench.NameHeadTailSame {
			continue
		}
		if _, err := bench.Lookup(n); err != nil {
			return usagef(c.name, "%v", strings.TrimPrefix(err.Error(), "bench: "))
		}
	}
	p := newStatus(e.stderr)
	p.printf("loading %s", corpus)
	cases, err := bench.LoadCorpus(corpus)
	if err != nil {
		p.done()
		return withHint(err, "each case is a folder with output and meta.json (see scripts/corpus/README.md, and go doc ./bench Meta for its fields)")
	}
	reps, sums, err := bench.Run(e.ctx, cases, names, bench.RunOptions{Workers: 2, Progress: func(name string, done, total int) {
		p.printf("evaluating %d cases: %d of %d strategies done (%s)", len(cases), done, total, name)
	}})
	p.done()
	if err != nil {
		return err
	}
	if *svg != "" {
		if err := writeFileAtomic(*svg, func(w io.Writer) error {
			chart, part := bench.PartSummaries(sums, bench.PartSealed), "the sealed part of "
			if chart[0].Cases == 0 {
				chart, part = sums, ""
			}
			return bench.WriteSVG(w, chart, bench.SVGOptions{Title: fmt.Sprintf("%d cases, %d needles, %s%s; one mark per strategy", chart[0].Cases, chart[0].Needles, part, corpus)})
		}); err != nil {
			return fmt.Errorf("writing the chart: %w", err)
		}
	}
	if *asJSON {
		return writeJSON(e.stdout, struct {
			Corpus    string          `json:"corpus"`
			Cases     int             `json:"cases"`
			Summaries []bench.Summary `json:"summaries"`
			Reports   []bench.Report  `json:"reports"`
		}{corpus, len(cases), sums, reps})
	}
	fmt.Fprintf(e.stdout, "%d cases, %d needles, from %s; tokens are o200k_base\n\n", len(cases), sums[0].Needles, corpus)
	if err := bench.WriteParts(e.stdout, sums, *markdown); err != nil {
		return err
	}
	if !*verbose {
		return nil
	}
	fmt.Fprintln(e.stdout)
	if *unseal {
		return bench.WriteCases(e.stdout, reps)
	}
	dev := make([]bench.Report, len(reps))
	for i, r := range reps {
		dev[i] = r.Part(bench.PartDev)
	}
	fmt.Fprintln(e.stdout, "the dev part's cases (--unseal lists the sealed ones too)")
	return bench.WriteCases(e.stdout, dev)
}

// onlyBudgets reports whether every name is a crumb@N added by --budget,
// which adds to the default strategies rather than replacing them.
func onlyBudgets(names []string) bool {
	for _, n := range names {
		if !strings.HasPrefix(n, bench.NameCrumb+"@") {
			return false
		}
	}
	return true
}

// findCorpus returns dir, or testdata/corpus in the current directory or
// the nearest parent that has one.
func findCorpus(dir string) (string, error) {
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", withHint(fmt.Errorf("no corpus directory %s", dir), "pass --cases DIR, a directory of cases (see scripts/corpus/README.md)")
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "testdata", "corpus")
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			if rel, err := filepath.Rel(wd, p); err == nil {
				return rel, nil
			}
			return p, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", withHint(errors.New("no testdata/corpus here or in any parent directory"),
		"run it inside the crumb repository, or pass --cases DIR")
}

// writeFileAtomic writes a file through a temporary file in the same
// directory, so that a failure leaves no half-written file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// status draws one line of progress on a terminal and nothing elsewhere.
type status struct {
	w     io.Writer
	width int
	on    bool
	drawn bool
}

func newStatus(w io.Writer) *status {
	width, ok := terminalWidth(w)
	return &status{w: w, width: width, on: ok}
}

func (s *status) printf(format string, args ...any) {
	if !s.on {
		return
	}
	line := fmt.Sprintf(format, args...)
	if r := []rune(line); len(r) > s.width-1 {
		line = string(r[:max(0, s.width-1)])
	}
	fmt.Fprintf(s.w, "\r\x1b[K%s", line)
	s.drawn = true
}

// done clears the line.
func (s *status) done() {
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.drawn = false
	}
}
