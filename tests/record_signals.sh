#!/bin/bash
# record_signals.sh — signals aimed at ttrec (man/ttrec.1, SIGNALS SENT TO
# TTREC). Each case runs in a process group of its own (setsid, or a job
# of this script with job control on), so that the program's kill(0, ...)
# reaches ttrec and the program, never this script.
#   - the program signals its parent (ttrec) or its group: ttrec survives,
#     the program's fate and output are those of its native run, the
#     trace replays consistently;
#   - a user's SIGTERM, SIGINT or SIGHUP to ttrec: the recording ends, the
#     program (waiting in pause()) is killed, ttrec exits 128+N with a
#     message, and the trace is complete (replays to the recorded end).
set -u
BUILD=${BUILD:-build}
BUILD=$(cd "$BUILD" && pwd)
TTREC=$BUILD/ttrec
PROG=$BUILD/tests/programs/signal_ttrec
LIMIT=60
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	failed=1
}

verify() { # verify NAME TRACE
	if ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$2" >"$tmp/$1.verify" 2>&1; then
		fail "$1: replay: $(tail -1 "$tmp/$1.verify")"
		return 1
	fi
}

for mode in parent-int group-abrt group-usr1; do
	# (in a shell of its own: its "Aborted" line is not ours)
	bash -c 'cd "$1" && setsid -w "$2" "$3"' - "$tmp" "$PROG" "$mode" >"$tmp/$mode.native" 2>/dev/null
	native_rc=$?
	(cd "$tmp" && timeout "$LIMIT" setsid -w "$TTREC" run -q -o "$tmp/$mode.idna" -- "$PROG" "$mode") \
		>"$tmp/$mode.rec" 2>"$tmp/$mode.err"
	rec_rc=$?
	if [ $rec_rc -ne $native_rc ] || ! cmp -s "$tmp/$mode.native" "$tmp/$mode.rec"; then
		fail "$mode: exit $rec_rc (natively $native_rc), output:"
		diff "$tmp/$mode.native" "$tmp/$mode.rec" | head -5
		cat "$tmp/$mode.err"
		continue
	fi
	if ! "$BUILD/ttdump" "$tmp/$mode.idna" | grep -q 'process-exit'; then
		fail "$mode: the trace has no end (ttrec died?)"
		continue
	fi
	verify "$mode" "$tmp/$mode.idna" && echo "ok: $mode (exit $rec_rc)"
done

# The program stops ttrec (its parent): ttrec answers for it instead of
# stopping, and says so; the program goes on (natively its parent stops,
# so there is no native run to compare with).
(cd "$tmp" && timeout "$LIMIT" setsid -w "$TTREC" run -o "$tmp/parent-stop.idna" -- "$PROG" parent-stop) \
	>"$tmp/parent-stop.out" 2>"$tmp/parent-stop.err"
rc=$?
if [ $rc -ne 0 ] || [ "$(cat "$tmp/parent-stop.out")" != "$(printf 'stop parent: 0, 0\nstill here')" ] ||
   ! grep -q "^ttrec: the program's signal could not be delivered: a stop signal sent to ttrec (its parent) answered 0 without effect (2 times)" "$tmp/parent-stop.err"; then
	fail "parent-stop: exit $rc, output and stderr:"
	cat "$tmp/parent-stop.out" "$tmp/parent-stop.err"
else
	verify parent-stop "$tmp/parent-stop.idna" && echo "ok: parent-stop (ttrec not stopped)"
fi

# A user's signal to ttrec alone: this script is the sender, from outside
# the job's process group.
set -m
for sig in TERM INT HUP; do
	num=$(kill -l "$sig")
	out=$tmp/user-$sig
	# Default dispositions: a script started in the background has SIGINT
	# ignored, and ttrec leaves an ignored signal ignored.
	env --default-signal=INT,TERM,HUP "$TTREC" run -q -o "$out.idna" -- "$PROG" wait \
		>"$out.out" 2>"$out.err" &
	pid=$!
	for _ in $(seq 600); do
		grep -q ready "$out.out" 2>/dev/null && break
		sleep 0.1
	done
	kill -"$sig" "$pid"
	# A ttrec that does not end must fail the test, not hang it.
	(sleep "$LIMIT"; kill -KILL "$pid" 2>/dev/null) &
	watchdog=$!
	wait "$pid"
	rc=$?
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	if [ $rc -ne $((128 + num)) ] || ! grep -q "^ttrec: recording ended by signal $num " "$out.err"; then
		fail "user $sig: exit $rc (want $((128 + num))), stderr:"
		cat "$out.err"
		continue
	fi
	# Complete: the trace ends with the program's death, which replay
	# reaches.
	if ! "$BUILD/ttdump" "$out.idna" | grep -q 'process-exit'; then
		fail "user $sig: the trace has no end"
		continue
	fi
	verify "user-$sig" "$out.idna" && echo "ok: user $sig (exit $rc)"
done
# timeout(1), ttrec's parent and in its process group, is outside too: a
# recording it bounds ends at its SIGTERM, with a complete trace.
set +m
timeout --preserve-status 1 env --default-signal=TERM "$TTREC" run -q -o "$tmp/timeout.idna" -- "$PROG" wait \
	>"$tmp/timeout.out" 2>"$tmp/timeout.err"
rc=$?
if [ $rc -ne 143 ] || ! "$BUILD/ttdump" "$tmp/timeout.idna" | grep -q 'process-exit'; then
	fail "timeout: exit $rc (want 143) or no end in the trace:"
	cat "$tmp/timeout.err"
else
	verify timeout "$tmp/timeout.idna" && echo "ok: timeout's SIGTERM (exit $rc)"
fi
exit $failed
