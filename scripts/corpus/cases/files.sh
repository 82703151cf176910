# files.sh: file reads of real files on this machine. The output is the
# file's bytes as a read tool returns them (whole, or a numbered range the way
# Claude Code's Read tool shows one); args are the tool call's arguments, and
# where the call says what it is after (a symbol, a pattern, an intent), the
# needles are that. Sourced by make.sh.

goroot=$(go env GOROOT)
pylib=$(ls -d /root/.pyenv/versions/3.12.*/lib/python3.12 2>/dev/null | head -n1)
[ -n "$pylib" ] || pylib=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')

# read_case NAME TOOL ARGS_JSON FILE: a whole-file read of FILE.
read_case() {
	if [ ! -f "$4" ]; then
		echo "error: $1: $4 does not exist here" >&2
		failures=$((failures + 1))
		pending=()
		return
	fi
	save_case "$1" file "$2" "$3" <"$4"
}

if selected file-go-transport-intent; then
	f=$goroot/src/net/http/transport.go
	needle 'func (t *Transport) tryPutIdleConn(pconn *persistConn) error {' 'the function the read asked about'
	needle 'if t.DisableKeepAlives || t.MaxIdleConnsPerHost < 0 {' 'the condition that refuses to pool a connection, inside it'
	read_case file-go-transport-intent read_file "$(jq -n --arg p "$f" '{path: $p, intent: "where an idle connection is put back in the pool, and when it is refused"}')" "$f"
fi

if selected file-go-strings-plain; then
	f=$goroot/src/strings/strings.go
	# A plain read says nothing of what it is after: what the agent needs is
	# what the file offers, the signatures of its API.
	needle 'package strings' 'what the file is'
	needle 'func Fields(s string) []string' 'an API the file offers, in the middle'
	needle 'func Map(mapping func(rune) rune, s string) string' 'another, further down'
	needle 'func EqualFold(s, t string) bool' 'one near the end'
	read_case file-go-strings-plain read_file "$(jq -n --arg p "$f" '{path: $p}')" "$f"
fi

if selected file-go-errors-small; then
	f=$goroot/src/errors/errors.go
	needle 'func New(text string) error {' 'the constructor: a small file passes through whole'
	read_case file-go-errors-small read_file "$(jq -n --arg p "$f" '{path: $p}')" "$f"
fi

if selected file-go-proc-range; then
	f=$goroot/src/runtime/proc.go
	needle '  4135	func schedule() {' 'the function the range was read for'
	needle '  4307	func goschedImpl(gp *g, preempted bool) {' 'a function further down the range asked for'
	needle '  4399	' 'the last line of the range: the read returned all of it'
	save_case file-go-proc-range file Read "$(jq -n --arg p "$f" '{file_path: $p, offset: 4100, limit: 300}')" \
		< <(awk 'NR >= 4100 && NR < 4400 { printf "%6d\t%s\n", NR, $0 }' "$f")
fi

if selected file-py-typing-symbol; then
	f=$pylib/typing.py
	needle 'def TypedDict(typename, fields=None, /, *, total=True, **kwargs):' 'the definition the read asked for'
	needle_re '    ns = \{.__annotations__.: dict\(fields\)\}' 'how it builds the class namespace, inside the definition'
	read_case file-py-typing-symbol read_file "$(jq -n --arg p "$f" '{path: $p, symbol: "TypedDict"}')" "$f"
fi

if selected file-py-json-decoder; then
	f=$pylib/json/decoder.py
	needle 'def raw_decode(self, s, idx=0):' 'the method the read searched for'
	needle 'raise JSONDecodeError("Expecting value", s, err.value) from None' 'the error it raises'
	read_case file-py-json-decoder read_file "$(jq -n --arg p "$f" '{path: $p, pattern: "def raw_decode"}')" "$f"
fi

if selected file-ts-mcp-types; then
	# The SDK of an npx-run MCP server, or of the pinned ones in node-tools.
	f=$(ls /root/.npm/_npx/*/node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts "$work"/node-tools/node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts 2>/dev/null | head -n1)
	needle 'export declare const CallToolResultSchema: z.ZodObject<{' 'the declaration the read is after'
	needle 'export type CallToolResult = Infer<typeof CallToolResultSchema>;' 'the type derived from it'
	read_case file-ts-mcp-types read_file "$(jq -n --arg p "${f:-types.d.ts}" '{path: $p, intent: "the shape of CallToolResult"}')" "${f:-/nonexistent}"
fi

if selected file-md-node-fs; then
	f=/usr/share/doc/nodejs/api/fs.md
	needle '### `fsPromises.rm(path[, options])`' 'the section that answers the question'
	needle '  * `recursive` {boolean} If `true`, perform a recursive directory removal. In' 'the option it needs'
	read_case file-md-node-fs read_file "$(jq -n --arg p "$f" '{path: $p, intent: "how to remove a directory recursively with promises"}')" "$f"
fi

if selected file-toml-rust-manifest; then
	f=$(ls /root/.rustup/toolchains/stable-*/lib/rustlib/multirust-channel-manifest.toml 2>/dev/null | head -n1)
	needle '[pkg.rust-src.target."*"]' 'the table the read asks about'
	needle_re 'url = "https://static\.rust-lang\.org/dist/[0-9-]+/rust-src-[0-9.]+\.tar\.gz"' 'the download url in it'
	read_case file-toml-rust-manifest read_file "$(jq -n --arg p "${f:-manifest.toml}" '{path: $p, intent: "the download url of the rust-src component"}')" "${f:-/nonexistent}"
fi

if selected file-yaml-gcloud-resource-map; then
	f=/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/util/resource_map/resource_map.yaml
	needle 'cloudkms:' 'the API the read asks about'
	needle '  projects.locations.keyRings.cryptoKeys:' 'one of its collections'
	read_case file-yaml-gcloud-resource-map read_file "$(jq -n --arg p "$f" '{path: $p, intent: "which collections of cloudkms are in the resource map"}')" "$f"
fi

if selected file-js-npm-ls; then
	f=$(npm root -g)/npm/lib/commands/ls.js
	needle 'class LS extends ArboristWorkspaceCmd {' 'the command class the read is about'
	needle 'async exec (args) {' 'its entry point'
	read_case file-js-npm-ls read_file "$(jq -n --arg p "$f" '{path: $p}')" "$f"
fi
