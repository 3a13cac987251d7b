#!/usr/bin/env bash
# memory_bounds.sh — memory follows what is live, not how many threads
# were ever made nor how long the recording ran. Peak RSS
# (/usr/bin/time -f %M, which load does not change) of:
#   ttrec over a history 16 times longer: at most 8 MB more;
#   ttrec and ttreplay --verify over 200 threads made one after the other
#   against 25: per extra thread at most 4 times what it costs now (about
#   27 KB in ttrec, 110 KB in the replay), far below the 0.4 and 1.5 MB a
#   thread ever made used to keep;
#   a gdb session (continue, then reverse-continue to a breakpoint in a
#   thread) and ttreplay --verify over 64 threads alive at once: at most
#   about 4 times their size now (112 and 42 MB; the session took 1.3 GB).
# The bounds are loose on purpose: they catch memory kept per thread ever
# made or per instruction, not the allocator's noise. Skipped under the
# sanitizers, whose shadow memory is the bulk of RSS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/shared/checks.sh"
if [ "${SAN:-0}" != 0 ]; then echo "memory_bounds: skipped under SAN"; exit 0; fi
if [ ! -x /usr/bin/time ]; then echo "memory_bounds: skipped (no /usr/bin/time)"; exit 0; fi
programs=$build/tests/programs

peak() { # NAME COMMAND...: runs COMMAND (output to NAME.out), prints its peak RSS in KB
	local name=$1; shift
	/usr/bin/time -o "$name.rss" -f %M "$@" > "$name.out" 2>&1 || { echo "FAIL: $name: $(tail -2 "$name.out")" >&2; }
	tail -1 "$name.rss"
}
at_most() { # VALUE BOUND DESCRIPTION
	if [ -n "$1" ] && [ "$1" -le "$2" ]; then ok; echo "ok: $3: $1 KB (bound $2 KB)"
	else bad "$3: ${1:-?} KB, bound $2 KB"; fi
}

short=$(peak short "$build/ttrec" run -q -o short.idna "$programs/long_history" plain 40)
long=$(peak long "$build/ttrec" run -q -o long.idna "$programs/long_history" plain 640)
at_most "$long" $(( ${short:-0} + 8192 )) "ttrec over a 16 times longer history (short one: ${short:-?} KB)"

cc -O1 -pthread -o threads_serial "$here/replay/programs/threads_serial.c" || exit 1
rec25=$(peak rec25 "$build/ttrec" run -q -o t25.idna ./threads_serial 25)
rec200=$(peak rec200 "$build/ttrec" run -q -o t200.idna ./threads_serial 200)
at_most $(( ${rec200:-0} - ${rec25:-0} )) $(( 175 * 110 )) "ttrec: 175 more threads made one at a time"
ver25=$(peak ver25 "$build/ttreplay" --verify t25.idna)
ver200=$(peak ver200 "$build/ttreplay" --verify t200.idna)
at_most $(( ${ver200:-0} - ${ver25:-0} )) $(( 175 * 440 )) "ttreplay --verify: 175 more threads made one at a time"

"$build/ttrec" run -q -o many.idna "$programs/threads_many" > many.out 2>&1 || bad "recording threads_many: $(tail -1 many.out)"
at_most "$(peak many-verify "$build/ttreplay" --verify many.idna)" $(( 170 * 1024 )) "ttreplay --verify of 64 threads at once"
gdb -batch -nx -ex 'set remotetimeout 600' "$programs/threads_many" \
	-ex "target remote | /usr/bin/time -o session.rss -f %M $build/ttreplay many.idna" \
	-ex continue -ex 'break work' -ex reverse-continue -ex 'info threads' > session.out 2>&1
expect session.out 'Breakpoint 1, work' "the session reached the breakpoint in a thread backwards"
at_most "$(tail -1 session.rss 2>/dev/null)" $(( 450 * 1024 )) "a gdb session over 64 threads at once"

finish memory_bounds
