# rust.sh: cargo build, cargo test and cargo clippy on a small crate (no
# dependencies, nothing fetched), each run with one fault put in. Needles
# follow the rule in docs/bench.md. Sourced by make.sh.

# meter_base: the passing crate, made once.
meter_base() {
	[ -f "$work/meter/.made" ] && return
	fresh meter
	mkdir -p src tests
	printf '[package]\nname = "meter"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n' >Cargo.toml
	cat >src/lib.rs <<'EOF'
//! Rate limiting and usage metering.
use std::collections::HashMap;

/// A token bucket refilled at `rate` tokens a second, holding at most `burst`.
#[derive(Debug, Clone)]
pub struct Bucket {
    pub rate: f64,
    pub burst: f64,
    tokens: f64,
    last: f64,
}

impl Bucket {
    pub fn new(rate: f64, burst: f64) -> Self {
        Bucket { rate, burst, tokens: burst, last: 0.0 }
    }

    /// Takes n tokens at time `now` (seconds); false when there are too few.
    pub fn take(&mut self, now: f64, n: f64) -> bool {
        let elapsed = (now - self.last).max(0.0);
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.last = now;
        if self.tokens >= n {
            self.tokens -= n;
            true
        } else {
            false
        }
    }
}

/// Usage per account, in whole units.
#[derive(Debug, Default)]
pub struct Ledger {
    used: HashMap<String, u64>,
}

impl Ledger {
    pub fn record(&mut self, account: &str, units: u64) -> u64 {
        let e = self.used.entry(account.to_string()).or_insert(0);
        *e += units;
        *e
    }

    pub fn usage(&self, account: &str) -> u64 {
        self.used.get(account).copied().unwrap_or(0)
    }

    pub fn top(&self, n: usize) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self.used.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.truncate(n);
        v
    }
}

/// Parses "12k", "3M", "700" into units.
pub fn parse_units(s: &str) -> Result<u64, String> {
    let (num, mul) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1_000),
        Some('M') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    num.parse::<u64>().map(|n| n * mul).map_err(|e| format!("parse_units: {s:?}: {e}"))
}
EOF
	cat >tests/meter.rs <<'EOF'
use meter::{parse_units, Bucket, Ledger};

macro_rules! bucket_tests {
    ($($name:ident: $rate:expr, $burst:expr, $takes:expr;)*) => {$(
        #[test]
        fn $name() {
            let mut b = Bucket::new($rate, $burst);
            let mut ok = 0;
            for i in 0..$takes {
                if b.take(i as f64 * 0.1, 1.0) {
                    ok += 1;
                }
            }
            assert!(ok as f64 <= $burst + $takes as f64 * 0.1 * $rate + 1.0, "took {} of {}", ok, $takes);
        }
    )*};
}

bucket_tests! {
    bucket_1_1: 1.0, 1.0, 10; bucket_1_5: 1.0, 5.0, 20; bucket_2_2: 2.0, 2.0, 30; bucket_5_5: 5.0, 5.0, 40;
    bucket_10_1: 10.0, 1.0, 50; bucket_10_10: 10.0, 10.0, 60; bucket_3_7: 3.0, 7.0, 70; bucket_7_3: 7.0, 3.0, 80;
    bucket_0_5: 0.5, 5.0, 90; bucket_20_20: 20.0, 20.0, 100; bucket_1_20: 1.0, 20.0, 110; bucket_4_4: 4.0, 4.0, 120;
}

#[test]
fn burst_then_refill() {
    let mut b = Bucket::new(1.0, 3.0);
    assert!(b.take(0.0, 3.0));
    assert!(!b.take(0.5, 1.0));
    assert!(b.take(1.6, 1.0));
}

#[test]
fn ledger_top() {
    let mut l = Ledger::default();
    l.record("acme", 30);
    l.record("zeta", 50);
    l.record("beta", 30);
    l.record("acme", 5);
    assert_eq!(l.top(2), vec![("zeta", 50), ("acme", 35)]);
    assert_eq!(l.usage("nobody"), 0);
}

