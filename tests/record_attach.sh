#!/bin/bash
# record_attach.sh — `ttrec attach PID`: a running program is recorded from
# where it stands, until ttrec gets SIGINT (the program then runs on, with
# its own output and exit status, and its vDSO as it was) or until the
# program exits; each trace replays (`ttreplay --verify`). Also ttrec's
# error statuses for attach, and the progress line: on a terminal only.
set -u
. "$(dirname "$0")/shared/checks.sh"
BUILD=$build
tmp=$work
TTREC=$BUILD/ttrec
COUNTER=$BUILD/tests/programs/counter_loop
LIMIT=60

# check_counter_output FILE COUNT: every line there, in order, the clock
# moving forward on each.
check_counter_output() {
	local f=$1 count=$2
	[ "$(wc -l <"$f")" -eq "$count" ] || { echo "$(wc -l <"$f") lines, want $count"; return 1; }
	[ "$(awk '{ print $2 }' "$f" | tr '\n' ' ')" = "$(seq 0 $((count - 1)) | tr '\n' ' ')" ] ||
		{ echo "counter lines out of order"; return 1; }
	! grep -q STUCK "$f" || { echo "the clock stood still: $(grep -m1 STUCK "$f")"; return 1; }
}

# vdso_bytes PID: the process's vDSO image, hex.
vdso_bytes() {
	python3 - "$1" <<'PY'
import sys
pid = sys.argv[1]
for line in open(f"/proc/{pid}/maps"):
    if line.rstrip().endswith("[vdso]"):
        start, end = (int(x, 16) for x in line.split()[0].split("-"))
        with open(f"/proc/{pid}/mem", "rb") as m:
            m.seek(start)
            print(m.read(end - start).hex())
PY
}

verify_trace() {
	local name=$1 trace=$2
	if ! timeout "$LIMIT" "$BUILD/ttreplay" --verify "$trace" >"$tmp/$name.verify" 2>&1; then
		bad "$name: replay: $(tail -1 "$tmp/$name.verify")"
		return 1
	fi
}

# 1. Attach, SIGINT after about a second: the program goes on unharmed.
# SIGHUP too (the terminal of an ssh session that dropped).
for sig in INT HUP; do
count=60
"$COUNTER" $count >"$tmp/$sig.out" &
prog=$!
sleep 0.3
timeout "$LIMIT" "$TTREC" attach -o "$tmp/$sig.idna" $prog 2>"$tmp/$sig.err" &
rec=$!
sleep 1
kill -$sig $rec
wait_bounded $rec 120
rec_rc=$?
sleep 0.2
vdso_after=$(vdso_bytes $prog)
vdso_fresh=$(vdso_bytes $$)
wait_bounded $prog 120
prog_rc=$?
why=""
[ $rec_rc -eq 0 ] || why="ttrec exit $rec_rc: $(tail -1 "$tmp/$sig.err")"
[ $prog_rc -eq 23 ] || why="$why${why:+; }program exit $prog_rc, want 23"
out_why=$(check_counter_output "$tmp/$sig.out" $count) || why="$why${why:+; }$out_why"
grep -q "detached from process $prog, which runs on" "$tmp/$sig.err" || why="$why${why:+; }no 'detached' line"
[ -n "$vdso_after" ] && [ "$vdso_after" = "$vdso_fresh" ] || why="$why${why:+; }vDSO not restored"
[ -z "$why" ] || bad "attach-sig$sig: $why"
if [ -z "$why" ] && verify_trace attach-sig$sig "$tmp/$sig.idna"; then
	passed "attach-sig$sig ($(head -1 "$tmp/$sig.err" | sed 's/^ttrec: trace [^:]*: //'))"
fi
done

