#!/usr/bin/env bash
# make.sh makes the fixtures of package teststream by running real test
# runners on small projects, each with one injected fault, and saving what
# they print (stdout and stderr interleaved, as an agent's shell returns
# them) or the report file they write. Nothing here is typed by hand.
#
#   go       go test -json                       (go-*.txt)
#   node     jest --json, jest --outputFile,     (jest-*.txt, jest-*.json,
#            vitest --reporter=json               vitest-*.txt, vitest-*.json)
#   python   pytest --junitxml                   (pytest-*.xml)
#   rust     cargo test -- --format json         (cargo-*.txt)
#
# Usage: testdata/make.sh [go|node|python|rust]...   (all of them by default)
# NODE_TOOLS names a directory to npm-install jest and vitest into (kept
# between runs); WORK the scratch directory the projects are made in.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=${WORK:-$(mktemp -d /tmp/teststream-fixtures.XXXXXX)}
node_tools=${NODE_TOOLS:-$work/node-tools}
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(go node python rust)

# run OUT CMD...: runs CMD in the current directory, stdout and stderr
# interleaved into $here/OUT, and prints the exit code.
run() {
	local out=$1
	shift
	"$@" >"$here/$out" 2>&1
	echo "$out: exit $?"
}

fresh() {
	rm -rf "${work:?}/$1"
	mkdir -p "$work/$1"
	cd "$work/$1" || exit 1
}

make_go() {
	# Two packages; the fault: Title lower-cases the rest of each word, so
	# the table cases with inner capitals fail (the same message, several
	# subtests). A skipped test and a logging test pass.
	fresh gomod
	cat >go.mod <<'X'
module example.com/shelf

go 1.22
X
	mkdir -p words geom
	cat >words/words.go <<'X'
package words

import "strings"

// Title upper-cases the first letter of each word.
func Title(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:]) // fault: ToLower
	}
	return strings.Join(f, " ")
}

// Count counts the words of s.
func Count(s string) int { return len(strings.Fields(s)) }
X
	cat >words/words_test.go <<'X'
package words

import "testing"

func TestTitle(t *testing.T) {
	cases := []struct{ in, want string }{
		{"hello world", "Hello World"},
		{"go is fun", "Go Is Fun"},
		{"iPhone sales", "IPhone Sales"},
		{"the McDonald farm", "The McDonald Farm"},
		{"a", "A"},
		{"NASA rockets", "NASA Rockets"},
		{"two  spaces", "Two Spaces"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			if got := Title(c.in); got != c.want {
				t.Errorf("Title(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for i, c := range []struct {
		in   string
		want int
	}{{"", 0}, {"a b", 2}, {" a  b c ", 3}} {
		if got := Count(c.in); got != c.want {
			t.Errorf("case %d: Count(%q) = %d, want %d", i, c.in, got, c.want)
		}
	}
}

func TestUnicode(t *testing.T) {
	t.Skip("unicode titles are not supported yet")
}
X
	cat >geom/geom.go <<'X'
package geom

import "math"

// Area is the area of a circle of radius r.
func Area(r float64) float64 { return math.Pi * r * r }

// Hyp is the hypotenuse of a right triangle.
func Hyp(a, b float64) float64 { return math.Sqrt(a*a + b*b) }
X
	cat >geom/geom_test.go <<'X'
package geom

import (
	"fmt"
	"math"
	"testing"
)

func TestArea(t *testing.T) {
	for r := 0; r < 12; r++ {
		t.Run(fmt.Sprint("r=", r), func(t *testing.T) {
			if got, want := Area(float64(r)), math.Pi*float64(r*r); math.Abs(got-want) > 1e-9 {
				t.Errorf("Area(%d) = %v, want %v", r, got, want)
			}
		})
	}
}

func TestHyp(t *testing.T) {
	t.Log("checking 3-4-5")
	if got := Hyp(3, 4); got != 5 {
		t.Fatalf("Hyp(3, 4) = %v, want 5", got)
	}
}
X
	run go-fail.txt go test -json ./...
	# The same module with the fault fixed: every package passes.
	sed -i 's/strings.ToLower(w\[1:\]) \/\/ fault: ToLower/w[1:]/' words/words.go
	run go-pass.txt go test -json ./...

	# A panic: an index out of range in a test helper.
	fresh gopanic
	printf 'module example.com/ring\n\ngo 1.22\n' >go.mod
	cat >ring.go <<'X'
package ring

// Ring is a fixed-size ring buffer.
type Ring struct {
	buf  []int
	next int
}

// New returns a ring of n slots.
func New(n int) *Ring { return &Ring{buf: make([]int, n)} }

// Push adds v, overwriting the oldest value.
func (r *Ring) Push(v int) {
	r.buf[r.next] = v
	r.next++ // fault: no wrap-around
}
X
	cat >ring_test.go <<'X'
package ring

import "testing"

func TestPushFew(t *testing.T) {
	r := New(4)
	for i := 0; i < 3; i++ {
		r.Push(i)
	}
}

func TestPushWraps(t *testing.T) {
	r := New(3)
	for i := 0; i < 5; i++ {
		r.Push(i)
	}
	if r.buf[0] != 3 {
		t.Errorf("buf[0] = %d, want 3", r.buf[0])
	}
}
X
	run go-panic.txt go test -json ./...

	# A build failure: go test -json reports it as build-output events.
	fresh gobuild
	printf 'module example.com/calc\n\ngo 1.22\n' >go.mod
	cat >calc.go <<'X'
package calc

// Add adds two numbers.
func Add(a, b int) int { return a + b }
X
	cat >calc_test.go <<'X'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d", got)
	}
	var total int = "five" // fault: a string where an int is wanted
	_ = total
}
X
	run go-build.txt go test -json ./...

	# A timeout: a test that waits for what never comes.
	fresh gotimeout
	printf 'module example.com/slow\n\ngo 1.22\n' >go.mod
	cat >slow_test.go <<'X'
package slow

import "testing"

func TestQuick(t *testing.T) {}

func TestWaits(t *testing.T) {
	done := make(chan struct{})
	<-done // fault: nothing ever closes done
}
X
	run go-timeout.txt go test -json -timeout 2s ./...

	# A large run: 3,000 subtests, a hundred of which fail alike.
	fresh golarge
	printf 'module example.com/bulk\n\ngo 1.22\n' >go.mod
	cat >bulk.go <<'X'
package bulk

// Checksum is the sum of the bytes of s, modulo 251.
func Checksum(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n += int(s[i])
	}
	if len(s) == 7 && s[0] == '2' && s[6] == '7' {
		n++ // fault: an off-by-one for some inputs
	}
	return n % 251
}
X
	cat >bulk_test.go <<'X'
