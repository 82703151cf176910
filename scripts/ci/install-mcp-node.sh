#!/usr/bin/env bash
# install-mcp-node.sh — installs the npm packages the MCP proxy's end-to-end
# tests and scripts/ci/mcp-inspector.sh use, pinned, into $CRUMB_MCP_NODE_DIR
# (default: .ci/node at the top of the repository, which git ignores).
# Running it again when they are installed does nothing.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${CRUMB_MCP_NODE_DIR:-$repo/.ci/node}
packages=(
	@modelcontextprotocol/server-filesystem@2026.8.31
	@modelcontextprotocol/server-everything@2026.8.31
	@modelcontextprotocol/inspector@2.12.0
	# The TypeScript SDK, for the tests' own node client and servers
	# (mcpproxy/testdata/*.cjs).
	@modelcontextprotocol/sdk@1.32.2
)

mkdir -p "$dir"
cd "$dir"
[[ -f package.json ]] || echo '{"private": true}' >package.json
missing=0
for p in "${packages[@]}"; do
	name=${p%@*}
	want=${p##*@}
	have=$(node -p "try { require('./node_modules/$name/package.json').version } catch (e) { '' }" 2>/dev/null || true)
	[[ $have == "$want" ]] || missing=1
done
if [[ $missing == 1 ]]; then
	npm install --no-audit --no-fund --loglevel=error "${packages[@]}"
fi
echo "install-mcp-node.sh: MCP test servers ready in $dir"
