#!/bin/bash
# faults.sh — faults and hostile input never crash or hang the tools:
# traces of programs killed at several moments (SIGKILL from outside in a
# CPU loop and in a sleep, from itself, by a seccomp filter) and of a
# recorder killed mid-run, each checked with ttreplay --verify, --info and
# ttdump; a FIFO given as a trace; traces whose code spins forever; ttrec
# out of memory. Every check has an exit status the man pages document.
# The moments are chosen by what the program printed, never by time.
set -u
. "$(dirname "$0")/shared/checks.sh"
BUILD=$build
tmp=$work
TTREC=$BUILD/ttrec
TTREPLAY=$BUILD/ttreplay
TTDUMP=$BUILD/ttdump
MARKER=$BUILD/tests/programs/marker_then
HOSTILE=$BUILD/tests/bin/hostile-trace
# A hang is a failure: this only bounds how long one takes to report.
HANG=${FAULTS_HANG_SECONDS:-300}


# run_tool NAME WANT COMMAND...: COMMAND's status must be one of WANT
# (space-separated), and it must not hang or die of a signal.
run_tool() {
	local name=$1 want=$2
	shift 2
	timeout -s KILL $HANG "$@" >"$name.out" 2>"$name.err" </dev/null
	local rc=$?
	if [ $rc -eq 137 ]; then
		bad "$name: hung (killed after ${HANG}s): $*"
		return 1
	fi
	for w in $want; do
		[ $rc -eq "$w" ] && return 0
	done
	bad "$name: exit $rc, want $want: $(head -c 400 "$name.err")"
	return 1
}

# --- hostile and non-regular input -------------------------------------

mkfifo fifo
fifo_ok=1
run_tool fifo-info 65 "$TTREPLAY" --info fifo || fifo_ok=0
run_tool fifo-verify 65 "$TTREPLAY" --verify fifo || fifo_ok=0
run_tool fifo-dump 1 "$TTDUMP" fifo || fifo_ok=0
grep -q 'not a regular file' fifo-info.err || { bad "fifo: $(cat fifo-info.err)"; fifo_ok=0; }
[ $fifo_ok = 1 ] && passed "a FIFO as the trace is refused (ttreplay 65, ttdump 1), nothing blocks"

for kind in spin spin-tail; do
	"$HOSTILE" $kind $kind.idna || { bad "hostile-trace $kind"; continue; }
	ok=1
	run_tool $kind-verify 65 "$TTREPLAY" --verify $kind.idna || ok=0
	run_tool $kind-info 65 "$TTREPLAY" --info $kind.idna || ok=0
	run_tool $kind-dump 0 "$TTDUMP" --records $kind.idna || ok=0
	grep -q 'last instruction count the trace declares' $kind-verify.err ||
		{ bad "$kind: $(cat $kind-verify.err)"; ok=0; }
	[ $ok = 1 ] && passed "$kind: a code page of jmp \$ stops at the count the trace declares"
done

# A trace declaring the largest prediction cache (128 MiB a thread) that it
# never fills: replay commits memory for what it fills, not for what the
# header declares (it used to take 1.4 GB here, a full copy per snapshot).
if [ -z "${SAN:-}" ] && [ -x /usr/bin/time ]; then
	"$HOSTILE" big-cache big-cache.idna || bad "hostile-trace big-cache"
	run_tool big-cache-info 65 /usr/bin/time -f 'max-rss-kb %M' "$TTREPLAY" --info big-cache.idna
	rss=$(sed -n 's/^max-rss-kb //p' big-cache-info.err)
	if [ -n "$rss" ] && [ "$rss" -lt 65536 ]; then
		passed "big-cache: --info peaks at $rss KB"
	else
		bad "big-cache: --info peaks at ${rss:-?} KB (bound: 64 MB)"
	fi
fi

# --- ttrec out of memory -----------------------------------------------

# Under sanitizers the address space limit breaks the runtime, not ttrec.
if [ -z "${SAN:-}" ]; then
	(ulimit -v $((32 * 1024)) && exec "$TTREC" run -q -o oom.idna true) >oom.out 2>oom.err
	rc=$?
	if [ $rc -eq 71 ] && grep -q 'out of memory' oom.err; then
		passed "ttrec out of memory exits 71"
	else
		bad "ttrec under ulimit -v 32M: exit $rc: $(cat oom.err)"
	fi
fi

# --- killed programs and killed recorders --------------------------------

# start_marked NAME HOW: ttrec records marker_then HOW in the background
# until it printed its marker; sets ttrec_pid and program_pid.
start_marked() {
	local name=$1 how=$2
	"$TTREC" run -o $name.idna "$MARKER" $how >$name.out 2>$name.err &
	ttrec_pid=$!
	disown $ttrec_pid # its fate is read from its outputs, not from wait
	while kill -0 $ttrec_pid 2>/dev/null && ! grep -q '^ready' $name.out; do sleep 0.05; done
	program_pid=$(awk '/^ready/ { print $2 }' $name.out)
}

# wait_gone PID: until the process is gone.
wait_gone() {
	while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}

