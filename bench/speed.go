package bench

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/procmem"
	"github.com/crumb-dev/crumb/internal/textfmt"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
	"github.com/crumb-dev/crumb/tokens"
)

// The speed benchmark measures what crumb costs where it stands in the way:
// storing and projecting a large result, compared with simply copying the
// same bytes into a file of the same directory; letting a small result pass
// through; and reading back a page of, and searching, a large stored result.
// Its inputs are real outputs of the corpus repeated to size, streamed, so
// that nothing near their size is ever held in memory.

// The kinds of result the speed benchmark makes.
const (
	SpeedLog     = "log"
	SpeedCommand = "command"
	SpeedJSON    = "json"
)

// The modes of one speed measurement.
const (
	ModeCopy        = "copy"        // copy into the directory, fsync the file and the directory
	ModeCopyNoSync  = "copy-nosync" // copy into the directory, no fsync
	ModeCrumb       = "crumb"       // Guard.Project from a reader: store, then project
	ModePassThrough = "passthrough" // Guard.Project of a small result, many times
	ModeRead        = "read"        // a page read from the middle of a stored result
	ModeGrep        = "grep"        // a search of a whole stored result that matches nothing

	// Whole processes, timed in turn with a baseline process (Exe).
	ModeReadProcess = "read-process" // crumb read REF --lines N: of the middle, against crumb version
	ModeGrepProcess = "grep-process" // crumb grep REF GrepLiteral, against GNU grep -n on the raw file

	// The phases of crumb's work, measured apart to tell where its time
	// goes (--phases).
	ModeHash    = "hash"    // SHA-256 of the input, in memory: one hashing pass
	ModePut     = "put"     // store.Put of the input into a new store
	ModeVerify  = "verify"  // every chunk of a stored result read back and verified
	ModeProject = "project" // the kind's projection of a stored result, as the Guard runs it
)

// speedSource is the corpus case a kind repeats, and where a copy of it may
// be cut so that what is made stays well-formed.
type speedSource struct {
	caseName string
	kind     project.Kind
	boundary string
}

var speedSources = map[string]speedSource{
	SpeedLog:     {"text-nginx-access", project.KindText, "\n"},
	SpeedCommand: {"command-go-test-v-deep-fail", project.KindCommand, "\n"},
	// go list -json writes a stream of objects, each ending "}" at the
	// start of a line: copies of it are a longer stream of the same kind.
	SpeedJSON: {"json-go-list-std", project.KindJSON, "\n}\n"},
}

// SpeedKinds lists the kinds of result the speed benchmark makes.
func SpeedKinds() []string { return []string{SpeedLog, SpeedCommand, SpeedJSON} }

// maxSource bounds how much of a case is repeated, so that the generator's
// own memory stays small beside what is measured.
const maxSource = 1 << 20

// LoadSource returns the real output a kind repeats, from the corpus in
// dir: at most 1 MiB of it, cut at the kind's boundary.
func LoadSource(dir, kind string) ([]byte, error) {
	src, ok := speedSources[kind]
	if !ok {
		return nil, fmt.Errorf("bench: no speed kind %q; the kinds are %s", kind, strings.Join(SpeedKinds(), ", "))
	}
	f, err := os.Open(filepath.Join(dir, src.caseName, "output"))
	if err != nil {
		return nil, fmt.Errorf("bench: the %s speed input repeats case %s of the corpus: %w", kind, src.caseName, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSource))
	if err != nil {
		return nil, fmt.Errorf("bench: reading case %s: %w", src.caseName, err)
	}
	b = cutAtBoundary(b, src.boundary)
	if len(b) == 0 {
		return nil, fmt.Errorf("bench: case %s has no %q to cut copies at", src.caseName, src.boundary)
	}
	return b, nil
}

// cutAtBoundary returns b up to and including the last boundary in it.
func cutAtBoundary(b []byte, boundary string) []byte {
	i := bytes.LastIndex(b, []byte(boundary))
	if i < 0 {
		return nil
	}
	return b[:i+len(boundary)]
}

// Repeat returns a reader of whole copies of src followed by a part of one
// cut just after its last boundary that fits, so that the reader gives at
// most size bytes and at least size minus one copy. It keeps nothing but
// src.
func Repeat(src []byte, boundary string, size int64) io.Reader {
	n := int64(len(src))
	if n == 0 || size <= 0 {
		return bytes.NewReader(nil)
	}
	full := size / n
	tail := cutAtBoundary(src[:size-full*n], boundary)
	return &repeater{src: src, copies: full, tail: tail}
}

