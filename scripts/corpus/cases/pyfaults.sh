# pyfaults.sh: pytest, mypy, pylint and plain Python runs of one small
# package (an inventory), each run with one fault put in. The base project
# passes every check; each case copies it and injects one fault with a perl
# substitution (inject), then runs the tool. Needles follow the rule in
# docs/bench.md, one pattern per tool. Sourced by make.sh.

# inventory_base: the passing project, made once per run of make.sh.
inventory_base() {
	[ -f "$work/inventory/.made" ] && return
	fresh inventory
	mkdir -p inventory tests
	: >inventory/__init__.py
	cat >inventory/stock.py <<'EOF'
"""Stock levels per warehouse and SKU."""
from __future__ import annotations

from dataclasses import dataclass, field


class OutOfStock(Exception):
    """Raised when a pick asks for more than is on hand."""


@dataclass
class Item:
    sku: str
    name: str
    unit_cents: int
    weight_g: int = 0


@dataclass
class Warehouse:
    code: str
    levels: dict[str, int] = field(default_factory=dict)

    def receive(self, sku: str, qty: int) -> int:
        if qty <= 0:
            raise ValueError(f"receive: qty must be positive, got {qty}")
        self.levels[sku] = self.levels.get(sku, 0) + qty
        return self.levels[sku]

    def pick(self, sku: str, qty: int) -> int:
        have = self.levels.get(sku, 0)
        if qty > have:
            raise OutOfStock(f"{self.code}: {sku}: want {qty}, have {have}")
        self.levels[sku] = have - qty
        return self.levels[sku]

    def on_hand(self, sku: str) -> int:
        return self.levels.get(sku, 0)


def total_units(houses: list[Warehouse], sku: str) -> int:
    return sum(h.on_hand(sku) for h in houses)
EOF
	cat >inventory/pricing.py <<'EOF'
"""Prices, discounts and tax, in integer cents."""
from __future__ import annotations

from inventory.stock import Item

VAT_RATES = {"DE": 19, "FR": 20, "NL": 21, "LU": 17}


def line_cents(item: Item, qty: int) -> int:
    return item.unit_cents * qty


def discount(cents: int, percent: int) -> int:
    if not 0 <= percent <= 100:
        raise ValueError(f"discount: {percent}% is out of range")
    return cents - (cents * percent + 50) // 100


def with_vat(cents: int, country: str) -> int:
    rate = VAT_RATES[country]
    return cents + (cents * rate + 50) // 100


def bulk_percent(qty: int) -> int:
    if qty >= 100:
        return 15
    if qty >= 50:
        return 10
    if qty >= 10:
        return 5
    return 0
EOF
	cat >inventory/report.py <<'EOF'
"""Plain-text stock reports."""
from __future__ import annotations

from inventory.stock import Item, Warehouse


def format_cents(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def stock_lines(items: list[Item], houses: list[Warehouse]) -> list[str]:
    lines = []
    for it in sorted(items, key=lambda i: i.sku):
        counts = " ".join(f"{h.code}={h.on_hand(it.sku)}" for h in houses)
        lines.append(f"{it.sku:<8} {it.name:<20} {counts}")
    return lines


def value_cents(items: list[Item], houses: list[Warehouse]) -> int:
    return sum(it.unit_cents * h.on_hand(it.sku) for it in items for h in houses)
EOF
	cat >inventory/cli.py <<'EOF'
"""Runs a nightly stock check over a CSV of movements."""
from __future__ import annotations

import csv
import io
import sys

from inventory.pricing import bulk_percent, discount, line_cents, with_vat
from inventory.report import format_cents
from inventory.stock import Item, Warehouse

CATALOGUE = {f"SKU{n:04d}": Item(f"SKU{n:04d}", f"part {n}", 100 + 7 * n, 20 * n) for n in range(1, 201)}


def movements(n: int) -> str:
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["house", "op", "sku", "qty", "country"])
    for i in range(n):
        sku = f"SKU{i % 200 + 1:04d}"
        w.writerow(["BER" if i % 3 else "AMS", "in" if i % 4 else "out", sku, 1 + i % 17, "DE" if i % 5 else "NL"])
    return out.getvalue()


def run(text: str) -> int:
    houses = {"BER": Warehouse("BER"), "AMS": Warehouse("AMS")}
    billed = 0
    for n, row in enumerate(csv.DictReader(io.StringIO(text)), 1):
        house, item, qty = houses[row["house"]], CATALOGUE[row["sku"]], int(row["qty"])
        if row["op"] == "in":
            house.receive(item.sku, qty)
            continue
        if house.on_hand(item.sku) < qty:
            house.receive(item.sku, qty)
        house.pick(item.sku, qty)
        cents = with_vat(discount(line_cents(item, qty), bulk_percent(qty)), row["country"])
        billed += cents
        print(f"row {n}: {house.code} shipped {qty} x {item.sku} for {format_cents(cents)}")
    print(f"billed {format_cents(billed)} in all")
    return 0


if __name__ == "__main__":
    sys.exit(run(movements(int(sys.argv[1]) if len(sys.argv) > 1 else 1200)))
EOF
	cat >tests/test_stock.py <<'EOF'
import pytest

from inventory.stock import OutOfStock, Warehouse, total_units


@pytest.mark.parametrize("qty", range(1, 61))
def test_receive_adds(qty):
    w = Warehouse("BER")
    assert w.receive("A", qty) == qty
    assert w.receive("A", qty) == 2 * qty


@pytest.mark.parametrize("have,want", [(h, w) for h in range(0, 30, 3) for w in range(1, 30, 4)])
def test_pick(have, want):
    w = Warehouse("AMS", {"A": have})
    if want > have:
        with pytest.raises(OutOfStock):
            w.pick("A", want)
    else:
        assert w.pick("A", want) == have - want


def test_receive_rejects_zero():
    with pytest.raises(ValueError, match="must be positive"):
        Warehouse("BER").receive("A", 0)


def test_total_units():
    assert total_units([Warehouse("A", {"x": 2}), Warehouse("B", {"x": 5}), Warehouse("C")], "x") == 7
EOF
	cat >tests/test_pricing.py <<'EOF'
import pytest

from inventory.pricing import bulk_percent, discount, line_cents, with_vat
from inventory.stock import Item


@pytest.mark.parametrize("qty", range(0, 40))
def test_line_cents(qty):
    assert line_cents(Item("A", "a", 250), qty) == 250 * qty


@pytest.mark.parametrize("percent", range(0, 101, 5))
def test_discount_bounds(percent):
    d = discount(10_000, percent)
    assert 0 <= d <= 10_000
    assert d == 10_000 - 100 * percent


@pytest.mark.parametrize("country,want", [("DE", 11900), ("FR", 12000), ("NL", 12100), ("LU", 11700)])
def test_with_vat(country, want):
    assert with_vat(10_000, country) == want


@pytest.mark.parametrize("qty,want", [(1, 0), (9, 0), (10, 5), (49, 5), (50, 10), (99, 10), (100, 15), (500, 15)])
def test_bulk_percent(qty, want):
    assert bulk_percent(qty) == want


def test_discount_rejects_over_100():
    with pytest.raises(ValueError):
        discount(100, 101)
EOF
	cat >tests/test_report.py <<'EOF'
import pytest

from inventory.report import format_cents, stock_lines, value_cents
from inventory.stock import Item, Warehouse


@pytest.mark.parametrize("cents,want", [(0, "0.00"), (5, "0.05"), (100, "1.00"), (12345, "123.45"), (-250, "-2.50")])
def test_format_cents(cents, want):
    assert format_cents(cents) == want


def test_stock_lines_sorted():
    items = [Item("B2", "bolt", 10), Item("A1", "nut", 5)]
    houses = [Warehouse("BER", {"A1": 3}), Warehouse("AMS", {"B2": 7})]
    assert stock_lines(items, houses) == [
        "A1       nut                  BER=3 AMS=0",
        "B2       bolt                 BER=0 AMS=7",
    ]


def test_value_cents():
    items = [Item("A1", "nut", 5), Item("B2", "bolt", 10)]
    houses = [Warehouse("BER", {"A1": 3}), Warehouse("AMS", {"B2": 7, "A1": 1})]
    assert value_cents(items, houses) == 5 * 4 + 10 * 7
EOF
	touch .made
}

