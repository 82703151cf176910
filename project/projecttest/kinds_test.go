package projecttest_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/crumb-dev/crumb/bench"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/project/projecttest"
)

// large makes each kind's input of the memory check: a realistic record of
// the kind, numbered so that no two are alike, with a rare error among them.
var large = map[project.Kind]func(size int64) (project.Source, projecttest.Case){
	project.KindText: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth(nil, func(i int64, b []byte) []byte {
			level := "INFO "
			if i%100_003 == 77 {
				level = "ERROR"
			}
			return fmt.Appendf(b, "2026-11-29T12:%02d:%02dZ %s worker=%d request id=%010d served in %04dms\n", i/60%60, i%60, level, i%8, i, i%97)
		}, nil, size), projecttest.Case{Tool: "tail"}
	},
	project.KindCommand: func(size int64) (project.Source, projecttest.Case) {
		exit := 1
		return projecttest.Synth([]byte("go vet ./...\n"), func(i int64, b []byte) []byte {
			sev := "warning"
			if i%250_001 == 3 {
				sev = "error  "
			}
			return fmt.Appendf(b, "pkg/mod%04d/file%08d.go:%05d:%02d: %s: result of fmt.Sprintf call not used\n", i%1000, i, i%40000, i%80, sev)
		}, []byte("FAIL\n"), size), projecttest.Case{Tool: "bash", ExitCode: &exit, Args: json.RawMessage(`{"command":"go vet ./..."}`)}
	},
	project.KindFile: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth([]byte("package big\n\n"), func(i int64, b []byte) []byte {
			return fmt.Appendf(b, "func f%010d(x int) int { return x*%06d + %06d }\n", i, i%999_983, i%7919)
		}, nil, size), projecttest.Case{Tool: "read_file", Args: json.RawMessage(`{"path":"big/big.go"}`)}
	},
	project.KindDir: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth(nil, func(i int64, b []byte) []byte {
			return fmt.Appendf(b, "src/module%04d/sub%03d/file%08d.go\n", i/100_000, i/1000%1000, i)
		}, nil, size), projecttest.Case{Tool: "find", Args: json.RawMessage(`{"path":"src"}`)}
	},
	project.KindJSON: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth([]byte("[\n"), func(i int64, b []byte) []byte {
			return fmt.Appendf(b, `{"id": %010d, "name": "item-%010d", "ok": %5t},`+"\n", i, i, i%1000 != 7)
		}, []byte(`{"id": -1, "name": "last", "ok": false}`+"\n]\n"), size), projecttest.Case{Tool: "fetch"}
	},
	project.KindMCP: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth([]byte(`{"content":[{"type":"text","text":"`), func(i int64, b []byte) []byte {
			return fmt.Appendf(b, `2026-11-29T12:00:00Z INFO request id=%010d served\n`, i)
		}, []byte(`"}],"isError":false}`), size), projecttest.Case{Tool: "read_file"}
	},
	project.KindBinary: func(size int64) (project.Source, projecttest.Case) {
		return projecttest.Synth([]byte("\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00"), func(i int64, b []byte) []byte {
			return projecttest.Noise(i, 64, b)
		}, nil, size), projecttest.Case{Tool: "read_file", Args: json.RawMessage(`{"path":"a.out"}`)}
	},
}

// Why the checks below fail today; each is tracked by issue 21 (one
// packer that fills the budget, used by every kind).
const (
	underfills = "issue 21: the view fills less than 80% of the budget and leaves out more than repetition"
	binaryView = "issue 21: a binary view is one line, whatever the budget (binary content is never shown as text)"
	manFocus   = "issue 21: a man page read with an intent is cut to the sections it matches even when the whole page fits"
	cutLarger  = "issue 21: at a budget of 500 the cut view (487 tokens) costs more than the whole output (430)"
	jsonWhole  = "issue 21: the view shows every value with the white space taken out, is not complete and names the read of the text as written in its header only"
	mcpInText  = "issue 21: the view names its continuation inside the CallToolResult's text, not as Output.Next"
	mcpMedia   = "issue 21: the image kept as media (invariant 7) costs more than a budget of 500"
)

// skips lists the checks a kind fails today, each with why; the suite
// reports them as skipped. Counts are of the corpus runs at budgets of
// 2,000 and 500: the kind-wide ones fail for command 83 of 165, file 54 of
// 99, dir 10 of 20, binary 8 of 8.
var skips = map[project.Kind]map[string]string{
	project.KindText: {
		"text-apache-access/budget-used": underfills, "text-apache-error/budget-used": underfills,
		"text-apt-term-log/budget-used": underfills, "text-nginx-access/budget-used": underfills,
		"text-nginx-error/budget-used": underfills, "text-syslog-sshd/budget-used": underfills,
	},
	project.KindFile:   {projecttest.CheckBudgetUsed: underfills},
	project.KindDir:    {projecttest.CheckBudgetUsed: underfills},
	project.KindBinary: {projecttest.CheckBudgetUsed: binaryView},
	project.KindCommand: {
		projecttest.CheckBudgetUsed:            underfills,
		"command-pytest-value-typo/not-larger": cutLarger,
		"command-man-chmod-recursive/small":    manFocus,
		"command-man-cp-reflink/small":         manFocus,
		"command-man-date-string/small":        manFocus,
		"command-man-df-human/small":           manFocus,
		"command-man-du-summarize/small":       manFocus,
		"command-man-kill-list/small":          manFocus,
		"command-man-ls-sort/small":            manFocus,
		"command-man-sort-key/small":           manFocus,
		"command-man-sort-unique/small":        manFocus,
		"command-man-tee-append/small":         manFocus,
		"command-man-timeout-kill-after/small": manFocus,
	},
	project.KindJSON: {
		"json-jest-report/budget-used": underfills, "json-npm-ls-all/budget-used": underfills,
		"json-vitest-report/budget-used": underfills,
		"json-go-env-small/continuation": jsonWhole, "json-openapi-callbacks/continuation": jsonWhole,
	},
	project.KindMCP: {
		"mcp-fs-list-with-sizes/budget-used":   underfills,
		"mcp-fs-directory-tree/continuation":   mcpInText,
		"mcp-fs-edit-dry-run/continuation":     mcpInText,
		"mcp-fs-list-with-sizes/continuation":  mcpInText,
		"mcp-fs-search-files/continuation":     mcpInText,
		"mcp-fs-read-media-file/within-budget": mcpMedia,
	},
}

// TestKinds runs the conformance suite over every kind crumb registers,
// with the corpus cases of that kind (real output) as its inputs: all of
// them, or under -race one in raceStride.
func TestKinds(t *testing.T) {
	cases, err := bench.LoadCorpus("../../testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	byKind := map[project.Kind][]projecttest.Case{}
	seen := map[project.Kind]int{}
	for _, c := range cases {
		// Under -race, every raceStride-th case of each kind, the first
		// included, so that each kind is still run.
		if seen[c.Kind]++; (seen[c.Kind]-1)%raceStride != 0 {
			continue
		}
		byKind[c.Kind] = append(byKind[c.Kind], projecttest.Case{Name: c.Name, Body: c.Output, Tool: c.Tool, Args: c.Args,
			ExitCode: c.ExitCode, Command: c.Command, OutputSchema: c.OutputSchema})
	}
	for _, k := range project.Kinds {
		t.Run(string(k), func(t *testing.T) {
			if len(byKind[k]) == 0 {
				t.Fatalf("the corpus has no case of kind %s", k)
			}
			projecttest.Run(t, projecttest.Suite{Projector: project.For(k), Cases: byKind[k], Large: large[k], Skip: skips[k]})
		})
	}
}
