#!/bin/bash
# trace_format_old.sh — `ttrec run --trace-format=1.4` and `=1.5` write the
# formats before 1.6, whose prediction caches hash each 8-byte line alone
# (1.4) or 64-byte blocks by a multiplier (1.5) instead of mapping lines
# directly: the header says so, the program behaves as natively, and
# ttreplay replays the trace consistently (the recorder's misses, from
# interpreted and from translated code, and the replayer's, inline too,
# agree only if all hash the same way). Threads and --follow-fork
# children write the same version. The default is 1.6, direct-mapped; any
# other version than these is refused.
set -u
. "$(dirname "$0")/shared/checks.sh"
TTREC=$build/ttrec
TTREPLAY=$build/ttreplay
TTDUMP=$build/ttdump
PROGRAMS=$build/tests/programs
LIMIT=300
export LC_ALL=C

# old VERSION NAME [TTREC OPTIONS...] -- COMMAND...: recorded as VERSION
# against a native run, each trace written (the children's too) dumped
# and replayed.
old() {
	local version=$1 name=$2 opts=() hash
	shift 2
	case $version in
	1.4) hash='each hashed alone' ;;
	1.5) hash='hashed by 64-byte blocks' ;;
	*) hash='direct-mapped' ;;
	esac
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	local why="" rc_n rc_r
	"$@" <numbers.txt >"$name.native" 2>/dev/null
	rc_n=$?
	timeout "$LIMIT" "$TTREC" run -q --trace-format="$version" "${opts[@]}" -o "$name.idna" -- "$@" \
		<numbers.txt >"$name.out" 2>"$name.err"
	rc_r=$?
	[ $rc_r -eq $rc_n ] || why="exit status $rc_r, natively $rc_n: $(tail -2 "$name.err" | tr '\n' ' ')"
	cmp -s "$name.native" "$name.out" || why="$why${why:+; }output differs"
	local t n=0
	for t in "$name".idna "$name".*.idna; do
		[ -f "$t" ] || continue
		n=$((n + 1))
		"$TTDUMP" "$t" >"$t.dump" 2>&1
		grep -q "^trace format ${version//./\\.}," "$t.dump" || why="$why${why:+; }$t: $(head -1 "$t.dump")"
		grep -q "entries of 8 bytes, $hash;" "$t.dump" ||
			why="$why${why:+; }$t: not $hash: $(sed -n 2p "$t.dump")"
		timeout "$LIMIT" "$TTREPLAY" --verify "$t" >"$t.verify" 2>&1 ||
			why="$why${why:+; }$t: $(tail -1 "$t.verify")"
	done
	verdict "$name ($n traces)" "$why"
}

awk 'BEGIN { srand(5); for (i = 0; i < 20000; i++) printf "%d\n", int(rand() * 2^31) - 2^30 }' \
	>numbers.txt

for version in 1.4 1.5; do
	old $version sort-$version -- sort --parallel=1 -S 8M -n
	old $version sort-interpreted-$version --no-jit -- sort --parallel=1 -S 8M -n
	old $version threads-$version -- "$PROGRAMS/threads_sync"
	old $version fork-$version --follow-fork -- "$PROGRAMS/fork_pipe"
done
old 1.6 sort-1.6 -- sort --parallel=1 -S 8M -n

# The default is the current format.
"$TTREC" run -q -o default.idna -- true >/dev/null 2>default.err
"$TTDUMP" default.idna >default.dump 2>&1
why=""
grep -q '^trace format 1\.6,' default.dump || why="$(head -1 default.dump)"
grep -q 'direct-mapped;' default.dump || why="$why${why:+; }$(sed -n 2p default.dump)"
verdict "the default is 1.6, direct-mapped" "$why"

"$TTREC" run -q --trace-format=1.3 -o bad.idna -- true >/dev/null 2>bad.err
rc=$?
why=""
[ $rc -eq 64 ] || why="exit status $rc"
grep -q 'trace-format 1.3' bad.err || why="$why${why:+; }message: $(cat bad.err)"
[ -e bad.idna ] && why="$why${why:+; }a trace was written"
verdict "--trace-format=1.3 refused" "$why"

finish trace_format_old
