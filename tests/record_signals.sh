#!/bin/bash
# record_signals.sh — signals aimed at ttrec (man/ttrec.1, SIGNALS SENT TO
# TTREC) and job control. Each case runs in a process group of its own
# (setsid, a job of this script with job control on, or a job of
# tests/programs/job_parent, a parent with job control), so that the
# program's kill(0, ...) reaches ttrec and the program, never this script.
#   - the program signals its group: ttrec survives, the program's fate
#     and output are those of its native run, the trace replays
#     consistently;
#   - the program signals its parent (ttrec): the parent of ttrec gets
#     it, as natively the program's parent does; one that sends it back
#     (as timeout(1) does) reaches the program;
#   - the program stops (itself or its process group): its parent sees
#     the job stop, and the job goes on at a SIGCONT to the group or to
#     ttrec alone, the program's SIGCONT handler first;
#   - a user's SIGTERM, SIGINT or SIGHUP to ttrec reaches the program
#     (waiting in pause(), it dies of it: ttrec exits 128+N); a second one
#     ends the recording (ttrec kills the program, says so and exits
#     128+N); the trace is complete (replays to the recorded end).
set -u
. "$(dirname "$0")/shared/checks.sh"
BUILD=$build
tmp=$work
TTREC=$BUILD/ttrec
PROG=$BUILD/tests/programs/signal_ttrec
LIMIT=60

verify() { # verify NAME TRACE
	if ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$2" >"$tmp/$1.verify" 2>&1; then
		bad "$1: replay: $(tail -1 "$tmp/$1.verify")"
		return 1
	fi
}

for mode in group-abrt group-usr1; do
	# (in a shell of its own: its "Aborted" line is not ours)
	bash -c 'cd "$1" && setsid -w "$2" "$3"' - "$tmp" "$PROG" "$mode" >"$tmp/$mode.native" 2>/dev/null
	native_rc=$?
	(cd "$tmp" && timeout "$LIMIT" setsid -w "$TTREC" run -q -o "$tmp/$mode.idna" -- "$PROG" "$mode") \
		>"$tmp/$mode.rec" 2>"$tmp/$mode.err"
	rec_rc=$?
	if [ $rec_rc -ne $native_rc ] || ! cmp -s "$tmp/$mode.native" "$tmp/$mode.rec"; then
		bad "$mode: exit $rec_rc (natively $native_rc), output:"
		diff "$tmp/$mode.native" "$tmp/$mode.rec" | head -5
		cat "$tmp/$mode.err"
		continue
	fi
	if ! "$BUILD/ttdump" "$tmp/$mode.idna" | grep -q 'process-exit'; then
		bad "$mode: the trace has no end (ttrec died?)"
		continue
	fi
	verify "$mode" "$tmp/$mode.idna" && passed "$mode (exit $rec_rc)"
done

# The program stops ttrec (its parent): ttrec answers for it instead of
# stopping, and says so; the program goes on (natively its parent stops,
# so there is no native run to compare with).
(cd "$tmp" && timeout "$LIMIT" setsid -w "$TTREC" run -o "$tmp/parent-stop.idna" -- "$PROG" parent-stop) \
	>"$tmp/parent-stop.out" 2>"$tmp/parent-stop.err"
rc=$?
if [ $rc -ne 0 ] || [ "$(cat "$tmp/parent-stop.out")" != "$(printf 'stop parent: 0, 0\nstill here')" ] ||
   ! grep -q "^ttrec: the program's signal could not be delivered: a stop signal sent to ttrec (its parent) answered 0 without effect (2 times)" "$tmp/parent-stop.err"; then
	bad "parent-stop: exit $rc, output and stderr:"
	cat "$tmp/parent-stop.out" "$tmp/parent-stop.err"
else
	verify parent-stop "$tmp/parent-stop.idna" && passed "parent-stop (ttrec not stopped)"
fi

