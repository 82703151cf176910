#!/bin/sh
# Regenerates the outputs of git and head the git-record tests read: real
# history of the crumb repository itself at fixed commits (none of them a
# corpus case's range or format, nor a file a corpus case blames), and head
# over several files of it, and diff -ruN between two of its trees. Each
# fixture's meta.json (the command, the intent, the needles) is written by
# hand, from the output. Run it from anywhere inside a clone of crumb.
set -eu
cd "$(dirname "$0")"
top=$(git rev-parse --show-toplevel)
mkdir -p log-fuller log-p diff-rank head-rank blame-match diffr-rank show-redis
git -C "$top" log --format=fuller -n 80 1328aa9 > log-fuller/output
git -C "$top" log -p -n 6 62fc69b > log-p/output
git -C "$top" show ef8a47e > show-redis/output
git -C "$top" diff 0062292 9c34c10 -- project/rank project/sections > diff-rank/output
git -C "$top" blame 9c34c10 -- project/rank/match.go > blame-match/output
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$top" archive 9c34c10 project/rank | tar -x -C "$tmp"
(cd "$tmp" && head -n 400 project/rank/*.go) > head-rank/output
mkdir "$tmp/old" "$tmp/new"
git -C "$top" archive 0062292 project/rank | tar -x -C "$tmp/old"
git -C "$top" archive 9c34c10 project/rank | tar -x -C "$tmp/new"
# diff exits 1 when the trees differ.
(cd "$tmp" && diff -ruN old/project/rank new/project/rank) > diffr-rank/output || [ $? -eq 1 ]
