#!/usr/bin/env bash
# make.sh regenerates the fixtures of project/command_rarity_test.go: real
# outputs in which one line is the evidence and thousands of others are
# notes, remarks or warnings of a few templates (rarity), and a passing run
# over several packages whose summary lines are scattered among repeated
# ones (the budget must not go unused). Each fixture is a folder:
#
#   output     the bytes the command wrote, stdout and stderr interleaved
#   meta.json  {"command": [...], "exit_code": N, "needles": [{"text", "why"}]}
#
# Every output comes from a real tool run here on real code: Go packages
# from the module cache (github.com/google/go-cmp), the C examples zlib ships
# (/usr/share/doc/zlib1g-dev/examples), JavaScript from an npm package. One
# fault is put in on purpose per failing run; nothing in an output is typed
# by hand. The needles are picked by rule from the raw output, before any
# view is looked at: the error line at file:line (grep for the fault's
# message), or every summary line of the passing run (grep '^ok ').
#
# Needs: go with github.com/google/go-cmp@v0.7.0 in the module cache (or the
# Go module proxy), gcc and clang (apt-get install gcc clang), zlib1g-dev,
# node and npm with the npm registry reachable (eslint). Work happens under
# /tmp/crumb-rarity-fixtures, a fixed path, so that paths stay the same from
# run to run. Rerun it to refresh every fixture, or name some
# (make.sh gcc-warnings-one-error), then `go test ./project -run Rarity`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/crumb-rarity-fixtures
mkdir -p "$work"
export GOFLAGS=-count=1 GOTOOLCHAIN=local CI=true NO_COLOR=1 FORCE_COLOR=0 TERM=dumb LC_ALL=C
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