# 2. Attach until the program exits by itself. It runs in a directory of
# its own: the trace header has that one, not ttrec's.
count=15
mkdir "$tmp/progdir"
(cd "$tmp/progdir" && exec "$COUNTER" $count) >"$tmp/exit.out" &
prog=$!
sleep 0.2
timeout "$LIMIT" "$TTREC" attach -o "$tmp/exit.idna" $prog 2>"$tmp/exit.err"
rec_rc=$?
wait_bounded $prog 120
prog_rc=$?
why=""
[ $rec_rc -eq 0 ] || why="ttrec exit $rec_rc: $(tail -1 "$tmp/exit.err")"
[ $prog_rc -eq 23 ] || why="$why${why:+; }program exit $prog_rc, want 23"
out_why=$(check_counter_output "$tmp/exit.out" $count) || why="$why${why:+; }$out_why"
grep -q "process $prog exited with status 23" "$tmp/exit.err" || why="$why${why:+; }no exit line"
header_cwd=$("$BUILD/ttdump" "$tmp/exit.idna" 2>&1 | sed -n 's/^cwd: //p')
[ "$header_cwd" = "\"$tmp/progdir\"" ] ||
	why="$why${why:+; }header cwd $header_cwd, want \"$tmp/progdir\""
[ -z "$why" ] || bad "attach-exit: $why"
if [ -z "$why" ] && verify_trace attach-exit "$tmp/exit.idna" &&
   ! grep -q "exit status 23" "$tmp/attach-exit.verify"; then
	bad "attach-exit: the replay does not end with status 23: $(head -1 "$tmp/attach-exit.verify")"
elif [ -z "$why" ]; then
	passed "attach-exit"
fi

# attach_interrupted NAME COUNT [MODE]: the counter (COUNT lines, in
# MODE) attached to, ttrec interrupted after a second; the program must
# run on to its end with every line. Sets prog and why (empty: all well).
attach_interrupted() {
	local name=$1 count=$2 mode=${3:-} rec rec_rc prog_rc out_why
	"$COUNTER" $count $mode >"$tmp/$name.out" &
	prog=$!
	sleep 0.3
	timeout "$LIMIT" "$TTREC" attach -o "$tmp/$name.idna" $prog 2>"$tmp/$name.err" &
	rec=$!
	sleep 1
	kill -INT $rec
	wait_bounded $rec 120
	rec_rc=$?
	wait_bounded $prog 120
	prog_rc=$?
	why=""
	[ $rec_rc -eq 0 ] || why="ttrec exit $rec_rc: $(tail -1 "$tmp/$name.err")"
	[ $prog_rc -eq 23 ] || why="$why${why:+; }program exit $prog_rc, want 23"
	out_why=$(check_counter_output "$tmp/$name.out" $count) || why="$why${why:+; }$out_why"
}

# 2b. A process with two threads (one counting, one waiting in
# pthread_join): every thread is recorded, and every thread let go.
attach_interrupted thr 40 threaded
grep -q " 2 threads," "$tmp/thr.err" || why="$why${why:+; }not 2 threads: $(head -1 "$tmp/thr.err")"
grep -q "detached from process $prog, which runs on" "$tmp/thr.err" || why="$why${why:+; }no 'detached' line"
[ -z "$why" ] || bad "attach-threads: $why"
if [ -z "$why" ] && verify_trace attach-threads "$tmp/thr.idna"; then
	passed "attach-threads"
fi

# 2c. A process whose first thread registered rseq before the attach,
# making a thread for each line while attached: glibc aborts a thread
# whose rseq registration fails, so the program must run on unharmed.
attach_interrupted spawn 30 spawning
threads=$(sed -n 's/.* \([0-9][0-9]*\) threads,.*/\1/p' "$tmp/spawn.err" | head -1)
[ "${threads:-0}" -ge 2 ] || why="$why${why:+; }no thread made while attached: $(head -1 "$tmp/spawn.err")"
[ -z "$why" ] || bad "attach-spawning: $why"
if [ -z "$why" ] && verify_trace attach-spawning "$tmp/spawn.idna"; then
	passed "attach-spawning"
fi

