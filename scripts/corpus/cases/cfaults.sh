# cfaults.sh: gcc, clang, make and cmake on a small C library, and javac and
# java on a small Java program, each run with one fault put in. Needles
# follow the rule in docs/bench.md: the first error and its file:line:col,
# the line that ended the build, the exception and its first frame in our
# code. Sourced by make.sh.

ring_base() {
	[ -f "$work/ring/.made" ] && return
	fresh ring
	mkdir -p src include
	cat >include/ring.h <<'EOF'
#ifndef RING_H
#define RING_H
#include <stddef.h>

typedef struct {
	int *buf;
	size_t cap, head, len;
} ring;

int ring_init(ring *r, size_t cap);
void ring_free(ring *r);
int ring_push(ring *r, int v);
int ring_pop(ring *r, int *out);
size_t ring_len(const ring *r);
#endif
EOF
	cat >src/ring.c <<'EOF'
#include <stdlib.h>
#include "ring.h"

int ring_init(ring *r, size_t cap) {
	r->buf = malloc(cap * sizeof *r->buf);
	if (r->buf == NULL)
		return -1;
	r->cap = cap;
	r->head = 0;
	r->len = 0;
	return 0;
}

void ring_free(ring *r) {
	free(r->buf);
	r->buf = NULL;
}

int ring_push(ring *r, int v) {
	if (r->len == r->cap)
		return -1;
	r->buf[(r->head + r->len) % r->cap] = v;
	r->len++;
	return 0;
}

int ring_pop(ring *r, int *out) {
	if (r->len == 0)
		return -1;
	*out = r->buf[r->head];
	r->head = (r->head + 1) % r->cap;
	r->len--;
	return 0;
}

size_t ring_len(const ring *r) { return r->len; }
EOF
	cat >src/stats.c <<'EOF'
#include <stdio.h>
#include "ring.h"

static double mean(ring *r) {
	long sum = 0;
	size_t n = ring_len(r);
	for (size_t i = 0; i < n; i++)
		sum += r->buf[(r->head + i) % r->cap];
	return n ? (double)sum / n : 0;
}

int main(void) {
	ring r;
	if (ring_init(&r, 64) != 0)
		return 1;
	for (int i = 0; i < 1000; i++) {
		if (ring_len(&r) == 64) {
			int dropped;
			ring_pop(&r, &dropped);
		}
		ring_push(&r, i * 3 % 101);
		if (i % 100 == 99)
			printf("sample %d: mean of the last %zu = %.2f\n", i, ring_len(&r), mean(&r));
	}
	ring_free(&r);
	return 0;
}
EOF
	cat >Makefile <<'EOF'
CC ?= gcc
CFLAGS ?= -Wall -Wextra -O1 -Iinclude
OBJ = build/ring.o build/stats.o

build/stats: $(OBJ)
	$(CC) -o $@ $(OBJ)

build/%.o: src/%.c include/ring.h | build
	$(CC) $(CFLAGS) -c -o $@ $<

build:
	mkdir -p build

clean:
	rm -rf build
EOF
	cat >CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(ring C)
add_library(ring src/ring.c)
target_include_directories(ring PUBLIC include)
target_compile_options(ring PRIVATE -Wall -Wextra)
add_executable(stats src/stats.c)
target_link_libraries(stats ring)
EOF
	touch .made
}

c_fault() {
	local name=$1
	selected "command-$name" || { pending=(); return 0; }
	ring_base
	variant ring "$name"
	inject "$2" "$3"
	cmd_case "$name" "$4" "$5"
}

c_needles() {
	needle_re '^\S+\.[ch]:\d+:\d+: (fatal )?error: .*' 'the first error at file:line:col'
	needle_re '^make(\[\d+\])?: \*\*\* .*' 'the line that ended the build'
}
c_needles
c_fault make-gcc-missing-semicolon src/ring.c 's/r->len--;/r->len--/' 'make' 'Build the stats program'
c_needles
c_fault make-clang-undeclared src/stats.c 's/ring_push\(&r, i \* 3 % 101\);/ring_pusher(\&r, i * 3 % 101);/' 'make CC=clang CFLAGS="-Wall -Wextra -Werror=implicit-function-declaration -Iinclude"' 'Build with clang'
c_needles
c_fault make-gcc-header src/ring.c 's/#include "ring.h"/#include "rings.h"/' 'make' 'Build the stats program'
c_needles
c_fault make-clang-type src/stats.c 's/if \(ring_init\(&r, 64\) != 0\)/if (ring_init(r, 64) != 0)/' 'make CC=clang' 'Build with clang'
c_needles
c_fault make-static-conflict src/ring.c 's/size_t ring_len\(const ring \*r\) \{ return r->len; \}/static size_t ring_len(const ring *r) { return r->len; }/' 'make' 'Build the stats program'
needle_re '^\S+\.c:\d+:\d+: warning: .*Wsign-compare.*' 'the warning asked about'
c_fault make-gcc-sign-compare src/ring.c 's/int ring_push\(ring \*r, int v\) \{\n\tif \(r->len == r->cap\)/int ring_push(ring *r, int v) {\n\tint max = r->cap;\n\tif (r->len == max)/' 'make' 'Build and show any comparison warnings'
needle_re '^CMake Error at CMakeLists\.txt:\d+ \(\w+\):' 'the error and its line in CMakeLists.txt'
c_fault cmake-missing-source CMakeLists.txt 's/add_library\(ring src\/ring.c\)/add_library(ring src\/ring.c src\/ring_io.c)/' 'cmake -S . -B build-cmake' 'Configure the project with cmake'
needle_re '^\S+\.c:\d+:\d+: error: .*' 'the first error at file:line:col'
needle_re '^gmake(\[\d+\])?: \*\*\* .*|^make(\[\d+\])?: \*\*\* .*' 'the line that ended the build'
c_fault cmake-build-error src/stats.c 's/long sum = 0;/long sum = 0\n/' 'cmake -S . -B build-cmake >/dev/null && cmake --build build-cmake' 'Configure and build with cmake'
needle_re '^==\d+==ERROR: AddressSanitizer: heap-buffer-overflow .*' 'the sanitizer finding'
needle_re '^    #0 0x[0-9a-f]+ in \w+ src/\w+\.c:\d+' 'the frame in our code'
c_fault asan-overflow src/ring.c 's/r->buf = malloc\(cap \* sizeof \*r->buf\);/r->buf = malloc((cap - 1) * sizeof *r->buf);/' 'gcc -g -fsanitize=address -Iinclude -o stats src/ring.c src/stats.c && ./stats' 'Run the stats program under AddressSanitizer'

