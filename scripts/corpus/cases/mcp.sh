# mcp.sh: CallToolResults of real MCP servers, captured byte for byte with
# scripts/fixtures/mcpcapture (the official MCP Go SDK client over stdio):
# @modelcontextprotocol/server-filesystem over a directory of real files and
# @modelcontextprotocol/server-everything. Needles are JSON text: exact
# substrings of the raw result, escapes included. Sourced by make.sh.

mcp_wanted() {
	local n
	for n in "$@"; do selected "$n" && return 0; done
	return 1
}

fs_cases=(mcp-fs-read-text-file mcp-fs-read-media-file mcp-fs-directory-tree mcp-fs-search-files
	mcp-fs-list-with-sizes mcp-fs-read-multiple-files mcp-fs-read-missing)
ev_cases=(mcp-everything-annotated-image mcp-everything-structured)

if mcp_wanted "${fs_cases[@]}" "${ev_cases[@]}"; then
	capture=$work/mcpcapture
	(cd "$root/scripts/fixtures/mcpcapture" && go build -o "$capture" .) || {
		echo "error: building scripts/fixtures/mcpcapture failed" >&2
		failures=$((failures + 1))
	}
	images
	mcpout=$work/mcp-out
	rm -rf "$mcpout"
	mkdir -p "$mcpout"
fi

# capture_calls SERVER... < CALLS.json: runs the calls against the server.
capture_calls() {
	if ! timeout 300 "$capture" -out "$mcpout" -calls /dev/stdin -- "$@" >"$work/mcpcapture.log" 2>&1; then
		echo "error: mcpcapture failed: $(tail -n 5 "$work/mcpcapture.log")" >&2
		failures=$((failures + 1))
	fi
}

# take NAME: moves a captured case into the stage, adding the pending needles.
take() {
	if [ ! -f "$mcpout/$1/output" ]; then
		echo "error: $1 was not captured" >&2
		failures=$((failures + 1))
		pending=()
		return
	fi
	rm -rf "${stage:?}/$1"
	mv "$mcpout/$1" "$stage/$1"
	merge_meta "$stage/$1"
}

if mcp_wanted "${fs_cases[@]}"; then
	fs=$work/fs
	rm -rf "$fs"
	mkdir -p "$fs"
	cp -r "$(go env GOROOT)/src/net/http" "$fs/http"
	cp "$work/images/mandelbrot.png" "$fs/mandelbrot.png"
	jq -n --arg d "$fs" '[
		{name: "mcp-fs-read-text-file", tool: "read_text_file", args: {path: ($d + "/http/request.go")}},
		{name: "mcp-fs-read-media-file", tool: "read_media_file", args: {path: ($d + "/mandelbrot.png")}},
		{name: "mcp-fs-directory-tree", tool: "directory_tree", args: {path: ($d + "/http")}},
		{name: "mcp-fs-search-files", tool: "search_files", args: {path: ($d + "/http"), pattern: "**/*_test.go"}},
		{name: "mcp-fs-list-with-sizes", tool: "list_directory_with_sizes", args: {path: ($d + "/http"), sortBy: "size"}},
		{name: "mcp-fs-read-multiple-files", tool: "read_multiple_files",
		 args: {paths: [($d + "/http/cookie.go"), ($d + "/http/header.go"), ($d + "/http/status.go")]}},
		{name: "mcp-fs-read-missing", tool: "read_text_file", args: {path: ($d + "/http/handlers.go")}}
	]' | capture_calls npx -y @modelcontextprotocol/server-filesystem "$fs"

	if selected mcp-fs-read-text-file; then
		# The read says only the path: what the agent needs is what the file
		# offers, the signatures of its API.
		needle 'func (r *Request) ParseMultipartForm(maxMemory int64) error' 'a method the agent needs, in the middle of the file'
		needle 'func (r *Request) FormValue(key string) string' 'another, further down'
		take mcp-fs-read-text-file
	fi
	if selected mcp-fs-read-media-file; then
		take mcp-fs-read-media-file
	fi
	if selected mcp-fs-directory-tree; then
		needle 'reverseproxy.go' 'the file the agent is looking for, deep in the tree'
		needle 'cookiejar' 'a directory it needs'
		take mcp-fs-directory-tree
	fi
	if selected mcp-fs-search-files; then
		needle "$fs/http/httputil/reverseproxy_test.go" 'the test file the agent is after'
		needle "$fs/http/cookiejar/jar_test.go" 'another'
		take mcp-fs-search-files
	fi
	if selected mcp-fs-list-with-sizes; then
		needle_re '\[FILE\] h2_bundle\.go +[0-9.]+ \w+' 'the biggest file, with its size'
		needle_re 'Total: \d+ files, \d+ directories' 'the totals'
		take mcp-fs-list-with-sizes
	fi
	if selected mcp-fs-read-multiple-files; then
		needle 'func (h Header) Clone() Header' 'a method of the second file'
		needle 'StatusTeapot                       = 418 // RFC 9110, 15.5.19 (Unused)' 'a constant in the third file'
		take mcp-fs-read-multiple-files
	fi
	if selected mcp-fs-read-missing; then
		needle 'ENOENT' 'why the read failed: no such file'
		take mcp-fs-read-missing
	fi
fi

if mcp_wanted "${ev_cases[@]}"; then
	jq -n '[
		{name: "mcp-everything-annotated-image", tool: "get-annotated-message", args: {messageType: "error", includeImage: true}},
		{name: "mcp-everything-structured", tool: "get-structured-content", args: {location: "New York"}}
	]' | capture_calls npx -y @modelcontextprotocol/server-everything stdio
	if selected mcp-everything-annotated-image; then
		needle 'Error: Operation failed' 'the error message that comes with the image'
		take mcp-everything-annotated-image
	fi
	if selected mcp-everything-structured; then
		needle 'temperature' 'the value the agent asked for: a small result passes through'
		take mcp-everything-structured
	fi
fi