want=("$@")
wanted() { [ ${#want[@]} -eq 0 ] || printf '%s\n' "${want[@]}" | grep -qx "$1"; }

# record NAME PATTERN WHY CMD...: runs CMD with stdout and stderr on one
# pipe, keeps its output and exit status, and makes every output line that
# matches the extended regexp PATTERN a needle.
record() {
	local name=$1 pattern=$2 why=$3
	shift 3
	mkdir -p "$here/$name"
	"$@" >"$here/$name/output" 2>&1
	local code=$?
	python3 - "$here/$name" "$code" "$pattern" "$why" "$@" <<'EOF'
import json, re, sys
d, code, pattern, why, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
lines = open(d + "/output", encoding="utf-8", errors="replace").read().splitlines()
needles = [{"text": l, "why": why} for l in lines if re.search(pattern, l)]
if not needles:
    sys.exit("%s: no line matches %r" % (d, pattern))
json.dump({"kind": "command", "command": cmd, "exit_code": code, "needles": needles},
          open(d + "/meta.json", "w"), indent=2, ensure_ascii=False)
open(d + "/meta.json", "a").write("\n")
print("%s: exit %d, %d lines, %d needles" % (d.rsplit("/", 1)[1], code, len(lines), len(needles)))
EOF
}

# gocmp: a fresh copy of go-cmp, writable.
gocmp() {
	local src
	src=$(go env GOMODCACHE)/github.com/google/go-cmp@v0.7.0
	[ -d "$src" ] || (cd "$work" && rm -rf modfetch && mkdir modfetch && cd modfetch && go mod init x >/dev/null 2>&1 && go mod download github.com/google/go-cmp@v0.7.0)
	rm -rf "$work/go-cmp"
	cp -r "$src" "$work/go-cmp" && chmod -R u+w "$work/go-cmp"
	cd "$work/go-cmp" || exit 1
}

# zlib: the C examples zlib ships, in a fresh directory.
zlib() {
	rm -rf "$work/zlib"
	mkdir -p "$work/zlib"
	cp /usr/share/doc/zlib1g-dev/examples/{enough,fitblk,gun,gzappend,gzjoin,gznorm,zpipe}.c "$work/zlib/"
	cd "$work/zlib" || exit 1
}

# Go's escape analysis and inlining notes by the thousand, one undefined
# method among them.
if wanted go-gcflags-m-cmp; then
	gocmp
	sed -i 's/^func (x StructA) Equal(y StructA) bool     { return true }/func (x StructA) Equal(y StructA) bool     { return ture }/' cmp/internal/teststructs/structs.go
	grep -q 'return ture' cmp/internal/teststructs/structs.go || { echo "go-gcflags-m-cmp: the fault did not apply" >&2; exit 1; }
	record go-gcflags-m-cmp 'undefined: ture' "the one compile error among thousands of optimisation notes" \
		go build -gcflags=-m ./...
fi
if wanted go-gcflags-m2-value; then
	gocmp
	sed -i 's/sort.SliceStable(vs, func(i, j int) bool { return isLess(vs\[i\], vs\[j\]) })/sort.SliceStable(vs, func(i, j int) bool { return isLesser(vs[i], vs[j]) })/' cmp/internal/value/sort.go
	record go-gcflags-m2-value 'undefined: isLesser' "the one compile error among the escape-analysis flows" \
		go build -gcflags=-m=2 ./cmp/internal/...
fi

# gcc's optimisation report and clang's remarks over several files, one of
# which does not compile.
if wanted gcc-fopt-info-one-error; then
	zlib
	sed -i 's/    ind.infile = infile;/    ind.infile = inf1le;/' gun.c
	grep -q 'inf1le' gun.c || { echo "gcc-fopt-info-one-error: the fault did not apply" >&2; exit 1; }
	record gcc-fopt-info-one-error "error: .*inf1le" "the one compile error among the optimisation report" \
		gcc -O3 -fopt-info-all -c enough.c fitblk.c gzappend.c gun.c gzjoin.c gznorm.c zpipe.c
fi
if wanted clang-rpass-one-error; then
	zlib
	sed -i 's/    ind.infile = infile;/    ind.infile = inf1le;/' gun.c
	record clang-rpass-one-error "error: .*inf1le" "the one compile error among thousands of remarks" \
		clang -O2 '-Rpass=.*' '-Rpass-missed=.*' -c enough.c fitblk.c gun.c gzappend.c zpipe.c
fi
if wanted gcc-warnings-one-error; then
	zlib
	sed -i 's/^    ret = inflateInit2(&strm, -15);/    ret = inflateRezet(\&strm, -15);/' gzjoin.c
	grep -q 'inflateRezet' gzjoin.c || { echo "gcc-warnings-one-error: the fault did not apply" >&2; exit 1; }
	record gcc-warnings-one-error "error: .*inflateRezet|inflateRezet.*error" "the one error among the warnings" \
		gcc -Wall -Wextra -Wconversion -Wsign-conversion -Wpedantic -Werror=implicit-function-declaration -c enough.c fitblk.c gzappend.c gun.c gzjoin.c gznorm.c zpipe.c
fi

# eslint: warnings by the thousand over a real package's code, one
# undefined name among them.
if wanted eslint-warnings-one-error; then
	mkdir -p "$work/eslint"
	cd "$work/eslint" || exit 1
	[ -x node_modules/.bin/eslint ] || { npm init -y >/dev/null && npm install --no-save eslint@9.39.1 globals@16.5.0 semver@7.7.3 >/dev/null 2>&1; } || exit 1
	rm -rf src && mkdir src && cp -r node_modules/semver/{classes,functions,ranges,internal} src/
	sed -i 's/    const m = version.trim().match(options.loose ? re\[t.LOOSE\] : re\[t.FULL\])/    const m = version.trim().match(lose ? re[t.LOOSE] : re[t.FULL])/' src/classes/semver.js
	grep -q 'lose ?' src/classes/semver.js || { echo "eslint-warnings-one-error: the fault did not apply" >&2; exit 1; }
	cat >eslint.config.js <<'EOF'
const globals = require("globals");
module.exports = [{
  files: ["src/**/*.js"],
  languageOptions: { sourceType: "commonjs", globals: globals.node },
  rules: {
    "no-undef": "error",
    "prefer-const": "warn", "no-var": "warn", "eqeqeq": "warn", "curly": "warn",
    "no-magic-numbers": "warn", "prefer-template": "warn", "no-param-reassign": "warn",
    "no-plusplus": "warn", "no-nested-ternary": "warn", "no-negated-condition": "warn",
    "id-length": "warn", "sort-keys": "warn", "no-ternary": "warn", "one-var": "warn",
  },
}];
EOF
	record eslint-warnings-one-error "'lose' is not defined|^/.*/src/classes/semver\.js$" "the one error among hundreds of warnings, and its file" \
		npx --no-install eslint src
fi

# cargo clippy over a workspace: 720 warnings of three lints, one type
# error in the crate checked between the two that warn.
if wanted cargo-clippy-one-error; then
	rm -rf "$work/clippy" && mkdir -p "$work/clippy" && cd "$work/clippy" || exit 1
	python3 - <<'EOF2'
import os
def crate(name, src, deps=""):
    os.makedirs(name + "/src", exist_ok=True)
    open(name + "/Cargo.toml", "w").write('[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n%s' % (name, deps))
    open(name + "/src/lib.rs", "w").write(src)
def fns(prefix):
    return "\n".join("pub fn %s_%d(w: &Vec<u32>, h: u32) -> u32 {\n    let total = w.iter().fold(0, |a, b| a + b) * h;\n    return total;\n}\n" % (prefix, i) for i in range(120))
open("Cargo.toml", "w").write('[workspace]\nmembers = ["alpha", "app", "zeta"]\nresolver = "2"\n')
crate("alpha", fns("area"))
crate("zeta", fns("volume"))
# The fault: a u32 where a String is wanted.
crate("app", "pub fn label(n: u32) -> String {\n    let s: String = alpha::area_0(&vec![n], 1);\n    s\n}\n", 'alpha = { path = "../alpha" }\n')
EOF2
	export CARGO_TERM_COLOR=never
	record cargo-clippy-one-error '^error\[E0308\]|^ --> app/src/lib.rs:2:21' "the one error among hundreds of warnings, and where it is" \
		cargo clippy --workspace --offline -j 1 --keep-going
fi

# staticcheck with every check over go-cmp: findings of a few kinds, one
# compile error.
if wanted staticcheck-one-error; then
	[ -x "$work/bin/staticcheck" ] || GOFLAGS= GOBIN="$work/bin" go install honnef.co/go/tools/cmd/staticcheck@v0.6.1 || exit 1
	gocmp
	sed -i 's/^func (x StructA) Equal(y StructA) bool     { return true }/func (x StructA) Equal(y StructA) bool     { return ture }/' cmp/internal/teststructs/structs.go
	record staticcheck-one-error 'undefined: ture' "the compile error among the findings" \
		"$work/bin/staticcheck" -checks all ./...
fi

# A passing go test -v over several packages: the per-package summaries
# sit among thousands of === RUN and --- PASS lines.
if wanted go-test-v-pass-cmp; then
	gocmp
	record go-test-v-pass-cmp '^(ok  |\?   )	' "a package's outcome" go test -v ./...
fi