package bulk

import (
	"fmt"
	"testing"
)

func TestChecksum(t *testing.T) {
	for i := 0; i < 3000; i++ {
		s := fmt.Sprintf("%07d", i*997%10000000)
		t.Run(fmt.Sprintf("case%04d", i), func(t *testing.T) {
			want := 0
			for _, c := range []byte(s) {
				want += int(c)
			}
			if got := Checksum(s); got != want%251 {
				t.Errorf("Checksum(%q) = %d, want %d", s, got, want%251)
			}
		})
	}
}
X
	run go-large.txt go test -json ./...
	gzip -nf9 "$here/go-large.txt"
}

make_node() {
	if [ ! -x "$node_tools/node_modules/.bin/jest" ] || [ ! -x "$node_tools/node_modules/.bin/vitest" ]; then
		mkdir -p "$node_tools"
		(cd "$node_tools" && npm init -y >/dev/null && npm install --silent --no-progress jest@29 vitest@2) || {
			echo "npm install failed" >&2
			return 1
		}
	fi
	# The fault: slugify keeps a trailing dash when the input ends in
	# punctuation.
	fresh jestproj
	cat >package.json <<'X'
{"name": "slugs", "version": "1.0.0", "private": true}
X
	cat >slug.js <<'X'
function slugify(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-/, ''); // fault: the end is not trimmed
}
function words(s) {
  return s.split(/\s+/).filter(Boolean).length;
}
module.exports = { slugify, words };
X
	mkdir -p __tests__
	cat >__tests__/slug.test.js <<'X'
const { slugify, words } = require('../slug');

describe('slugify', () => {
  test('lower-cases', () => {
    expect(slugify('Hello')).toBe('hello');
  });
  test('joins words with dashes', () => {
    expect(slugify('a b c')).toBe('a-b-c');
  });
  test('drops punctuation at the end', () => {
    expect(slugify('Done!')).toBe('done');
  });
  test.skip('transliterates accents', () => {
    expect(slugify('café')).toBe('cafe');
  });
});

describe('words', () => {
  for (let n = 1; n <= 6; n++) {
    test(`counts ${n} words`, () => {
      expect(words(Array(n).fill('w').join(' '))).toBe(n);
    });
  }
});
X
	# Two test files, each with its own fault, and a third that does not
	# parse: three kinds of failure in one report, with the stdout of the
	# run (the JSON document) before its stderr (the text report).
	fresh jestmany
	cat >package.json <<'X'
{"name": "money", "version": "1.0.0", "private": true}
X
	cat >money.js <<'X'
function cents(s) { return Math.round(parseFloat(s) * 10); } // fault: 10, not 100
function format(c) { return (c / 100).toFixed(2) + ' EUR'; }
function split(total, n) {
  const each = Math.floor(total / n);
  return Array(n).fill(each); // fault: the remainder is lost
}
module.exports = { cents, format, split };
X
	mkdir -p __tests__
	cat >__tests__/cents.test.js <<'X'
const { cents, format } = require('../money');
test('parses euros', () => { expect(cents('12.34')).toBe(1234); });
test('formats cents', () => { expect(format(1234)).toBe('12.34 EUR'); });
X
	cat >__tests__/split.test.js <<'X'
const { split } = require('../money');
describe('split', () => {
  test('evenly', () => { expect(split(300, 3)).toEqual([100, 100, 100]); });
  test('with a remainder', () => { expect(split(100, 3)).toEqual([34, 33, 33]); });
});
X
	cat >__tests__/broken.test.js <<'X'
