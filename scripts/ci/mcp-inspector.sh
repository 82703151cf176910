#!/usr/bin/env bash
# mcp-inspector.sh — a second, independent MCP client drives `crumb mcp`:
# the MCP Inspector's command-line mode (npm @modelcontextprotocol/inspector,
# on the TypeScript SDK, which checks structuredContent against a tool's
# outputSchema). It lists tools and calls them through crumb in front of the
# reference servers, and reads back a large result with crumb_read.
#
# Needs: go, node, and the npm packages @modelcontextprotocol/inspector,
# @modelcontextprotocol/server-everything and
# @modelcontextprotocol/server-filesystem installed in $CRUMB_MCP_NODE_DIR
# (default: .ci/node at the top of the repository).
#
# Usage: scripts/ci/mcp-inspector.sh   (from anywhere in the repository)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
node_dir=${CRUMB_MCP_NODE_DIR:-$repo/.ci/node}
bin=$node_dir/node_modules/.bin
for b in mcp-inspector mcp-server-everything mcp-server-filesystem; do
	if [[ ! -x $bin/$b ]]; then
		echo "mcp-inspector.sh: $bin/$b is missing; install the npm packages into $node_dir" >&2
		exit 1
	fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
crumb=$work/crumb
(cd "$repo" && go build -o "$crumb" ./cmd/crumb)
# crumb's store for this run. The Inspector starts its server with a
# filtered environment (the TypeScript SDK passes on HOME, PATH and a few
# more, not CRUMB_STORE), so inspect hands it over with -e. HOME and the
# cache directory point into $work too, and the run fails when a crumb
# store appears there: without -e, crumb mcp would have written the
# user's default store (~/.cache/crumb).
export CRUMB_STORE=$work/store
export HOME=$work/home XDG_CACHE_HOME=$work/cache
mkdir -p "$HOME" "$XDG_CACHE_HOME"

passed=0
failed=0
check() { # check NAME OUTPUT-FILE NODE-EXPRESSION-ON-r
	local name=$1 file=$2 expr=$3
	if node -e '
		const fs = require("fs");
		const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
		if (!('"$expr"')) { console.error(JSON.stringify(r).slice(0, 800)); process.exit(1); }
	' "$file"; then
		echo "ok   $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		failed=$((failed + 1))
	fi
}
inspect() { # inspect OUTPUT-FILE INSPECTOR-ARGS... -- SERVER...
	# --tool-arg takes every word up to the next option, and the Inspector's
	# launcher drops the "--" before SERVER (0.15.0), so each call below
	# gives --tool-arg first and another option after it.
	local out=$1
	shift
	if ! timeout 120 "$bin/mcp-inspector" --cli -e "CRUMB_STORE=$CRUMB_STORE" "$@" >"$out" 2>"$out.err"; then
		echo "mcp-inspector failed: $*" >&2
		cat "$out.err" >&2
		echo '{}' >"$out"
	fi
}

# In front of the everything server: the server's tools and crumb's, and a
# call of one of them.
inspect "$work/list.json" --method tools/list -- "$crumb" mcp -- "$bin/mcp-server-everything"
check "tools/list through crumb has the server's tools and crumb's" "$work/list.json" \
	'["echo","get-sum","get-structured-content","crumb_read","crumb_search","crumb_query"].every(n => r.tools.some(t => t.name === n))'
inspect "$work/echo.json" --tool-arg 'message=hello through crumb' --tool-name echo --method tools/call -- "$crumb" mcp -- "$bin/mcp-server-everything"
check "tools/call echo through crumb" "$work/echo.json" \
	'r.content[0].text === "Echo: hello through crumb"'
inspect "$work/structured.json" --tool-arg location=Chicago --tool-name get-structured-content --method tools/call -- "$crumb" mcp -- "$bin/mcp-server-everything"
check "structured content through crumb passes the inspector's outputSchema check" "$work/structured.json" \
	'r.structuredContent && typeof r.structuredContent.temperature === "number"'

# In front of the filesystem server: a 2 MB file comes back as a small view
# that the inspector accepts for read_text_file's outputSchema, and
# crumb_read reads its lines back from the store.
root=$work/root
mkdir -p "$root"
awk 'BEGIN { for (i = 1; i <= 30000; i++) printf "%06d: a line of the large file that crumb keeps out of the context\n", i }' >"$root/big.txt"
inspect "$work/big.json" --tool-arg "path=$root/big.txt" --tool-name read_text_file --method tools/call -- "$crumb" mcp -- "$bin/mcp-server-filesystem" "$root"
check "a 2 MB read through crumb is a small view that names crumb_read" "$work/big.json" \
	'JSON.stringify(r).length < 20000 && /crumb_read \{"ref":"[0-9a-f]{16}"/.test(r.content[0].text) && typeof r.structuredContent.content === "string"'
ref=$(node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const m = /crumb_read \{"ref":"([0-9a-f]{16})"/.exec(r.content && r.content[0] ? r.content[0].text : ""); console.log(m ? m[1] : "")' "$work/big.json")
inspect "$work/read.json" --tool-arg "ref=$ref" lines=15000:15001 --tool-name crumb_read --method tools/call -- "$crumb" mcp -- "$bin/mcp-server-filesystem" "$root"
check "crumb_read reads lines of the saved result" "$work/read.json" \
	'r.content[0].text.includes("\n015000: a line of the large file that crumb keeps out of the context\n015001: a line")'

# Every result went to this run's store, none to a default one.
leaked=$(ls -d "$XDG_CACHE_HOME/crumb" "$HOME/.cache/crumb" 2>/dev/null || true)
if [[ -z $leaked && -n $(find "$CRUMB_STORE/meta" -name '*.json' -print -quit 2>/dev/null) ]]; then
	echo "ok   crumb mcp kept its results in CRUMB_STORE, not in the default store"
	passed=$((passed + 1))
else
	echo "FAIL crumb mcp kept its results in CRUMB_STORE, not in the default store (written: ${leaked:-nothing in $CRUMB_STORE})"
	failed=$((failed + 1))
fi

echo "mcp-inspector: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
