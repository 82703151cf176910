# dirs.sh: directory listings of real trees (find, ls, tree, git ls-files).
# Sourced by make.sh.

# dir_case NAME CMDLINE [DESCRIPTION]: runs CMDLINE in the current directory
# and saves its output as case dir-NAME with tool "bash".
dir_case() {
	local name=dir-$1 cmdline=$2 dir
	dir=$stage/$name
	mkdir -p "$dir"
	bash -c "$cmdline" </dev/null >"$dir/output" 2>&1
	local code=$?
	write_meta "$dir" dir bash "$(bash_args "$cmdline" "${3:-}")" "$code"
}

goroot=$(go env GOROOT)

if selected dir-find-go-src; then
	cd / || exit 1
	needle "$goroot/src/net/http/httputil/reverseproxy.go" 'the file the agent is looking for: the reverse proxy'
	needle "$goroot/src/net/http/httputil/reverseproxy_test.go" 'its tests'
	dir_case find-go-src "find $goroot/src -type f -name '*.go'" 'Find where the reverse proxy is implemented in the Go source tree'
fi

if selected dir-ls-lR-net; then
	cd / || exit 1
	needle "$goroot/src/net/http/cookiejar:" 'the directory the agent asks about'
	needle_re '\S+ +\d+ \S+ \S+ +\d+ \w+ +\d+ +[\d:]+ punycode\.go' 'a file in it, with its size'
	dir_case ls-lR-net "ls -lR $goroot/src/net" 'List net and its subdirectories with sizes, to find cookiejar'"'"'s files'
fi

if selected dir-ls-la-libs; then
	cd / || exit 1
	needle_re '^-.* libssl\.so\.3$' 'the library the agent is checking for'
	needle_re '^-.* libcrypto\.so\.3$' 'its companion'
	dir_case ls-la-libs 'ls -la /usr/lib/x86_64-linux-gnu' 'Check that libssl and libcrypto 3 are installed'
fi

if selected dir-tree-node-project; then
	if [ ! -d "$work/jest-fail/node_modules" ]; then
		mkdir -p "$work/jest-fail"
		(cd "$work/jest-fail" && printf '{"name": "cart", "version": "1.0.0", "private": true}\n' >package.json &&
			npm install --silent --no-progress --save-dev jest@29 >/dev/null 2>&1)
	fi
	cd "$work/jest-fail" || exit 1
	needle 'formatNodeAssertErrors.js' 'the file the agent is looking for: where jest formats assertion errors'
	needle '── jest-circus' 'the package that holds it'
	needle_re '\d+ directories, \d+ files' 'the size of the tree'
	dir_case tree-node-project 'tree -a .' 'Show the project tree, to find where jest formats assertion errors'
fi

if selected dir-git-ls-files; then
	cd "$root" || exit 1
	needle 'guard.go' 'the file the agent is after'
	needle 'recall/read.go' 'another'
	dir_case git-ls-files 'git ls-files' 'List the tracked files'
fi

if selected dir-ls-small; then
	cd / || exit 1
	needle_re '.* VERSION' 'the file the agent checks: a small listing passes through'
	dir_case ls-small "ls -la $goroot" 'List the Go installation directory'
fi

# More listings, each run to find one thing (the Bash tool's description
# says what); the needle is the listing line of what it was run to find.
# listing NAME PCRE CMDLINE DESCRIPTION
listing() {
	selected "dir-$1" || return 0
	cd / || exit 1
	needle_re "$2" 'the entry the listing was run to find'
	dir_case "$1" "$3" "$4"
}
listing find-doc-html '^/usr/share/doc/valgrind/html/mc-manual\.html$' "find /usr/share/doc -name '*.html'" 'Find the memcheck manual among the installed HTML docs'
listing ls-man1 '^-.* git-blame\.1\.gz$' 'ls -l /usr/share/man/man1' 'Is there a man page for git blame'
listing find-python-yaml '^/usr/lib/python3/dist-packages/yaml/constructor\.py$' "find /usr/lib/python3/dist-packages -name '*.py' -path '*yaml*'" 'Where is the YAML constructor module of the system python'
listing ls-la-etc '^-.* nginx\.conf$|^d.* nginx$' 'ls -la /etc' 'Is nginx configured under /etc'
listing find-node-api-md '^/usr/share/doc/nodejs/api/worker_threads\.md$' "find /usr/share/doc/nodejs -type f" 'Find the worker_threads doc among the node docs'
listing du-share-doc '^\d+\s+/usr/share/doc/valgrind$' 'du -s /usr/share/doc/* | sort -n' 'How much space do the valgrind docs take'
listing ls-cargo-bin '^.* cargo-clippy( -> .*)?$' 'ls -l /root/.cargo/bin' 'Is cargo-clippy installed'
