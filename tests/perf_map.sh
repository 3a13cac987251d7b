#!/bin/bash
# perf_map.sh — TTREC_PERF_MAP=1 has ttrec write perf's map of its
# translated code (/tmp/perf-PID.map: "START SIZE NAME" in hex), a line
# per part of each translation, named by the block's guest address; a
# recording without it writes none; a symbolic link planted at the map's
# path is not followed, and the recording goes on without a map.
set -u
. "$(dirname "$0")/shared/checks.sh"
TTREC=$build/ttrec
LOOP=$build/tests/programs/counter_loop

# record PIDFILE ENV... : ttrec run of the hot loop as this shell's pid
# (exec), after any link planted at that pid's map (PLANT=target) or a
# stale map of ours left there (STALE=1).
record() {
	local pidfile=$1
	shift
	bash -c 'echo $$ > "$0"
		map=/tmp/perf-$$.map
		[ -n "${PLANT:-}" ] && ln -s "$PLANT" "$map"
		[ -n "${STALE:-}" ] && yes "stale line" | head -100000 > "$map"
		exec env "$@"' "$pidfile" "$@" "$TTREC" run -q -o t.idna "$LOOP" 2 \
		>out 2>err
}

# The map's lines well formed, each translation's parts one after another
# from a cache line past its 128-byte header (jit_code.c), none
# overlapping another, all within one 64 MiB code area. Prints why not.
check_map() {
	sort "$1" | awk '
		!/^[0-9a-f]+ [0-9a-f]+ guest_0x[0-9a-f]+\.(entry|body|end|misses|exits)$/ {
			print "bad line: " $0; exit }
		{
			start = strtonum("0x" $1); size = strtonum("0x" $2)
			split($3, name, "."); part = name[2]
			if (size == 0) { print "empty part: " $0; exit }
			if (NR > 1 && start < last_end) { print "overlap: " $0; exit }
			if (part == "entry" && start % 64 != 0) { print "entry not on a cache line: " $0; exit }
			if (part != "entry" && (name[1] != block || start != last_end)) {
				print "part apart from its entry: " $0; exit }
			if (part == "entry") block = name[1]
			if (NR == 1) low = start
			last_end = start + size; n++
		}
		END {
			if (n == 0) print "no lines"
			else if (last_end - low > 64 * 1024 * 1024) print "wider than the code area"
		}'
}

rm -f pid
record pid TTREC_PERF_MAP=1
status=$?
map=/tmp/perf-$(cat pid).map
status_is 23 $status "recording with TTREC_PERF_MAP=1"
if [ -f "$map" ]; then
	passed "map written at /tmp/perf-PID.map"
	verdict "map lines well formed, parts adjacent, no overlaps" "$(check_map "$map")"
	expect "$map" '\.body$' "map names translations' bodies"
	rm -f "$map"
else
	bad "no map at $map"
fi
refuse err 'perf map' "no message about the map"

record pid2 TTREC_PERF_MAP=0
status_is 23 $? "recording with TTREC_PERF_MAP=0"
map=/tmp/perf-$(cat pid2).map
if [ -e "$map" ]; then bad "map written without TTREC_PERF_MAP=1"; rm -f "$map"; else passed "no map without TTREC_PERF_MAP=1"; fi

touch target
PLANT=$PWD/target record pid3 TTREC_PERF_MAP=1
status_is 23 $? "recording with a link planted at the map's path"
map=/tmp/perf-$(cat pid3).map
[ -s target ] && bad "the planted link was followed: $(head -2 target)" || ok
[ -L "$map" ] && ok || bad "the planted link was replaced"
expect err "^ttrec: perf map $map: open: " "the map's failure said"
[ "$(grep -c 'perf map' err)" -eq 1 ] && ok || bad "the map's failure said more than once: $(cat err)"
rm -f "$map"

STALE=1 record pid4 TTREC_PERF_MAP=1
status_is 23 $? "recording over a stale map of ours"
map=/tmp/perf-$(cat pid4).map
verdict "a stale map of ours replaced" "$(check_map "$map")"
rm -f "$map"

finish perf_map