const { split } = require('../money');
test('never runs', () => { expect(split(1, 1)).toEqual([1]) ;
X
	PATH=$node_tools/node_modules/.bin:$PATH run jest-many.txt sh -c 'jest --ci --json 2>/tmp/jest-many.err; s=$?; cat /tmp/jest-many.err; exit $s'

	cd "$work/jestproj" || exit 1
	rm -rf "$work/vitestproj"
	cp -r "$work/jestproj" "$work/vitestproj"
	PATH=$node_tools/node_modules/.bin:$PATH run jest-fail.txt jest --ci --json
	PATH=$node_tools/node_modules/.bin:$PATH run jest-file.log jest --ci --json --outputFile="$here/jest-fail.json"
	rm -f "$here/jest-file.log"

	cd "$work/vitestproj" || exit 1
	sed -i 's/^const { slugify, words } = require(.*$/import { describe, test, expect } from "vitest";\nimport { slugify, words } from "..\/slug.js";/' __tests__/slug.test.js
	sed -i 's/^module.exports = { slugify, words };/export { slugify, words };/' slug.js
	echo '{"name": "slugs", "version": "1.0.0", "private": true, "type": "module"}' >package.json
	PATH=$node_tools/node_modules/.bin:$PATH run vitest-fail.txt vitest run --reporter=json
	PATH=$node_tools/node_modules/.bin:$PATH run vitest-file.log vitest run --reporter=json --outputFile="$here/vitest-fail.json"
	rm -f "$here/vitest-file.log"
}

make_python() {
	# The fault: restock adds the amount twice.
	fresh pyproj
	cat >inventory.py <<'X'
class Inventory:
    def __init__(self):
        self.items = {}

    def restock(self, name, n):
        self.items[name] = self.items.get(name, 0) + n + n  # fault: n twice

    def take(self, name, n):
        if self.items.get(name, 0) < n:
            raise ValueError(f"not enough {name}")
        self.items[name] -= n
X
	cat >test_inventory.py <<'X'
import sys
import pytest
from inventory import Inventory


def test_empty():
    assert Inventory().items == {}


def test_restock():
    inv = Inventory()
    inv.restock("bolt", 5)
    assert inv.items["bolt"] == 5


def test_take_too_many():
    inv = Inventory()
    with pytest.raises(ValueError):
        inv.take("nut", 1)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_names(n):
    print(f"checking {n} names")
    assert len(["x"] * n) == n


@pytest.mark.skipif(sys.version_info >= (3, 0), reason="legacy python 2 behaviour")
def test_legacy():
    pass
X
	run pytest-fail.log /usr/bin/python3 -m pytest -p no:cacheprovider --junitxml="$here/pytest-fail.xml" -o junit_family=xunit2
	rm -f "$here/pytest-fail.log"
	run pytest-xunit1.log /usr/bin/python3 -m pytest -p no:cacheprovider --junitxml="$here/pytest-xunit1.xml" -o junit_family=xunit1
	rm -f "$here/pytest-xunit1.log"

	# Many cases, one failure and one error: a fixture that cannot open
	# what it needs.
	fresh pymany
	cat >prices.py <<'X'
def gross(net, rate):
    return round(net * (1 + rate), 2)


def discount(price, pct):
    return price - price * pct / 10  # fault: 10, not 100
X
	cat >test_prices.py <<'X'
import pytest
from prices import gross, discount


@pytest.mark.parametrize("net", range(300))
def test_gross_is_more(net):
    assert gross(net, 0.2) >= net


def test_discount():
    assert discount(200, 10) == 180


@pytest.fixture
def rates():
    with open("rates.csv") as f:
        return f.read()


def test_rates_file(rates):
    assert "DE" in rates
X
	run pytest-many.log /usr/bin/python3 -m pytest -p no:cacheprovider -q --junitxml="$here/pytest-many.xml"
	rm -f "$here/pytest-many.log"
}

make_rust() {
	# The fault: the median of an even-length list takes the upper middle.
	fresh rustproj
	cat >Cargo.toml <<'X'
[package]
name = "stats"
version = "0.1.0"
edition = "2021"

[dependencies]
X
	mkdir -p src
	cat >src/lib.rs <<'X'
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s[s.len() / 2] // fault: no average of the two middle values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_three() {
        assert_eq!(mean(&[1.0, 2.0, 3.0]), 2.0);
    }

    #[test]
    fn median_odd() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    }

    #[test]
    fn median_even() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    #[ignore]
    fn huge_input() {
        let v: Vec<f64> = (0..10_000_000).map(|i| i as f64).collect();
        assert!(mean(&v) > 0.0);
    }
}
X
	RUSTC_BOOTSTRAP=1 CARGO_TERM_COLOR=never run cargo-fail.txt cargo test -- -Z unstable-options --format json --report-time
}

for w in "${what[@]}"; do
	case $w in
	go) make_go ;;
	node) make_node ;;
	python) make_python ;;
	rust) make_rust ;;
	*) echo "unknown: $w" >&2; exit 2 ;;
	esac
done