# Under a parent with job control: the same output and status as the
# native run (the parent's own lines included: the stops it saw, the
# signals it got from its child).
JOB_PARENT=$BUILD/tests/programs/job_parent
STOPPER=$BUILD/tests/programs/job_stop_self
while read -r name parent_opts prog mode; do
	[ "$parent_opts" = - ] && parent_opts=
	# shellcheck disable=SC2086 # options: one word or none
	timeout "$LIMIT" "$JOB_PARENT" $parent_opts -- "$prog" "$mode" >"$tmp/$name.native" 2>&1
	native_rc=$?
	# shellcheck disable=SC2086
	(cd "$tmp" && timeout "$LIMIT" "$JOB_PARENT" $parent_opts -- "$TTREC" run -q -o "$tmp/$name.idna" -- "$prog" "$mode") \
		>"$tmp/$name.rec" 2>"$tmp/$name.err"
	rec_rc=$?
	if [ $rec_rc -ne $native_rc ] || ! cmp -s "$tmp/$name.native" "$tmp/$name.rec"; then
		bad "$name: exit $rec_rc (natively $native_rc), output:"
		diff "$tmp/$name.native" "$tmp/$name.rec" | head -8
		cat "$tmp/$name.err"
		continue
	fi
	verify "$name" "$tmp/$name.idna" && passed "$name (exit $rec_rc)"
done <<CASES
parent-int --count $PROG parent-int
term-parent --relay $PROG term-parent
tstp-self - $STOPPER tstp-self
tstp-self-cont-pid --cont-pid $STOPPER tstp-self
stop-group - $STOPPER stop-group
stop-group-cont-pid --cont-pid $STOPPER stop-group
CASES

# A user's signal to ttrec alone: this script is the sender, from outside
# the job's process group. The first reaches the program.
set -m
start_waiting() { # start_waiting NAME MODE: ttrec in the background, $pid
	# Default dispositions: a script started in the background has SIGINT
	# ignored, and ttrec leaves an ignored signal ignored.
	env --default-signal=INT,TERM,HUP "$TTREC" run -q -o "$1.idna" -- "$PROG" "$2" \
		>"$1.out" 2>"$1.err" &
	pid=$!
	for _ in $(seq 600); do
		grep -q ready "$1.out" 2>/dev/null && break
		sleep 0.1
	done
}
wait_bounded() { # wait_bounded: ttrec's status, in $rc
	# A ttrec that does not end must fail the test, not hang it. The
	# watchdog ends by itself once ttrec is gone, never by a kill: a
	# subshell signalled before it has reset its traps runs this script's
	# EXIT trap, which removes $work under the cases still to come.
	(for _ in $(seq $((LIMIT * 10))); do
		kill -0 "$pid" 2>/dev/null || exit 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null) &
	watchdog=$!
	wait "$pid"
	rc=$?
	wait "$watchdog"
}
complete() { # complete NAME TRACE: the trace ends with the program's death
	if ! "$BUILD/ttdump" "$2" | grep -q 'process-exit'; then
		bad "$1: the trace has no end"
		return 1
	fi
	verify "$1" "$2"
}
for sig in TERM INT HUP; do
	num=$(kill -l "$sig")
	out=$tmp/user-$sig
	start_waiting "$out" wait
	kill -"$sig" "$pid"
	wait_bounded
	if [ $rc -ne $((128 + num)) ] || ! grep -q "^ttrec: the program was killed by signal $num " "$out.err"; then
		bad "user $sig: exit $rc (want $((128 + num))), stderr:"
		cat "$out.err"
		continue
	fi
	complete "user-$sig" "$out.idna" && passed "user $sig (exit $rc)"
done
# A program that handles the first: the second ends the recording.
out=$tmp/user-twice
start_waiting "$out" wait-term
kill -TERM "$pid"
for _ in $(seq 600); do
	grep -q "SIGTERM handled" "$out.out" 2>/dev/null && break
	sleep 0.1
done
kill -TERM "$pid"
wait_bounded
if [ $rc -ne 143 ] || ! grep -q "^ttrec: recording ended by signal 15 " "$out.err" ||
   ! grep -q "SIGTERM handled: waiting on" "$out.out"; then
	bad "user TERM twice: exit $rc (want 143), output and stderr:"
	cat "$out.out" "$out.err"
else
	complete user-twice "$out.idna" && passed "user TERM twice (exit $rc)"
fi
# timeout(1), ttrec's parent and in its process group, is outside too: a
# recording it bounds ends at its SIGTERM, with a complete trace.
set +m
timeout --preserve-status 1 env --default-signal=TERM "$TTREC" run -q -o "$tmp/timeout.idna" -- "$PROG" wait \
	>"$tmp/timeout.out" 2>"$tmp/timeout.err"
rc=$?
if [ $rc -ne 143 ] || ! "$BUILD/ttdump" "$tmp/timeout.idna" | grep -q 'process-exit'; then
	bad "timeout: exit $rc (want 143) or no end in the trace:"
	cat "$tmp/timeout.err"
else
	verify timeout "$tmp/timeout.idna" && passed "timeout's SIGTERM (exit $rc)"
fi
finish record_signals
