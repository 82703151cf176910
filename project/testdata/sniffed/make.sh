#!/usr/bin/env bash
# make.sh regenerates the fixtures of the sniffing tests: real outputs of
# test runners and compilers saved as files whose names do not say what they
# hold (a CI log, a .txt), and the CallToolResults of the real MCP
# filesystem server from npm reading them. Nothing in them is typed by hand:
# the small projects are written here, each with one fault put in on
# purpose, and the tools run on them.
#
#   files/          the outputs, as a CI job would save them
#   mcp/<case>/     output (the CallToolResult as the server sent it) and
#                   meta.json (tool, args, needles), captured with
#                   scripts/fixtures/mcpcapture
#
# Needs: go, python3-pytest (apt-get install -y python3-pytest), cargo (no
# crates are fetched), ruby-rspec, cmake and a C compiler, node, and the npm servers of
# scripts/ci/install-mcp-node.sh in $CRUMB_MCP_NODE_DIR (default .ci/node).
# Projects are built under /tmp/crumb-sniffed, a fixed path, so that paths
# in the outputs stay the same from run to run; timings may change. Then run
# go test ./project -run TestSniffed -update to refresh the golden views.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=/tmp/crumb-sniffed
files=$here/files
node_dir=${CRUMB_MCP_NODE_DIR:-$root/.ci/node}
export GOFLAGS=-count=1 GOTOOLCHAIN=local GOWORK=off CI=true NO_COLOR=1 TERM=dumb CARGO_TERM_COLOR=never

rm -rf "$work"
mkdir -p "$work" "$files"

# A Go module of three packages: stock counts one box too many when the units
# fill their boxes exactly (one subtest of sixty fails), pricing and ids pass.
mod=$work/inventory
mkdir -p "$mod/stock" "$mod/pricing" "$mod/ids"
cat >"$mod/go.mod" <<'EOF'
module example.com/inventory

go 1.22
EOF
cat >"$mod/stock/stock.go" <<'EOF'
// Package stock keeps the units on hand of each item.
package stock

// BoxSize is how many units one box holds.
const BoxSize = 50

// Boxes returns how many boxes n units fill, the last one maybe partly.
func Boxes(n int) int {
	return n/BoxSize + 1 // the fault: one box too many when n fills its boxes
}

// Shelf holds units on hand by item.
type Shelf map[string]int

// Reserve takes n units of item off the shelf and reports whether there
// were enough.
func (s Shelf) Reserve(item string, n int) bool {
	if s[item] < n {
		return false
	}
	s[item] -= n
	return true
}
EOF
cat >"$mod/stock/stock_test.go" <<'EOF'
package stock

import (
	"fmt"
	"testing"
)

func TestBoxes(t *testing.T) {
	for n := 1; n <= 60; n++ {
		t.Run(fmt.Sprintf("units=%d", n), func(t *testing.T) {
			want := (n + BoxSize - 1) / BoxSize
			if got := Boxes(n); got != want {
				t.Errorf("Boxes(%d) = %d, want %d", n, got, want)
			}
		})
	}
}

func TestReserve(t *testing.T) {
	s := Shelf{"nut": 3}
	if s.Reserve("nut", 4) {
		t.Error("Reserve(nut, 4) with 3 on hand = true")
	}
	if !s.Reserve("nut", 3) {
		t.Error("Reserve(nut, 3) with 3 on hand = false")
	}
}
EOF
cat >"$mod/pricing/pricing.go" <<'EOF'
// Package pricing computes prices in cents.
package pricing

// WithTax adds a tax rate in basis points, rounding half up.
func WithTax(cents, bp int) int { return cents + (cents*bp+5000)/10000 }
EOF
cat >"$mod/pricing/pricing_test.go" <<'EOF'
package pricing

import (
	"fmt"
	"testing"
)

func TestWithTax(t *testing.T) {
	for c := 100; c <= 12000; c += 100 {
		t.Run(fmt.Sprintf("cents=%d", c), func(t *testing.T) {
			if got := WithTax(c, 0); got != c {
				t.Errorf("WithTax(%d, 0) = %d", c, got)
			}
		})
	}
}
EOF
cat >"$mod/ids/ids.go" <<'EOF'
// Package ids makes item ids.
package ids

