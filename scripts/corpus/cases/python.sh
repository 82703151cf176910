# python.sh: command cases from Python and pytest. Sourced by make.sh.

# ----------------------------- python: progress, then a chained traceback
if selected command-python-traceback; then
	fresh python-traceback
	mkdir -p etl
	cat >etl/__init__.py <<'EOF'
EOF
	cat >etl/rows.py <<'EOF'
import csv
import io


def read_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def price(row):
    try:
        return int(row["price_cents"])
    except (KeyError, TypeError) as e:
        raise ValueError(f"row {row.get('id')!r} has no price") from e
EOF
	cat >etl/load.py <<'EOF'
import json
import sys

from etl.rows import price, read_rows


def normalise(row):
    return {"id": int(row["id"]), "sku": row["sku"].upper(), "price": price(row)}


def load(text, out):
    rows = read_rows(text)
    for n, row in enumerate(rows, 1):
        try:
            rec = normalise(row)
        except ValueError:
            print(f"skipping bad row {n}", file=sys.stderr)
            raise RuntimeError(f"load aborted at row {n} of {len(rows)}")
        out.write(json.dumps(rec) + "\n")
        if n % 1 == 0:
            print(f"loaded row {n}: {rec['sku']} at {rec['price']} cents", flush=True)
EOF
	cat >run.py <<'EOF'
import io
import sys

from etl.load import load

lines = ["id,sku,price_cents"]
for i in range(1, 1801):
    lines.append(f"{i},sku-{i:05d},{100 + i}" if i != 1377 else f"{i},sku-{i:05d}")
load("\n".join(lines) + "\n", io.StringIO())
EOF
	needle "TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'" 'the root cause: the short row has no price'
	needle 'ValueError: row '"'"'1377'"'"' has no price' 'the exception it was turned into'
	needle 'RuntimeError: load aborted at row 1377 of 1800' 'the exception that ended the run'
	needle 'File "/tmp/crumb-corpus/work/python-traceback/etl/rows.py", line 11, in price' 'where the KeyError was raised'
	cmd_case python-traceback "$py run.py" 'Run the ETL load'
fi

# ---------------------------------------------- pytest -v: three failures
if selected command-pytest-fail; then
	fresh pytest-fail
	mkdir -p slugs tests
	cat >slugs/__init__.py <<'EOF'
import re
import unicodedata


def slugify(title, max_len=40):
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-zA-Z0-9]+", "-", text).strip("-").lower()
    return text[:max_len]


def unique(slug, taken):
    n = 1
    candidate = slug
    while candidate in taken:
        candidate = f"{slug}-{n}"
    return candidate
EOF
	cat >tests/test_slugs.py <<'EOF'
import pytest

from slugs import slugify, unique

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


@pytest.mark.parametrize("a", WORDS)
@pytest.mark.parametrize("b", WORDS)
@pytest.mark.parametrize("sep", [" ", "  ", " - "])
def test_slug_joins_words(a, b, sep):
    assert slugify(a + sep + b) == f"{a}-{b}"


@pytest.mark.parametrize("title,want", [
    ("Héllo Wörld", "hello-world"),
    ("  spaces  ", "spaces"),
    ("C++ & Rust", "c-and-rust"),
    ("A very long title that goes on and on and on", "a-very-long-title-that-goes-on-and-on-an"),
])
def test_slug_examples(title, want):
    assert slugify(title) == want


def test_slug_never_ends_with_dash():
    assert not slugify("a long title that ends exactly at the dash - x", max_len=38).endswith("-")


def test_unique_adds_counter():
    assert unique("post", {"post", "post-1"}) == "post-2"
EOF
	cat >tests/conftest.py <<'EOF'
import signal


def _timeout(signum, frame):
    raise TimeoutError("test ran longer than 2s")


def pytest_runtest_setup(item):
    if item.name == "test_unique_adds_counter":
        signal.signal(signal.SIGALRM, _timeout)
        signal.alarm(2)


def pytest_runtest_teardown(item):
    signal.alarm(0)
EOF
	needle 'FAILED tests/test_slugs.py::test_slug_examples[C++ & Rust-c-and-rust]' 'a failing case in the short summary'
	needle "E       AssertionError: assert 'c-rust' == 'c-and-rust'" 'its assertion: & is dropped, not spelled out'
	needle 'FAILED tests/test_slugs.py::test_unique_adds_counter - TimeoutError: test ran longer than 2s' 'the second failure: unique loops forever'
	needle 'slugs/__init__.py:14: in unique' 'where it loops: n is never incremented'
	needle_re '=+ \d+ failed, \d+ passed in [0-9.]+s =+' 'the summary line'
	cmd_case pytest-fail "$py -m pytest -v -p no:cacheprovider tests" 'Run the slug tests verbosely'
fi
