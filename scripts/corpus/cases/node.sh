# node.sh: command cases from node's test runner, jest and npm. Sourced by
# make.sh. jest is installed from the npm registry into a throwaway package.

# cart_module writes a small CommonJS module with a bug in it.
cart_module() {
	cat >cart.js <<'EOF'
function lineTotal(item) {
  return item.price * item.qty;
}

function total(items) {
  return items.reduce((sum, it) => sum + lineTotal(it), 0);
}

function applyDiscount(items, code) {
  const rates = { TEN: 0.1, HALF: 0.5 };
  const rate = rates[code];
  return items.map((it) => ({ ...it, price: Math.round(it.price * (1 - rate)) }));
}

function groupBySku(items) {
  const out = {};
  for (const it of items) {
    out[it.sku] = (out[it.sku] || 0) + 1;
  }
  return out;
}

module.exports = { lineTotal, total, applyDiscount, groupBySku };
EOF
}

# ------------------------------------------ node --test: TAP, one failure
if selected command-node-test-fail; then
	fresh node-test-fail
	cart_module
	mkdir -p test
	cat >test/cart.test.js <<'EOF'
const { describe, it } = require('node:test');
const assert = require('node:assert');
const { lineTotal, total, applyDiscount, groupBySku } = require('../cart.js');

describe('lineTotal', () => {
  for (let qty = 1; qty <= 60; qty++) {
    it(`multiplies price by qty ${qty}`, () => {
      assert.strictEqual(lineTotal({ price: 250, qty }), 250 * qty);
    });
  }
});

describe('total', () => {
  for (let n = 0; n <= 60; n++) {
    it(`sums ${n} lines`, () => {
      const items = Array.from({ length: n }, () => ({ price: 100, qty: 2 }));
      assert.strictEqual(total(items), 200 * n);
    });
  }
});

describe('groupBySku', () => {
  it('counts quantities per sku', () => {
    const items = [
      { sku: 'tea', price: 400, qty: 2 },
      { sku: 'cup', price: 900, qty: 1 },
      { sku: 'tea', price: 400, qty: 3 },
    ];
    assert.deepStrictEqual(groupBySku(items), { tea: 5, cup: 1 });
  });
});

describe('applyDiscount', () => {
  for (const code of ['TEN', 'HALF']) {
    for (let price = 100; price <= 3000; price += 100) {
      it(`${code} on ${price}`, () => {
        const [d] = applyDiscount([{ sku: 'x', price, qty: 1 }], code);
        assert.ok(d.price < price);
      });
    }
  }
});
EOF
	needle 'not ok 1 - counts quantities per sku' 'the failing test'
	needle "Expected values to be strictly deep-equal:" 'its assertion'
	needle_re '\+   tea: 2|\+ +tea: 2' 'what came: counts lines, not quantities'
	needle_re 'TestContext\.<anonymous> \(/tmp/crumb-corpus/work/node-test-fail/test/cart\.test\.js:\d+:\d+\)' 'where in the test file'
	needle '# fail 1' 'the summary'
	cmd_case node-test-fail 'node --test test/' 'Run the cart tests with node'"'"'s test runner'
fi

# ------------------------------------------------ npm test with jest
if selected command-jest-fail; then
	fresh jest-fail
	cart_module
	printf '{\n  "name": "cart",\n  "version": "1.0.0",\n  "private": true,\n  "scripts": {\n    "test": "jest --verbose"\n  }\n}\n' >package.json
	if ! npm install --silent --no-progress --save-dev jest@29 >"$work/jest-install.log" 2>&1; then
		echo "error: command-jest-fail: npm install jest@29 failed; see $work/jest-install.log" >&2
		failures=$((failures + 1))
	fi
	mkdir -p __tests__
	cat >__tests__/cart.test.js <<'EOF'
const { lineTotal, total, applyDiscount, groupBySku } = require('../cart.js');

describe('lineTotal', () => {
  for (let qty = 1; qty <= 200; qty++) {
    test(`price times qty ${qty}`, () => {
      expect(lineTotal({ price: 250, qty })).toBe(250 * qty);
    });
  }
});

describe('total', () => {
  for (let n = 0; n <= 50; n++) {
    test(`sums ${n} lines`, () => {
      expect(total(Array.from({ length: n }, () => ({ price: 100, qty: 2 })))).toBe(200 * n);
    });
  }
});

describe('applyDiscount', () => {
  test('TEN takes 10% off', () => {
    expect(applyDiscount([{ sku: 'a', price: 1000, qty: 1 }], 'TEN')).toEqual([{ sku: 'a', price: 900, qty: 1 }]);
  });

  test('an unknown code leaves prices alone', () => {
    expect(applyDiscount([{ sku: 'a', price: 1000, qty: 1 }], 'BOGUS')).toEqual([{ sku: 'a', price: 1000, qty: 1 }]);
  });

  for (let price = 100; price <= 2000; price += 100) {
    test(`HALF on ${price}`, () => {
      expect(applyDiscount([{ sku: 'a', price, qty: 1 }], 'HALF')[0].price).toBe(price / 2);
    });
  }
});
EOF
	needle '● applyDiscount › an unknown code leaves prices alone' 'the failing test'
	needle '-     "price": 1000,' 'the expected side of the diff'
	needle '+     "price": NaN,' 'what came: an unknown code gives NaN prices'
	needle_re 'at Object\.toEqual \(__tests__/cart\.test\.js:\d+:\d+\)' 'where in the test file'
	needle_re 'Tests: +1 failed, \d+ passed, \d+ total' 'the summary'
	cmd_case jest-fail 'npm test' 'Run the cart tests'
fi

# ---------------------------------- npm install: no such version (small)
if selected command-npm-etarget; then
	fresh npm-etarget
	printf '{"name": "app", "version": "1.0.0", "private": true}\n' >package.json
	needle 'npm error code ETARGET' 'the error code'
	needle 'npm error notarget No matching version found for express@99.0.0.' 'what npm could not find'
	cmd_case npm-etarget 'npm install express@99.0.0' 'Install express 99'
fi
