#!/bin/sh
# Regenerates the real outputs the definition tests of package rank read:
# grep -n over Python's argparse (def parse_args and the calls of it) and
# over Go's bytes.Buffer (func (b *Buffer) Grow, grow and their calls).
# Run it from this directory; the Python version's path may differ.
set -eu
grep -n "parse_args" /usr/lib/python3.11/argparse.py > grep-argparse.txt
grep -n "Grow\|grow" "$(go env GOROOT)/src/bytes/buffer.go" > grep-buffer.txt
