#!/usr/bin/env bash
# The first pass of a threaded program on several cores (pass_join.h,
# pass_parallel.h; replayer/resim_cut.c) makes what the serial pass makes:
# three threads that compute (the recorder gives waiting threads
# checkpoints, so the history can be cut), recorded with a ring large
# enough to keep everything, show under --jobs 1, 2 and 3 the same checksum
# of every snapshot's state, the same threads and registers at times in
# several ranges, the same steps back across threads (also recorded
# without a ring and with checkpoints rarer than slices, where fewer
# places cut); --verify and an index made on two cores agree with the
# serial ones. A threaded trace with no place to cut stays on one core and
# says why. Threads that exit before the end, or are made in the middle
# of the history, do not keep it from being cut, nor do threads blocked
# across many checkpoint intervals, which the recorder gives no new
# checkpoint while they run nothing (the replay starts them from their
# last).
set -u
shared=$(cd "$(dirname "$0")/shared" && pwd)
script=$(cd "$(dirname "$0")/replay" && pwd)/pass_join_threads.gdb
. "$shared/checks.sh"
program=$build/tests/programs/threads_compute

# session TRACE OUT TTREPLAY-OPTIONS...: the script's output, without the
# lines that differ from run to run.
session() {
	local trace=$1 out=$2; shift 2
	gdb -batch -nx -ex 'set remotetimeout 600' "$program" \
		-ex "target remote | $build/ttreplay $* $trace" -x "$script" > "$out.raw" 2>&1
	grep -v -e 'reading the trace' -e '/proc/' -e 'New Thread' "$out.raw" > "$out"
}

# cores TRACE OUT TTREPLAY-OPTIONS...: what ttreplay --index says of its
# cores, in OUT.cores (the index left in OUT.idx).
cores() {
	local trace=$1 out=$2; shift 2
	rm -f "$trace.idx"
	"$build/ttreplay" --index "$@" "$trace" > /dev/null 2> "$out.cores"
	mv "$trace.idx" "$out.idx" 2> /dev/null
}

"$build/ttrec" run -q -o ring.idna --ring 1G --checkpoint-interval 1000000 -- \
	"$program" 3000 > ring.out 2> ring.err || bad "recording failed: $(cat ring.err)"

session ring.idna serial --no-index --jobs 1
n=$(grep -cE '^[0-9]+ [0-9a-f]{16}$' serial)
if [ "$n" -ge 8 ]; then ok; else bad "only $n snapshots: $(head -5 serial)"; fi
expect serial '^ +4 +Thread ' "the serial session lists four threads"
refuse serial 'rip +0x0 ' "every thread has registers"
for jobs in 2 3; do
	session ring.idna "jobs$jobs" --no-index --jobs "$jobs"
	same serial "jobs$jobs" "--jobs $jobs shows another pass"
	cores ring.idna "jobs$jobs" --jobs "$jobs"
	expect "jobs$jobs.cores" "replayed $jobs ranges of the history at once" "--jobs $jobs cuts the pass"
done

# No ring, checkpoints rarer than slices: most slices begin without one,
# and the history is cut only where every waiting thread's next slice does.
"$build/ttrec" run -q -o rare.idna --checkpoint-interval 2500000 -- \
	"$program" 3000 > /dev/null 2>&1
session rare.idna rare1 --no-index --jobs 1
session rare.idna rare3 --no-index --jobs 3
same rare1 rare3 "with rarer checkpoints --jobs 3 shows another pass"
cores rare.idna rare3 --jobs 3
expect rare3.cores "replayed 3 ranges of the history at once" \
	"with rarer checkpoints --jobs 3 cuts the pass"

# The index made on two cores is the serial pass's (its snapshot frames
# the same bytes: all but the header and the directory, which holds the
# pass's seconds), and a session reading it shows the same.
cores ring.idna serial --jobs 1
frames_of() {
	head -c $(( $(od -An -tu8 -j40 -N8 "$1") )) "$1" | tail -c +65
}
if cmp -s <(frames_of serial.idx) <(frames_of jobs2.idx); then ok
else bad "the index made on two cores has other snapshot frames"; fi
for jobs in 1 2; do
	cp "$( [ "$jobs" = 1 ] && echo serial || echo jobs2).idx" ring.idna.idx
	session ring.idna "indexed$jobs" --jobs 1
	expect "indexed$jobs" 'first pass: read from' "the session read the index made with --jobs $jobs"
