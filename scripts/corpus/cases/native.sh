# native.sh: command cases from gcc, make and cargo. Sourced by make.sh.

# ----------------------------------- gcc: errors in an included header
if selected command-gcc-errors; then
	fresh gcc-errors
	mkdir -p src include
	cat >include/lexer.h <<'EOF'
#ifndef LEXER_H
#define LEXER_H

#include <stddef.h>

enum token_kind { TOK_EOF, TOK_NUM, TOK_IDENT, TOK_OP };

struct token {
	enum token_kind kind;
	const char *start;
	size_t len;
	token_kind next_kind;
};

struct lexer {
	const char *src;
	size_t pos;
};

void lexer_init(struct lexer *lx, const char *src);
struct token lexer_next(struct lexer *lx);

#endif
EOF
	cat >include/parser.h <<'EOF'
#ifndef PARSER_H
#define PARSER_H

#include "lexer.h"

struct node {
	int op;
	double value;
	struct node *left, *right;
};

struct node *parse_expr(struct lexer *lx);
double eval(const struct node *n);

#endif
EOF
	cat >src/lexer.c <<'EOF'
#include <ctype.h>
#include "lexer.h"

void lexer_init(struct lexer *lx, const char *src)
{
	lx->src = src;
	lx->pos = 0;
}

struct token lexer_next(struct lexer *lx)
{
	struct token t = {TOK_EOF, lx->src + lx->pos, 0};
	while (isspace((unsigned char)lx->src[lx->pos]))
		lx->pos++;
	char c = lx->src[lx->pos];
	if (c == '\0')
		return t;
	if (isdigit((unsigned char)c)) {
		t.kind = TOK_NUM;
		while (isdigit((unsigned char)lx->src[lx->pos + t.len]))
			t.len++;
	} else {
		t.kind = TOK_OP;
		t.len = 1;
	}
	lx->pos += t.len;
	return t;
}
EOF
	cat >src/parser.c <<'EOF'
#include <stdlib.h>
#include "parser.h"

static struct node *new_node(int op, double value)
{
	struct node *n = calloc(1, sizeof *n);
	n->op = op;
	n->value = value;
	return n;
}

struct node *parse_expr(struct lexer *lx)
{
	struct token t = lexer_next(lx);
	struct node *left = new_node(0, strtod(t.start, NULL));
	for (;;) {
		struct token op = lexer_next(lx);
		if (op.kind != TOK_OP)
			return left;
		struct token rhs = lexer_next(lx);
		struct node *n = new_node(op.start[0], 0);
		n->left = left;
		n->right = new_node(0, strtod(rhs.start, NULL));
		left = n;
	}
}

double eval(const struct node *n)
{
	switch (n->op) {
	case 0: return n->value;
	case '+': return eval(n->left) + eval(n->right);
	case '-': return eval(n->left) - eval(n->right);
	case '*': return eval(n->left) * eval(n->right);
	case '/': return eval(n->left) / eval(n->right);
	}
}
EOF
	{
		printf '#include <stdio.h>\n#include <string.h>\n#include "parser.h"\n\n'
		for i in $(seq 1 24); do
			printf 'static int check_%d(const char *expr, double want, int verbose)\n{\n\tstruct lexer lx;\n\tlexer_init(&lx, expr);\n\tdouble got = eval(parse_expr(&lx));\n\tunsigned int n = strlen(expr);\n\tfor (int i = 0; i < n; i++)\n\t\t;\n\treturn got == want;\n}\n\n' "$i"
		done
		printf 'int main(int argc, char **argv)\n{\n\tint ok = 1;\n'
		for i in $(seq 1 24); do
			printf '\tok &= check_%d("%d + %d * 2", %d, 0);\n' "$i" "$i" "$i" "$((i * 3))"
		done
		printf '\tprintf("%%s\\n", ok ? "ok" : "FAIL")\n\treturn !ok;\n}\n'
	} >src/main.c
	needle_re 'In file included from include/parser\.h:\d+,' 'the include chain that leads to the error'
	needle 'include/lexer.h:12:9: error: unknown type name ‘token_kind’' 'the root error at file:line:col: the struct misuses the enum'
	needle_re "src/main\\.c:\\d+:\\d+: error: expected ‘;’ before ‘return’" 'the second error, at the end of main.c, after dozens of warnings'
	needle_re "src/parser\\.c:\\d+:\\d+: warning: control reaches end of non-void function" 'a real bug among the warnings: eval has no default return'
	cmd_case gcc-errors 'gcc -Wall -Wextra -std=c11 -Iinclude -c src/lexer.c src/parser.c src/main.c' 'Compile the expression parser with warnings on'
fi

# ------------------------------------------------ make -k: a noisy build
if selected command-make-noisy; then
	fresh make-noisy
	mkdir -p src
	for i in $(seq -w 1 40); do
		{
			printf '#include <stdio.h>\n#include <string.h>\n\n'
			printf 'int handle_%s(const char *req, int flags, int unused_%s)\n{\n' "$i" "$i"
			printf '\tchar buf[64];\n\tunsigned len = strlen(req);\n\tfor (int k = 0; k < len; k++)\n\t\tbuf[k %% 64] = req[k];\n'
			if [ "$i" = 23 ]; then
				printf '\tstruct route *r = lookup_route(req);\n\treturn r->code + flags;\n}\n'
			else
				printf '\treturn buf[0] + flags;\n}\n'
			fi
		} >"src/handler_$i.c"
	done
	cat >Makefile <<'EOF'
