#!/bin/sh
# Regenerates the real outputs the short-word tests of package rank read:
# the documentation of runtime/debug (GCStats, SetGCPercent, GOGC) and the
# go command's environment (CC=gcc, GOOS, GOHOSTOS), where a two-letter
# word ("gc", "os") is met whole in a few lines and as a piece of a longer
# word in many. Run it from this directory.
set -eu
go doc -all runtime/debug > debug-doc.txt
go env > go-env.txt
