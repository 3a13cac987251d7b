#!/bin/bash
# record_jit.sh — the block translator changes how fast ttrec records, not
# what it records. Programs that do the same thing on every run are
# recorded with ASLR off, once with --no-jit and once with translation
# (which must have translated blocks). The program's output is the same,
# and so is every record but the misses, in the same order: system calls
# with their registers, code pages, checkpoints, key frames with their
# instruction counts (one instruction more or less anywhere shows there).
# Misses are compared by number only: whether a read was predicted can
# depend on a value that differs from run to run natively too (the
# kernel's random bytes behind the stack protector, say), so two runs of
# the same recorder already place a few misses differently. Left out
# as well: values read from clocks and the TSC, process and thread ids
# (the nondeterministic-instruction records, system call results). Both
# traces must replay consistently (ttreplay --verify), to the same history
# with and without translating in the replay (ttreplay --no-jit).
set -u
. "$(dirname "$0")/shared/checks.sh"
TTREC=$build/ttrec
TTREPLAY=$build/ttreplay
TTDUMP=$build/ttdump
PROGRAMS=$build/tests/programs
LIMIT=300
export LC_ALL=C

if ! setarch -R true 2>/dev/null; then
	bad "setarch -R (no ASLR) does not work here: cannot compare traces"
	finish record_jit
	exit
fi

# The records of a trace but its misses, without what varies from run to
# run (the kernel's writes: where and how many bytes, not which: random
# bytes, times, the stack's random canary).
records() {
	"$TTDUMP" --records "$1" |
		sed -n '/^records (stream/,/^records by type/p' |
		grep -v -e ' nondet ' -e 'tid=' -e '^[0-9:+]* miss ' |
		sed -e 's/^[0-9]*:[0-9]*+[0-9]* //' \
			-e 's/ result=-\{0,1\}[0-9]*//' -e 's/ rax=0x[0-9a-f]*//' \
			-e '/^kernel-write /s/ bytes=[0-9a-f]*//'
}

misses() {
	"$TTDUMP" --records "$1" | grep -c '^[0-9:+]* miss '
}

# compare NAME INPUT -- COMMAND... (rec_opts: more options of both
# recordings)
compare() {
	local name=$1 input=$2
	shift 3
	local why="" rc_i rc_j
	# shellcheck disable=SC2086 # rec_opts: words
	timeout "$LIMIT" setarch -R "$TTREC" run ${rec_opts:-} --no-jit -o "$name.i.idna" -- "$@" \
		<"$input" >"$name.i.out" 2>"$name.i.err"
	rc_i=$?
	# shellcheck disable=SC2086
	timeout "$LIMIT" setarch -R "$TTREC" run ${rec_opts:-} -o "$name.j.idna" -- "$@" \
		<"$input" >"$name.j.out" 2>"$name.j.err"
	rc_j=$?
	[ $rc_i -eq $rc_j ] || why="exit status $rc_j, $rc_i interpreted"
	cmp -s "$name.i.out" "$name.j.out" || why="$why${why:+; }output differs"
	grep -q ' blocks translated' "$name.i.err" && why="$why${why:+; }--no-jit translated blocks"
	local translated
	translated=$(sed -n 's/.*, \([0-9]*\) blocks translated.*/\1/p' "$name.j.err")
	[ -n "$translated" ] || why="$why${why:+; }nothing translated"
	records "$name.i.idna" >"$name.i.rec"
	records "$name.j.idna" >"$name.j.rec"
	if [ ! -s "$name.i.rec" ]; then
		why="$why${why:+; }no records"
	elif ! cmp -s "$name.i.rec" "$name.j.rec"; then
		why="$why${why:+; }records differ: $(diff "$name.i.rec" "$name.j.rec" | head -4 | tr '\n' ' ')"
	fi
	local mi mj
	mi=$(misses "$name.i.idna")
	mj=$(misses "$name.j.idna")
	# A few misses placed differently, as between two runs of either.
	if [ $((mi > mj ? mi - mj : mj - mi)) -gt $((mi / 1000 + 16)) ]; then
		why="$why${why:+; }$mj misses, $mi interpreted"
	fi
	for t in i j; do
		"$TTREPLAY" --verify "$name.$t.idna" >"$name.$t.verify" 2>&1 ||
			why="$why${why:+; }replay of the $t trace: $(tail -1 "$name.$t.verify")"
		# Replayed with and without translation: the same history.
		"$TTREPLAY" --info "$name.$t.idna" >"$name.$t.info" 2>&1
		"$TTREPLAY" --no-jit --info "$name.$t.idna" >"$name.$t.info-i" 2>&1
		cmp -s "$name.$t.info" "$name.$t.info-i" ||
			why="$why${why:+; }replays of the $t trace differ with --no-jit"
	done
	verdict "$name ($(wc -l <"$name.j.rec") records alike, $mj misses ($mi interpreted), $translated blocks translated)" "$why"
}

awk 'BEGIN { srand(5); for (i = 0; i < 100000; i++) printf "%d\n", int(rand() * 2^31) - 2^30 }' \
	>numbers.txt
awk 'BEGIN { srand(3); for (i = 0; i < 30000; i++)
	printf "%08d %x %s\n", i, int(rand() * 2^31), (rand() < 0.5 ? "alpha" : "beta") }' >text.txt

# -S: sort sizes its buffer from the free memory sysinfo reports, which
# differs from run to run.
compare sort numbers.txt -- sort --parallel=1 -S 8M -n
compare gzip text.txt -- gzip -n -6 -c
compare sha256sum text.txt -- sha256sum
compare awk text.txt -- awk '{ n[$3]++; s += length($2) } END { print n["alpha"], n["beta"], s }'
# The interpreter itself: a version manager's python3 may be a shell script,
# whose children end at times no run repeats (SIGCHLD); -B: no .pyc
# written by the first run for the second to read.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')
compare python3 /dev/null -- env PYTHONHASHSEED=0 "$PYTHON" -B -c \
	'print(sum(i * i % 7 for i in range(30000)), sorted({str(i): i for i in range(500)})[:3])'
compare self_modifying /dev/null -- "$PROGRAMS/self_modifying"
compare x87_modulo /dev/null -- "$PROGRAMS/x87_modulo"
compare hot_code_writes /dev/null -- "$PROGRAMS/hot_code_writes"
# Checkpoints between the call and the next write (each forgets which
# code pages were logged): the write to the page of decoded code must
# still not be made inline.
rec_opts="--checkpoint-interval 997" compare hot_code_writes_checkpoints /dev/null -- \
	"$PROGRAMS/hot_code_writes"
compare signals /dev/null -- "$PROGRAMS/segv_longjmp"

finish record_jit
