#!/usr/bin/env bash
# A session's first pass on several cores (replayer/pass_join.h) makes
# what the serial pass makes: a history cut at checkpoints every million
# instructions (tests/programs/long_history.c "fresh": each part of it
# reads memory it never touched, maps and unmaps memory, writes pages of
# its own) shows under --jobs 1, 2 and 3 the same checksum of every
# snapshot's state and summaries and of the first reads' image, the same
# memory and registers at times in several ranges, the same monitor info;
# an index made with --jobs 2 loads into a session showing the same and
# holds the same snapshot frames, byte for byte.
# Threads with no checkpoint but their first (no place to cut), a ring that wrapped
# and a truncated trace stay on one core and say why; past the snapshot
# memory budget the ranges spill their snapshots, the session keeps
# those records as they are, and the pass stays on two cores (with no
# spill file to be made, the serial pass goes on).
set -u
shared=$(cd "$(dirname "$0")/shared" && pwd)
script=$(cd "$(dirname "$0")/replay" && pwd)/pass_join.gdb
. "$shared/checks.sh"
program=$build/tests/programs/long_history

# session TRACE OUT TTREPLAY-OPTIONS...: the script's output, without the
# lines that differ from run to run (progress, pids).
session() {
	local trace=$1 out=$2; shift 2
	gdb -batch -nx -ex 'set remotetimeout 600' "$program" \
		-ex "target remote | $build/ttreplay $* $trace" -x "$script" > "$out.raw" 2>&1
	grep -v -e 'reading the trace' -e 'process [0-9]' -e '/proc/' "$out.raw" > "$out"
}

# cores TRACE OUT TTREPLAY-OPTIONS...: what ttreplay --index (the same
# pass as a session's) says of its cores, in OUT.cores.
cores() {
	local trace=$1 out=$2; shift 2
	rm -f "$trace.idx"
	"$build/ttreplay" --index "$@" "$trace" > /dev/null 2> "$out.cores"
	rm -f "$trace.idx"
}

# 1000000, not 1M: checkpoints off the snapshots' 2^22 grid, so that a
# range's first part joins a segment begun by the range before.
"$build/ttrec" run -q -o fresh.idna --checkpoint-interval 1000000 -- \
	"$program" fresh 200 > fresh.out 2> fresh.err || bad "recording fresh failed: $(cat fresh.err)"

session fresh.idna serial --no-index --jobs 1
expect serial 'future [0-9a-f]' "the serial session prints the checksums"
n=$(grep -cE '^[0-9]+ [0-9a-f]{16}$' serial)
if [ "$n" -ge 30 ]; then ok; else bad "only $n snapshots"; fi
cores fresh.idna serial --jobs 1
if ! grep -q 'at once' serial.cores; then ok; else bad "--jobs 1 says: $(cat serial.cores)"; fi
for jobs in 2 3; do
	session fresh.idna "jobs$jobs" --no-index --jobs "$jobs"
	if cmp -s serial "jobs$jobs"; then ok
	else bad "--jobs $jobs shows another pass: $(diff serial "jobs$jobs" | head -6 | tr '\n' ' ')"; fi
	cores fresh.idna "jobs$jobs" --jobs "$jobs"
	expect "jobs$jobs.cores" "replayed $jobs ranges of the history at once" "--jobs $jobs cuts the pass"
done

# The index made on two cores is the serial pass's: sessions loading one
# made with --jobs 1 and one made with --jobs 2 show the same.
for jobs in 1 2; do
	"$build/ttreplay" --index --jobs "$jobs" fresh.idna > "index$jobs.out" 2> "index$jobs.err"
	status_is 0 $? "ttreplay --index --jobs $jobs"
	session fresh.idna "indexed$jobs" --jobs 1
	expect "indexed$jobs" 'first pass: read from' "the session read the index made with --jobs $jobs"
	mv fresh.idna.idx "index$jobs.idx"
