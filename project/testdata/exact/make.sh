#!/bin/sh
# Makes the fixtures of exact matches (issue 10, class 7) from real tools:
# lock files that hold packages whose names contain one another (npm,
# yarn, pnpm, cargo, and this repository's go.sum), and bundles of many
# files (a gitingest-style concatenation, a read_multiple_files text, a
# git diff and a grep -rn over two releases of testify from the Go module
# cache). Run from this directory; needs network for the registries.
set -eu
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm, yarn and pnpm: lodash next to lodash.merge and lodash.debounce,
# core-js next to core-js-pure, @types/node next to @types/node-fetch, and
# express with its many dependencies around them.
mkdir -p "$tmp/js"
cd "$tmp/js"
cat > package.json <<'JSON'
{"name": "lock-fixture", "version": "1.0.0", "private": true,
 "dependencies": {"lodash": "4.17.21", "lodash.merge": "4.6.2", "lodash.debounce": "4.0.8",
  "core-js": "3.38.1", "core-js-pure": "3.38.1", "@types/node": "22.5.0", "@types/node-fetch": "2.6.11",
  "express": "4.21.0", "body-parser": "1.20.3"}}
JSON
npm install --package-lock-only --ignore-scripts --no-audit --no-fund >/dev/null
mkdir -p "$here/lock-npm" && cp package-lock.json "$here/lock-npm/output"
npx --yes yarn@1.22.22 install --ignore-scripts --no-progress --non-interactive >/dev/null 2>&1
mkdir -p "$here/lock-yarn" && cp yarn.lock "$here/lock-yarn/output"
npx --yes pnpm@9.12.0 install --lockfile-only --ignore-scripts >/dev/null 2>&1
mkdir -p "$here/lock-pnpm" && cp pnpm-lock.yaml "$here/lock-pnpm/output"

# cargo: serde next to serde_json and serde_derive.
if command -v cargo >/dev/null; then
	mkdir -p "$tmp/rs/src" && cd "$tmp/rs"
	printf '[package]\nname = "lock-fixture"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\nserde_json = "1"\nserde_yaml = "0.9"\n' > Cargo.toml
	echo 'fn main() {}' > src/main.rs
	if cargo generate-lockfile -q; then
		mkdir -p "$here/lock-cargo" && cp Cargo.lock "$here/lock-cargo/output"
	else
		echo "make.sh: crates.io unreachable; no Cargo.lock fixture" >&2
	fi
fi

# go.sum of this repository.
mkdir -p "$here/lock-gosum" && cp "$here/../../../go.sum" "$here/lock-gosum/output"

# Bundles of testify's assert and require packages.
mod=$(go env GOMODCACHE)/github.com/stretchr
old=$mod/testify@v1.11.1
new=$mod/testify@v1.12.1
cd "$new"
files=$(ls assert/assertions.go assert/assertion_compare.go assert/assertion_order.go assert/http_assertions.go require/require.go require/requirements.go mock/mock.go)
mkdir -p "$here/bundle-gitingest" "$here/bundle-multiple"
: > "$here/bundle-gitingest/output"
: > "$here/bundle-multiple/output"
first=1
for f in $files; do
	printf '================================================\nFILE: %s\n================================================\n' "$f" >> "$here/bundle-gitingest/output"
	cat "$f" >> "$here/bundle-gitingest/output"
	printf '\n\n' >> "$here/bundle-gitingest/output"
	# The text of @modelcontextprotocol/server-filesystem's read_multiple_files.
	[ $first = 1 ] || printf '\n---\n' >> "$here/bundle-multiple/output"
	printf '/work/testify/%s:\n' "$f" >> "$here/bundle-multiple/output"
	cat "$f" >> "$here/bundle-multiple/output"
	first=0
done
mkdir -p "$here/bundle-diff" "$here/bundle-grep"
cd "$tmp" && ln -s "$old" a && ln -s "$new" b
git -c core.quotepath=off diff --no-index --no-prefix a/ b/ > "$here/bundle-diff/output" || true
cd "$new" && grep -rn 'func .*Equal' --include='*.go' . > "$here/bundle-grep/output"
