// Package crumb keeps large tool results out of an agent's context without
// losing them.
//
// An agent's tools can return more than a model should carry: a 50 MB log, a
// whole source file, a JSON document with a screenshot inside. A [Guard]
// stands where a tool result enters the agent's history. A result whose text
// fits the budget passes through byte-identical. A larger one is first stored
// exactly (see package store), then projected: the model gets a small view,
// cut along the result's own boundaries, that holds the evidence for its next
// decision and names every omission with the exact read that recovers it
// (see package recall). Nothing is run twice and nothing is lost silently.
//
// # Using it
//
//	g, err := crumb.New(crumb.Config{}) // the default store, o200k_base, 2,000 tokens
//	if err != nil { ... }
//	defer g.Close()
//	view, err := g.Project(ctx, crumb.Result{Tool: "bash", Body: output})
//	// view.Text enters the model's context; view.Next is the read that
//	// shows what the view omits, if anything.
//
// # Guarantees
//
//   - Under the threshold, a text result passes through byte-identical.
//   - A view that omits material is only produced once the exact result is
//     durably stored; when storing fails, the view says so plainly.
//   - The same result and configuration give a byte-identical view.
//   - Following continuations reaches the end with no gap and no overlap.
//   - Projecting costs memory proportional to the budget, not the result.
//   - Binary content never reaches a view as raw bytes.
package crumb

import (
	"github.com/crumb-dev/crumb/project"
	// The kinds in packages of their own register themselves (see
	// project.Register); every program that uses crumb projects them.
	_ "github.com/crumb-dev/crumb/project/binary"
	_ "github.com/crumb-dev/crumb/project/dir"
	"github.com/crumb-dev/crumb/recall"
	"github.com/crumb-dev/crumb/store"
)

// Version is crumb's version, reported by the command line and receipts.
var Version = "0.1.0-dev"

// Kind names a kind of result; each has its own projector.
type Kind = project.Kind

// The kinds of result crumb projects.
const (
	KindText    = project.KindText
	KindFile    = project.KindFile
	KindDir     = project.KindDir
	KindCommand = project.KindCommand
	KindJSON    = project.KindJSON
	KindMCP     = project.KindMCP
	KindBinary  = project.KindBinary
)

// Continuation is the exact arguments of the next read of a stored result.
type Continuation = recall.Request

// Ref names a stored result.
type Ref = store.Ref

// Output kinds a receipt reports.
const (
	// OutputExact means the view is the result, unchanged.
	OutputExact = "exact"
	// OutputProjected means the view is a projection of a stored result.
	OutputProjected = "projected"
	// OutputSummarized means the view is a summary of a stored result.
	OutputSummarized = "summarized"
	// OutputFallback means storing or projecting failed and the view is the
	// best crumb could do without it (the receipt says why).
	OutputFallback = "fallback"
)
