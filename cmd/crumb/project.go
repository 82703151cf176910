package main

import (
	"io"

	"github.com/crumb-dev/crumb"
	"github.com/crumb-dev/crumb/internal/limits"
	"github.com/crumb-dev/crumb/internal/wire"
	"github.com/crumb-dev/crumb/project"
	"github.com/crumb-dev/crumb/store"
)

func init() {
	register(&command{
		name:    "project",
		summary: "print the view a model would see of a result read from stdin",
		usage: `Usage: crumb project [--kind K] [--tool NAME] [--args JSON] [--exit-code N] [--intent TEXT] [--budget TOKENS] [--json] < RESULT

Reads a tool result from standard input, stores it exactly and prints the view
a model would see: the result itself when it fits the budget, else a
projection whose header names the ref, what is shown, what is omitted and the
exact read that shows the rest (one read of every omitted range, such as
"crumb read REF --lines 10:14,19:44,73:14716"; its pages carry the ranges
still unread). The view is printed byte for byte as the model gets it, with
no newline added: it is the "view" of --json. --intent says what the agent
is looking for: it is the call's "intent" argument (set in --args, it is
replaced), by which the projectors rank what they show.

Kinds: text, file, dir, command, json, mcp, binary (default: detected).

` + summaryHelp + `

Examples:
  crumb project --kind text < big.log
  go vet ./... 2>&1 | crumb project --kind command --exit-code 1
  crumb project --kind mcp --json < call-tool-result.json | jq .receipt
  crumb project --summary-url http://127.0.0.1:11434/v1 --summary-models qwen2.5:7b < build.log`,
		run: runProject,
	})
}

func runProject(e *env, args []string) error {
	c := commands["project"]
	fs := newFlags(e, c)
	kind := fs.String("kind", "", "kind of result: text, file, dir, command, json, mcp or binary (default: detect)")
	tool := fs.String("tool", "", "`NAME` of the tool that produced the result")
	argsJSON := fs.String("args", "", "the tool's arguments as a `JSON` object")
	exitCode := optionalLimitFlag(fs, "exit-code", limits.ExitCode, "the command's exit status `N`, for command results")
	intent := fs.String("intent", "", "what the agent is looking for, as `TEXT`: the call's \"intent\" argument")
	summary := addSummaryFlags(fs, "the result")
	budget := budgetFlag(fs, crumb.DefaultBudget, "most `TOKENS` the view may take")
	threshold := limitFlag(fs, "threshold", 0, limits.Threshold, "most `TOKENS` a result may have and pass through untouched (default: the budget)")
	asJSON := fs.Bool("json", false, "print {\"view\", \"ref\", \"next\", \"receipt\"} as JSON")
	storeDir := storeFlag(fs)
	pos, err := parse(e, c, fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(c.name, "unexpected argument %q: the result is read from standard input", pos[0])
	}
	k, err := project.ParseKind(*kind)
	if err != nil {
		return usagef(c.name, "%v", err)
	}
	res := crumb.Result{Tool: *tool, Kind: k, Reader: readerFor(e)}
	if *argsJSON != "" {
		if res.Args, err = wire.ParseArgs(*argsJSON); err != nil {
			return usagef(c.name, "--args: %v", err)
		}
	}
	if *intent != "" {
		if res.Args, err = wire.SetIntent(res.Args, *intent); err != nil {
			return usagef(c.name, "--intent needs --args to be a JSON object")
		}
	}
	res.ExitCode = exitCode()
	d, err := openResultStore(e, c, *storeDir, store.DirOptions{ManualGC: true})
	if err != nil {
		return err
	}
	defer d.Close()
	sum, err := summarizer(e, summary, nil, d)
	if err != nil {
		return err
	}
	g, err := crumb.New(crumb.Config{Store: d, Budget: *budget, Threshold: *threshold, Summarizer: sum, Hint: e.hint()})
	if err != nil {
		return err
	}
	v, err := g.Project(e.ctx, res)
	if err != nil {
		return err
	}
	defer startGC(e, d)
	if *asJSON {
		return writeJSON(e.stdout, v)
	}
	// Byte for byte what the model gets, which is the "view" of --json: no
	// newline is added.
	_, err = io.WriteString(e.stdout, v.Text)
	return err
}

// printView prints a view: as JSON, or as the model would see it. A result
// that passed through is written byte for byte.
func printView(e *env, v *crumb.View, asJSON bool) error {
	if asJSON {
		return writeJSON(e.stdout, wire.ViewOf(v, nil))
	}
	if v.Receipt.Output == crumb.OutputExact {
		_, err := io.WriteString(e.stdout, v.Text)
		return err
	}
	return writeText(e.stdout, v.Text)
}