# pytest_needles: the failing test with its message (the short summary
# line), the assertion (the first E line), where it failed (the first
# path.py:N: line of a traceback) and the closing summary.
pytest_needles() {
	needle_re '^(FAILED|ERROR) \S+.*' 'the failing test and its message, in the short summary'
	needle_re '^E +\S.*' 'the assertion or exception, the first E line'
	needle_re '^[\w/]+\.py:\d+: (in \S+|\w+)$' 'where it failed: the first file:line of the traceback'
	needle_last_re '^(=+ )?.*\b\d+ (failed|errors?)\b.* in [0-9.]+s( \([0-9:]+\))?( =+)?$' 'the closing summary'
}

# pytest_fault NAME FILE PERL FLAGS DESCRIPTION: one pytest run with one fault.
pytest_fault() {
	local name=pytest-$1
	selected "command-$name" || return 0
	inventory_base
	variant inventory "$name"
	inject "$2" "$3"
	pytest_needles
	cmd_case "$name" "$py -m pytest -p no:cacheprovider $4" "$5"
}

pytest_fault off-by-one-bulk inventory/pricing.py 's/if qty >= 50:/if qty > 50:/' '-v tests' 'Run the inventory tests verbosely'
pytest_fault rounding-discount inventory/pricing.py 's/\(cents \* percent \+ 50\) \/\/ 100/cents * percent \/\/ 100 + 1/' '-q tests' 'Run the tests'
pytest_fault vat-key inventory/pricing.py 's/"NL": 21/"NL ": 21/' 'tests' 'Run the test suite'
pytest_fault sort-key inventory/report.py 's/key=lambda i: i.sku/key=lambda i: i.name/' '-v tests' 'Run all tests verbosely after the report change'
pytest_fault negative-cents inventory/report.py 's/cents = abs\(cents\)\n/\n/' '-v -x tests' 'Run the tests, stop at the first failure'
pytest_fault pick-boundary inventory/stock.py 's/if qty > have:/if qty >= have:/' '-v tests/test_stock.py' 'Run the stock tests'
pytest_fault receive-zero inventory/stock.py 's/if qty <= 0:/if qty < 0:/' '-rA tests' 'Run the tests with a full summary'
pytest_fault import-error inventory/report.py 's/from inventory.stock import Item, Warehouse/from inventory.stock import Item, Warehouse, Depot/' '-v tests' 'Run the tests'
pytest_fault total-units inventory/stock.py 's/return sum\(h.on_hand\(sku\) for h in houses\)/return max(h.on_hand(sku) for h in houses)/' '-v tests' 'Run the tests verbosely'
pytest_fault value-typo inventory/report.py 's/it.unit_cents \* h.on_hand\(it.sku\)/it.unit_cents * h.on_hand(it.name)/' '--tb=short tests' 'Run the tests with short tracebacks'

