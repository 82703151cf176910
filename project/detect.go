package project

import (
	"bytes"
	"context"
	"path"
	"strings"

	"github.com/crumb-dev/crumb/internal/lines"
	"github.com/crumb-dev/crumb/internal/sniff"
)

// Hints are what is known about a result besides its bytes.
type Hints struct {
	// Tool is the tool's name.
	Tool string
	// Command reports that the result is a command's output (it has an
	// exit status).
	Command bool
}

// Detect names the kind of a result from its first bytes and what is known
// of the call that produced it. Binary content is always KindBinary, whatever
// the tool; a command's output is KindCommand; a document that opens like
// JSON is KindJSON; otherwise the tool's name decides between a file read, a
// directory listing and plain text.
func Detect(head []byte, h Hints) Kind {
	if sniff.IsBinary(head) {
		return KindBinary
	}
	if h.Command {
		return KindCommand
	}
	if sniff.LooksJSON(head) {
		if isMCPTool(h.Tool) && looksCallToolResult(head) {
			return KindMCP
		}
		return KindJSON
	}
	name := strings.ToLower(path.Base(h.Tool))
	switch {
	case matchAny(name, "read", "read_file", "readfile", "read_text_file", "cat", "view", "open_file", "get_file_contents", "read_multiple_files",
		"view_file", "read_many_files", "file_read", "read_text"):
		return KindFile
	case matchAny(name, "ls", "list_dir", "listdir", "list_directory", "directory_tree", "list_files", "tree", "glob", "find",
		"list_directory_with_sizes", "find_files", "file_search", "fd", "read_dir", "readdir", "list_folder"):
		return KindDir
	case matchAny(name, "bash", "shell", "run", "exec", "run_command", "execute_command", "terminal"):
		return KindCommand
	}
	return KindText
}

func matchAny(name string, names ...string) bool {
	for _, n := range names {
		if name == n {
			return true
		}
	}
	return false
}

// isMCPTool is a placeholder for tools known to return CallToolResult JSON;
// the MCP proxy names the kind itself.
func isMCPTool(string) bool { return false }

func looksCallToolResult(head []byte) bool {
	return bytes.Contains(head, []byte(`"content"`))
}

// What a text is, whatever its carrier: the projectors of text and of file
// reads (and so every MCP text block, which is projected as one or the
// other) sniff the text they are given, and hand it to the projector of
// what it turns out to be. The command projector shows a test run's FAIL
// lines, its failing tests and their file:line wherever the run was saved;
// the log view a log; the JSON projector a JSON document; the file
// projector, with its outline, source code; the directory projector a
// listing. The hand-over is one step, Project with the kind found, as any
// result is projected (only the log view, which is a text's and no kind
// of its own, is called with the format the sniff found); each reads the
// call's intent from Input.Call, which the hand-over keeps.

// sniffed is what the text of a document turned out to be.
type sniffed struct {
	// text is what sniff.TextOf tells of its head and tail.
	text sniff.Text
	// log and isLog are what the log kind's detector tells (see
	// RegisterLog), when the text is no tool's report or its lines are
	// stamped (a CI service's log of a job).
	log   any
	isLog bool
	// lang is the language of source code, told from its first lines
	// (sniffLang); nil for anything else, Markdown included.
	lang *srcLang
}

// sniffDoc tells what the text of doc is from its head and tail (see
// sniff.TextOf, detectLog and sniffLang): it reads at most a few pages of
// each end, whatever the size of the document.
func sniffDoc(doc *lines.Doc) (sniffed, error) {
	size := doc.Size()
	head, err := doc.ReadRange(0, min(size, sniff.Len))
	if err != nil {
		return sniffed{}, err
	}
	var tail []byte
	if size > 2*sniff.Len {
		if tail, err = doc.ReadRange(size-sniff.Len, size); err != nil {
			return sniffed{}, err
		}
	} else if size > sniff.Len {
		if head, err = doc.ReadRange(0, size); err != nil {
			return sniffed{}, err
		}
	}
	s := sniffed{text: sniff.TextOf(head, tail)}
	if s.text.Form.IsOutput() && !s.text.Stamped {
		return s, nil
	}
	if logDetector != nil {
		if s.log, s.isLog, err = logDetector(doc); err != nil || s.isLog {
			return s, err
		}
	}
	if lg := sniffLang(head[:min(len(head), 8<<10)]); lg != langMd {
		s.lang = lg
	}
	return s, nil
}