done
rm -f ring.idna.idx
same indexed1 indexed2 "the index made on two cores shows another pass"

# --verify (the summary alone) on two cores: the same figures, consistent.
verify() {
	"$build/ttreplay" --verify --no-index --jobs "$1" ring.idna > "verify$1" 2>&1
	status_is 0 $? "ttreplay --verify --jobs $1"
	sed -E 's/ in [0-9.]+ s \([0-9.]+ M instructions\/s\)//' "verify$1" | grep -v 'at once' \
		> "verify$1.body"
}
verify 1
verify 2
expect verify2 'replayed 2 ranges of the history at once' "--verify --jobs 2 cuts the pass"
expect verify2 'consistent with the recording' "--verify --jobs 2 is consistent"
same verify1.body verify2.body "--verify --jobs 2 says another thing"

# An interval longer than the run: no thread has a checkpoint but its
# first, and the others have begun at every one of those; one core, and why.
"$build/ttrec" run -q -o plain.idna --checkpoint-interval 1G -- "$program" 3000 \
	> /dev/null 2>&1
cores plain.idna plain --jobs 2
expect plain.cores 'one core: a trace of several threads with no checkpoint' \
	"a threaded trace with no cut stays on one core and says why"

# Threads that come and go (tests/programs/threads_stages.c): a range
# starts where some have exited (the range knows them finished, the join
# takes the rest of their state from the range before), where one is
# made and has not run yet (created, as the serial pass has it), or where
# workers blocked on a condition variable have run nothing since their
# last checkpoint, logged intervals before (idle: they start there; asleep:
# the same workers never woken, blocked when the process ends). Under
# --jobs 3 the same snapshots, threads and registers, the same index
# frames and --verify figures as on one core.
program=$build/tests/programs/threads_stages
for shape in exits clones idle asleep; do
	"$build/ttrec" run -q -o "$shape.idna" --checkpoint-interval 1000000 -- \
		"$program" 3000 "$shape" > /dev/null 2> "$shape.err" ||
		bad "recording threads_stages $shape failed: $(cat "$shape.err")"
	session "$shape.idna" "${shape}1" --no-index --jobs 1
	session "$shape.idna" "${shape}3" --no-index --jobs 3
	same "${shape}1" "${shape}3" "threads_stages $shape: --jobs 3 shows another pass"
	cores "$shape.idna" "${shape}1" --jobs 1
	cores "$shape.idna" "${shape}3" --jobs 3
	expect "${shape}3.cores" "replayed 3 ranges of the history at once" \
		"threads_stages $shape: --jobs 3 cuts the pass"
	if cmp -s <(frames_of "${shape}1.idx") <(frames_of "${shape}3.idx"); then ok
	else bad "threads_stages $shape: the index made on three cores has other snapshot frames"; fi
	for jobs in 1 3; do
		"$build/ttreplay" --verify --no-index --jobs "$jobs" "$shape.idna" > "$shape.verify$jobs" 2>&1
		status_is 0 $? "threads_stages $shape: ttreplay --verify --jobs $jobs"
		sed -E 's/ in [0-9.]+ s \([0-9.]+ M instructions\/s\)//' "$shape.verify$jobs" |
			grep -v 'at once' > "$shape.verify$jobs.body"
	done
	expect "$shape.verify3" 'replayed 3 ranges of the history at once' \
		"threads_stages $shape: --verify --jobs 3 cuts the pass"
	same "$shape.verify1.body" "$shape.verify3.body" \
		"threads_stages $shape: --verify --jobs 3 says another thing"
done
# The idle workers have no checkpoints but their first and one after they
# block (no new one at each of the main thread's while they run nothing).
ckpts=$("$build/ttdump" idle.idna 2> /dev/null | awk '$2 == 3 && NF >= 7 { n += $7 } END { print n + 0 }')
if [ "$ckpts" -le 3 ]; then ok
else bad "an idle worker has $ckpts checkpoints: it got one at each interval"; fi

finish pass_join_threads
