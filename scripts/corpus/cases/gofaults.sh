# gofaults.sh: more Go toolchain runs, each of one class the issue names:
# compiler notes by the thousand around one error (go build -gcflags=-m),
# machine-readable test streams (go test -json), passing verbose runs over
# many packages, and a CI log of repeated runs read as a file. The module is
# made of real packages copied from the Go source tree. Needles follow the
# rule in docs/bench.md. Sourced by make.sh.

# stdmod: a module holding copies of standard packages that import only
# other standard packages, and an app package that uses them. Made once.
stdmod() {
	[ -f "$work/stdmod/.made" ] && return
	fresh stdmod
	go mod init example.com/stdmod >/dev/null 2>&1
	local p
	for p in container/list container/ring text/tabwriter encoding/csv bufio encoding/hex encoding/base32 text/scanner; do
		mkdir -p "lib/$p"
		cp "$(go env GOROOT)/src/$p"/*.go "lib/$p/"
		rm -f "lib/$p"/*_test.go
	done
	mkdir -p app
	cat >app/app.go <<'EOF'
// Package app prints CSV reports as aligned tables.
package app

import (
	"io"
	"os"

	"example.com/stdmod/lib/encoding/csv"
	"example.com/stdmod/lib/text/tabwriter"
)

// Table copies CSV from r to w as an aligned table.
func Table(r io.Reader, w io.Writer) error {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, rec := range recs {
		for i, f := range rec {
			if i > 0 {
				io.WriteString(tw, "\t")
			}
			io.WriteString(tw, f)
		}
		io.WriteString(tw, "\n")
	}
	return tw.Flush()
}

// Stdout is where reports go by default.
var Stdout io.Writer = os.Stdout
EOF
	touch .made
}

if selected command-go-gcflags-m-undefined; then
	stdmod
	variant stdmod go-gcflags-m-undefined
	inject app/app.go 's/return tw.Flush\(\)/return tw.Flusher()/'
	needle_re '^app/app\.go:\d+:\d+: tw\.Flusher undefined .*' 'the one error among thousands of compiler notes'
	cmd_case go-gcflags-m-undefined 'go build -gcflags=-m ./...' 'Build with escape analysis notes'
fi

# A module with a failing test, for go test -json and a CI log.
tally_mod() {
	[ -f "$work/tally/.made" ] && return
	fresh tally
	go mod init example.com/tally >/dev/null 2>&1
	local p
	for p in words counts report; do
		mkdir -p "$p"
		printf 'package %s\n\n// Sum adds up xs.\nfunc Sum(xs ...int) int {\n\tn := 0\n\tfor _, x := range xs {\n\t\tn += x\n\t}\n\treturn n\n}\n' "$p" >"$p/$p.go"
		{
			printf 'package %s\n\nimport (\n\t"fmt"\n\t"testing"\n)\n\n' "$p"
			printf 'func TestSum(t *testing.T) {\n\tfor n := 0; n < 40; n++ {\n\t\tt.Run(fmt.Sprintf("n=%%d", n), func(t *testing.T) {\n'
			printf '\t\t\txs := make([]int, n)\n\t\t\tfor i := range xs {\n\t\t\t\txs[i] = i\n\t\t\t}\n'
			printf '\t\t\tif got, want := Sum(xs...), n*(n-1)/2; got != want {\n\t\t\t\tt.Errorf("Sum(0..%%d) = %%d, want %%d", n-1, got, want)\n\t\t\t}\n\t\t})\n\t}\n}\n'
		} >"$p/${p}_test.go"
	done
	touch .made
}

if selected command-go-test-json-fail; then
	tally_mod
	variant tally go-test-json-fail
	inject counts/counts.go 's/n \+= x$/n += x % 32/m'
	needle_re '"Test":"TestSum/n=\d+","Output":"    counts_test\.go:\d+: Sum\(0\.\.\d+\) = \d+, want \d+\\n"' 'the first failure and its message at file:line, inside the JSON'
	needle_re '"Action":"fail","Package":"example\.com/tally/counts","Test":"TestSum"' 'the failing test'
	needle_re '"Action":"fail","Package":"example\.com/tally/counts","Elapsed"' 'the failing package'
	cmd_case go-test-json-fail 'go test -json ./...' 'Run the tests as JSON'
fi

if selected command-go-test-v-pass-many; then
	stdmod
	variant stdmod go-test-v-pass-many
	local_pkgs='container/list container/ring encoding/hex encoding/base32'
	for p in $local_pkgs; do
		cp "$(go env GOROOT)/src/$p"/*_test.go "lib/$p/" 2>/dev/null
		sed -i "s#\"$p\"#\"example.com/stdmod/lib/$p\"#" "lib/$p"/*_test.go
	done
	needle_re '^ok  \texample\.com/stdmod/lib/container/list\t.*' 'a package passed'
	needle_re '^ok  \texample\.com/stdmod/lib/container/ring\t.*' 'a package passed'
	needle_re '^ok  \texample\.com/stdmod/lib/encoding/hex\t.*' 'a package passed'
	needle_re '^ok  \texample\.com/stdmod/lib/encoding/base32\t.*' 'the last package passed'
	cmd_case go-test-v-pass-many 'go test -v ./lib/container/... ./lib/encoding/hex ./lib/encoding/base32' 'Run the copied packages'"'"' tests verbosely'
fi

# A CI log: three jobs of go test -v in a row, as a runner prints them; the
# third fails. Read as a file.
if selected file-ci-go-test-log; then
	tally_mod
	variant tally ci-go-test-log
	{
		for job in 1 2 3; do
			echo "##[group]Run go test -v ./... (job $job of 3)"
			[ "$job" = 3 ] && inject report/report.go 's/n \+= x$/n += x % 32/m'
			go test -v ./... 2>&1
			rc=$?
			echo "##[endgroup]"
			echo "job $job: exit $rc"
		done
	} >"$work/ci.log"
	needle_re '^ +--- FAIL: TestSum/n=\d+ .*' 'the failing subtest, in the third job'
	needle_re '^ +report_test\.go:\d+: Sum\(0\.\.\d+\) = \d+, want \d+$' 'its message at file:line'
	needle_re '^FAIL\texample\.com/tally/report\t.*' 'the failing package'
	save_case file-ci-go-test-log file read_file "$(jq -n --arg p "$work/ci.log" '{path: $p, intent: "why did the CI job fail"}')" <"$work/ci.log"
fi

if selected command-go-gcflags-m2-undefined; then
	stdmod
	variant stdmod go-gcflags-m2-undefined
	inject app/app.go 's/recs, err := csv.NewReader\(r\).ReadAll\(\)/recs, err := csv.NewReader(r).ReadEverything()/'
	needle_re '^app/app\.go:\d+:\d+: csv\.NewReader\(r\)\.ReadEverything undefined .*' 'the one error among thousands of compiler notes'
	cmd_case go-gcflags-m2-undefined 'go build -gcflags=-m=2 ./...' 'Build with detailed escape analysis notes'
fi