# ---- Java
java_base() {
	[ -f "$work/javabank/.made" ] && return
	fresh javabank
	mkdir -p src/bank
	cat >src/bank/Account.java <<'EOF'
package bank;

import java.util.ArrayList;
import java.util.List;

public class Account {
    private final String id;
    private long balanceCents;
    private final List<String> history = new ArrayList<>();

    public Account(String id, long openingCents) {
        this.id = id;
        this.balanceCents = openingCents;
    }

    public String id() { return id; }

    public long balance() { return balanceCents; }

    public void deposit(long cents) {
        if (cents <= 0) throw new IllegalArgumentException("deposit must be positive: " + cents);
        balanceCents += cents;
        history.add("deposit " + cents);
    }

    public void withdraw(long cents) {
        if (cents > balanceCents) throw new IllegalStateException(id + ": insufficient funds for " + cents);
        balanceCents -= cents;
        history.add("withdraw " + cents);
    }

    public List<String> history() { return history; }
}
EOF
	cat >src/bank/Main.java <<'EOF'
package bank;

import java.util.HashMap;
import java.util.Map;

public class Main {
    public static void main(String[] args) {
        Map<String, Account> accounts = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            accounts.put("acc-" + i, new Account("acc-" + i, 10_000 + i * 100));
        }
        for (int day = 1; day <= 400; day++) {
            Account a = accounts.get("acc-" + (day * 7 % 50));
            a.deposit(day * 3);
            a.withdraw(day % 40 + 1);
            System.out.println("day " + day + ": " + a.id() + " balance " + a.balance());
        }
    }
}
EOF
	touch .made
}

java_fault() {
	local name=$1
	selected "command-$name" || { pending=(); return 0; }
	java_base
	variant javabank "$name"
	inject "$2" "$3"
	cmd_case "$name" 'javac -d out src/bank/*.java && java -cp out bank.Main' "$4"
}

needle_re '^src/bank/\w+\.java:\d+: error: .*' 'the first error at file:line'
needle_re '^\d+ errors?$' 'the count'
java_fault javac-missing-symbol src/bank/Main.java 's/a.deposit\(day \* 3\);/a.credit(day * 3);/' 'Build and run the bank simulation'
needle_re '^src/bank/\w+\.java:\d+: error: .*' 'the first error at file:line'
needle_re '^\d+ errors?$' 'the count'
java_fault javac-type src/bank/Account.java 's/public long balance\(\) \{ return balanceCents; \}/public int balance() { return balanceCents; }/' 'Build and run the bank simulation'
needle_re '^Exception in thread "main" .*' 'the exception'
needle_re '^\tat bank\.\w+\.\w+\(\w+\.java:\d+\)' 'the first frame in our code'
java_fault java-npe src/bank/Main.java 's/"acc-" \+ \(day \* 7 % 50\)/"acc-" + (day * 7 % 51)/' 'Run the bank simulation'
needle_re '^Exception in thread "main" .*' 'the exception'
needle_re '^\tat bank\.\w+\.\w+\(\w+\.java:\d+\)' 'the first frame in our code'
java_fault java-insufficient src/bank/Main.java 's/a.withdraw\(day % 40 \+ 1\);/a.withdraw(day % 40 * 90 + 1);/' 'Run the bank simulation'
needle_re '^Exception in thread "main" .*' 'the exception'
needle_re '^\tat bank\.\w+\.\w+\(\w+\.java:\d+\)' 'the first frame in our code'
java_fault java-deposit-zero src/bank/Main.java 's/a.deposit\(day \* 3\);/a.deposit(day % 97 * 3);/' 'Run the bank simulation'