# mypy_needles: the first error with its file:line, and the summary.
mypy_needles() {
	needle_re '^\S+\.py:\d+: error: .*' 'the type error and its file:line'
	needle_re '^Found \d+ errors? in \d+ files?.*' 'the summary'
}

mypy_fault() {
	local name=mypy-$1
	selected "command-$name" || return 0
	inventory_base
	variant inventory "$name"
	inject "$2" "$3"
	mypy_needles
	cmd_case "$name" "mypy --no-incremental --cache-dir=/dev/null $4 inventory" 'Type-check the package'
}

mypy_fault return-type inventory/pricing.py 's/    return cents - \(cents \* percent \+ 50\) \/\/ 100/    return str(cents - (cents * percent + 50) \/\/ 100)/' ''
mypy_fault optional-arg inventory/stock.py 's/def on_hand\(self, sku: str\) -> int:\n        return self.levels.get\(sku, 0\)/def on_hand(self, sku: str) -> int:\n        return self.levels.get(sku)/' '--strict'
mypy_fault wrong-call inventory/cli.py 's/house.receive\(item.sku, qty\)\n            continue/house.receive(item, qty)\n            continue/' ''
mypy_fault attr inventory/report.py 's/f"\{it.sku:<8\} \{it.name:<20\}/f"{it.sku:<8} {it.title:<20}/' '--strict'
mypy_fault dict-value inventory/pricing.py 's/"LU": 17\}/"LU": 17, "BE": "21"}/' '--strict'
mypy_fault list-type inventory/stock.py 's/def total_units\(houses: list\[Warehouse\], sku: str\) -> int:/def total_units(houses: list[str], sku: str) -> int:/' ''

