# mcp2.sh: more CallToolResults of real MCP servers from npm, pinned in
# $work/node-tools: server-filesystem reading a CI log of go test runs and
# Markdown docs, searching, and a dry-run edit; server-memory holding a
# knowledge graph of the Go standard library's packages; server-everything
# and server-sequential-thinking. Captured byte for byte with
# scripts/fixtures/mcpcapture. Needles are the rule's lines as they appear
# in the raw JSON (escapes included). Sourced by make.sh.

mcp2_fs=(mcp-fs-read-ci-log mcp-fs-read-md-path mcp-fs-search-md mcp-fs-edit-dry-run mcp-fs-info mcp-fs-list-denied)
mcp2_mem=(mcp-memory-read-graph mcp-memory-search mcp-memory-open-nodes)
mcp2_misc=(mcp-everything-sum mcp-everything-long mcp-thinking-step)

mcp2_any() {
	local n
	for n in "$@"; do selected "$n" && return 0; done
	return 1
}

# mcp2_capture SERVER...: runs the calls on stdin against the server into
# $work/mcp2-out.
mcp2_capture() {
	local cap=$work/mcpcapture
	if [ ! -x "$cap" ]; then
		(cd "$root/scripts/fixtures/mcpcapture" && go build -o "$cap" .) || {
			echo "error: building scripts/fixtures/mcpcapture failed" >&2
			failures=$((failures + 1))
			return
		}
	fi
	rm -rf "$work/mcp2-out"
	mkdir -p "$work/mcp2-out"
	if ! timeout 300 "$cap" -out "$work/mcp2-out" -calls /dev/stdin -- "$@" >"$work/mcp2.log" 2>&1; then
		echo "error: mcpcapture failed: $(tail -n 5 "$work/mcp2.log")" >&2
		failures=$((failures + 1))
	fi
}

# mcp2_take NAME: moves a captured case into the stage, with the pending
# needles.
mcp2_take() {
	selected "$1" || { pending=(); return 0; }
	if [ ! -f "$work/mcp2-out/$1/output" ]; then
		echo "error: $1 was not captured" >&2
		failures=$((failures + 1))
		pending=()
		return
	fi
	rm -rf "${stage:?}/$1"
	mv "$work/mcp2-out/$1" "$stage/$1"
	merge_meta "$stage/$1"
}

bin=$work/node-tools/node_modules/.bin

if mcp2_any "${mcp2_fs[@]}"; then
	node_tools
	fsd=$work/mcp2-fs
	rm -rf "$fsd"
	mkdir -p "$fsd/docs"
	# The CI log of file-ci-go-test-log, made here if that case was not.
	if [ ! -f "$work/ci.log" ]; then
		echo "error: mcp-fs-read-ci-log needs $work/ci.log (make file-ci-go-test-log first)" >&2
		failures=$((failures + 1))
	fi
	cp "$work/ci.log" "$fsd/ci.log" 2>/dev/null
	cp /usr/share/doc/nodejs/api/*.md "$fsd/docs/"
	cp "$(go env GOROOT)/src/net/http/client.go" "$fsd/client.go"
	jq -n --arg d "$fsd" '[
		{name: "mcp-fs-read-ci-log", tool: "read_text_file", args: {path: ($d + "/ci.log")}},
		{name: "mcp-fs-read-md-path", tool: "read_text_file", args: {path: ($d + "/docs/path.md")}},
		{name: "mcp-fs-search-md", tool: "search_files", args: {path: ($d + "/docs"), pattern: "**/*worker*"}},
		{name: "mcp-fs-edit-dry-run", tool: "edit_file", args: {path: ($d + "/client.go"), dryRun: true,
		 edits: [{oldText: "func (c *Client) Do(req *Request) (*Response, error) {", newText: "func (c *Client) Do(req *Request) (resp *Response, err error) {"}]}},
		{name: "mcp-fs-info", tool: "get_file_info", args: {path: ($d + "/client.go")}},
		{name: "mcp-fs-list-denied", tool: "list_directory", args: {path: "/etc"}}
	]' | mcp2_capture node "$bin/mcp-server-filesystem" "$fsd"
	needle_re ' +--- FAIL: TestSum/n=\d+ \([0-9.]+s\)' 'the failing subtest, in the third job of the log'
	needle_re 'report_test\.go:\d+: Sum\(0\.\.\d+\) = \d+, want \d+' 'its message at file:line'
	needle_re 'FAIL\\texample\.com/tally/report\\t' 'the failing package'
	mcp2_take mcp-fs-read-ci-log
	needle '## `path.relative(from, to)`' 'one of the functions the document describes, in the middle'
	needle '## `path.resolve([...paths])`' 'another, further down'
	mcp2_take mcp-fs-read-md-path
	needle "$fsd/docs/worker_threads.md" 'the file searched for'
	mcp2_take mcp-fs-search-md
	needle_re '\+func \(c \*Client\) Do\(req \*Request\) \(resp \*Response, err error\) \{' 'the changed line of the diff'
	needle_re '@@ -\d+,\d+ \+\d+,\d+ @@' 'where in the file'
	mcp2_take mcp-fs-edit-dry-run
	needle_re 'size: \d+' 'the size asked about'
	mcp2_take mcp-fs-info
	needle_re 'Access denied[^"]*' 'why the listing failed'
	mcp2_take mcp-fs-list-denied
