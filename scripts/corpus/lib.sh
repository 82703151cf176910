# lib.sh holds the helpers make.sh and the case scripts share. It is sourced,
# not run. A case is made in three steps:
#
#   needle 'exact text' 'why the agent needs it'        (any number, 1-5)
#   needle_re 'PCRE' 'why'                               (the first match in the output)
#   needle_last_re 'PCRE' 'why'                          (the last match in the output)
#   cmd_case NAME 'shell command line' ['description']  (runs it: output, exit code, meta)
#   or: save_case NAME KIND TOOL ARGS_JSON < output      (any other output)
#
# Needles given with needle_re are resolved against the output once it
# exists, so that lines with timestamps, pids or addresses can be needles
# without typing them. Every needle is checked to occur in the output; a case
# whose needle is missing is reported and counted as a failure.

# stage is where cases are written before they are copied into the corpus.
: "${stage:?stage must be set before sourcing lib.sh}"

failures=0
pending=()   # pairs: "lit:TEXT" or "re:PCRE", then WHY
note=""      # an optional note for the next case's meta.json

needle() { pending+=("lit:$1" "$2"); }
needle_re() { pending+=("re:$1" "$2"); }
needle_last_re() { pending+=("last:$1" "$2"); }

# selected reports whether case NAME is to be made: all of them when no names
# were given on the command line, else those named (or whose name starts
# with a name given followed by "*"). With list_only set (make.sh -l), it
# prints NAME and makes nothing.
selected() {
	local n
	if [ -n "${list_only:-}" ]; then
		printf '%s\n' "$1"
		return 1
	fi
	[ ${#only[@]} -eq 0 ] && return 0
	for n in "${only[@]}"; do
		# shellcheck disable=SC2053
		[[ $1 == $n ]] && return 0
	done
	return 1
}

# fresh NAME: an empty project directory under $work, made current.
fresh() {
	rm -rf "${work:?}/$1"
	mkdir -p "$work/$1"
	cd "$work/$1" || exit 1
}

# resolve_needles DIR: writes the pending needles, resolved against
# DIR/output, as a JSON array to DIR/needles.json, and clears them.
resolve_needles() {
	local dir=$1
	local named=() i spec text why count k=0
	for ((i = 0; i < ${#pending[@]}; i += 2)); do
		spec=${pending[i]} why=${pending[i + 1]}
		case $spec in
		lit:*) text=${spec#lit:} ;;
		re:* | last:*)
			if [ "${spec%%:*}" = re ]; then
				text=$(grep -aoP -m1 -- "${spec#re:}" "$dir/output" | head -n1)
			else
				text=$(grep -aoP -- "${spec#last:}" "$dir/output" | tail -n1)
			fi
			if [ -z "$text" ]; then
				echo "error: $(basename "$dir"): no match for needle pattern ${spec#*:}" >&2
				failures=$((failures + 1))
				continue
			fi
			;;
		esac
		count=$(grep -aoF -- "$text" "$dir/output" | wc -l)
		if [ "$count" -eq 0 ]; then
			echo "error: $(basename "$dir"): needle not in output: $text" >&2
			failures=$((failures + 1))
			continue
		fi
		[ "$count" -gt 1 ] && echo "note: $(basename "$dir"): needle occurs $count times: $text" >&2
		case $text in *$'\n'*) echo "error: $(basename "$dir"): needle spans lines: $text" >&2 && failures=$((failures + 1)) && continue ;; esac
		named+=(--arg "t$k" "$text" --arg "w$k" "$why")
		k=$((k + 1))
	done
	jq -n --argjson n "$k" "${named[@]}" '[range(0; $n) as $i | {text: $ARGS.named["t\($i)"], why: $ARGS.named["w\($i)"]}]' >"$dir/needles.json"
	pending=()
}

# write_meta DIR KIND TOOL ARGS_JSON EXIT: writes DIR/meta.json with the
# pending needles resolved against DIR/output. EXIT may be empty.
write_meta() {
	local dir=$1 kind=$2 tool=$3 args=$4 code=$5
	resolve_needles "$dir"
	jq -n --arg kind "$kind" --arg tool "$tool" --argjson args "$args" --arg code "$code" --arg note "$note" --slurpfile needles "$dir/needles.json" '
		{kind: $kind, tool: $tool, args: $args}
		+ (if $code == "" then {} else {exit_code: ($code | tonumber)} end)
		+ {needles: $needles[0]}
		+ (if $note == "" then {} else {note: $note} end)' >"$dir/meta.json"
	rm -f "$dir/needles.json"
	note=""
	report "$dir"
}

# merge_meta DIR: adds the pending needles to DIR/meta.json as written by
# another program (mcpcapture), keeping its other fields.
merge_meta() {
	local dir=$1
	resolve_needles "$dir"
	jq --slurpfile needles "$dir/needles.json" '.needles = $needles[0]' "$dir/meta.json" >"$dir/meta.json.new" &&
		mv "$dir/meta.json.new" "$dir/meta.json"
	rm -f "$dir/needles.json"
	report "$dir"
}

# report DIR: prints a line about the case just made.
report() {
	local dir=$1 kind code
	kind=$(jq -r .kind "$dir/meta.json")
	code=$(jq -r '.exit_code // "-"' "$dir/meta.json")
	printf '%-36s %-8s exit %-4s %8d lines %10d bytes\n' "$(basename "$dir")" "$kind" "$code" \
		"$(wc -l <"$dir/output")" "$(wc -c <"$dir/output")"
}

# bash_args CMDLINE [DESCRIPTION]: the arguments of a shell tool call, as
# Claude Code's Bash tool takes them: the command and what it is for.
bash_args() {
	jq -n --arg c "$1" --arg d "${2:-}" '{command: $c} + (if $d == "" then {} else {description: $d} end)'
}

# cmd_case NAME CMDLINE [DESCRIPTION]: runs CMDLINE with bash in the current
# directory, as an agent's shell tool would (no terminal, stdout and stderr
# on one pipe), and saves it as case command-NAME with tool "bash".
cmd_case() {
	local name=command-$1 cmdline=$2 dir
	dir=$stage/$name
	mkdir -p "$dir"
	bash -c "$cmdline" </dev/null >"$dir/output" 2>&1
	local code=$?
	write_meta "$dir" command bash "$(bash_args "$cmdline" "${3:-}")" "$code"
}

# save_case NAME KIND TOOL ARGS_JSON [EXIT]: saves standard input as case NAME.
save_case() {
	local dir=$stage/$1
	mkdir -p "$dir"
	cat >"$dir/output"
	write_meta "$dir" "$2" "$3" "$4" "${5:-}"
}

# wait_port PORT: waits for a TCP port on 127.0.0.1 to accept connections.
wait_port() {
	local i
	for i in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	echo "error: port $1 never opened" >&2
	return 1
}

# variant BASE NAME: a fresh copy of the project $work/BASE as $work/NAME,
# made current: each failing run gets its own copy with one fault in it.
variant() {
	rm -rf "${work:?}/$2"
	cp -r "$work/$1" "$work/$2"
	cd "$work/$2" || exit 1
}

# inject FILE PERL: puts one fault into FILE with a perl substitution (run
# over the whole file, -0); a substitution that changes nothing is an error,
# so that a case never runs without its fault.
inject() {
	local before
	before=$(sha256sum <"$1")
	perl -0pi -e "$2" "$1"
	if [ "$(sha256sum <"$1")" = "$before" ]; then
		echo "error: the fault changed nothing in $1: $2" >&2
		failures=$((failures + 1))
	fi
}
