// Package dir is the view of a directory listing (kind dir): ls, ls -l,
// find, tree, du, git ls-files, the list tools of agents and MCP servers.
// It registers itself with package project when imported. It reads the
// listing's paths, never cut, and shows the entries that matter for the
// call (those that match its intent, else the shallowest and the rarest)
// with counts by extension and by folder, so that what is left out can be
// found again with the search the header names.
package dir