type repeater struct {
	src    []byte
	copies int64 // whole copies left, counting the one being read
	tail   []byte
	pos    int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		cur := r.src
		if r.copies == 0 {
			cur = r.tail
		}
		if r.pos >= len(cur) {
			if r.copies == 0 {
				break
			}
			r.copies--
			r.pos = 0
			continue
		}
		k := copy(p[n:], cur[r.pos:])
		n += k
		r.pos += k
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// OneSpec describes one speed measurement, run in a process of its own so
// that its peak memory is its own.
type OneSpec struct {
	Mode   string `json:"mode"`
	Kind   string `json:"kind,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Corpus string `json:"corpus"`
	// Dir is the directory written to: the store's for crumb, read and
	// grep; the one a copy goes into for the copies.
	Dir string `json:"dir"`
	// Ref names the stored result read and searched.
	Ref string `json:"ref,omitempty"`
	// Runs is how many times a pass-through or a read is timed.
	Runs int `json:"runs,omitempty"`
	// CPUProfile, when set, is where a CPU profile of the measurement goes.
	CPUProfile string `json:"cpuprofile,omitempty"`
	// Exe is the crumb executable the process modes run.
	Exe string `json:"exe,omitempty"`
	// File is the raw copy of the stored result GNU grep searches.
	File string `json:"file,omitempty"`
}

// OneResult is what one measurement found.
type OneResult struct {
	Mode string `json:"mode"`
	Kind string `json:"kind,omitempty"`
	// Bytes is how many bytes were copied, stored or searched.
	Bytes int64 `json:"bytes"`
	// Seconds is the time measured; for repeated runs, their median.
	Seconds float64 `json:"seconds"`
	// CPUSeconds is the processor time (user and system, all threads) the
	// process spent in the same span, where it is measured (crumb): on a
	// shared machine it varies far less than Seconds.
	CPUSeconds float64 `json:"cpu_seconds,omitempty"`
	// AfterSeconds is, for crumb, the part of Seconds after the input's
	// last byte was read: what a caller waits for the view once the tool
	// has ended.
	AfterSeconds float64 `json:"after_seconds,omitempty"`
	// P99Seconds is the 99th percentile of repeated runs.
	P99Seconds float64 `json:"p99_seconds,omitempty"`
	Runs       int     `json:"runs,omitempty"`
	// MBps is Bytes/Seconds in MB (10^6 bytes) per second.
	MBps float64 `json:"mb_per_s,omitempty"`
	// PeakRSS is the process's peak resident memory (VmHWM) in bytes, read
	// at the end of the measurement.
	PeakRSS int64 `json:"peak_rss"`
	// Ref, Output and ViewTokens describe crumb's view.
	Ref        string `json:"ref,omitempty"`
	Output     string `json:"output,omitempty"`
	ViewTokens int    `json:"view_tokens,omitempty"`
	// BaseSeconds is the median time of the baseline process of the
	// process modes, run in turn with crumb's; BaseName names it.
	BaseSeconds float64 `json:"base_seconds,omitempty"`
	BaseName    string  `json:"base_name,omitempty"`
}

// MeasureOne runs one measurement in this process.
func MeasureOne(ctx context.Context, s OneSpec) (OneResult, error) {
	if s.CPUProfile != "" {
		f, err := os.Create(s.CPUProfile)
		if err != nil {
			return OneResult{}, fmt.Errorf("bench: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return OneResult{}, fmt.Errorf("bench: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	var (
		r   OneResult
		err error
	)
	switch s.Mode {
	case ModeCopy, ModeCopyNoSync:
		r, err = measureCopy(s)
	case ModeCrumb:
		r, err = measureCrumb(ctx, s)
	case ModePassThrough:
		r, err = measurePassThrough(ctx, s)
	case ModeRead, ModeGrep:
		r, err = measureRecall(ctx, s)
	case ModeReadProcess, ModeGrepProcess:
		r, err = measureProcesses(ctx, s)
	case ModeHash, ModePut, ModeVerify, ModeProject:
		r, err = measurePhase(ctx, s)
	case ModeMCP:
		r, err = measureMCP(ctx, s)
	case ModeMCPSmall:
		r, err = measureMCPSmall(ctx, s)
	default:
		err = fmt.Errorf("bench: no speed mode %q", s.Mode)
	}
	if err != nil {
		return OneResult{}, err
	}
	r.Mode, r.Kind = s.Mode, s.Kind
	if r.Seconds > 0 && r.Bytes > 0 {
		r.MBps = float64(r.Bytes) / 1e6 / r.Seconds
	}
	r.PeakRSS = PeakRSS()
	return r, nil
}

func input(s OneSpec) (io.Reader, speedSource, error) {
	src, err := LoadSource(s.Corpus, s.Kind)
	if err != nil {
		return nil, speedSource{}, err
	}
	ss := speedSources[s.Kind]
	return Repeat(src, ss.boundary, s.Size), ss, nil
}

// countingReader counts what is read through it.
type countingReader struct {
	r     io.Reader
	n     int64
	ended time.Time // when it first returned io.EOF
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err == io.EOF && c.ended.IsZero() {
		c.ended = time.Now()
	}
	return n, err
}

// measureCopy copies the input into a file of s.Dir the way the store
// writes a blob: to a temporary file, then (unless told not to) fsync, a
// rename into place and an fsync of the directory. The file is removed
// afterwards.
func measureCopy(s OneSpec) (OneResult, error) {
	in, _, err := input(s)
	if err != nil {
		return OneResult{}, err
	}
	sync := s.Mode == ModeCopy
	cr := &countingReader{r: in}
	buf := make([]byte, 256<<10) // the store's copy buffer size
	start := time.Now()
	f, err := os.CreateTemp(s.Dir, "copy-*")
	if err != nil {
		return OneResult{}, fmt.Errorf("bench: %w", err)
	}
	tmp := f.Name()
	final := filepath.Join(s.Dir, "copy.out")
	defer os.Remove(tmp)
	defer os.Remove(final)
	if _, err := io.CopyBuffer(onlyWriter{f}, cr, buf); err != nil {
		f.Close()
		return OneResult{}, fmt.Errorf("bench: copying: %w", err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			return OneResult{}, fmt.Errorf("bench: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		return OneResult{}, fmt.Errorf("bench: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return OneResult{}, fmt.Errorf("bench: %w", err)
	}
	if sync {
		if err := syncDir(s.Dir); err != nil {
			return OneResult{}, fmt.Errorf("bench: %w", err)
		}
	}
	return OneResult{Bytes: cr.n, Seconds: time.Since(start).Seconds()}, nil
}

// onlyWriter hides the file's ReadFrom, so that the copy goes through the
// same 256 KiB buffer as the store's.
type onlyWriter struct{ w io.Writer }

func (o onlyWriter) Write(p []byte) (int, error) { return o.w.Write(p) }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// newGuard opens the store in dir as the command line does and returns a
// Guard on it with the tokenizer already loaded, as in a process that has
// projected before.
func newGuard(dir string) (*crumb.Guard, *store.Dir, error) {
	d, err := store.OpenDir(dir, store.DirOptions{ManualGC: true})
	if err != nil {
		return nil, nil, err
	}
	tokens.O200k().Count("warm up")
	g, err := crumb.New(crumb.Config{Store: d})
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return g, d, nil
}

// measureCrumb stores and projects the input with a Guard, end to end.
func measureCrumb(ctx context.Context, s OneSpec) (OneResult, error) {
	in, ss, err := input(s)
	if err != nil {
		return OneResult{}, err
	}
	g, d, err := newGuard(s.Dir)
	if err != nil {
		return OneResult{}, err
	}
	defer d.Close()
	cr := &countingReader{r: in}
	res := crumb.Result{Tool: "bench", Kind: ss.kind, Reader: cr}
	if ss.kind == project.KindCommand {
		code := 1
		res.ExitCode, res.Command = &code, []string{"go", "test", "-v", "./..."}
	}
	start, cpu := time.Now(), cpuTime()
	v, err := g.Project(ctx, res)
	if err != nil {
		return OneResult{}, err
	}
	end := time.Now()
	sec, cpuSec := end.Sub(start).Seconds(), cpuTime()-cpu
	if v.Receipt.StoreError != "" {
		return OneResult{}, fmt.Errorf("bench: the store failed: %s", v.Receipt.StoreError)
	}
	r := OneResult{Bytes: cr.n, Seconds: sec, CPUSeconds: cpuSec, Ref: string(v.Ref), Output: v.Receipt.Output, ViewTokens: v.Receipt.ViewTokens}
	if !cr.ended.IsZero() {
		r.AfterSeconds = end.Sub(cr.ended).Seconds()
	}
	return r, nil
}

// PassThroughBytes is about the size of the small result timed passing
// through.
const PassThroughBytes = 1 << 10

// measurePassThrough times Guard.Project on a small result (the first
// whole lines of the log within 1 KiB) s.Runs times and reports the median.
func measurePassThrough(ctx context.Context, s OneSpec) (OneResult, error) {
	src, err := LoadSource(s.Corpus, SpeedLog)
	if err != nil {
		return OneResult{}, err
	}
	body := cutAtBoundary(src[:min(len(src), PassThroughBytes)], "\n")
	g, d, err := newGuard(s.Dir)
	if err != nil {
		return OneResult{}, err
	}
	defer d.Close()
	runs := max(s.Runs, 1)
	times := make([]time.Duration, 0, runs)
	for i := -min(runs, 1000); i < runs; i++ { // the first runs warm up
		start := time.Now()
		v, err := g.Project(ctx, crumb.Result{Tool: "bench", Body: body})
		el := time.Since(start)
		if err != nil {
			return OneResult{}, err
		}
		if v.Receipt.Output != crumb.OutputExact || v.Text != string(body) {
			return OneResult{}, fmt.Errorf("bench: a %d-byte result did not pass through untouched (%s)", len(body), v.Receipt.Output)
		}
		if i >= 0 {
			times = append(times, el)
		}
	}
	med, p99 := quantiles(times)
	return OneResult{Bytes: int64(len(body)), Seconds: med.Seconds(), P99Seconds: p99.Seconds(), Runs: runs}, nil
}

// quantiles returns the median and the 99th percentile of ts.
func quantiles(ts []time.Duration) (med, p99 time.Duration) {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2], s[min(len(s)-1, len(s)*99/100)]
}

// NoMatch is the pattern the search of a stored result looks for: it
// matches nothing the corpus holds, so the search reads the whole result.
const NoMatch = `crumb-bench-no-such-line-[0-9]{12}`

// measureRecall reads a page from the middle of a stored result, or
// searches all of it for NoMatch.
func measureRecall(ctx context.Context, s OneSpec) (OneResult, error) {
	d, err := store.OpenDir(s.Dir, store.DirOptions{ManualGC: true})
	if err != nil {
		return OneResult{}, err
	}
	defer d.Close()
	ref, err := store.ParseRef(s.Ref)
	if err != nil {
		return OneResult{}, err
	}
	info, err := d.Stat(ctx, ref)
	if err != nil {
		return OneResult{}, err
	}
	tokens.O200k().Count("warm up")
	opts := recall.Options{Budget: crumb.DefaultBudget, Line: crumb.LineRenderer(ctx, d)}
	req := recall.Request{Ref: ref}
	if s.Mode == ModeGrep {
		req.Grep = &recall.GrepSpec{Pattern: NoMatch}
		start := time.Now()
		p, err := recall.Grep(ctx, d, req, opts)
		if err != nil {
			return OneResult{}, err
		}
		if p.Next != nil {
			return OneResult{}, fmt.Errorf("bench: the search for %s did not search the whole result", NoMatch)
		}
		return OneResult{Bytes: info.Size, Seconds: time.Since(start).Seconds(), Runs: 1}, nil
	}
	mid := int64(1)
	if info.Lines != nil {
		mid = max(1, *info.Lines/2)
	}
	req.Lines = &recall.Span{From: mid}
	runs := max(s.Runs, 1)
	var times []time.Duration
	var page recall.Page
	for range runs {
		start := time.Now()
		page, err = recall.Read(ctx, d, req, opts)
		if err != nil {
			return OneResult{}, err
		}
		times = append(times, time.Since(start))
	}
	med, p99 := quantiles(times)
	return OneResult{Bytes: page.To - page.From, Seconds: med.Seconds(), P99Seconds: p99.Seconds(), Runs: runs, ViewTokens: page.Tokens}, nil
}

// GrepLiteral is the rare literal the searches as whole processes look
// for: it occurs nowhere in the corpus, so both read every byte.
const GrepLiteral = "crumb-bench-no-such-line"

// measureProcesses times crumb as a whole process, s.Runs times, in turn
// with a baseline process: for a page read, a crumb that does nothing but
// start (crumb version); for a search, GNU grep -n on the raw file.
func measureProcesses(ctx context.Context, s OneSpec) (OneResult, error) {
	d, err := store.OpenDir(s.Dir, store.DirOptions{ManualGC: true})
	if err != nil {
		return OneResult{}, err
	}
	ref, err := store.ParseRef(s.Ref)
	if err != nil {
		d.Close()
		return OneResult{}, err
	}
	info, err := d.Stat(ctx, ref)
	d.Close()
	if err != nil {
		return OneResult{}, err
	}
	var crumbArgs, baseArgs []string
	r := OneResult{Bytes: info.Size}
	if s.Mode == ModeReadProcess {
		mid := int64(1)
		if info.Lines != nil {
			mid = max(1, *info.Lines/2)
		}
		crumbArgs = []string{s.Exe, "read", string(ref), "--lines", fmt.Sprintf("%d:", mid)}
		baseArgs = []string{s.Exe, "version"}
		r.BaseName = "crumb version"
	} else {
		grep, err := exec.LookPath("grep")
		if err != nil {
			return OneResult{}, fmt.Errorf("bench: GNU grep to compare with: %w", err)
		}
		crumbArgs = []string{s.Exe, "grep", string(ref), GrepLiteral}
		baseArgs = []string{grep, "-n", GrepLiteral, s.File}
		r.BaseName = "grep -n"
	}
	run := func(args []string) (time.Duration, error) {
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "CRUMB_STORE="+s.Dir, "CRUMB_GC=off")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		el := time.Since(start)
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 1 && args[0] != s.Exe {
			err = nil // grep found nothing, as it should
		}
		if err != nil {
			return 0, fmt.Errorf("bench: %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return el, nil
	}
	runs := max(s.Runs, 1)
	var times, base []time.Duration
	for i := -1; i < runs; i++ { // one run of each warms the page cache
		t, err := run(crumbArgs)
		if err != nil {
			return OneResult{}, err
		}
		b, err := run(baseArgs)
		if err != nil {
			return OneResult{}, err
		}
		if i >= 0 {
			times, base = append(times, t), append(base, b)
		}
	}
	med, p99 := quantiles(times)
	bmed, _ := quantiles(base)
	r.Seconds, r.P99Seconds, r.Runs, r.BaseSeconds = med.Seconds(), p99.Seconds(), runs, bmed.Seconds()
	return r, nil
}

// measurePhase measures one phase of crumb's work on its own.
func measurePhase(ctx context.Context, s OneSpec) (OneResult, error) {
	if s.Mode == ModeHash || s.Mode == ModePut {
		in, ss, err := input(s)
		if err != nil {
			return OneResult{}, err
		}
		cr := &countingReader{r: in}
		start := time.Now()
		if s.Mode == ModeHash {
			h := sha256.New()
			if _, err := io.CopyBuffer(h, cr, make([]byte, 256<<10)); err != nil {
				return OneResult{}, err
			}
			h.Sum(nil)
			return OneResult{Bytes: cr.n, Seconds: time.Since(start).Seconds()}, nil
		}
		d, err := store.OpenDir(s.Dir, store.DirOptions{ManualGC: true})
		if err != nil {
			return OneResult{}, err
		}
		defer d.Close()
		info, err := d.Put(ctx, cr, store.Meta{Tool: "bench", Kind: string(ss.kind), Limit: crumb.DefaultMaxKeep})
		if err != nil {
			return OneResult{}, err
		}
		return OneResult{Bytes: cr.n, Seconds: time.Since(start).Seconds(), Ref: string(info.Ref)}, nil
	}
	d, err := store.OpenDir(s.Dir, store.DirOptions{ManualGC: true})
	if err != nil {
		return OneResult{}, err
	}
	defer d.Close()
	ref, err := store.ParseRef(s.Ref)
	if err != nil {
		return OneResult{}, err
	}
	tokens.O200k().Count("warm up")
	start := time.Now()
	obj, err := d.Open(ctx, ref)
	if err != nil {
		return OneResult{}, err
	}
	defer obj.Close()
	if s.Mode == ModeVerify {
		buf := make([]byte, store.ChunkSize)
		var off int64
		for off < obj.Size() {
			n, err := obj.ReadAt(buf[:min(int64(len(buf)), obj.Size()-off)], off)
			if err != nil && !errors.Is(err, io.EOF) {
				return OneResult{}, err
			}
			off += int64(n)
		}
		return OneResult{Bytes: off, Seconds: time.Since(start).Seconds()}, nil
	}
	// As Guard.Project does once the result is stored (guard.go: input,
	// finish), without the receipt.
	info := obj.Info()
	ss := speedSources[s.Kind]
	in := &project.Input{Source: obj, Ref: info.Ref, Digest: info.Digest, Tool: "bench", Budget: crumb.DefaultBudget,
		Counter: tokens.O200k(), Hint: recall.CLIHint, Line: crumb.LineRenderer(ctx, d),
		Put: func(ctx context.Context, data []byte, meta store.Meta) (store.Ref, error) {
			i, err := d.Put(ctx, bytes.NewReader(data), meta)
			return i.Ref, err
		}}
	if ss.kind == project.KindCommand {
		code := 1
		in.ExitCode, in.Command = &code, []string{"go", "test", "-v", "./..."}
	}
	out, err := project.Project(ctx, ss.kind, in)
	if err != nil {
		return OneResult{}, err
	}
	return OneResult{Bytes: obj.Size(), Seconds: time.Since(start).Seconds(), ViewTokens: tokens.O200k().Count(out.Text)}, nil
}

// PeakRSS returns this process's peak resident memory in bytes (VmHWM from
// /proc/self/status), or -1 where that is not known.
func PeakRSS() int64 {
	n, err := procmem.Peak(0)
	if err != nil {
		return -1
	}
	return n
}

// SpeedOptions configure [RunSpeed].
type SpeedOptions struct {
	// Corpus is the corpus whose outputs are repeated.
	Corpus string
	// Dir is where results are written (a directory under it, removed at
	// the end). Empty means the system's temporary directory.
	Dir string
	// Sizes and Kinds are the results made: every kind at every size.
	Sizes []int64
	Kinds []string
	// PassThroughRuns is how many times the small result is timed; zero
	// means 20,000.
	PassThroughRuns int
	// Run runs one measurement, usually in a process of its own; nil runs
	// it in this process with MeasureOne.
	Run func(context.Context, OneSpec) (OneResult, error)
	// Progress, when set, is told what is being measured.
	Progress func(msg string)
	// CPUProfileDir, when set, gets a CPU profile of every crumb run.
	CPUProfileDir string
	// Phases also measures the phases of crumb's work apart (see
	// [Phases]), to tell where its time goes.
	Phases bool
	// Runs is how many times each of copy, plain copy and crumb runs, in
	// turn; each row reports the run of median time. Zero means 3: disk
	// syncs on a shared machine vary by a factor of two from run to run.
	Runs int
	// Exe is the crumb executable to time page reads and searches with as
	// whole processes; empty skips them.
	Exe string
}

// Phases are the parts of crumb's work on one result, measured apart: the
// time of one SHA-256 pass over the input in memory, the store's Put, the
// re-read and verification of every chunk, and the projection of the
// stored result (which re-reads what it needs, verified).
type Phases struct {
	Hash    OneResult `json:"hash"`
	Put     OneResult `json:"put"`
	Verify  OneResult `json:"verify"`
	Project OneResult `json:"project"`
}

// SpeedRow holds the measurements of one kind at one size.
type SpeedRow struct {
	Kind       string    `json:"kind"`
	Size       int64     `json:"size"`
	Copy       OneResult `json:"copy"`
	CopyNoSync OneResult `json:"copy_nosync"`
	Crumb      OneResult `json:"crumb"`
	// Ratio is crumb's time over the fsynced copy's, RatioNoSync over the
	// plain copy's.
	Ratio       float64 `json:"ratio"`
	RatioNoSync float64 `json:"ratio_nosync"`
	// Phases, with SpeedOptions.Phases, tell where crumb's time goes.
	Phases *Phases `json:"phases,omitempty"`
}

// SpeedReport is what RunSpeed measured.
type SpeedReport struct {
	Rows        []SpeedRow `json:"rows"`
	PassThrough OneResult  `json:"passthrough"`
	// Read and Grep were measured on the largest log (or the largest
	// result when no log was made); RecallOf says which.
	Read OneResult `json:"read"`
	Grep OneResult `json:"grep"`
	// ReadProcess and GrepProcess are the same as whole processes, with
	// their baselines (SpeedOptions.Exe).
	ReadProcess OneResult `json:"read_process"`
	GrepProcess OneResult `json:"grep_process"`
	RecallOf    string    `json:"recall_of"`
	RecallSize  int64     `json:"recall_size"`
	// MCP is one tools/call of a large text result through the MCP proxy
	// (see ModeMCP).
	MCP OneResult `json:"mcp"`
	// MCPSmall is a small tools/call through the MCP proxy and directly
	// (see ModeMCPSmall).
	MCPSmall OneResult `json:"mcp_small"`
	// CPUs and GOMAXPROCS describe the machine.
	CPUs       int `json:"cpus"`
	GOMAXPROCS int `json:"gomaxprocs"`
}

// RunSpeed runs the speed benchmark: for every kind and size, a copy with
// fsync, a plain copy and crumb, one after the other, with the page cache
// flushed to disk before each; then the pass-through of a small result, and
// a page read and a search of the largest log crumb stored. Everything it
// writes is removed.
func RunSpeed(ctx context.Context, o SpeedOptions) (SpeedReport, error) {
	if o.Run == nil {
		o.Run = MeasureOne
	}
	if o.PassThroughRuns <= 0 {
		o.PassThroughRuns = 20_000
	}
	if o.Runs <= 0 {
		o.Runs = 3
	}
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, args...))
		}
	}
	for _, k := range o.Kinds {
		if _, err := LoadSource(o.Corpus, k); err != nil {
			return SpeedReport{}, err
		}
	}
	root, err := os.MkdirTemp(o.Dir, "crumb-speed-")
	if err != nil {
		return SpeedReport{}, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(root)
	rep := SpeedReport{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	sizes := slices.Clone(o.Sizes)
	slices.Sort(sizes)
	var recallDir, recallRef string
	var recallSize int64
	step := 0
	for _, size := range sizes {
		for _, kind := range o.Kinds {
			row := SpeedRow{Kind: kind, Size: size}
			dir := filepath.Join(root, fmt.Sprintf("%s-%d", kind, size))
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return rep, fmt.Errorf("bench: %w", err)
			}
			modes := []struct {
				mode string
				out  *OneResult
				runs []OneResult
			}{{mode: ModeCopy, out: &row.Copy}, {mode: ModeCopyNoSync, out: &row.CopyNoSync}, {mode: ModeCrumb, out: &row.Crumb}}
			// The runs of the three take turns, so that a slow spell of the
			// machine falls on all of them alike.
			for run := 0; run < o.Runs; run++ {
				for i := range modes {
					m := &modes[i]
					step++
					progress("%s of a %s %s result (%d of %d)", m.mode, BinarySize(size), kind, step, 3*o.Runs*len(sizes)*len(o.Kinds))
					syscall.Sync() // start from a clean page cache
					spec := OneSpec{Mode: m.mode, Kind: kind, Size: size, Corpus: o.Corpus, Dir: dir}
					if m.mode == ModeCrumb && o.CPUProfileDir != "" && run == 0 {
						spec.CPUProfile = filepath.Join(o.CPUProfileDir, fmt.Sprintf("crumb-%s-%d.pprof", kind, size))
					}
					r, err := o.Run(ctx, spec)
					if err != nil {
						return rep, fmt.Errorf("bench: %s of a %s %s result: %w", m.mode, BinarySize(size), kind, err)
					}
					m.runs = append(m.runs, r)
				}
			}
			for i := range modes {
				*modes[i].out = median(modes[i].runs)
			}
			if o.Phases {
				ph := &Phases{}
				for _, m := range []struct {
					mode string
					out  *OneResult
				}{{ModeVerify, &ph.Verify}, {ModeProject, &ph.Project}, {ModePut, &ph.Put}, {ModeHash, &ph.Hash}} {
					progress("%s phase of a %s %s result", m.mode, BinarySize(size), kind)
					spec := OneSpec{Mode: m.mode, Kind: kind, Size: size, Corpus: o.Corpus, Dir: dir, Ref: row.Crumb.Ref}
					if m.mode == ModePut {
						spec.Dir = filepath.Join(dir, "put")
						if err := os.MkdirAll(spec.Dir, 0o700); err != nil {
							return rep, fmt.Errorf("bench: %w", err)
						}
					}
					syscall.Sync()
					r, err := o.Run(ctx, spec)
					if err != nil {
						return rep, fmt.Errorf("bench: %s phase of a %s %s result: %w", m.mode, BinarySize(size), kind, err)
					}
					*m.out = r
					if m.mode == ModePut {
						os.RemoveAll(spec.Dir)
					}
				}
				row.Phases = ph
			}
			if row.Copy.Seconds > 0 {
				row.Ratio = row.Crumb.Seconds / row.Copy.Seconds
			}
			if row.CopyNoSync.Seconds > 0 {
				row.RatioNoSync = row.Crumb.Seconds / row.CopyNoSync.Seconds
			}
			rep.Rows = append(rep.Rows, row)
			// Keep the largest log's store for the reads; remove the rest.
			better := recallDir == "" || kind == SpeedLog && (rep.RecallOf != SpeedLog || size > recallSize) ||
				rep.RecallOf != SpeedLog && size > recallSize
			if better {
				if recallDir != "" {
					os.RemoveAll(recallDir)
				}
				recallDir, recallRef, recallSize, rep.RecallOf = dir, row.Crumb.Ref, size, kind
			} else {
				os.RemoveAll(dir)
			}
		}
	}
	progress("a small result passing through (%s runs)", textfmt.Int(int64(o.PassThroughRuns)))
	ptDir := filepath.Join(root, "passthrough")
	if err := os.MkdirAll(ptDir, 0o700); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	if rep.PassThrough, err = o.Run(ctx, OneSpec{Mode: ModePassThrough, Corpus: o.Corpus, Dir: ptDir, Runs: o.PassThroughRuns}); err != nil {
		return rep, fmt.Errorf("bench: pass-through: %w", err)
	}
	if mcpSize := mcpRowSize(sizes); mcpSize > 0 {
		progress("a %s tool result through the MCP proxy", BinarySize(mcpSize))
		dir := filepath.Join(root, "mcp")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return rep, fmt.Errorf("bench: %w", err)
		}
		if rep.MCP, err = o.Run(ctx, OneSpec{Mode: ModeMCP, Size: mcpSize, Corpus: o.Corpus, Dir: dir}); err != nil {
			return rep, fmt.Errorf("bench: the MCP proxy: %w", err)
		}
		os.RemoveAll(dir)
	}
	progress("small tools/call requests, through the MCP proxy and directly")
	if rep.MCPSmall, err = o.Run(ctx, OneSpec{Mode: ModeMCPSmall, Corpus: o.Corpus, Dir: ptDir}); err != nil {
		return rep, fmt.Errorf("bench: small calls through the MCP proxy: %w", err)
	}
	if recallRef != "" {
		progress("a page read and a search of the %s %s result", BinarySize(recallSize), rep.RecallOf)
		syscall.Sync()
		if rep.Read, err = o.Run(ctx, OneSpec{Mode: ModeRead, Kind: rep.RecallOf, Corpus: o.Corpus, Dir: recallDir, Ref: recallRef, Runs: 5}); err != nil {
			return rep, fmt.Errorf("bench: reading a page: %w", err)
		}
		if rep.Grep, err = o.Run(ctx, OneSpec{Mode: ModeGrep, Kind: rep.RecallOf, Corpus: o.Corpus, Dir: recallDir, Ref: recallRef}); err != nil {
			return rep, fmt.Errorf("bench: searching: %w", err)
		}
		rep.Read.Kind, rep.Grep.Kind, rep.RecallSize = rep.RecallOf, rep.RecallOf, recallSize
		if o.Exe != "" {
			if err := measureRecallProcesses(ctx, o, &rep, recallDir, recallRef); err != nil {
				return rep, err
			}
		}
	}
	return rep, ctx.Err()
}

// measureRecallProcesses times a page read and a search of the stored
// result as whole processes, with their baselines; the search's baseline
// reads a raw copy of the same bytes, written beside the store.
func measureRecallProcesses(ctx context.Context, o SpeedOptions, rep *SpeedReport, dir, ref string) error {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf("a page read and a search of the %s %s result as whole processes", BinarySize(rep.RecallSize), rep.RecallOf))
	}
	raw := filepath.Join(dir, "raw")
	in, _, err := input(OneSpec{Kind: rep.RecallOf, Size: rep.RecallSize, Corpus: o.Corpus})
	if err != nil {
		return err
	}
	f, err := os.Create(raw)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("bench: writing the raw copy for grep: %w", err)
	}
	defer os.Remove(raw)
	syscall.Sync()
	spec := OneSpec{Mode: ModeReadProcess, Kind: rep.RecallOf, Corpus: o.Corpus, Dir: dir, Ref: ref, Exe: o.Exe, File: raw, Runs: 9}
	if rep.ReadProcess, err = o.Run(ctx, spec); err != nil {
		return fmt.Errorf("bench: reading a page as a process: %w", err)
	}
	spec.Mode, spec.Runs = ModeGrepProcess, 3
	if rep.GrepProcess, err = o.Run(ctx, spec); err != nil {
		return fmt.Errorf("bench: searching as a process: %w", err)
	}
	rep.ReadProcess.Kind, rep.GrepProcess.Kind = rep.RecallOf, rep.RecallOf
	return nil
}

// median returns the run of median time (the slower of the middle two for
// an even count), with the highest peak memory of all the runs.
func median(runs []OneResult) OneResult {
	sorted := slices.Clone(runs)
	slices.SortFunc(sorted, func(a, b OneResult) int { return cmp.Compare(a.Seconds, b.Seconds) })
	m := sorted[len(sorted)/2]
	for _, r := range runs {
		m.PeakRSS = max(m.PeakRSS, r.PeakRSS)
	}
	return m
}

// WriteSpeed writes a speed report as tables.
func WriteSpeed(w io.Writer, r SpeedReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row(tw, "kind", "size", "copy+fsync", "copy", "crumb", "crumb time", "after input", "crumb CPU", "crumb/copy+fsync", "crumb/copy", "peak RSS crumb", "peak RSS copy", "view tokens")
	for _, x := range r.Rows {
		row(tw, x.Kind, BinarySize(x.Size), mbps(x.Copy), mbps(x.CopyNoSync), mbps(x.Crumb), seconds(x.Crumb.Seconds), seconds(x.Crumb.AfterSeconds), seconds(x.Crumb.CPUSeconds),
			fmt.Sprintf("%.2f", x.Ratio), fmt.Sprintf("%.2f", x.RatioNoSync), textfmt.Size(x.Crumb.PeakRSS), textfmt.Size(x.Copy.PeakRSS),
			textfmt.Int(int64(x.Crumb.ViewTokens)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if len(r.Rows) > 0 && r.Rows[0].Phases != nil {
		fmt.Fprintln(w, "where crumb's time goes, each phase timed alone: the store's put (copy, SHA-256 of each chunk, fsync),")
		fmt.Fprintln(w, "the projection of the stored result (which reads back, verified, what it needs), reading back and")
		fmt.Fprintln(w, "verifying every chunk, and one SHA-256 pass over the bytes in memory")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		row(tw, "kind", "size", "crumb", "copy+fsync", "store put", "put - copy", "project", "verify all", "one sha-256 pass")
		for _, x := range r.Rows {
			p := x.Phases
			row(tw, x.Kind, BinarySize(x.Size), seconds(x.Crumb.Seconds), seconds(x.Copy.Seconds), seconds(p.Put.Seconds),
				seconds(p.Put.Seconds-x.Copy.Seconds), seconds(p.Project.Seconds), seconds(p.Verify.Seconds),
				seconds(p.Hash.Seconds)+" ("+mbps(p.Hash)+")")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	pt := r.PassThrough
	if pt.Runs > 0 {
		fmt.Fprintf(w, "a %s result passing through untouched: median %s, p99 %s (%s runs)\n",
			textfmt.Size(pt.Bytes), seconds(pt.Seconds), seconds(pt.P99Seconds), textfmt.Int(int64(pt.Runs)))
	}
	if r.Read.Runs > 0 {
		fmt.Fprintf(w, "a page (%s tokens) read from the middle of the %s %s result: median %s of %d, peak RSS %s\n",
			textfmt.Int(int64(r.Read.ViewTokens)), BinarySize(r.RecallSize), r.RecallOf, seconds(r.Read.Seconds), r.Read.Runs, textfmt.Size(r.Read.PeakRSS))
	}
	if r.Grep.Runs > 0 {
		fmt.Fprintf(w, "a search of the whole %s %s result (no match): %s, %s, peak RSS %s\n",
			BinarySize(r.RecallSize), r.RecallOf, seconds(r.Grep.Seconds), mbps(r.Grep), textfmt.Size(r.Grep.PeakRSS))
	}
	if m := r.MCP; m.Bytes > 0 {
		fmt.Fprintf(w, "a %s text result of a tools/call through the MCP proxy: %s, a view of %s tokens, peak RSS of the proxy %s\n",
			textfmt.Size(m.Bytes), seconds(m.Seconds), textfmt.Int(int64(m.ViewTokens)), textfmt.Size(m.PeakRSS))
	}
	if m := r.MCPSmall; m.Runs > 0 {
		fmt.Fprintln(w, mcpSmallLine(m))
	}
	if rp := r.ReadProcess; rp.Runs > 0 {
		fmt.Fprintf(w, "the same page read by a crumb read process: median %s of %d (a %s process, start-up alone: %s%s)\n",
			seconds(rp.Seconds), rp.Runs, rp.BaseName, seconds(rp.BaseSeconds), ratio(rp))
	}
	if gp := r.GrepProcess; gp.Runs > 0 {
		fmt.Fprintf(w, "a search for a rare literal by a crumb grep process: median %s of %d; %s on the raw file: %s%s\n",
			seconds(gp.Seconds), gp.Runs, gp.BaseName, seconds(gp.BaseSeconds), ratio(gp))
	}
	fmt.Fprintf(w, "MB/s are 10^6 bytes a second; %d CPUs, GOMAXPROCS %d\n", r.CPUs, r.GOMAXPROCS)
	if ts := Targets(r); len(ts) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		row(tw, "figure", "measured", "target", "met")
		for _, t := range ts {
			met := "no"
			if t.Met {
				met = "yes"
			}
			row(tw, t.Figure, t.Measured, t.Target, met)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// Target is one figure of the speed targets (issue 11), as measured.
type Target struct {
	Figure   string `json:"figure"`
	Measured string `json:"measured"`
	Target   string `json:"target"`
	Met      bool   `json:"met"`
}

// Targets sets the figures of a report beside their targets: the worst
// ratio to copy+fsync at 100 MB and above and at 10 MB and below, the
// highest peak memory, the page read and the search as whole processes,
// and the pass-through of a small result. Figures not measured are left
// out.
func Targets(r SpeedReport) []Target {
	var out []Target
	worst := func(keep func(int64) bool) (SpeedRow, bool) {
		var w SpeedRow
		found := false
		for _, x := range r.Rows {
			if keep(x.Size) && (!found || x.Ratio > w.Ratio) {
				w, found = x, true
			}
		}
		return w, found
	}
	if w, ok := worst(func(n int64) bool { return n >= 100<<20 }); ok {
		out = append(out, Target{"store + project vs copy+fsync, 100 MB and above (worst)",
			fmt.Sprintf("%.2f× (%s %s)", w.Ratio, w.Kind, BinarySize(w.Size)), "≤ 1.5×", w.Ratio <= 1.5})
	}
	if w, ok := worst(func(n int64) bool { return n < 100<<20 }); ok {
		out = append(out, Target{"store + project vs copy+fsync, below 100 MB (worst)",
			fmt.Sprintf("%.2f× (%s %s)", w.Ratio, w.Kind, BinarySize(w.Size)), "≤ 2×", w.Ratio <= 2})
	}
	var peak int64
	for _, x := range r.Rows {
		peak = max(peak, x.Crumb.PeakRSS)
	}
	if peak > 0 {
		out = append(out, Target{"peak RSS of crumb (highest)", textfmt.Size(peak), "< 100 MB", peak < 100<<20})
	}
	if rp := r.ReadProcess; rp.Runs > 0 {
		out = append(out, Target{"crumb read of a page in the middle, " + BinarySize(r.RecallSize) + ", whole process",
			seconds(rp.Seconds), "≤ 10 ms", rp.Seconds <= 0.010})
	}
	if gp := r.GrepProcess; gp.Runs > 0 && gp.BaseSeconds > 0 {
		ratio := gp.Seconds / gp.BaseSeconds
		out = append(out, Target{"crumb grep of a rare literal, " + BinarySize(r.RecallSize) + ", vs grep -n",
			fmt.Sprintf("%.2f×", ratio), "≤ 1×", ratio <= 1})
	}
	if m := r.MCP; m.Bytes > 0 && m.PeakRSS > 0 {
		out = append(out, Target{"peak RSS of crumb mcp on a " + textfmt.Size(m.Bytes) + " tools/call result",
			textfmt.Size(m.PeakRSS), "< 100 MB", m.PeakRSS < 100<<20})
	}
	if m := r.MCPSmall; m.Runs > 0 && m.BaseSeconds > 0 {
		out = append(out, mcpSmallTarget(m))
	}
	if pt := r.PassThrough; pt.Runs > 0 {
		out = append(out, Target{"pass-through of a " + textfmt.Size(pt.Bytes) + " text result (library)",
			seconds(pt.Seconds), "≤ 3 µs", pt.Seconds <= 3e-6})
	}
	return out
}

// ratio writes a process's median time over its baseline's, measured in
// turn with it: " (1.25×)", or nothing without a baseline.
func ratio(r OneResult) string {
	if r.BaseSeconds <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%.2f×)", r.Seconds/r.BaseSeconds)
}

func mbps(r OneResult) string {
	if r.MBps == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MB/s", r.MBps)
}

// seconds writes a duration for people: 38 µs, 12.4 ms, 3.21 s.
func seconds(s float64) string {
	if s < 0 {
		return "-" + seconds(-s)
	}
	switch {
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.2f s", s)
}

// ParseSize reads a size such as "1MB", "100MB" or "1GB": binary multiples
// (1MB is 1,048,576 bytes), as a 1 GB result is 2^30 bytes in crumb's
// limits.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(t, 64)
	if v := n * float64(mult); err != nil || !(v >= 1 && v <= 1<<50) {
		return 0, errors.New("bench: a size is a positive number of bytes up to 1 PB with an optional unit, such as 1MB or 1GB")
	}
	return int64(n * float64(mult)), nil
}

// BinarySize writes a size in binary units, as ParseSize reads them: "1 MB"
// for 1,048,576 bytes, "1 GB" for 2^30; sizes that are no whole number of
// a unit keep one decimal.
func BinarySize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// cpuTime returns the processor time, user and system, this process has
// spent so far, in seconds; 0 where it cannot be read.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