done
# Its snapshots' frames (compressed on --jobs threads) are the same bytes:
# all but the header and the directory, which holds the pass's seconds.
frames_of() {
	head -c $(( $(od -An -tu8 -j40 -N8 "$1") )) "$1" | tail -c +65
}
if cmp -s <(frames_of index1.idx) <(frames_of index2.idx); then ok
else bad "the index made on two cores has other snapshot frames"; fi
expect index2.err 'replayed 2 ranges of the history at once' "--index says it used two cores"
if cmp -s indexed1 indexed2; then ok
else bad "the index made on two cores shows another pass: $(diff indexed1 indexed2 | head -6 | tr '\n' ' ')"; fi

# What stays serial, and says why.
"$build/ttrec" run -q -o threads.idna --checkpoint-interval 1G -- "$program" threads 40 \
	> /dev/null 2>&1
cores threads.idna threads --jobs 2
expect threads.cores 'one core: a trace of several threads with no checkpoint' "threads with no cut stay on one core and say why"
"$build/ttrec" run -q -o ring.idna --ring 1M --checkpoint-interval 1000000 -- "$program" plain 120 \
	> /dev/null 2>&1
cores ring.idna ring --jobs 2
expect ring.cores 'one core: a ring trace' "a ring that wrapped stays on one core"
head -c 2000000 fresh.idna > truncated.idna
cores truncated.idna truncated --jobs 2
expect truncated.cores 'one core: a truncated trace' "a truncated trace stays on one core"

# Past the snapshot memory budget the ranges' workers spill their
# snapshots as the serial pass does its own, and the pass stays on two
# cores with the same result.
cores fresh.idna budget --jobs 2 --snapshot-memory 1M
expect budget.cores 'replayed 2 ranges of the history at once' "past the budget the pass stays on two cores"
spilled=$(sed -n 's/.* \([0-9]*\) of their snapshots went to a spill file.*/\1/p' budget.cores)
if [ "${spilled:-0}" -gt 0 ]; then ok; else bad "no range spilled a snapshot: $(cat budget.cores)"; fi
# The session keeps them in the spill file as their ranges wrote them
# (with a patch completing each), not read back and written again.
adopted=$(sed -n 's/.*went to a spill file, \([0-9]*\) kept there as written.*/\1/p' budget.cores)
if [ "${adopted:-0}" = "$spilled" ]; then ok
else bad "of $spilled spilled range snapshots ${adopted:-none} were kept as written: $(cat budget.cores)"; fi
session fresh.idna budget --no-index --jobs 2 --snapshot-memory 1M
grep -v 'snapshots in the spill file' serial > serial.nospill
grep -v 'snapshots in the spill file' budget > budget.nospill
if cmp -s serial.nospill budget.nospill; then ok
else bad "past the budget the pass differs: $(diff serial.nospill budget.nospill | head -6 | tr '\n' ' ')"; fi
expect budget 'snapshots in the spill file' "past the budget the session's snapshots went to the spill file"
# An index made so is the serial pass's too.
"$build/ttreplay" --index --jobs 2 --snapshot-memory 1M fresh.idna > /dev/null 2> budget.index.err
status_is 0 $? "ttreplay --index --jobs 2 --snapshot-memory 1M"
session fresh.idna budget.indexed --jobs 1
rm -f fresh.idna.idx
if cmp -s indexed1 budget.indexed; then ok
else bad "the index made past the budget differs: $(diff indexed1 budget.indexed | head -6 | tr '\n' ' ')"; fi

# With no spill file to be made, the ranges' snapshots are dropped and the
# serial pass (which thins its own) goes on, and says why.
nowhere=$PWD/no-such-folder
HOME=$nowhere XDG_CACHE_HOME=$nowhere TMPDIR=$nowhere \
	cores fresh.idna nospill --jobs 2 --snapshot-memory 1M
expect nospill.cores 'one core: .*snapshot memory budget \(no spill file\)' \
	"past the budget with no spill file the pass goes back to one core"

finish pass_join
