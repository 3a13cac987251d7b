# undo_sessions.sh — what tests/undo_steps.sh and tests/undo_continues.sh
# share, sourced after checks.sh: one gdb session over a trace with
# backward moves shown from the undo log (replayer/gdb_undo.c) and the
# same session with the log off (`monitor undo-log off`, and `monitor
# info` after each move, which brings the replay to the time shown and
# forgets the log: every move replays), and what each stop shows in both.

# undo_script SETUP EXTRA MOVES DUMPS...: SETUP, then each line of MOVES
# followed by EXTRA and by DUMPS (the commands showing the stop).
undo_script() {
	echo "$1"
	local extra=$2 moves=$3 i=0 move d
	shift 3
	while IFS= read -r move; do
		i=$((i + 1))
		echo "$move"
		[ -n "$extra" ] && echo "$extra"
		echo "echo ==== step $i\\n"
		for d in "$@"; do echo "$d"; done
	done <<< "$moves"
	echo 'monitor info'
}

# What each stop shows, without the monitor's answers.
undo_shown() {
	sed -n '/^==== step 1$/,$p' "$1" |
		grep -vE '^(first pass|instructions|syscalls|signals|snapshots|moves|segments|trace|replay index|  )'
}

# undo_sessions NAME PROGRAM TRACE SETUP MOVES DUMPS...: runs both
# sessions (NAME-undo.out, NAME-replayed.out; what they show in
# NAME-*.shown) and checks that every move shows the same in both.
undo_sessions() {
	local name=$1 prog=$2 trace=$3 setup=$4 moves=$5
	shift 5
	undo_script "$setup" '' "$moves" "$@" > "$name-undo.gdb"
	undo_script "monitor undo-log off
$setup" 'monitor info' "$moves" "$@" > "$name-replayed.gdb"
	local side n
	n=$(printf '%s\n' "$moves" | wc -l)
	for side in undo replayed; do
		gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
			-ex "target remote | $build/ttreplay $trace" -x "$name-$side.gdb" \
			< /dev/null > "$name-$side.out" 2>&1
		undo_shown "$name-$side.out" > "$name-$side.shown"
	done
	if [ "$(grep -c '^==== step' "$name-undo.shown")" = "$n" ] &&
	   cmp -s "$name-undo.shown" "$name-replayed.shown"; then ok
	else bad "$name: moves from the log differ from replayed ones: $(diff "$name-undo.shown" "$name-replayed.shown" | head -6 | tr '\n' ' ')"; fi
}

# undo_count FILE WHAT: the last count `monitor info` gave of
# "moves WHAT: N" in FILE.
undo_count() {
	sed -n "s/^moves $2: //p" "$1" | tail -1
}

# undo_at_least NAME WHAT WANT: the session from the log made at least
# WANT such moves, the reference session none.
undo_at_least() {
	local got
	got=$(undo_count "$1-undo.out" "$2")
	if [ -n "$got" ] && [ "$got" -ge "$3" ]; then ok
	else bad "$1: moves $2: '$got' (want at least $3)"; fi
	got=$(undo_count "$1-replayed.out" "$2")
	if [ "$got" = 0 ]; then ok
	else bad "$1: the reference session has moves $2: '$got'"; fi
}
