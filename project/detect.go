package project

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path"
	"strings"

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
	if looksJSON(head) {
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

// looksJSON reports whether head opens a JSON object or array and its first
// tokens parse.
func looksJSON(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	for i := 0; i < 64; i++ {
		if _, err := dec.Token(); err != nil {
			// The end of the document, or of the sample, is fine; a
			// syntax error is not.
			return err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
		}
	}
	return true
}

func looksCallToolResult(head []byte) bool {
	return bytes.Contains(head, []byte(`"content"`))
}
