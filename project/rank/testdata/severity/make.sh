#!/usr/bin/env bash
# make.sh regenerates the fixtures of project/rank/severity_test.go: real
# output of real tools, each the standard output and error of one run, for
# the classes of lines the error vocabulary must tell apart that the
# fixtures elsewhere (project/testdata, project/teststream/testdata) do not
# hold: zero counts in a passing run's summary, an error type's name, a
# problem stated without the word "error", a non-zero exit status, a timed
# out connection, a deprecation warning. Nothing in an output is typed by
# hand.
#
# Needs: go, cargo, python3, node, sqlite3, javac (Debian packages or the
# toolchains' installers); no network. Work happens under
# /tmp/crumb-severity-fixtures, a fixed path, so that paths stay the same
# from run to run. Rerun it to refresh every fixture, then
# `go test ./project/rank -run Severity`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/crumb-severity-fixtures
rm -rf "$work"
mkdir -p "$work"
export GOFLAGS=-count=1 GOTOOLCHAIN=local CI=true NO_COLOR=1 TERM=dumb LC_ALL=C CARGO_TERM_COLOR=never

# run NAME CMD...: keeps CMD's output, stdout and stderr on one pipe, and
# its exit status on the last line as a shell prints it.
run() {
	local name=$1
	shift
	(cd "$work" && "$@") >"$here/$name.txt" 2>&1
	echo "$name: exit $?"
}

# cargo test, passing: "test result: ok. 2 passed; 0 failed; ..."
cargo new --lib --vcs none -q "$work/tally" 2>/dev/null
cat >"$work/tally/src/lib.rs" <<'RS'
pub fn add(a: u64, b: u64) -> u64 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn adds() { assert_eq!(add(2, 2), 4); }
    #[test]
    fn adds_zero() { assert_eq!(add(0, 7), 7); }
}
RS
run cargo-test-pass cargo test --offline --manifest-path "$work/tally/Cargo.toml"

# go run of a program that exits 1 after naming what it could not open.
mkdir -p "$work/gorun"
cat >"$work/gorun/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
)

func main() {
	if _, err := os.Open("/nonexistent/settings.toml"); err != nil {
		fmt.Fprintln(os.Stderr, "could not load settings:", err)
		os.Exit(1)
	}
}
GO
run go-run-exit go run "$work/gorun/main.go"

# Python: a missing module (its traceback quotes the line "from ..."), then
# a connection that times out (to a listener on this machine whose backlog
# is full, so that nothing ever answers).
mkdir -p "$work/py"
printf 'from settings_loader import load\n\nload()\n' >"$work/py/main.py"
run python-import python3 "$work/py/main.py"
run python-timeout python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(0)
a = socket.create_connection(s.getsockname())
b = socket.create_connection(s.getsockname(), timeout=0.5)
c = socket.create_connection(s.getsockname(), timeout=0.5)
c.settimeout(0.2); c.recv(1)'

# node: a module that cannot be found, and a deprecation warning.
run node-missing node -e 'require("./settings-loader")'
run node-deprecation node -e 'new Buffer(4)'

# sqlite3: a problem said without "error" in the message.
run sqlite-no-table sqlite3 :memory: 'select * from accounts;'

# javac: a deprecation note and a warning with -Xlint.
mkdir -p "$work/java"
cat >"$work/java/Main.java" <<'JAVA'
import java.util.Date;

public class Main {
    public static void main(String[] args) {
        Date d = new Date(2024, 1, 1);
        java.util.List raw = new java.util.ArrayList();
        raw.add(d);
        System.out.println(raw);
    }
}
JAVA
run javac-lint javac -Xlint:all -d "$work/java" "$work/java/Main.java"