# check_trace NAME VERIFY_STATUS INFO_COMPLETE: the three readers on NAME.idna.
check_trace() {
	local name=$1 verify_want=$2 complete=$3 ok=0
	run_tool $name-verify "$verify_want" "$TTREPLAY" --verify $name.idna || ok=1
	run_tool $name-info 0 "$TTREPLAY" --info $name.idna || ok=1
	run_tool $name-dump "0 1" "$TTDUMP" $name.idna || ok=1
	grep -q "^complete: $complete" $name-info.out || { bad "$name: --info: $(grep complete $name-info.out)"; ok=1; }
	grep -q 'INCONSISTENT' $name-verify.out && { bad "$name: --verify says INCONSISTENT"; ok=1; }
	return $ok
}

# A program killed by a signal it never sees delivered: ttrec reports the
# kill and exits 128+N, and the trace replays consistently to the end.
killed_program() {
	local name=$1 signo=$2
	local rc
	rc=$(cat $name.rc)
	if [ "$rc" != $((128 + signo)) ] || ! grep -q "killed by signal $signo" $name.err; then
		bad "$name: ttrec exit $rc: $(cat $name.err)"
		return
	fi
	check_trace $name 0 yes || return
	local recorded replayed
	recorded=$(sed -n 's/.* \([0-9]*\) signals, .*/\1/p' $name.err)
	replayed=$(sed -n 's/^signals: //p' $name-info.out)
	if grep -q 'consistent with the recording' $name-verify.out &&
		grep -q "^exit-status: killed by signal $signo" $name-info.out &&
		[ "$recorded" = "$replayed" ]; then
		passed "$name: ttrec exits $rc, the trace replays consistently to the kill"
	else
		bad "$name: $(cat $name-verify.out); signals: ttrec ${recorded:-?}, --info ${replayed:-?}"
	fi
}

for how in spin sleep threads; do
	name=kill-program-$how
	("$TTREC" run -o $name.idna "$MARKER" $how >$name.out 2>$name.err; echo $? >$name.rc) &
	while ! grep -q '^ready' $name.out 2>/dev/null && [ ! -e $name.rc ]; do sleep 0.05; done
	kill -KILL "$(awk '/^ready/ { print $2 }' $name.out)"
	wait
	killed_program $name 9
done
for how in selfkill seccomp; do
	name=program-$how
	"$TTREC" run -o $name.idna "$MARKER" $how >$name.out 2>$name.err
	echo $? >$name.rc
	killed_program $name $([ $how = seccomp ] && echo 31 || echo 9)
done

# A recorder killed mid-run: the program goes with it, the trace is
# readable up to its last complete chunk, --verify says it is truncated
# (status 2; 65 if not even a checkpoint was written), --info says
# "complete: no".
truncated() {
	local name=$1
	check_trace $name "2 65" no || return
	if grep -q 'truncated at byte [0-9]*: replayed the intact prefix, [0-9]* instructions' \
		$name-verify.err || grep -q 'no checkpoint' $name-verify.err; then
		passed "$name: $(head -1 $name-verify.err)"
	else
		bad "$name: --verify: $(cat $name-verify.err)"
	fi
}
for how in spin sleep threads; do
	name=kill-recorder-$how
	start_marked $name $how
	kill -KILL $ttrec_pid
	wait_gone $ttrec_pid
	wait_gone "$program_pid"
	truncated $name
done

# A full disk: ttrec exits 74 and the trace is truncated.
(ulimit -f 200 && exec "$TTREC" run -o disk-full.idna "$MARKER" selfkill) >disk-full.out 2>disk-full.err
rc=$?
if [ $rc -eq 74 ]; then
	truncated disk-full
else
	bad "disk-full: ttrec exit $rc, want 74: $(cat disk-full.err)"
fi

# A set-user-ID program recorded by a user who is not its owner runs with
# that user's ids (the kernel grants nothing to a traced exec): the
# summary says so. Needs root, to make the program and drop to nobody.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setid=$(mktemp -d)
	chmod 755 "$setid"
	printf '#include <stdio.h>\n#include <unistd.h>\nint main(void) { printf("%%d\\n", (int)geteuid()); return 0; }\n' >"$setid/euid.c"
	cc -o "$setid/euid" "$setid/euid.c" && chmod 4755 "$setid/euid" && chmod 1777 "$setid"
	as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	native=$(as_nobody "$setid/euid")
	recorded=$(as_nobody "$TTREC" run -o "$setid/t.idna" -- "$setid/euid" 2>"$setid/err")
	if [ "$native" = 0 ] && [ "$recorded" = 65534 ] &&
	   grep -q "^ttrec: warning: $setid/euid is set-user-ID or set-group-ID, but ran with your ids" "$setid/err"; then
		passed "setuid program: the summary warns that it ran without its privileges"
	else
		bad "setuid: natively euid $native, recorded $recorded, stderr: $(cat "$setid/err")"
	fi
	rm -rf "$setid"
else
	echo "skipped: setuid program (needs root and setpriv)"
fi

finish faults
