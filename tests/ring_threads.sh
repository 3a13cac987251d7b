#!/usr/bin/env bash
# Threaded programs recorded in a ring that wraps replay consistently.
#
# The failure this guards against: a thread's slice ran a code page that
# another thread had logged, in a part of that thread's stream the ring
# evicted or the replay skips (before its first kept checkpoint), so the
# replay had no CODE_PAGE for it (#PF where the recording had none). A
# ring's thread switch now un-logs the code pages (man/idna.5, RING MODE).
# Whether a recording has that shape depends on the threads' timing, so
# this records several --chaos schedules: before the fix about half of the
# threads_ring recordings below diverged (5 of 10 seeds, then 8 of 8 runs
# of seeds 1, 2 and 4), so all eight passing by luck has odds of about
# 1 in 250; threads_many (64 threads, whose finished threads' chunks go to
# the file early) diverged in a ring too.
set -u
programs=$(cd "$(dirname "$0")/programs" && pwd)
. "$(dirname "$0")/shared/checks.sh"

verify_ring() { # name ttrec-options... -- command...
	local name=$1; shift
	"$build/ttrec" run -q -o "$name.idna" "$@" > "$name.out" 2> "$name.err"
	if "$build/ttreplay" --verify "$name.idna" > "$name.verify" 2>&1 &&
	   grep -q "consistent with the recording" "$name.verify"; then ok
	else bad "ttreplay --verify $name: $(tail -1 "$name.verify")"; fi
}

cc -D_GNU_SOURCE -g -O0 -pthread -o threads_ring "$programs/threads_ring.c" || exit 1
cc -D_GNU_SOURCE -g -O1 -pthread -o threads_many "$programs/threads_many.c" || exit 1

for seed in 1 2 3 4 5 6 7 8; do
	verify_ring "threads_ring-$seed" --chaos="$seed" --ring 1M --checkpoint-interval 1M ./threads_ring
done
# The ring wrapped (its first chunk was evicted): the test is about what
# it kept.
first_chunk=$("$build/ttdump" threads_ring-1.idna 2>/dev/null |
	awk '/^  seq stream/ { t = 1; next } t && !/^ +[0-9]+ +[0-9]+ / { t = 0 }
	     t && (min == "" || $1 < min) { min = $1 } END { print min }')
if [ -n "$first_chunk" ] && [ "$first_chunk" -gt 0 ]; then ok
else bad "threads_ring's ring did not wrap (first kept chunk: '$first_chunk')"; fi

verify_ring threads_many --ring 1M ./threads_many
for seed in 1 2 3; do
	verify_ring "threads_many-$seed" --chaos="$seed" --ring 1M ./threads_many
done

finish ring_threads
