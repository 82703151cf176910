#!/usr/bin/env bash
# make.sh builds testdata/corpus, the corpus of real tool output crumb's
# projections are judged on (see scripts/corpus/README.md, and bench.Meta in
# bench/corpus.go for the fields of a case's meta.json). Every output is made by running a real tool: compilers and
# test runners on throwaway projects with failures put in on purpose, servers
# on loopback under real traffic, file reads and listings of real files, JSON
# from real tools and registries, MCP results from real MCP servers.
#
# Usage:
#
#   scripts/corpus/make.sh                    make every case
#   scripts/corpus/make.sh 'command-go-*' ... make the cases named (globs)
#   scripts/corpus/make.sh -l                 list the case scripts' cases
#
# Cases are made under a temporary stage directory and then copied into
# testdata/corpus, replacing the cases of the same name (and their stale
# view.golden). Projects are built under /tmp/crumb-corpus/work, a fixed
# path, so that paths in outputs stay the same from run to run; timings,
# addresses and timestamps change. Afterwards refresh the golden views with
#
#   go test ./bench -run TestCorpus -update
#
# Needs: go, gcc, clang, make, cmake, cargo with clippy, a JDK, python3
# with pytest, mypy, pylint and flake8, node and npm (the npm registry for
# the pinned tools and npm view), npx (the MCP servers), nginx, apache2,
# redis-server and redis-cli, sshd and rsyslogd, sqlite3, yamllint, man,
# tree, jq, curl, ImageMagick's convert, gzip, git; scripts/corpus/README.md
# has the list and the Debian packages.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/scripts/corpus
dest=$root/testdata/corpus
work=/tmp/crumb-corpus/work

list_only=
if [ "${1:-}" = "-l" ]; then
	list_only=1
	shift
fi
only=("$@")

stage=$(mktemp -d /tmp/crumb-corpus-stage.XXXXXX)
mkdir -p "$work" "$dest"
# The base projects the fault cases copy are made once per run: forget
# those of earlier runs, so that a change to a script always shows.
[ -z "$list_only" ] && rm -f "$work"/*/.made
# shellcheck source=lib.sh
. "$here/lib.sh"

# A quiet, predictable environment for the tools.
export GOFLAGS=-count=1 GOTOOLCHAIN=local CI=true NO_COLOR=1 TERM=dumb
export CARGO_TERM_COLOR=never npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
unset FORCE_COLOR RUST_BACKTRACE
py=/usr/bin/python3

# Servers started by the cases, stopped on exit whatever happens.
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}
trap cleanup EXIT

parts=(go native python node files logs json dirs binary mcp pyfaults ts docs git sqlite rust cfaults yaml gofaults mcp2 logs2)
if [ -n "$list_only" ]; then
	for part in "${parts[@]}"; do
		# shellcheck source=/dev/null
		. "$here/cases/$part.sh"
	done | grep -v '[*]' | sort -u
	rm -rf "$stage"
	exit 0
fi

for part in "${parts[@]}"; do
	# shellcheck source=/dev/null
	. "$here/cases/$part.sh"
	cd "$root" || exit 1
done

# Copy what was made into the corpus.
made=0
for dir in "$stage"/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	rm -rf "${dest:?}/$name"
	cp -r "$dir" "$dest/$name"
	made=$((made + 1))
done
rm -rf "$stage"
echo "made $made cases in $dest ($(du -sh "$dest" | cut -f1) in all); $failures problems"
[ "$failures" -eq 0 ]