# Plain runs that end in a traceback: the exception (the last line of the
# traceback) and the deepest frame (the last File line).
traceback_needles() {
	needle_last_re '^([\w.]+\.)?\w*(Error|Exception|OutOfStock)(: .*)?$' 'the exception that ended the run'
	needle_last_re '^  File "[^"]+", line \d+, in \w+' 'the deepest frame: where it was raised'
}

py_fault() {
	local name=python-$1
	selected "command-$name" || return 0
	inventory_base
	variant inventory "$name"
	inject "$2" "$3"
	traceback_needles
	cmd_case "$name" "$py -m inventory.cli $4" 'Run the nightly stock check'
}

py_fault vat-missing inventory/cli.py 's/"DE" if i % 5 else "NL"/"DE" if i % 997 else "AT"/' 1200
py_fault pick-oversell inventory/cli.py 's/        if house.on_hand\(item.sku\) < qty:\n            house.receive\(item.sku, qty\)\n//' 900
py_fault zero-receive inventory/cli.py 's/1 \+ i % 17/i % 17/' 1500
py_fault bad-sku inventory/cli.py 's/sku = f"SKU\{i % 200 \+ 1:04d\}"/sku = f"SKU{i % 201 + 1:04d}"/' 1300
py_fault discount-range inventory/pricing.py 's/return 5\n/return 500\n/' 2000

# pylint over the package: many conventions and refactoring notes, and one
# error put in. The needle is the error (E) line; then the score.
pylint_fault() {
	local name=pylint-$1
	selected "command-$name" || return 0
	inventory_base
	variant inventory "$name"
	inject "$2" "$3"
	needle_re '^\S+\.py:\d+:\d+: E\d+: .*' 'the one error among the conventions, at file:line:col'
	needle_re '^Your code has been rated at .*' 'the score'
	cmd_case "$name" 'pylint --persistent=n inventory tests' 'Lint the package'
}

pylint_fault undefined inventory/report.py 's/return sum\(it.unit_cents/return summ(it.unit_cents/'
pylint_fault no-member inventory/stock.py 's/self.levels\[sku\] = have - qty/self.levels[sku] = have - qty\n        self.level.clear()/'
pylint_fault call-arg inventory/cli.py 's/discount\(line_cents\(item, qty\), bulk_percent\(qty\)\)/discount(line_cents(item, qty), bulk_percent(qty), 2)/'

# flake8 over a real library (Debian's python3 yaml package, copied) with
# one undefined name put in among its style findings.
if selected command-flake8-undefined; then
	fresh flake8-undefined
	cp -r /usr/lib/python3/dist-packages/yaml yaml
	inject yaml/reader.py 's/                    raise ReaderError\(self.name, position, character,/                    raise ReaderErorr(self.name, position, character,/'
	needle_re '^\S+:\d+:\d+: F821 .*' 'the undefined name, the one real error among the style findings'
	cmd_case flake8-undefined "$py -m flake8 --max-line-length 100 yaml" 'Lint the vendored yaml package'
fi