# 3. Errors: one line on stderr, a status of its own, no trace left.
expect_error() {
	local name=$1 want=$2 pattern=$3
	shift 3
	timeout "$LIMIT" "$TTREC" attach -q -o "$tmp/err-$name.idna" "$@" </dev/null >/dev/null 2>"$tmp/err-$name"
	local rc=$?
	if [ $rc -ne "$want" ] || [ "$(wc -l <"$tmp/err-$name")" -ne 1 ] ||
	   ! grep -q "$pattern" "$tmp/err-$name" || [ -e "$tmp/err-$name.idna" ]; then
		bad "$name: exit $rc (want $want): $(cat "$tmp/err-$name")"
		return 1
	fi
	passed "$name (exit $rc: $(cat "$tmp/err-$name"))"
}
# A pid that is surely free: the highest the kernel allows, plus one.
expect_error no-such-process 66 'no process' $(($(cat /proc/sys/kernel/pid_max) + 1))
expect_error not-a-pid 64 'process id' 12ab
# Already traced by another ttrec: ptrace refuses (EPERM).
"$COUNTER" 40 >/dev/null &
prog=$!
sleep 0.2
timeout "$LIMIT" "$TTREC" attach -q -o "$tmp/first.idna" $prog 2>/dev/null &
first=$!
sleep 0.5
expect_error already-traced 77 'cannot attach' $prog
kill -INT $first
wait_bounded $first 120 || bad "already-traced: the first recorder failed"
wait_bounded $prog 120
[ $? -eq 23 ] || bad "already-traced: the program did not survive"
# The hand-over option of --follow-fork (internal) on a process that no
# recorder parked: refused, and the process runs on untouched.
expect_error resume-parked-bad-argument 64 'bad --resume-parked' --resume-parked=zz 1
"$COUNTER" 10 >"$tmp/unparked.out" &
prog=$!
sleep 0.2
expect_error resume-parked-not-parked 77 'cannot take parked process' --resume-parked=0,1000 $prog
wait_bounded $prog 120
[ $? -eq 23 ] || bad "resume-parked-not-parked: the program did not survive"
# 4. A program that stops and is continued by another process while
# attached: each stop is held until the SIGCONT, its handler runs first
# (stop_continue's own continuer child waits for each stop).
STOPPER=$BUILD/tests/programs/stop_continue
start_stopper() { # start_stopper OUT: in the background, $prog, once ready
	"$STOPPER" wait-usr1 >"$1" &
	prog=$!
	for _ in $(seq 600); do
		grep -q ready "$1" 2>/dev/null && break
		sleep 0.1
	done
}
start_stopper "$tmp/stops.native"
kill -USR1 $prog
wait_bounded $prog 120
start_stopper "$tmp/stops.out"
timeout "$LIMIT" "$TTREC" attach -q -o "$tmp/stops.idna" $prog 2>"$tmp/stops.err" &
rec=$!
for _ in $(seq 600); do
	grep -q "TracerPid:[[:space:]]*[1-9]" /proc/$prog/status 2>/dev/null && break
	sleep 0.1
done
kill -USR1 $prog
# (the continuer gives up after ten minutes: bounded)
wait_bounded $rec 120
rec_rc=$?
wait_bounded $prog 120
prog_rc=$?
if [ $rec_rc -ne 0 ] || [ $prog_rc -ne 0 ] ||
   ! cmp -s "$tmp/stops.native" "$tmp/stops.out"; then
	bad "attach-stops: ttrec exit $rec_rc, program exit $prog_rc, output:"
	diff "$tmp/stops.native" "$tmp/stops.out" | head -5
	cat "$tmp/stops.err"
elif verify_trace attach-stops "$tmp/stops.idna"; then
	passed "attach-stops (each stop held until its SIGCONT)"
fi
# 5. The progress line: never when stderr is not a terminal, once a
# recording is past a second when it is.
count=40
"$COUNTER" $count >/dev/null &
prog=$!
sleep 0.2
timeout "$LIMIT" "$TTREC" attach -o "$tmp/noprog.idna" $prog 2>"$tmp/noprog.err"
wait_bounded $prog 120
if grep -q -e $'\r' -e 'M/s)' "$tmp/noprog.err"; then
	bad "progress line on a file: $(cat -A "$tmp/noprog.err" | head -3)"
else
	passed "no progress line when stderr is a file"
fi
if command -v script >/dev/null; then
	# stdout of the program goes to a file; ttrec's stderr to script's pty.
	timeout "$LIMIT" script -qec "$TTREC run -o $tmp/prog.idna -- $COUNTER $count >/dev/null" /dev/null \
		>"$tmp/tty.out" 2>&1 </dev/null
	if grep -q $'\rttrec: [0-9.]* s, .* instructions (.* M/s), [0-9]* syscalls, .*B of trace' "$tmp/tty.out" &&
	   grep -q $'\r\033\\[Kttrec: trace' "$tmp/tty.out"; then
		passed "progress line on a terminal, erased before the summary"
	else
		bad "no progress line on a terminal: $(cat -A "$tmp/tty.out" | head -3)"
	fi
fi

finish record_attach