// report reports whether the text is a tool's report for the command
// projector. A report whose lines a CI service stamped with their time, and
// that reads as a log, is left to the log view, whose templates see past
// the stamps.
func (s sniffed) report() bool { return s.text.Form.IsOutput() && !s.isLog }

// projectSniffedText projects a text by what it turned out to be when that
// has evidence rules of its own; ok is false when it has none, and the
// text projector shows it as text.
func projectSniffedText(ctx context.Context, in *Input, s sniffed) (out Output, ok bool, err error) {
	var k Kind
	switch {
	case s.report():
		k = KindCommand
	case s.isLog:
		out, err = projectLog(ctx, in, s.log)
		return out, true, err
	case s.text.Form == sniff.JSON || s.text.Form == sniff.JSONLines:
		k = KindJSON
	case s.lang != nil:
		k = KindFile
	case s.text.Form == sniff.Listing:
		k = KindDir
	}
	// A kind no package registered (a program that links only some) leaves
	// the text to the text view, rather than to For's fallback, which is
	// the text view again.
	if k == "" || !Registered(k) {
		return Output{}, false, nil
	}
	out, err = Project(ctx, k, in)
	return out, true, err
}

// projectSniffedFile projects a file read whose content is not what its
// name says when that has evidence rules of its own: a tool's report (a CI
// log of go test runs, compiler output saved as .txt) by the command
// projector, unless the file's name says it is source code or a document
// (which may quote such output) or the read asks for lines by their
// numbers, a symbol or a pattern; a log by the log view, unless the read
// asks for anything in particular. ok is false when the file view shows it.
func (v *fileView) projectSniffedFile(ctx context.Context) (Output, bool, error) {
	if v.nb.On {
		// Lines numbered by the tool are the file's, whatever they hold.
		return Output{}, false, nil
	}
	s, err := sniffDoc(v.e.Doc)
	if err != nil {
		// Sniffing only steers the view: the file view shows what it can.
		return Output{}, false, nil
	}
	a := v.args
	named := langOf(a.Path, nil) != nil
	var out Output
	switch {
	case s.report() && !named && !a.HasRange && a.Tail == 0 && a.Symbol == "" && a.Pattern == "":
		out, err = Project(ctx, KindCommand, v.in)
	case s.isLog && !a.HasIntent():
		out, err = projectLog(ctx, v.in, s.log)
	default:
		return Output{}, false, nil
	}
	return out, true, err
}

// KindLog is the log view: a text's, and no kind a caller names, so it is
// not in [Kinds]. The text and file projectors hand a document to it when
// the detector its package registers ([RegisterLog]) finds a log.
const KindLog Kind = "log"

// A LogDetector tells whether doc is a log, from its first lines, and if it
// is, what the log view needs to know of its form (the format, opaque to
// the pipeline), which the hand-over passes on in [Input.Detected].
type LogDetector func(doc *lines.Doc) (format any, ok bool, err error)

// logDetector is the log kind's detector; nil until a package registers it.
var logDetector LogDetector

// RegisterLog makes d the detector and p the projector of [KindLog]. It is
// meant to be called from the init function of the log kind's package.
func RegisterLog(d LogDetector, p Projector) {
	logDetector = d
	Register(KindLog, p)
}

// projectLog hands in to the log view with the format the detector found.
func projectLog(ctx context.Context, in *Input, format any) (Output, error) {
	sub := *in
	sub.Detected = format
	return Project(ctx, KindLog, &sub)
}
