#!/usr/bin/env bash
# ttreplay --jobs: the first pass of --verify and --info cut into ranges
# of the history replayed at once says exactly what one replay of the
# whole history says (--jobs 1: one range, from the start to the end,
# with no snapshot, as --no-index has it), and so does a session's
# serial pass.
# Recordings long enough to be cut (tests/programs/long_history.c: one
# thread plain, with signals, killed by SIGABRT; a ring that wrapped; two
# threads), then damaged traces (truncated, a
# damaged chunk): --verify's output and status and --info's lines (and
# JSON) under --jobs 1, 2 and 3 are compared; the time a pass took is
# the one figure that differs. A changed record halfway through makes the
# replay of the middle range fail (tests/shared/damage_chunk.py).
set -u
shared=$(cd "$(dirname "$0")/shared" && pwd)
. "$shared/checks.sh"
program=$build/tests/programs/long_history

# pass TRACE JOBS: verify.JOBS (stdout, the time left out, and status),
# verify-err.JOBS (stderr without the ranges note), info.JOBS, json.JOBS,
# ranges.JOBS (how many ranges --verify replayed at once: 1 if serial).
pass() {
	local trace=$1 jobs=$2
	"$build/ttreplay" --verify --no-index --jobs "$jobs" "$trace" > verify.raw 2> verify.err
	echo "status $?" >> verify.raw
	sed -E 's/in [0-9.]+ s \([0-9.]+ M instructions\/s\)/in T s/' verify.raw > "verify.$jobs"
	sed -nE 's/^ttreplay: the first pass replayed ([0-9]+) ranges.*/\1/p' verify.err > "ranges.$jobs"
	[ -s "ranges.$jobs" ] || echo 1 > "ranges.$jobs"
	grep -v -e "ranges of the history at once" -e "ran on one core" verify.err > "verify-err.$jobs"
	"$build/ttreplay" --info --no-index --jobs "$jobs" "$trace" > "info.$jobs" 2>&1
	echo "status $?" >> "info.$jobs"
	"$build/ttreplay" --info --json --no-index --jobs "$jobs" "$trace" > "json.$jobs" 2>&1
}

# jobs_agree NAME TRACE RANGES-WITH-3-JOBS: every answer with 2 and 3 jobs is
# the serial one, and 3 jobs did cut the history into that many ranges.
jobs_agree() {
	local name=$1 trace=$2 want=$3
	for jobs in 1 2 3; do pass "$trace" "$jobs"; done
	for jobs in 2 3; do
		for what in verify verify-err info json; do
			if cmp -s "$what.1" "$what.$jobs"; then ok
			else bad "$name: $what with --jobs $jobs differs: $(diff "$what.1" "$what.$jobs" | head -4 | tr '\n' ' ')"; fi
		done
	done
	if [ "$(cat ranges.3)" = "$want" ]; then ok
	else bad "$name: --jobs 3 replayed $(cat ranges.3) ranges, not $want"; fi
	cp verify.1 "$name.verify"
}

record() { # NAME TTREC-OPTIONS... -- ARGS...: NAME.idna
	local name=$1; shift
	"$build/ttrec" run -q -o "$name.idna" "$@" > "$name.out" 2> "$name.err"
}

# A trace is cut at its checkpoints: one every million instructions.
record plain --checkpoint-interval 1M -- "$program" plain
jobs_agree plain plain.idna 3
# A session's serial pass (with snapshots: one that writes the index)
# says the same, the snapshots it took counted as the ranges count them.
cp plain.idna serial.idna
"$build/ttreplay" --info --jobs 1 serial.idna > info.serial 2>&1
echo "status $?" >> info.serial
if cmp -s info.1 info.serial; then ok
else bad "plain: the serial pass's --info differs: $(diff info.1 info.serial | head -4 | tr '\n' ' ')"; fi
expect plain.verify 'consistent with the recording' "plain replays consistently"

record signal --checkpoint-interval 1M -- "$program" signal
jobs_agree signal signal.idna 3
expect signal.verify ' 4 signals' "the signals of every range are counted once"

record abort --checkpoint-interval 1M -- "$program" abort
jobs_agree abort abort.idna 3
expect abort.verify 'killed by signal 6' "the kill is the last range's"
expect abort.verify 'consistent with the recording' "the killed program replays consistently"

# A ring that wrapped: history starts at its first kept checkpoint.
record ring --ring 1M --checkpoint-interval 1M -- "$program" plain 120
jobs_agree ring ring.idna 3
expect ring.verify 'consistent with the recording' "the ring replays consistently"

# More ranges than checkpoints: every checkpoint starts one.
pass plain.idna 1
pass plain.idna 64
n=$(cat ranges.64)
if [ "$n" -gt 3 ] && cmp -s verify.1 verify.64 && cmp -s info.1 info.64; then ok
else bad "--jobs 64: $n ranges, or the answers differ"; fi

# Two threads: cut where the waiting thread's next slice begins with a
# checkpoint (the recorder gives it one at each interval).
record threads --checkpoint-interval 1M -- "$program" threads
jobs_agree threads threads.idna 3
expect threads.verify 'consistent with the recording' "the threaded trace replays consistently"
# With no checkpoint but each thread's first, it stays serial and says why.
record lone --checkpoint-interval 1G -- "$program" threads
pass lone.idna 2
expect verify.err 'one core: a trace of several threads with no checkpoint' "--verify says why a threaded trace is not cut"

# Damaged: the intact prefix of a truncated trace, and a damaged chunk.
head -c 300000 plain.idna > truncated.idna
jobs_agree truncated truncated.idna 3
expect truncated.verify 'status 2' "a truncated trace is status 2 both ways"
cp plain.idna flipped.idna
printf '\377\377\377\377' | dd of=flipped.idna bs=1 seek=200000 conv=notrunc 2> /dev/null
jobs_agree flipped flipped.idna 1
expect flipped.verify 'status 65' "a damaged trace is refused both ways"

# A replay that goes wrong in the middle range: the first failure in
# history order decides, with the serial pass's message, though the range
# after it replays well. A byte of the records of the chunk halfway
# through is changed (the first change that makes the replay fail).
found=0
for pos in 100 140 180 220 260 300 340 380 420 460; do
	python3 "$shared/damage_chunk.py" plain.idna wrong.idna 0.5 "$pos" || break
	"$build/ttreplay" --verify --no-index --jobs 1 wrong.idna > /dev/null 2> wrong.err
	if grep -q 'diverged' wrong.err; then found=1; break; fi
done
if [ $found = 1 ]; then
	jobs_agree wrong wrong.idna 3
	expect wrong.verify 'status 65' "a replay that goes wrong is refused both ways"
	expect verify-err.1 'diverged from the trace at time' "the failure is the serial pass's"
else bad "no changed byte made the replay of plain.idna go wrong"; fi

# A bad --jobs is a usage error.
for arg in 0 -1 x 1025; do
	"$build/ttreplay" --verify --jobs "$arg" plain.idna > /dev/null 2> jobs.err
	status_is 64 $? "--jobs $arg"
done
expect jobs.err "bad --jobs" "a bad --jobs says so"

finish replay_jobs
