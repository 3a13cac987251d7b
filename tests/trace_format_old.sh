#!/bin/bash
# trace_format_old.sh — `ttrec run --trace-format=1.4` writes the format
# before 1.5, whose prediction cache hashes each 8-byte line alone: the
# header says 1.4 and 8-byte lines, the program behaves as natively, and
# ttreplay replays the trace consistently (the recorder's misses, from
# interpreted and from translated code, and the replayer's agree only if
# both hash the 1.4 way). Threads and --follow-fork children write 1.4 too.
# Any other version than 1.4 and the current one is refused.
set -u
. "$(dirname "$0")/shared/checks.sh"
TTREC=$build/ttrec
TTREPLAY=$build/ttreplay
TTDUMP=$build/ttdump
PROGRAMS=$build/tests/programs
LIMIT=300
export LC_ALL=C

# old NAME [TTREC OPTIONS...] -- COMMAND...: recorded as 1.4 against a
# native run, each trace written (the children's too) dumped and replayed.
old() {
	local name=$1 opts=()
	shift
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	local why="" rc_n rc_r
	"$@" <numbers.txt >"$name.native" 2>/dev/null
	rc_n=$?
	timeout "$LIMIT" "$TTREC" run -q --trace-format=1.4 "${opts[@]}" -o "$name.idna" -- "$@" \
		<numbers.txt >"$name.out" 2>"$name.err"
	rc_r=$?
	[ $rc_r -eq $rc_n ] || why="exit status $rc_r, natively $rc_n: $(tail -2 "$name.err" | tr '\n' ' ')"
	cmp -s "$name.native" "$name.out" || why="$why${why:+; }output differs"
	local t n=0
	for t in "$name".idna "$name".*.idna; do
		[ -f "$t" ] || continue
		n=$((n + 1))
		"$TTDUMP" "$t" >"$t.dump" 2>&1
		grep -q '^trace format 1\.4,' "$t.dump" || why="$why${why:+; }$t: $(head -1 "$t.dump")"
		grep -q 'entries of 8 bytes' "$t.dump" || why="$why${why:+; }$t: no 8-byte cache lines"
		timeout "$LIMIT" "$TTREPLAY" --verify "$t" >"$t.verify" 2>&1 ||
			why="$why${why:+; }$t: $(tail -1 "$t.verify")"
	done
	verdict "$name ($n traces)" "$why"
}

awk 'BEGIN { srand(5); for (i = 0; i < 20000; i++) printf "%d\n", int(rand() * 2^31) - 2^30 }' \
	>numbers.txt

old sort -- sort --parallel=1 -S 8M -n
old sort-interpreted --no-jit -- sort --parallel=1 -S 8M -n
old threads -- "$PROGRAMS/threads_sync"
old fork --follow-fork -- "$PROGRAMS/fork_pipe"

"$TTREC" run -q --trace-format=1.3 -o bad.idna -- true >/dev/null 2>bad.err
rc=$?
why=""
[ $rc -eq 64 ] || why="exit status $rc"
grep -q 'trace-format 1.3' bad.err || why="$why${why:+; }message: $(cat bad.err)"
[ -e bad.idna ] && why="$why${why:+; }a trace was written"
verdict "--trace-format=1.3 refused" "$why"

finish trace_format_old
