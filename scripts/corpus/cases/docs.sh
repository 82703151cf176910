# docs.sh: documentation read with a question: man pages through the shell
# (the Bash tool's description says what the agent is after), Markdown and
# HTML manuals in /usr/share/doc and licences in /usr/share/common-licenses
# read as files with an intent. Needles follow the rule in docs/bench.md:
# the heading (or the option's definition line) of the section asked about,
# found by a pattern, and for man pages and licences the first line of
# text under it. Sourced by make.sh.

# first_after FILE PCRE: the first non-blank line after the first line
# matching PCRE.
first_after() {
	FIRST_AFTER_RE=$2 perl -ne 'if ($seen && /\S/) { chomp; print; exit } $seen = 1 if !$seen && /$ENV{FIRST_AFTER_RE}/' "$1"
}

# man_case NAME PAGE DESCRIPTION PCRE: `man PAGE` as the agent runs it, for
# the option or section PCRE finds.
man_case() {
	local name=man-$1 out
	selected "command-$name" || return 0
	out=$(mktemp)
	MANWIDTH=100 man -P cat "$2" >"$out" 2>/dev/null
	needle_re "$4" 'the definition or heading of what was asked about'
	local next
	next=$(first_after "$out" "$4")
	[ -n "$next" ] && needle "$next" 'the first line of text under it'
	rm -f "$out"
	cmd_case "$name" "MANWIDTH=100 man -P cat $2" "$3"
}

man_case tar-incremental tar 'How does tar --listed-incremental work' '^ +-g, --listed-incremental=FILE'
man_case ssh-jump ssh 'Find the ssh option for jumping through a bastion host' '^ +-J destination'
man_case ssh-config-proxyjump 5\ ssh_config 'What ProxyJump accepts in ssh_config' '^ +ProxyJump'
man_case grep-only-matching grep 'How to print only the matched parts with grep' '^ +-o, --only-matching'
man_case sed-in-place sed 'How sed -i takes a backup suffix' '^ +-i\[SUFFIX\], --in-place\[=SUFFIX\]'
man_case find-newer find 'Which find test compares modification times with a file' '^ +-newer reference'
man_case find-prune find 'How -prune skips a directory in find' '^ +-prune'
man_case curl-retry curl 'How many times curl --retry retries and on what' '^ +--retry <num>'
man_case curl-resolve curl 'How to pin a host name to an address in curl' '^ +--resolve <\[\+\]host:port:addr'
man_case git-log-follow git-log 'How git log follows renames' '^ +--follow'
man_case git-rebase-autosquash git-rebase 'What --autosquash does in git rebase' '^ +--autosquash, --no-autosquash'
man_case make-jobs make 'How make -j limits parallel jobs' '^ +-j \[jobs\], --jobs\[=jobs\]'
man_case ps-format ps 'How to choose the columns ps prints' '^ +-o format'
man_case ls-sort ls 'How to sort ls output by modification time' '^ +-t +sort by time'
man_case cp-reflink cp 'What cp --reflink does' '^ +--reflink\[=WHEN\]'
man_case bash-prompting bash 'How bash expands the prompt string PS1' '^PROMPTING'
man_case bash-set-errexit bash 'What set -e does in bash' '^ +-e +Exit +immediately +if +a +pipeline'
man_case systemctl-list-units systemctl 'How to list failed units with systemctl' '^ +list-units \[PATTERN'
man_case git-diff-stat git-diff 'How git diff --stat limits its width' '^ +--stat\[=<width>'
man_case tar-exclude tar 'How tar --exclude matches patterns' '^ +--exclude=PATTERN'
man_case ssh-keygen-fingerprint ssh-keygen 'How to show the fingerprint of a key file' '^ +-l +Show fingerprint of specified public key file'
man_case gzip-keep gzip 'Which gzip option keeps the input file' '^ +-k --keep'

# doc_case NAME FILE INTENT PCRE [NEXT]: a file read with an intent; the
# needle is the heading PCRE finds, and with NEXT the first line under it.
doc_case() {
	local name=file-$1
	selected "$name" || return 0
	if [ ! -f "$2" ]; then
		echo "error: $name: $2 does not exist here" >&2
		failures=$((failures + 1))
		return
	fi
	needle_re "$4" 'the heading of the section asked about'
	if [ -n "${5:-}" ]; then
		local next
		next=$(first_after "$2" "$4")
		[ -n "$next" ] && needle "$next" 'the first line of the section'
	fi
	save_case "$name" file read_file "$(jq -n --arg p "$2" --arg i "$3" '{path: $p, intent: $i}')" <"$2"
}