#[test]
fn units() {
    assert_eq!(parse_units("700"), Ok(700));
    assert_eq!(parse_units("12k"), Ok(12_000));
    assert_eq!(parse_units("3M"), Ok(3_000_000));
    assert!(parse_units("x").is_err());
}
EOF
	cargo build -q --offline 2>/dev/null
	touch .made
}

# cargo_fault NAME FILE PERL CMD DESCRIPTION: one cargo run with one fault.
cargo_fault() {
	local name=cargo-$1
	selected "command-$name" || { pending=(); return 0; }
	meter_base
	variant meter "$name"
	inject "$2" "$3"
	cmd_case "$name" "$4" "$5"
}

# Build errors: the first error with its code, its location, and the
# closing line.
rust_build_needles() {
	needle_re '^error(\[E\d+\])?: .*' 'the first error'
	needle_re '^ +--> src/\S+:\d+:\d+' 'its location'
	needle_re '^error: could not compile `meter`.*' 'the closing line'
}
rust_build_needles
cargo_fault build-moved src/lib.rs 's/v.truncate\(n\);\n        v/let w = v;\n        v.truncate(n);\n        w/' 'cargo build --offline' 'Build the crate'
rust_build_needles
cargo_fault build-type src/lib.rs 's/self.used.get\(account\).copied\(\).unwrap_or\(0\)/self.used.get(account).unwrap_or(0)/' 'cargo build --offline' 'Build the crate'
rust_build_needles
cargo_fault build-borrow src/lib.rs 's/        \*e \+= units;\n        \*e/        *e += units;\n        let total = self.used.len() as u64;\n        *e + total/' 'cargo build --offline' 'Build the crate'
rust_build_needles
cargo_fault build-missing-field src/lib.rs 's/Bucket \{ rate, burst, tokens: burst, last: 0.0 \}/Bucket { rate, burst, tokens: burst }/' 'cargo build --offline' 'Build the crate'

# Test failures: the failing test, its panic message, the summary.
rust_test_needles() {
	needle_re '^(---- \S+ stdout ----|test \S+ \.\.\. FAILED)$' 'the failing test'
	needle_re "^thread '\S+' (\(\d+\) )?panicked at .*" 'where it panicked'
	needle_re '^test result: FAILED\. .*' 'the summary'
}
rust_test_needles
cargo_fault test-refill src/lib.rs 's/\(self.tokens \+ elapsed \* self.rate\).min\(self.burst\)/(self.tokens + elapsed * self.rate).max(self.burst)/' 'cargo test --offline' 'Run the tests'
rust_test_needles
cargo_fault test-sort src/lib.rs 's/b.1.cmp\(&a.1\)/a.1.cmp(\&b.1)/' 'cargo test --offline' 'Run the tests'
rust_test_needles
cargo_fault test-units src/lib.rs "s/Some\('M'\) => \(&s\[..s.len\(\) - 1\], 1_000_000\),/Some('M') => (\&s[..s.len() - 1], 1_000_00),/" 'cargo test --offline -- --nocapture' 'Run the tests with output'
rust_test_needles
cargo_fault test-overflow src/lib.rs 's/num.parse::<u64>\(\).map\(\|n\| n \* mul\)/num.parse::<u64>().map(|n| n * mul * 1_000_000_000_000_000)/' 'cargo test --offline' 'Run the tests'

# clippy: warnings, one error-level lint put in.
rust_clippy_needles() {
	needle_re '^error: .*' 'the error among the warnings'
	needle_re '^ +--> src/\S+:\d+:\d+' 'the location of the first finding'
}
rust_clippy_needles
cargo_fault clippy-eq-self src/lib.rs 's/if self.tokens >= n \{/if self.tokens >= n \&\& n == n {/' 'cargo clippy --offline' 'Lint the crate'
rust_clippy_needles
cargo_fault clippy-absurd src/lib.rs 's/pub fn usage\(&self, account: &str\) -> u64 \{/pub fn usage(\&self, account: \&str) -> u64 {\n        if self.used.len() < 0 {\n            return 0;\n        }/' 'cargo clippy --offline' 'Lint the crate'