import "fmt"

// Of returns the id of item n.
func Of(n int) string { return fmt.Sprintf("item-%04d", n) }
EOF

# The CI job: a shell script run with -x, its log saved as a .log file.
cat >"$work/ci.sh" <<'EOF'
set -x
go version
go build ./...
go test -v ./...
EOF
(cd "$mod" && bash "$work/ci.sh" >"$files/ci-go-test-v.log" 2>&1)
# The same run as a CI service stamps it, every line with its time.
(cd "$mod" && go test -v ./... 2>&1 | while IFS= read -r l; do printf '%s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" "$l"; done >"$files/actions-go-test.log")
(cd "$mod" && go test ./... >"$files/go-test.txt" 2>&1)
(cd "$mod" && go test -json ./... >"$files/go-test-json.log" 2>&1)

# go vet on a package with a Printf fault, saved as a .txt.
mkdir -p "$mod/report"
cat >"$mod/report/report.go" <<'EOF'
// Package report prints stock reports.
package report

import "fmt"

// Line prints one line of a report.
func Line(item string, units int) {
	fmt.Printf("%s: %d units\n", units, item)
}
EOF
(cd "$mod" && go vet ./report >"$files/go-vet.txt" 2>&1)
rm -rf "$mod/report"

# pytest on a small project whose discount rule is wrong at the boundary.
py=$work/shop
mkdir -p "$py/tests"
cat >"$py/discount.py" <<'EOF'
def discount(total):
    """Ten percent off orders of 100 or more."""
    if total > 100:  # the fault: an order of exactly 100 gets nothing
        return total * 0.9
    return total
EOF
cat >"$py/tests/test_discount.py" <<'EOF'
import pytest
from discount import discount


@pytest.mark.parametrize("total", range(0, 100, 5))
def test_small_orders_pay_full(total):
    assert discount(total) == total


@pytest.mark.parametrize("total", range(100, 200, 5))
def test_large_orders_get_ten_percent(total):
    assert discount(total) == pytest.approx(total * 0.9)
EOF
(cd "$py" && PYTHONPATH=. /usr/bin/python3 -m pytest -p no:cacheprovider tests >"$files/pytest.log" 2>&1)
(cd "$py" && PYTHONPATH=. /usr/bin/python3 -m pytest -p no:cacheprovider -v -rA tests >"$files/pytest-verbose.txt" 2>&1)

# cargo test on a crate whose average rounds down where it should round
# to nearest.
rs=$work/meter
mkdir -p "$rs/src"
cat >"$rs/Cargo.toml" <<'EOF'
[package]
name = "meter"
version = "0.1.0"
edition = "2021"
EOF
cat >"$rs/src/lib.rs" <<'EOF'
/// The mean of the readings, rounded to the nearest whole number.
pub fn mean(readings: &[u32]) -> u32 {
    let sum: u32 = readings.iter().sum();
    sum / readings.len() as u32 // the fault: rounds down
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! same {
        ($($name:ident: $n:expr,)*) => {$(
            #[test]
            fn $name() { assert_eq!(mean(&[$n, $n, $n]), $n); }
        )*};
    }
    same! { same_1: 1, same_2: 2, same_3: 3, same_4: 4, same_5: 5, same_6: 6, same_7: 7, same_8: 8, same_9: 9, same_10: 10, }

    #[test]
    fn rounds_to_nearest() {
        assert_eq!(mean(&[1, 2]), 2, "mean of 1 and 2");
    }
}
EOF
(cd "$rs" && cargo test --offline >"$files/cargo-test.log" 2>&1)

# unittest on a pager that makes one page too many when the last is full.
ut=$work/pager
mkdir -p "$ut"
cat >"$ut/test_pages.py" <<'EOF'
import unittest


def pages(items, per_page=10):
    """How many pages items fill."""
    return items // per_page + 1  # the fault: one page too many when the last page is full


class PagesTest(unittest.TestCase):
    def test_no_items(self):
        self.assertEqual(pages(0), 1)

    def test_counts(self):
        for n in range(1, 40):
            with self.subTest(items=n):
                self.assertEqual(pages(n), -(-n // 10))
EOF
(cd "$ut" && /usr/bin/python3 -m unittest -v >"$files/unittest.txt" 2>&1)

# rspec on a cart whose discount starts one cent too late.
rb=$work/cart
mkdir -p "$rb/spec" "$rb/lib"
cat >"$rb/lib/cart.rb" <<'EOF'
class Cart
  def initialize(prices) = @prices = prices
  def total = @prices.sum
  # Ten percent off orders of 100 or more.
  def discounted = total > 100 ? total * 0.9 : total # the fault: > for >=
end
EOF
cat >"$rb/spec/cart_spec.rb" <<'EOF'
require_relative "../lib/cart"
RSpec.describe Cart do
  (1..20).each do |n|
    it "totals #{n} items" do
      expect(Cart.new([5] * n).total).to eq(5 * n)
    end
  end
  it "discounts orders of exactly 100" do
    expect(Cart.new([100]).discounted).to eq(90)
  end
end
EOF
(cd "$rb" && rspec --no-color >"$files/rspec.log" 2>&1)

# ctest over a conversion table with one mistyped entry.
ct=$work/units
mkdir -p "$ct"
cat >"$ct/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(units C)
enable_testing()
add_executable(check check.c)
foreach(n RANGE 0 12)
  add_test(NAME fahrenheit_${n} COMMAND check ${n})
endforeach()
EOF
cat >"$ct/check.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>

/* Degrees Fahrenheit of 0 to 12 degrees Celsius, rounded half up. */
static const int fahrenheit[] = {32, 34, 36, 37, 39, 41, 43, 54, 46, 48, 50, 52, 54}; /* the fault: 54 for 45 */

int main(int argc, char **argv) {
	int c = atoi(argv[1]);
	int want = (c * 18 + 325) / 10;
	if (fahrenheit[c] != want) {
		fprintf(stderr, "check.c: fahrenheit[%d] = %d, want %d\n", c, fahrenheit[c], want);
		return 1;
	}
	return 0;
}
EOF
(cd "$ct" && cmake -S . -B build >/dev/null && cmake --build build >/dev/null && cd build && ctest --output-on-failure >"$files/ctest.log" 2>&1)

# A Markdown document about tests, which quotes test code: not a report.
cp /usr/share/doc/nodejs/api/test.md "$files/node-test-doc.md"

# The MCP filesystem server reading them.
server=$node_dir/node_modules/.bin/mcp-server-filesystem
if [ ! -x "$server" ]; then
	echo "make.sh: $server is missing: run scripts/ci/install-mcp-node.sh" >&2
	exit 1
fi
cap=$work/mcpcapture
(cd "$root/scripts/fixtures/mcpcapture" && go build -o "$cap" .) || exit 1
mkdir -p "$work/served"
cp "$files/ci-go-test-v.log" "$files/pytest.log" "$files/cargo-test.log" "$work/served/"
rm -rf "$here/mcp"
mkdir -p "$here/mcp"
cat >"$work/calls.json" <<EOF
[
  {"name": "read-ci-go-test-v", "tool": "read_text_file", "args": {"path": "$work/served/ci-go-test-v.log"},
   "needles": [{"text": "--- FAIL: TestBoxes/units=50", "why": "a failing subtest"}]},
  {"name": "read-multiple-logs", "tool": "read_multiple_files", "args": {"paths": ["$work/served/pytest.log", "$work/served/cargo-test.log"]},
   "needles": [{"text": "test tests::rounds_to_nearest ... FAILED", "why": "the failing cargo test"}]}
]
EOF
"$cap" -out "$here/mcp" -calls "$work/calls.json" -- node "$server" "$work/served" || exit 1
echo "make.sh: fixtures written under $here"