fi

if mcp2_any "${mcp2_mem[@]}"; then
	node_tools
	rm -f "$work/memory.jsonl"
	# One entity per standard package, with its doc line as an observation,
	# and a relation to each package it imports.
	go list -json std | jq -s --arg n x '
		[{name: "mcp-memory-create", tool: "create_entities", args: {entities: [.[] | {name: .ImportPath, entityType: "package", observations: [(.Doc // "no doc"), ("dir " + .Dir)]}]}},
		 {name: "mcp-memory-relate", tool: "create_relations", args: {relations: [.[] | .ImportPath as $p | (.Imports // [])[] | select(startswith("internal") | not) | {from: $p, to: ., relationType: "imports"}]}},
		 {name: "mcp-memory-read-graph", tool: "read_graph", args: {}},
		 {name: "mcp-memory-search", tool: "search_nodes", args: {query: "trace"}},
		 {name: "mcp-memory-open-nodes", tool: "open_nodes", args: {names: ["net/http/httptrace", "runtime/trace"]}}]' |
		MEMORY_FILE_PATH=$work/memory.jsonl mcp2_capture node "$bin/mcp-server-memory"
	needle_re '"name\\?": ?\\?"net/http/httptrace\\?"' 'the package asked about'
	needle 'Package httptrace provides mechanisms to trace the events within HTTP client requests.' 'what it does'
	mcp2_take mcp-memory-read-graph
	needle 'Package httptrace provides mechanisms to trace the events within HTTP client requests.' 'a package the search found'
	needle_re '"name\\?": ?\\?"runtime/trace\\?"' 'another'
	mcp2_take mcp-memory-search
	needle_re '"from\\?": ?\\?"net/http/httptrace\\?"' 'a relation of the node asked about'
	mcp2_take mcp-memory-open-nodes
fi

if mcp2_any "${mcp2_misc[@]}"; then
	node_tools
	jq -n '[{name: "mcp-everything-sum", tool: "get-sum", args: {a: 1234, b: 4321}},
		{name: "mcp-everything-long", tool: "trigger-long-running-operation", args: {duration: 2, steps: 4}}]' |
		mcp2_capture node "$bin/mcp-server-everything" stdio
	needle '5555' 'the value asked for'
	mcp2_take mcp-everything-sum
	needle_re 'Long running operation completed[^"]*' 'how it ended'
	mcp2_take mcp-everything-long
	jq -n '[{name: "mcp-thinking-step", tool: "sequentialthinking", args: {thought: "The test fails only for n >= 33: the sum drops whole multiples of 32.", thoughtNumber: 2, totalThoughts: 3, nextThoughtNeeded: true}}]' |
		mcp2_capture node "$bin/mcp-server-sequential-thinking"
	needle_re '\\?"thoughtNumber\\?": ?2' 'where the chain is'
	mcp2_take mcp-thinking-step
fi
