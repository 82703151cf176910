# git.sh: git log, show, diff and blame on a real repository: this one, as
# of a fixed commit (f4e5cbc, on main), cloned under $work so that the
# output is the same from run to run. The question is in the Bash tool's
# description; needles follow the rule in docs/bench.md: the commit line and
# subject of the commit asked about (found with git log --grep), the blame
# line of the definition asked about, the hunk header of the function asked
# about, the summary line. Sourced by make.sh.

git_at=f4e5cbc

# git_repo: the clone, made once, at $git_at.
git_repo() {
	if [ ! -d "$work/crumb-git/.git" ]; then
		rm -rf "$work/crumb-git"
		git clone -q --no-checkout "$root" "$work/crumb-git" && git -C "$work/crumb-git" checkout -q "$git_at" || {
			echo "error: cloning this repository at $git_at failed" >&2
			failures=$((failures + 1))
		}
	fi
	cd "$work/crumb-git" || exit 1
}

# commit_needles GREP: the commit line and the subject of the newest commit
# whose message matches GREP.
commit_needles() {
	local h s
	h=$(git log --format=%H -1 --grep="$1" "$git_at")
	s=$(git log --format=%s -1 "$h")
	needle "commit $h" 'the commit asked about'
	needle "    $s" 'its subject'
}

if selected command-git-log-stat-hashlist; then
	git_repo
	commit_needles 'the digest is a hash list'
	cmd_case git-log-stat-hashlist "git log --stat $git_at" 'Find the commit that made the store digest a hash list of chunk digests'
fi
if selected command-git-log-p-gc; then
	git_repo
	commit_needles 'purges expired and broken'
	needle_re '^@@ -\d+,\d+ \+\d+,\d+ @@ func \(d \*Dir\) gc\(ctx context\.Context\) \(GCStats, error\) \{' 'the hunk of the function asked about'
	cmd_case git-log-p-gc "git log -p $git_at -- store/dir_gc.go" 'When did GC start purging broken entries in the same loop as expired ones'
fi
if selected command-git-log-oneline-mcp; then
	git_repo
	needle "$(git log --format='%h %s' -1 --grep='faithful JSON-RPC proxy' $git_at)" 'the commit asked about'
	cmd_case git-log-oneline-mcp "git log --oneline $git_at" 'Which commit added the crumb mcp proxy'
fi
if selected command-git-log-fuller-speed; then
	git_repo
	commit_needles 'report the median'
	needle_re '^CommitDate: .*' 'when it was committed (the first commit date shown)'
	cmd_case git-log-fuller-speed "git log --format=fuller $git_at" 'When did bench --speed start reporting the median of several runs'
fi
if selected command-git-blame-gc; then
	git_repo
	needle_re '^\S+ .*\) func \(d \*Dir\) gc\(ctx context\.Context\) \(GCStats, error\) \{' 'the blame line of the function asked about'
	cmd_case git-blame-gc "git blame $git_at -- store/dir_gc.go" 'Who last changed the gc function of the disk store'
fi
if selected command-git-blame-visible; then
	git_repo
	needle_re '^\S+ .*\) func Visible\(c \*Case, n Needle, view string\) bool \{' 'the blame line of the function asked about'
	cmd_case git-blame-visible "git blame $git_at -- bench/evaluate.go" 'Which commit wrote the Visible rule of the benchmark'
fi
if selected command-git-diff-stat-range; then
	git_repo
	needle_re '^ \d+ files changed, .*' 'the summary line'
	needle_re '^ project/dir_intent\.go +\| +\d+ .*' 'the file asked about'
	cmd_case git-diff-stat-range 'git diff --stat bcaa636 e0b167b' 'How much of project/dir_intent.go changed between the corpus commit and the directory goldens'
fi
if selected command-git-diff-bench; then
	git_repo
	needle_re '^diff --git a/bench/summary\.go b/bench/summary\.go' 'the file asked about'
	needle_re '^\+func Summarize\(.*' 'the function asked about, as added'
	cmd_case git-diff-bench 'git diff bcaa636 f4e5cbc -- bench/' 'How Summarize was written since the corpus commit'
fi
if selected command-git-show-gc; then
	git_repo
	needle_re '^diff --git a/store/dir_gc\.go b/store/dir_gc\.go' 'the file the commit changed'
	needle_re '^@@ .* @@ .*' 'its first hunk'
	cmd_case git-show-gc 'git show c698d1f' 'Show the change that made GC one loop'
fi
if selected command-git-shortlog; then
	git_repo
	needle_re '^\S.* \(\d+\):$' 'the author and their count'
	cmd_case git-shortlog "git shortlog $git_at" 'Summarise the history by author'
fi
if selected command-git-log-grep-miss; then
	git_repo
	cmd_case git-log-grep-miss "git log --oneline --grep=kubernetes $git_at" 'Find commits about kubernetes'
fi
if selected command-git-bad-revision; then
	git_repo
	needle_re "^fatal: .*" 'the error'
	cmd_case git-bad-revision 'git log --oneline v9.9.9..HEAD' 'List the commits since v9.9.9'
fi