api=/usr/share/doc/nodejs/api
doc_case md-node-http-keepalive $api/http.md 'how long the server keeps an idle keep-alive socket open' '^### `server\.keepAliveTimeout`'
doc_case md-node-stream-pipe $api/stream.md 'what readable.pipe does with backpressure and its options' '^##### `readable\.pipe\(destination\[, options\]\)`'
doc_case md-node-spawn $api/child_process.md 'the options of child_process.spawn' '^### `child_process\.spawn\(command\[, args\]\[, options\]\)`'
doc_case md-node-randomuuid $api/crypto.md 'how to make a random UUID' '^### `crypto\.randomUUID\(\[options\]\)`'
doc_case md-node-path-relative $api/path.md 'path.relative between two paths' '^## `path\.relative\(from, to\)`'
doc_case md-node-events-once $api/events.md 'emitter.once, a listener called one time' '^### `emitter\.once\(eventName, listener\)`'
doc_case md-node-buffer-bytelength $api/buffer.md 'how Buffer.byteLength counts a string' '^### Static method: `Buffer\.byteLength\(string\[, encoding\]\)`'
doc_case md-node-nexttick $api/process.md 'process.nextTick and when its callback runs' '^## `process\.nextTick\(callback\[, \.\.\.args\]\)`'
doc_case md-node-test-describe $api/test.md 'the signature of describe in node:test' '^## `describe\(\[name\]\[, options\]\[, fn\]\)`'
doc_case md-node-worker $api/worker_threads.md 'how to pass data to a new Worker' '^### `new Worker\(filename\[, options\]\)`'
doc_case md-node-url-searchparams $api/url.md 'URLSearchParams.getAll' '^#### `urlSearchParams\.getAll\(name\)`'
doc_case md-node-fs-watch $api/fs.md 'fs.watch and its caveats' '^### `fs\.watch\(filename\[, options\]\[, listener\]\)`'
doc_case md-node-readline $api/readline.md 'how to read a file line by line' '^## Example: Read file stream line-by-Line'
doc_case md-pip-repeatable /usr/share/doc/python3-pip/html/topics/repeatable-installs.md 'how to pin hashes for repeatable installs' '^## Hash-checking'
doc_case md-node-changelog-18 /usr/share/doc/nodejs/changelogs/CHANGELOG_V18.md 'what changed in 18.14.0' '^## \d{4}-\d\d-\d\d, Version 18\.14\.0.*'

vg=/usr/share/doc/valgrind/html
doc_case html-valgrind-suppressions $vg/mc-manual.html 'how to write a suppression file for memcheck' '^<a name="mc-manual\.suppfiles"></a>.*</h2>'
doc_case html-valgrind-leak $vg/mc-manual.html 'what the leak kinds "definitely lost" and "possibly lost" mean' '^<a name="mc-manual\.leaks"></a>.*</h3>'
doc_case html-valgrind-track-origins $vg/mc-manual.html 'what --track-origins does' '<code class="option">--track-origins=&lt;yes\|no&gt; \[default: no\] </code>'
doc_case html-valgrind-cachegrind $vg/cg-manual.html 'how to annotate source with cachegrind counts' '^<a name="cg-manual\.running-cg_annotate"></a>.*</h3>'
doc_case html-valgrind-helgrind-races $vg/hg-manual.html 'how helgrind reports a data race' '^<a name="hg-manual\.data-races"></a>.*</h2>'
doc_case html-valgrind-faq-glibc $vg/faq.html 'why building valgrind fails for want of glibc headers' '^<a name="faq\.glibc_devel"></a>.*'
doc_case html-valgrind-massif $vg/ms-manual.html 'how to read massif output with ms_print' '^<a name="ms-manual\.theoutputpreamble"></a>'
doc_case html-mime-subclassing /usr/share/doc/shared-mime-info/shared-mime-info-spec.html/x34.html 'how one MIME type subclasses another' 'NAME="subclassing"'

lic=/usr/share/common-licenses
doc_case text-gpl3-termination $lic/GPL-3 'when the licence terminates and how it is reinstated' '^ +8\. Termination\.' next
doc_case text-apache-patent $lic/Apache-2.0 'the patent grant and when it ends' '^ +3\. Grant of Patent License\.' next
doc_case text-mpl2-termination $lic/MPL-2.0 'what happens on termination of the MPL' '^5\. Termination' next
doc_case text-lgpl21-linking $lic/LGPL-2.1 'the terms for a work that uses the library' '^ +6\. As an exception to the Sections above' next
doc_case text-gfdl13-modifications $lic/GFDL-1.3 'what a modified version must do' '^4\. MODIFICATIONS' next
doc_case text-gpl2-no-warranty $lic/GPL-2 'the no warranty clause' '^ +11\. BECAUSE THE PROGRAM IS LICENSED FREE OF CHARGE'

man_case xargs-parallel xargs 'How to run xargs in parallel' '^ +-P max-procs, --max-procs=max-procs'
man_case sort-key sort 'How to sort by the second field' '^ +-k, --key=KEYDEF'
man_case sort-unique sort 'How sort drops duplicate lines' '^ +-u, --unique'
man_case chmod-recursive chmod 'How to change modes recursively' '^ +-R, --recursive'
man_case kill-list kill 'How to list signal names with kill' '^ +-l, --list'
man_case date-string date 'How to print a date given as a string' '^ +-d, --date=STRING'
man_case du-summarize du 'How to print only a total per argument with du' '^ +-s, --summarize'
man_case df-human df 'How df prints sizes in powers of 1024' '^ +-h, --human-readable'
man_case tee-append tee 'How tee appends instead of overwriting' '^ +-a, --append'
man_case timeout-kill-after timeout 'How timeout sends KILL after a grace period' '^ +-k, --kill-after=DURATION'
man_case journalctl-unit journalctl 'How to show the log of one unit with journalctl' '^ +-u, --unit='
man_case ip-brief ip 'How to get brief output from ip' '^ +-br?, -brief'
man_case ssh-add-lifetime ssh-add 'How to add a key to the agent for a limited time' '^ +-t life'
man_case ssh-local-forward ssh 'How to forward a local port with ssh' '^ +-L \[bind_address:\]port'
man_case git-log-pickaxe git-log 'How to find commits that add or remove a string' '^ +-S<string>'
man_case grep-recursive grep 'How grep searches directories recursively' '^ +-r, --recursive'
man_case find-mtime find 'How find -mtime counts days' '^ +-mtime n'
man_case curl-write-out curl 'How to print the HTTP status code with curl' '^ +-w, --write-out <format>'
man_case tar-gzip tar 'Which tar option filters through gzip' '^ +-z, --gzip'