CC = gcc
CFLAGS = -O2 -Wall -Wextra -std=c11
SRCS = $(sort $(wildcard src/*.c))
OBJS = $(SRCS:src/%.c=build/%.o)

all: build/libhandlers.a

build/libhandlers.a: $(OBJS)
	ar rcs $@ $^

build/%.o: src/%.c | build
	$(CC) $(CFLAGS) -c -o $@ $<

build:
	mkdir -p build

clean:
	rm -rf build
EOF
	needle 'src/handler_23.c:11:17: error: invalid use of undefined type ‘struct route’' 'the compile error that broke the build, at file:line:col'
	needle_re 'src/handler_23\.c:10:27: (warning|error): implicit declaration of function ‘lookup_route’' 'the missing declaration behind it'
	needle 'make: *** [Makefile:12: build/handler_23.o] Error 1' 'the make rule and target that failed'
	needle "make: Target 'all' not remade because of errors." 'make went on (-k) but the build as a whole failed'
	cmd_case make-noisy 'make -k' 'Build the handlers library, going on past errors'
fi

# ------------------------------------------- make: no such target (small)
if selected command-make-no-rule; then
	fresh make-no-rule
	printf 'all:\n\t@echo building\n\ntest: all\n\t@echo testing\n' >Makefile
	needle "make: *** No rule to make target 'install'.  Stop." 'why make stopped: the Makefile has no install target'
	cmd_case make-no-rule 'make install' 'Install the program'
fi

# ----------------------------------------------- cargo build: borrow errors
if selected command-cargo-build-errors; then
	fresh cargo-build-errors
	cargo init --quiet --vcs none --name inventory . >/dev/null 2>&1
	{
		cat <<'EOF'
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{self, Read};

#[derive(Debug, Clone)]
struct Item {
    sku: String,
    qty: u32,
    price_cents: u64,
}

EOF
		for i in $(seq 1 18); do
			printf 'fn report_%d(items: &[Item], verbose: bool) -> String {\n    let mut out = String::new();\n    let scratch = items.len() * %d;\n    for it in items {\n        out.push_str(&it.sku);\n    }\n    out\n}\n\n' "$i" "$i"
		done
		cat <<'EOF'
fn restock(stock: &mut HashMap<String, Item>, sku: &str, qty: u32) {
    let item = stock.get(sku).unwrap();
    stock.insert(sku.to_string(), Item { qty: item.qty + qty, ..item.clone() });
    item.qty += 1;
}

fn main() {
    let mut stock: HashMap<String, Item> = HashMap::new();
    let items = vec![Item { sku: "A-1".into(), qty: 3, price_cents: 250 }];
    for it in items {
        stock.insert(it.sku.clone(), it);
    }
    restock(&mut stock, "A-1", 2);
    println!("{} items, first {:?}", items.len(), stock.get("A-1"));
}
EOF
	} >src/main.rs
	needle 'error[E0502]: cannot borrow `*stock` as mutable because it is also borrowed as immutable' 'the first error'
	needle '--> src/main.rs:176:5' 'where the first error is, file:line:col'
	needle 'error[E0382]: borrow of moved value: `items`' 'the last error: items was moved by the loop'
	needle_re 'error: could not compile `inventory` \(bin "inventory"\) due to \d+ previous errors?; \d+ warnings? emitted' 'the summary line'
	cmd_case cargo-build-errors 'cargo build --offline' 'Build the inventory binary'
fi

# ------------------------------------------------ cargo test: two failures
if selected command-cargo-test-fail; then
	fresh cargo-test-fail
	cargo init --quiet --vcs none --lib --name tariff . >/dev/null 2>&1
	{
		cat <<'EOF'
//! Shipping tariffs.

/// Zone is a shipping zone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Zone {
    Domestic,
    Europe,
    World,
}

/// Cost returns the cost in cents of shipping `grams` to `zone`.
pub fn cost(zone: Zone, grams: u32) -> u32 {
    let base = match zone {
        Zone::Domestic => 450,
        Zone::Europe => 900,
        Zone::World => 1500,
    };
    base + grams / 100 * 35
}

/// Parse a zone code.
pub fn zone(code: &str) -> Option<Zone> {
    match code {
        "DOM" => Some(Zone::Domestic),
        "EU" => Some(Zone::Europe),
        "WW" => Some(Zone::World),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
EOF
		for z in Domestic Europe World; do
			for g in $(seq 0 100 5000); do
				printf '\n    #[test]\n    fn cost_%s_%05d_grams() {\n        assert!(cost(Zone::%s, %d) >= cost(Zone::%s, 0));\n    }\n' \
					"$(echo "$z" | tr A-Z a-z)" "$g" "$z" "$g" "$z"
			done
		done
		cat <<'EOF'

    #[test]
    fn cost_rounds_partial_hundreds_up() {
        assert_eq!(cost(Zone::Europe, 250), 900 + 3 * 35, "250 g to Europe");
    }

    #[test]
    fn zone_codes_are_case_insensitive() {
        assert_eq!(zone("eu").unwrap(), Zone::Europe);
    }
}
EOF
	} >src/lib.rs
	needle '---- tests::cost_rounds_partial_hundreds_up stdout ----' 'the first failing test'
	needle_re 'assertion `left == right` failed: 250 g to Europe' 'its assertion: partial hundreds are not rounded up'
	needle '---- tests::zone_codes_are_case_insensitive stdout ----' 'the second failing test'
	needle 'called `Option::unwrap()` on a `None` value' 'its panic: lower-case codes are not parsed'
	needle_re 'test result: FAILED\. \d+ passed; 2 failed' 'the summary'
	cmd_case cargo-test-fail 'cargo test --offline' 'Run the tariff tests'
fi
