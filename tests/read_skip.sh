#!/usr/bin/env bash
# Read watchpoints skip the snapshot segments whose instructions read no
# watched page (the segments' read pages, replayer/replay_session.h):
# rwatch and awatch, continue and reverse-continue, and monitor
# last-read/next-read find a variable's reads some 96 M instructions
# apart, identically in a session whose forward continues run the first
# pass as they go (--no-index: they skip nothing), one that made the
# whole pass first, and one that read the replay index; the last two skip
# segments forward, and all skip them backward (monitor info counts
# both). A backward stop at a read is the instruction just before where
# the forward continue that does not skip stopped after it.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o read_far "$here/programs/read_far.c" || exit 1
"$build/ttrec" run -q -o read_far.idna ./read_far > /dev/null || exit 1

# session OUT FIRST-COMMAND [TTREPLAY-OPTIONS]: what gdb shows from the
# script's first part on, less the lines that differ by how the pass was
# made and the skip counts (OUT.raw: all of it).
session() {
	local out=$1 first=$2; shift 2
	gdb -batch -nx -ex 'set remotetimeout 600' ./read_far \
		-ex "target remote | $build/ttreplay $* read_far.idna" -ex "$first" \
		-x "$here/read_far.gdb" > "$out.raw" 2>&1
	sed -n '/^@@ /,$p' "$out.raw" |
		grep -vE '^(ttreplay: reading the trace|first pass: |segments .* skipped: )' > "$out"
}
skipped() { # skipped OUT forward|backward
	sed -n "s/^segments $2 [a-z]* skipped: \([0-9]*\)$/\1/p" "$1.raw"
}
# times OUT: the times monitor when showed, one a line.
times() { sed -n 's/^time \([0-9]*\) of [0-9]*$/\1/p' "$1"; }
# at OUT PART: the time shown in the script's part whose title starts so.
at() { sed -n "/^@@ $2/,/^@@ /s/^time \([0-9]*\) of [0-9]*$/\1/p" "$1" | head -1; }

# stop_in OUT FUNCTION LINE DESCRIPTION: a stop in FUNCTION whose source
# line shown matches LINE (ERE, after the line number and the blanks):
# forward stops show the line after the access, backward ones the access.
stop_in() {
	if grep -A1 -E "^$2 \(.*\) at .*read_far\.c:[0-9]+$" "$1" | grep -qE "^[0-9]+[[:space:]]+$3"; then ok
	else bad "$4"; fi
}

session ahead.out echo --no-index
stop_in ahead.out first_read '}$' "forward: the first read"
stop_in ahead.out second_read '}$' "forward: the second read"
stop_in ahead.out second_read 'return watched\[0\];$' "backward: the second read"
stop_in ahead.out first_read 'return watched\[0\];$' "backward: the first read"
stop_in ahead.out then_write '}$' "awatch: the write ahead"
expect ahead.out '^@@ figures' "the script ran to its end"
[ "$(times ahead.out | wc -l)" = 8 ] && ok || bad "monitor when: $(times ahead.out | tr '\n' ' ')"
f1=$(at ahead.out 'forward: the first') f2=$(at ahead.out 'forward: the second')
b2=$(at ahead.out 'backward: the second') b1=$(at ahead.out 'backward: the first')
[ -n "$f1" ] && [ -n "$f2" ] && [ "$((f2 - f1))" -gt 90000000 ] && ok ||
	bad "the reads are not far apart: $f1, $f2"
[ "$b2" = "$((f2 - 1))" ] && [ "$b1" = "$((f1 - 1))" ] && ok ||
	bad "backward stops at $b2 and $b1, forward ones after $f2 and $f1"
expect ahead.out "^next-read of \[0x[0-9a-f]+, \+8\): time $b1, " "monitor next-read from the start"
expect ahead.out "^last-read of \[0x[0-9a-f]+, \+8\): time $b1, " "monitor last-read, far back"
expect ahead.out "^next-read of \[0x[0-9a-f]+, \+8\): time $b2, " "monitor next-read, far ahead"
[ "$(skipped ahead.out backward)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped backward: $(grep '^segments' ahead.out.raw)"

session whole.out 'monitor snapshots' --no-index
same ahead.out whole.out "the session that made the pass first"
[ "$(skipped whole.out forward)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped forward after the pass: $(grep '^segments' whole.out.raw)"

"$build/ttreplay" --index read_far.idna > /dev/null 2>&1
session indexed.out echo
same ahead.out indexed.out "the session that read the index"
expect indexed.out.raw '^first pass: read from .*read_far\.idna\.idx$' "the index was read"
[ "$(skipped indexed.out forward)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped forward with the index: $(grep '^segments' indexed.out.raw)"
[ "$(skipped indexed.out backward)" -gt 0 ] 2>/dev/null && ok ||
	bad "no segment skipped backward with the index: $(grep '^segments' indexed.out.raw)"

finish read_skip
