// Package agentconfig puts crumb mcp in front of the MCP servers an agent
// already has configured, by editing the agent's own configuration file: the
// JSON of Claude Code (~/.claude.json, .mcp.json), Claude Desktop and Cursor
// (mcp.json), and the TOML of Codex (~/.codex/config.toml). For Claude Code
// it also adds a PreToolUse hook that routes shell commands through
// crumb run.
//
// Every edit is a merge: members, tables, comments and formatting the edit
// does not concern keep their bytes and their order, and running it again
// changes nothing. A server entry
//
//	"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/src"]}
//
// becomes
//
//	"fs": {"command": "/usr/local/bin/crumb", "args": ["mcp", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/src"]}
//
// with its other fields (env, cwd, type, timeouts) as they were.
package agentconfig

import (
	"path/filepath"
	"strings"
)

// Options say how entries are written.
type Options struct {
	// Crumb is the crumb command written into entries. In the user's own
	// files it is an absolute path, so that agents started without the
	// user's $PATH (desktop applications) find it; in files a team shares
	// (a project's .mcp.json) it is "crumb", found through each user's
	// PATH.
	Crumb string
	// Flags are flags of crumb mcp written before "--", such as
	// ["--config", "/home/me/.config/crumb/crumb.toml"].
	Flags []string
}

// Change is what an edit did, or would do, to one server.
type Change struct {
	// Server names the server; for a Claude Code project scope it is
	// "PROJECT: NAME".
	Server string
	// Action is "wrapped", "already" (it runs crumb mcp already) or
	// "skipped".
	Action string
	// Why explains a skip.
	Why string
}

// Result is the outcome of an edit.
type Result struct {
	// Data is the new file; it has the original's bytes when nothing
	// changed.
	Data []byte
	// Changes says what happened to each server, in the order of the file.
	Changes []Change
	// Entries are the new entries of the servers wrapped, in the file's
	// format and nesting, for showing before writing: a document that can
	// be pasted as it is.
	Entries []byte
}

// Changed reports whether any server was wrapped.
func (r *Result) Changed() bool {
	for _, c := range r.Changes {
		if c.Action == Wrapped {
			return true
		}
	}
	return false
}

// Actions a Change reports.
const (
	Wrapped = "wrapped"
	Already = "already"
	Skipped = "skipped"
)

// isCrumbMCP reports whether a command line already runs crumb mcp.
func isCrumbMCP(command string, args []string, opt Options) bool {
	base := filepath.Base(command)
	isCrumb := command == opt.Crumb || base == "crumb" || strings.HasPrefix(base, "crumb.")
	return isCrumb && len(args) > 0 && args[0] == "mcp"
}

// wrapArgs returns the arguments that run command through crumb mcp.
func wrapArgs(command string, args []string, opt Options) []string {
	out := append([]string{"mcp"}, opt.Flags...)
	out = append(out, "--", command)
	return append(out, args...)
}

const remoteWhy = "a remote server (url): crumb mcp --upstream URL can front it, but the agent's own sign-in (OAuth) would not pass through, so it is left to you"
