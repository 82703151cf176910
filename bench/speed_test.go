package bench

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepeat(t *testing.T) {
	src := []byte("one\ntwo\nthree\n")
	for _, tc := range []struct {
		size int64
		want string
	}{
		{0, ""},
		{3, ""},      // not even one whole line fits
		{4, "one\n"}, // a part cut at its last newline
		{13, "one\ntwo\n"},
		{14, string(src)},
		{30, string(src) + string(src)},
		{33, string(src) + string(src) + "one\n"},
	} {
		got, err := io.ReadAll(Repeat(src, "\n", tc.size))
		if err != nil || string(got) != tc.want {
			t.Errorf("Repeat(%d) = %q, %v; want %q", tc.size, got, err, tc.want)
		}
	}
	// Large sizes stream in any read size and stay within bounds.
	r := Repeat(src, "\n", 1<<20)
	var total int64
	buf := make([]byte, 7777)
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if total > 1<<20 || total < 1<<20-int64(len(src)) {
		t.Errorf("read %d bytes of a 1 MiB repeat", total)
	}
}

func TestLoadSource(t *testing.T) {
	for _, k := range SpeedKinds() {
		b, err := LoadSource(corpusDir, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > maxSource || !bytes.HasSuffix(b, []byte(speedSources[k].boundary)) {
			t.Errorf("%s: %d bytes ending %q", k, len(b), b[max(0, len(b)-10):])
		}
	}
	if _, err := LoadSource(corpusDir, "xml"); err == nil || !strings.Contains(err.Error(), "log, command, json") {
		t.Errorf("an unknown kind: %v", err)
	}
	if _, err := LoadSource(t.TempDir(), SpeedLog); err == nil || !strings.Contains(err.Error(), "text-nginx-access") {
		t.Errorf("a corpus without the case: %v", err)
	}
}

// TestMeasureOne runs every mode in this process on a small result and
// checks what each reports, and that the copies leave nothing behind.
func TestMeasureOne(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	size := int64(1 << 20)
	if testing.Short() {
		size = 256 << 10
	}
	var bytesIn int64
	for _, mode := range []string{ModeCopy, ModeCopyNoSync} {
		r, err := MeasureOne(ctx, OneSpec{Mode: mode, Kind: SpeedLog, Size: size, Corpus: corpusDir, Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes <= 0 || r.Bytes > size || r.Seconds <= 0 || r.MBps <= 0 || r.PeakRSS <= 0 || r.Mode != mode {
			t.Errorf("%s: %+v", mode, r)
		}
		bytesIn = r.Bytes
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the copies left %d files behind", len(left))
	}
	r, err := MeasureOne(ctx, OneSpec{Mode: ModeCrumb, Kind: SpeedLog, Size: size, Corpus: corpusDir, Dir: dir,
		CPUProfile: filepath.Join(t.TempDir(), "cpu.pprof")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Bytes != bytesIn || r.Output != "projected" || r.Ref == "" || r.ViewTokens <= 0 || r.ViewTokens > 2000 || r.CPUSeconds <= 0 ||
		r.AfterSeconds <= 0 || r.AfterSeconds > r.Seconds {
		t.Errorf("crumb: %+v (the copies read %d bytes)", r, bytesIn)
	}
	read, err := MeasureOne(ctx, OneSpec{Mode: ModeRead, Corpus: corpusDir, Dir: dir, Ref: r.Ref, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if read.Runs != 3 || read.Bytes <= 0 || read.ViewTokens <= 0 || read.ViewTokens > 2000 {
		t.Errorf("read: %+v", read)
	}
	grep, err := MeasureOne(ctx, OneSpec{Mode: ModeGrep, Corpus: corpusDir, Dir: dir, Ref: r.Ref})
	if err != nil {
		t.Fatal(err)
	}
	if grep.Bytes != bytesIn || grep.Seconds <= 0 {
		t.Errorf("grep: %+v", grep)
	}
	pt, err := MeasureOne(ctx, OneSpec{Mode: ModePassThrough, Corpus: corpusDir, Dir: dir, Runs: 200})
	if err != nil {
		t.Fatal(err)
	}
	if pt.Runs != 200 || pt.Bytes <= 0 || pt.Bytes > PassThroughBytes || pt.Seconds <= 0 || pt.P99Seconds < pt.Seconds {
		t.Errorf("passthrough: %+v", pt)
	}
	if _, err := MeasureOne(ctx, OneSpec{Mode: "nope"}); err == nil {
		t.Error("an unknown mode is not an error")
	}
}

// TestRunSpeed runs the whole speed benchmark in this process at a small
// size and checks the report and that nothing is left behind.
func TestRunSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a few MB")
	}
	dir := t.TempDir()
	var msgs []string
	rep, err := RunSpeed(context.Background(), SpeedOptions{Corpus: corpusDir, Dir: dir, Sizes: []int64{256 << 10, 128 << 10},
		Kinds: SpeedKinds(), PassThroughRuns: 100, Phases: true, Runs: 2, Progress: func(m string) { msgs = append(msgs, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 6 || rep.Rows[0].Size != 128<<10 || rep.Rows[5].Size != 256<<10 {
		t.Fatalf("rows: %+v", rep.Rows)
	}
	for _, r := range rep.Rows {
		if r.Copy.Bytes != r.Crumb.Bytes || r.CopyNoSync.Bytes != r.Crumb.Bytes {
			t.Errorf("%s %d: the copies and crumb read different inputs", r.Kind, r.Size)
		}
		if want := r.Crumb.Seconds / r.Copy.Seconds; r.Ratio != want {
			t.Errorf("%s %d: ratio %v, want %v", r.Kind, r.Size, r.Ratio, want)
		}
		p := r.Phases
		if p == nil || p.Put.Bytes != r.Crumb.Bytes || p.Hash.Bytes != r.Crumb.Bytes || p.Verify.Bytes != r.Crumb.Bytes ||
			p.Project.Bytes != r.Crumb.Bytes || p.Project.ViewTokens <= 0 || p.Project.ViewTokens > 2000 || p.Put.Ref != r.Crumb.Ref {
			t.Errorf("%s %d: phases %+v", r.Kind, r.Size, p)
		}
	}
	if rep.RecallOf != SpeedLog || rep.RecallSize != 256<<10 || rep.Read.Runs == 0 || rep.Grep.Bytes != rep.Rows[3].Crumb.Bytes {
		t.Errorf("recall measured on %s %d: read %+v, grep %+v", rep.RecallOf, rep.RecallSize, rep.Read, rep.Grep)
	}
	// The MCP row: a 256 KB result of a tools/call, projected by the proxy.
	if m := rep.MCP; m.Bytes < 250<<10 || m.ViewTokens <= 0 || m.ViewTokens > 2000 || m.PeakRSS <= 0 {
		t.Errorf("MCP proxy measured %+v", m)
	}
	if m := rep.MCPSmall; m.Runs != MCPSmallRounds*mcpSmallRound || m.Seconds <= 0 || m.BaseSeconds <= 0 {
		t.Errorf("small calls through the MCP proxy measured %+v", m)
	}
	if rep.PassThrough.Runs != 100 || len(msgs) != 6*(2*3+4)+4 {
		t.Errorf("pass-through %+v; %d progress messages", rep.PassThrough, len(msgs))
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d files left behind", len(left))
	}
	var out bytes.Buffer
	if err := WriteSpeed(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"crumb/copy+fsync", "256 KB", "where crumb's time goes", "passing through untouched: median", "read from the middle of the 256 KB log result", "(no match)", "through the MCP proxy", "MCP proxy, a small call"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"1MB", 1 << 20}, {"100MB", 100 << 20}, {"1GB", 1 << 30}, {" 1 gb ", 1 << 30}, {"512KiB", 512 << 10}, {"1.5MB", 3 << 19}, {"4096", 4096}} {
		if got, err := ParseSize(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "MB", "-1MB", "0", "lots"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) did not fail", bad)
		}
	}
	for n, want := range map[int64]string{1 << 20: "1 MB", 100 << 20: "100 MB", 1 << 30: "1 GB", 3 << 19: "1.5 MB", 999: "999 B"} {
		if got := BinarySize(n); got != want {
			t.Errorf("BinarySize(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1MB", "1.5 GiB", "12", "kb", "1e3KB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
	})
}

// TestTargets sets a report's figures beside the targets of issue 11.
func TestTargets(t *testing.T) {
	rep := SpeedReport{
		Rows: []SpeedRow{
			{Kind: SpeedLog, Size: 10 << 20, Ratio: 1.8, Crumb: OneResult{PeakRSS: 30 << 20}},
			{Kind: SpeedJSON, Size: 10 << 20, Ratio: 2.5, Crumb: OneResult{PeakRSS: 40 << 20}},
			{Kind: SpeedLog, Size: 100 << 20, Ratio: 1.4, Crumb: OneResult{PeakRSS: 35 << 20}},
			{Kind: SpeedCommand, Size: 1 << 30, Ratio: 1.2, Crumb: OneResult{PeakRSS: 45 << 20}},
		},
		PassThrough: OneResult{Bytes: 996, Seconds: 2.5e-6, Runs: 10},
		ReadProcess: OneResult{Seconds: 0.012, Runs: 9, BaseSeconds: 0.006},
		GrepProcess: OneResult{Seconds: 0.9, Runs: 3, BaseSeconds: 1.0},
		RecallSize:  1 << 30,
	}
	got := Targets(rep)
	want := []struct {
		measured string
		met      bool
	}{
		{"1.40× (log 100 MB)", true},
		{"2.50× (json 10 MB)", false},
		{"47.2 MB", true},
		{"12.0 ms", false},
		{"0.90×", true},
		{"2.5 µs", true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d targets, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Measured != w.measured || got[i].Met != w.met {
			t.Errorf("target %q: measured %q, met %v; want %q, %v", got[i].Figure, got[i].Measured, got[i].Met, w.measured, w.met)
		}
	}
	if len(Targets(SpeedReport{})) != 0 {
		t.Error("an empty report has targets")
	}
}

// TestMeasureProcesses builds crumb and times a page read and a search as
// whole processes, beside crumb version and GNU grep.
func TestMeasureProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds crumb")
	}
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip(err)
	}
	exe := filepath.Join(t.TempDir(), "crumb")
	if out, err := exec.Command("go", "build", "-o", exe, "../cmd/crumb").CombinedOutput(); err != nil {
		t.Fatalf("building crumb: %v\n%s", err, out)
	}
	ctx := context.Background()
	dir := t.TempDir()
	r, err := MeasureOne(ctx, OneSpec{Mode: ModeCrumb, Kind: SpeedLog, Size: 3 << 20, Corpus: corpusDir, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	rep := SpeedReport{RecallOf: SpeedLog, RecallSize: 3 << 20}
	o := SpeedOptions{Corpus: corpusDir, Exe: exe, Run: MeasureOne}
	if err := measureRecallProcesses(ctx, o, &rep, dir, r.Ref); err != nil {
		t.Fatal(err)
	}
	for _, x := range []OneResult{rep.ReadProcess, rep.GrepProcess} {
		if x.Runs == 0 || x.Seconds <= 0 || x.BaseSeconds <= 0 || x.BaseName == "" || x.Bytes != r.Bytes {
			t.Errorf("%s: %+v", x.Mode, x)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "raw")); !os.IsNotExist(err) {
		t.Errorf("the raw copy was left behind: %v", err)
	}
}

// The page read and the search as whole processes print their times with
// the ratio to their baselines, and beside their targets; a figure without
// a baseline prints no ratio rather than an infinite one.
func TestWriteSpeedProcessRows(t *testing.T) {
	rep := SpeedReport{
		ReadProcess: OneResult{Seconds: 0.009, Runs: 9, BaseName: "crumb version", BaseSeconds: 0.006},
		GrepProcess: OneResult{Seconds: 0.36, Runs: 3, BaseName: "grep -n", BaseSeconds: 0.3},
		RecallOf:    SpeedLog, RecallSize: 1 << 30,
	}
	var out bytes.Buffer
	if err := WriteSpeed(&out, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"crumb read process: median 9.0 ms of 9 (a crumb version process, start-up alone: 6.0 ms (1.50×))",
		"crumb grep process: median 360.0 ms of 3; grep -n on the raw file: 300.0 ms (1.20×)",
		"crumb read of a page in the middle, 1 GB, whole process  9.0 ms",
		"crumb grep of a rare literal, 1 GB, vs grep -n           1.20×",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
	rep.GrepProcess.BaseSeconds = 0
	out.Reset()
	if err := WriteSpeed(&out, rep); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.Contains(s, "Inf") || !strings.Contains(s, "raw file: 0.0 µs\n") {
		t.Errorf("a search without its baseline:\n%s", s)
	}
}
