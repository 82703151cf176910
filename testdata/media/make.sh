#!/usr/bin/env bash
# make.sh — makes the MCP media results the Guard's tests read: what the
# real filesystem MCP server (@modelcontextprotocol/server-filesystem, as
# scripts/ci/install-mcp-node.sh installs it) returns for read_media_file
# on real images from Go's source tree and on a WAV file written by
# Python's wave module. Each result repeats its media block in
# structuredContent, as that server does.
# Usage: testdata/media/make.sh (from anywhere); needs node and python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
node_dir=${CRUMB_MCP_NODE_DIR:-$repo/.ci/node}
"$repo/scripts/ci/install-mcp-node.sh" >/dev/null
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
images=$(go env GOROOT)/src/image/testdata
cp "$images/video-001.png" "$images/video-001.jpeg" "$images/triangle-001.gif" "$src/"
python3 - "$src/tone.wav" <<'PY'
import math, struct, sys, wave
w = wave.open(sys.argv[1], "wb")
w.setnchannels(1); w.setsampwidth(2); w.setframerate(8000)
w.writeframes(b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * 440 * i / 8000))) for i in range(8000)))
w.close()
PY
for f in video-001.png video-001.jpeg triangle-001.gif tone.wav; do
	SERVER_ARGV="[\"node\",\"$node_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js\",\"$src\"]" \
		CALLS="[{\"name\":\"read_media_file\",\"arguments\":{\"path\":\"$src/$f\"}}]" \
		NODE_PATH=$node_dir/node_modules node "$repo/mcpproxy/testdata/ts-client.cjs" 2>/dev/null |
		python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["calls"][0]["result"]), end="")' >"$here/read-media-file-${f//./-}.json"
done
