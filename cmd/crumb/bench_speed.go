package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/crumb-dev/crumb/bench"
)

// runSpeed runs "crumb bench --speed": each measurement in a child process
// ("crumb bench --speed-one SPEC") so that its peak memory is its own.
func runSpeed(e *env, corpus, sizesArg, kindsArg, dir, profile string, phases, asJSON bool, runs int) error {
	o := bench.SpeedOptions{Corpus: corpus, Dir: dir, CPUProfileDir: profile, Phases: phases, Runs: runs}
	for _, s := range strings.Split(sizesArg, ",") {
		n, err := bench.ParseSize(s)
		if err != nil {
			return usagef("bench", "--sizes %q: %v", s, strings.TrimPrefix(err.Error(), "bench: "))
		}
		o.Sizes = append(o.Sizes, n)
	}
	for _, k := range strings.Split(kindsArg, ",") {
		k = strings.TrimSpace(k)
		if !contains(bench.SpeedKinds(), k) {
			return usagef("bench", "--kinds: no kind %q; the kinds are %s", k, strings.Join(bench.SpeedKinds(), ", "))
		}
		o.Kinds = append(o.Kinds, k)
	}
	if profile != "" {
		if err := os.MkdirAll(profile, 0o755); err != nil {
			return err
		}
	}
	exe, err := benchSelf()
	if err != nil {
		return fmt.Errorf("finding crumb's own executable to run measurements in: %w", err)
	}
	o.Exe = exe
	o.Run = func(ctx context.Context, spec bench.OneSpec) (bench.OneResult, error) {
		return runChild(ctx, exe, spec)
	}
	p := newStatus(e.stderr)
	o.Progress = func(msg string) { p.printf("measuring %s", msg) }
	rep, err := bench.RunSpeed(e.ctx, o)
	p.done()
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e.stdout, rep)
	}
	return bench.WriteSpeed(e.stdout, rep)
}

// benchSelf returns the command to run crumb again: the name it was run by,
// looked up as the shell would, so that a crumb reached through a link
// named crumb is run under that name; else the executable itself.
func benchSelf() (string, error) {
	if p, err := exec.LookPath(os.Args[0]); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	return os.Executable()
}

// runChild runs one measurement in a child process and reads its result.
func runChild(ctx context.Context, exe string, spec bench.OneSpec) (bench.OneResult, error) {
	arg, err := json.Marshal(spec)
	if err != nil {
		return bench.OneResult{}, err
	}
	cmd := exec.CommandContext(ctx, exe, "bench", "--speed-one", string(arg))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = append(os.Environ(), "CRUMB_GC=off")
	if err := cmd.Run(); err != nil {
		return bench.OneResult{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(errb.String()))
	}
	var r bench.OneResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return bench.OneResult{}, fmt.Errorf("reading the measurement: %w", err)
	}
	return r, nil
}

// runSpeedOne runs "crumb bench --speed-one SPEC", the child's side.
func runSpeedOne(e *env, arg string) error {
	var spec bench.OneSpec
	if err := json.Unmarshal([]byte(arg), &spec); err != nil {
		return usagef("bench", "--speed-one: %v", err)
	}
	r, err := bench.MeasureOne(e.ctx, spec)
	if err != nil {
		return err
	}
	return json.NewEncoder(e.stdout).Encode(r)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
