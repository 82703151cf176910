# json.sh: JSON documents from real tools and the npm registry. Sourced by
# make.sh.

# json_case NAME CMDLINE [DESCRIPTION]: runs CMDLINE (stdout only: what a
# JSON-reading tool gets) and saves it as case json-NAME with tool "bash".
json_case() {
	local name=json-$1 cmdline=$2 tmp
	tmp=$(mktemp)
	bash -c "$cmdline" </dev/null >"$tmp" 2>"$tmp.err"
	local code=$?
	if [ "$code" -ne 0 ] || ! jq -e . "$tmp" >/dev/null 2>&1; then
		echo "error: $name: '$cmdline' failed (exit $code) or did not print JSON: $(head -c 300 "$tmp.err")" >&2
		failures=$((failures + 1))
	fi
	# A function late_needles, when defined, adds needles computed from the
	# output (its path is the argument); it is used once.
	if declare -F late_needles >/dev/null; then
		late_needles "$tmp"
		unset -f late_needles
	fi
	save_case "$name" json bash "$(bash_args "$cmdline" "${3:-}")" <"$tmp"
	rm -f "$tmp" "$tmp.err"
}

if selected json-go-list-std; then
	needle '"ImportPath": "net/http/httptrace"' 'the package the agent is looking for'
	needle '"Dir": "'"$(go env GOROOT)"'/src/net/http/httptrace"' 'where it is'
	needle '"Doc": "Package httptrace provides mechanisms to trace the events within HTTP client requests."' 'what it does'
	json_case go-list-std 'go list -json std' 'Find the directory and doc of net/http/httptrace'
fi

if selected json-go-env-small; then
	needle '"GOROOT": "'"$(go env GOROOT)"'"' 'the key asked about: a small document passes through'
	needle '"GOVERSION": "' 'the toolchain version'
	json_case go-env-small 'go env -json' 'Show the Go environment'
fi

if selected json-npm-view-vitest; then
	needle_re '"latest": "\d+\.\d+\.\d+"' 'the current version, in dist-tags'
	needle '"peerDependencies": {' 'what it needs installed beside it'
	late_needles() { needle '"node": "'"$(jq -r '.engines.node' "$1")"'"' 'the node versions it supports'; }
	json_case npm-view-vitest 'npm view vitest --json' 'Check vitest'"'"'s latest version, peer dependencies and supported node versions'
fi

if selected json-cargo-metadata; then
	fresh cargo-workspace
	printf '[workspace]\nresolver = "2"\nmembers = ["crates/*"]\n' >Cargo.toml
	prev=""
	for c in ledger-core ledger-money ledger-store ledger-rules ledger-report ledger-api ledger-cli ledger-sync; do
		mkdir -p "crates/$c/src"
		{
			printf '[package]\nname = "%s"\nversion = "0.3.1"\nedition = "2021"\nlicense = "MIT"\ndescription = "The %s part of the ledger."\n\n' "$c" "${c#ledger-}"
			printf '[features]\ndefault = ["std"]\nstd = []\nserde = []\n\n[dependencies]\n'
			[ -n "$prev" ] && printf '%s = { path = "../%s" }\n' "$prev" "$prev"
			[ "$c" = ledger-api ] && printf 'ledger-store = { path = "../ledger-store", features = ["serde"] }\n'
		} >"crates/$c/Cargo.toml"
		printf 'pub fn name() -> &'"'"'static str { "%s" }\n' "$c" >"crates/$c/src/lib.rs"
		if [ "$c" = ledger-cli ]; then
			mkdir -p "crates/$c/src/bin" "crates/$c/tests" "crates/$c/benches"
			printf 'fn main() {}\n' >"crates/$c/src/bin/ledger.rs"
			printf '#[test]\nfn t() {}\n' >"crates/$c/tests/cli.rs"
		fi
		prev=$c
	done
	needle '"features":["serde"]' 'the feature ledger-api turns on in ledger-store'
	needle '"name":"ledger","src_path":"/tmp/crumb-corpus/work/cargo-workspace/crates/ledger-cli/src/bin/ledger.rs"' 'the binary target and its source'
	needle '"workspace_root":"/tmp/crumb-corpus/work/cargo-workspace"' 'the workspace root'
	json_case cargo-metadata 'cargo metadata --format-version 1 --offline' 'Inspect the workspace: members, features and targets'
fi

# The jest project of command-jest-fail; made here if that case was not.
jest_project() {
	if [ ! -f "$work/jest-fail/package-lock.json" ]; then
		mkdir -p "$work/jest-fail"
		(cd "$work/jest-fail" && printf '{"name": "cart", "version": "1.0.0", "private": true}\n' >package.json &&
			npm install --silent --no-progress --save-dev jest@29 >/dev/null 2>&1)
	fi
	cd "$work/jest-fail" || exit 1
}

if selected json-package-lock; then
	jest_project
	needle '"node_modules/jest-circus": {' 'the package the agent asks about'
	needle '"integrity": "'"$(jq -r '.packages["node_modules/jest-circus"].integrity' package-lock.json)"'"' 'the exact tarball installed'
	needle '"lockfileVersion": 3' 'the lockfile format'
	save_case json-package-lock json read_file "$(jq -n --arg p "$work/jest-fail/package-lock.json" '{path: $p, intent: "which jest-circus is locked"}')" <package-lock.json
fi

if selected json-npm-ls-all; then
	jest_project
	needle '"babel-plugin-istanbul": {' 'the transitive dependency the agent asks about, deep in the tree'
	needle '"version": "'"$(npm ls babel-plugin-istanbul --json 2>/dev/null | jq -r '.. | objects | .["babel-plugin-istanbul"]? | objects | .version' | head -n1)"'"' 'its version'
	json_case npm-ls-all 'npm ls --all --json' 'Find which version of babel-plugin-istanbul is installed, and why'
fi
