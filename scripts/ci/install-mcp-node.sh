#!/usr/bin/env bash
# install-mcp-node.sh — installs the npm packages the MCP proxy's end-to-end
# tests and scripts/ci/mcp-inspector.sh use, pinned, into $CRUMB_MCP_NODE_DIR
# (default: .ci/node at the top of the repository, which git ignores).
# Running it again when they are installed does nothing.
#
# Each package's "engines" must fit the node that runs it: npm installs with
# --engine-strict, so a node too old for one of them fails here, naming the
# package and the node it needs, not later in a test. The servers need node
# 20 or newer. The Inspector is pinned to 0.15.0, the last release that
# declares no node version: from 0.16.0 it wants node >= 22.7.5 and from
# 2.0.0 node >= 22.19, newer than Debian's nodejs (18 in bookworm, 20 in
# trixie).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${CRUMB_MCP_NODE_DIR:-$repo/.ci/node}
packages=(
	@modelcontextprotocol/server-filesystem@2026.8.31
	@modelcontextprotocol/server-everything@2026.8.31
	@modelcontextprotocol/inspector@0.15.0
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
	npm install --engine-strict --no-audit --no-fund --loglevel=error "${packages[@]}"
fi
echo "install-mcp-node.sh: MCP test servers ready in $dir"
