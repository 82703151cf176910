// Package classify tells what a line of output is, from its bytes alone:
// evidence of which family (a panic or a crash, a compiler's diagnostic at
// file:line, a failed test, an error, a summary, a warning, a stack frame, a
// compiler's note; see [Classify] and [ClassifyLine], which first looks past
// the prefixes tools put on every line), and the severity a log line states
// (its [Level], found by [ClassifyLogLine] in plain, JSON-lines and logfmt
// logs). The command, log and text views rank and group lines by it; it
// knows no view.
package classify
