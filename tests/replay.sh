#!/usr/bin/env bash
# Replay tests: traces of real programs replay consistently (--verify),
# --info reports them, bad trace files are refused cleanly, and gdb (batch
# and GDB/MI) travels through a recording in both directions.
set -u
build=$(cd "${BUILD:-build}" && pwd)
here=$(cd "$(dirname "$0")/replay" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect() { # expect FILE PATTERN DESCRIPTION
	if grep -qE -- "$2" "$1"; then ok; else bad "$3 (no '$2')"; fi
}

cc -g -O0 -o counter "$here/programs/counter.c" || exit 1
# ttreplay answers gdb's handshake at once (the test at the end checks
# it); the longer timeout keeps the other tests robust on a loaded machine
# under the sanitizers.
slow_link='set remotetimeout 600'

# --verify on recordings of real programs.
printf '%s\n' 3 1 2 > numbers
verify_program() { # name command...
	local name=$1; shift
	if "$build/ttrec" run -q -o "$name.idna" "$@" > "$name.out" 2> "$name.err"; then :; fi
	if "$build/ttreplay" --verify "$name.idna" > "$name.verify" 2>&1 &&
	   grep -q "consistent with the recording" "$name.verify"; then ok
	else bad "ttreplay --verify $name: $(tail -1 "$name.verify")"; fi
	# Interpreted, the same history (block translation changes nothing).
	"$build/ttreplay" --info "$name.idna" > "$name.info" 2>&1
	# (--no-index: the first --verify wrote the index, which would answer.)
	if "$build/ttreplay" --no-jit --no-index --verify "$name.idna" > "$name.verify-i" 2>&1 &&
	   grep -q "consistent with the recording" "$name.verify-i" &&
	   "$build/ttreplay" --no-jit --info "$name.idna" | cmp -s - "$name.info"; then ok
	else bad "ttreplay --no-jit $name: $(tail -1 "$name.verify-i")"; fi
}
verify_program counter ./counter 6
verify_program echo /bin/echo hello
verify_program ls ls -l /usr
verify_program sort sort -n numbers
verify_program gzip gzip -c /etc/services
verify_program sh sh -c 'echo a | cat; exit 3'
verify_program python3 python3 -c 'print(sum(range(1000)))'

# --info.
"$build/ttreplay" --info counter.idna > info.txt 2>&1
for key in program arguments instructions threads processes syscalls signals checkpoints \
	   trace-bytes bits-per-instruction exit-status native-fallbacks; do
	expect info.txt "^$key:" "--info has $key"
done
./counter 6 > /dev/null
native_status=$?
expect info.txt "^exit-status: $native_status\$" "--info exit status"

"$build/ttreplay" --info --json counter.idna > info.json 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["instructions"] > 0' info.json
then ok; else bad "--info --json is not JSON with instructions"; fi

# Bad trace files: one line, non-zero status, no crash.
: > empty.idna
head -c 1000 /dev/urandom > garbage.idna
head -c 100 counter.idna > truncated.idna
for f in empty.idna garbage.idna truncated.idna missing.idna; do
	"$build/ttreplay" --verify "$f" > bad.out 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ "$(wc -l < bad.out)" -le 2 ]; then ok
	else bad "bad trace $f: status $rc, output: $(head -3 bad.out)"; fi
done

# gdb in batch mode.
"$build/ttrec" run -q -o c.idna ./counter 5 > /dev/null
gdb -batch -nx -ex "$slow_link" ./counter -ex "target remote | $build/ttreplay c.idna" -x "$here/replay.gdb" > gdb.out 2>&1
expect gdb.out 'Breakpoint 1, factorial \(n=3\)' "third hit of the breakpoint"
expect gdb.out '#2 .* factorial \(n=5\)' "backtrace through the recursion"
expect gdb.out '\$1 = 4' "reverse-continue to the previous hit (n=4)"
expect_seq() { # the two lines follow each other
	if grep -A1 -- "$2" "$1" | grep -q -- "$3"; then ok; else bad "$4"; fi
}
expect_seq gdb.out 'Old value = 5' 'New value = 9' "watchpoint forward"
expect_seq gdb.out 'Old value = 12' 'New value = 9' "watchpoint backward"
expect gdb.out 'No more reverse-execution history' "edges of history"
expect gdb.out 'rip +0x' "info registers"
expect gdb.out '^last-write of \[0x[0-9a-f]+, \+8\): time [0-9]+, by the instruction at 0x' "monitor last-write"
expect gdb.out '^next-write of \[0x[0-9a-f]+, \+8\): time [0-9]+' "monitor next-write"
expect gdb.out 'Run back to call of #0 +bump|bump \(by=4\)' "reverse-finish out of bump"
expect gdb.out 'time 0 of' "monitor when at the start"
if grep -q 'Remote connection closed\|internal-error' gdb.out; then bad "gdb lost the stub"; else ok; fi

# Who wrote it, far back: the only write to marker is at the start, several
# snapshot segments before the end.
cc -g -O0 -o late "$here/programs/late.c" || exit 1
"$build/ttrec" run -q -o late.idna ./late > /dev/null
# Ctrl-C while ttreplay reads the trace ahead (the first resume starts its
# first pass, seconds on late.idna): the resume stops at once with SIGINT,
# and the next one goes on to the end.
if python3 "$here/interrupt_pass.py" "$build/ttreplay" late.idna > interrupt.out 2>&1; then ok
else bad "Ctrl-C during the first pass: $(head -3 interrupt.out | tr '\n' ' ')"; fi
gdb -batch -nx -ex "$slow_link" ./late -ex "target remote | $build/ttreplay late.idna" -ex continue \
	-ex 'eval "monitor last-write %lu 8", &marker' > late.out 2>&1
write_time=$(sed -n 's/^last-write of .*: time \([0-9]*\), .*/\1/p' late.out)
if [ -n "$write_time" ] && [ "$write_time" -lt 1000000 ]; then ok
else bad "last-write far back: $(grep -m1 'last-write\|no write' late.out)"; fi
gdb -batch -nx -ex "$slow_link" ./late -ex "target remote | $build/ttreplay late.idna" -ex continue \
	-ex 'break late.c:9' -ex reverse-continue > late-break.out 2>&1
expect late-break.out 'Breakpoint 1, main \(\) at .*late.c:9' "reverse-continue to a breakpoint far back"
# A continue replays only what it needs: at a breakpoint some millions of
# instructions in, with a long loop after it, the first pass has read up to
# there and no further; what gdb is shown there, at the end and back at the
# breakpoint is what a session that ran the whole pass first shows (the
# same snapshots included).
cc -g -O0 -o early "$here/programs/early.c" || exit 1
"$build/ttrec" run -q -o early.idna ./early > /dev/null
early_session() { # out first-command
	gdb -batch -nx -ex "$slow_link" ./early -ex "target remote | $build/ttreplay early.idna" \
		-ex "$2" -ex 'break early_function' -ex continue -ex bt -ex 'info registers rip' \
		-ex 'x/4gx $sp' -ex 'monitor info' -ex 'print marker' -ex continue -ex 'print $pc' \
		-ex 'monitor snapshots' -ex reverse-continue -ex bt -ex 'info registers rip' \
		-ex 'print marker' -ex 'x/4gx $sp' > "$1" 2>&1
}
early_session early-lazy.out 'echo'
early_session early-whole.out 'monitor snapshots'
expect early-lazy.out '^first pass: read to time [0-9]+ of the history, not finished' \
	"a continue to an early breakpoint leaves the rest of the first pass"
expect early-whole.out '^first pass: finished' "monitor info once the pass is done"
stops() { # what gdb showed from the first stop on, monitor info left out
	sed -n '/^Breakpoint 1, /,$p' "$1" |
		grep -vE '^(ttreplay: reading|first pass:|instructions:|syscalls:|signals:|snapshots( in the spill file)?:|moves |segments )'
}
if [ "$(grep -c '^Breakpoint 1, early_function' early-lazy.out)" = 2 ] &&
   stops early-lazy.out > early-lazy.stops && stops early-whole.out > early-whole.stops &&
   cmp -s early-lazy.stops early-whole.stops; then ok
else bad "continuing with the pass unfinished shows other states: $(diff early-lazy.stops early-whole.stops | head -5 | tr '\n' ' ')"; fi
# Snapshots within a small memory budget where no spill file can be made
# (tests/replay_memory.sh has the spill file): thinned (every other one
# goes, the spacing doubles), and going back still finds the same answers.
# (--no-index: the index an earlier session wrote keeps the default's.)
no_spill="env TMPDIR=$PWD/none XDG_CACHE_HOME=$PWD/none HOME=$PWD/none"
gdb -batch -nx -ex "$slow_link" ./late -ex "target remote | $no_spill $build/ttreplay --no-index --snapshot-memory 1M late.idna" \
	-ex continue -ex 'monitor info' -ex 'eval "monitor last-write %lu 8", &marker' \
	-ex 'break late.c:9' -ex reverse-continue > late-thin.out 2>&1
all=$("$build/ttreplay" --info late.idna | sed -n 's/^instructions: //p')
kept=$(sed -n 's/^snapshots: //p' late-thin.out)
if [ -n "$kept" ] && [ -n "$all" ] && [ "$kept" -ge 16 ] && [ "$kept" -lt $((all / 4194304)) ]; then ok
else bad "snapshots within 1M: $kept kept for $all instructions"; fi
expect late-thin.out 'last-write of .*: time [0-9]{1,6},' "last-write far back with thinned snapshots"
expect late-thin.out 'Breakpoint 1, main \(\) at .*late.c:9' "reverse-continue far back with thinned snapshots"

# Signals the program received stop a continue, as under a live gdb.
cc -D_GNU_SOURCE -g -O0 -o sigusr1 "$here/../programs/sigusr1_siginfo.c" || exit 1
"$build/ttrec" run -q -o sig.idna ./sigusr1 > /dev/null
gdb -batch -nx -ex "$slow_link" ./sigusr1 -ex "target remote | $build/ttreplay sig.idna" -ex continue -ex continue \
	> sig.out 2>&1
expect sig.out 'Program received signal SIGUSR1' "a received signal stops continue"
gdb -batch -nx -ex "$slow_link" ./counter -ex "target remote | $build/ttreplay c.idna" -ex 'catch syscall write' \
	-ex continue -ex 'print $rax' -ex 'print $orig_rax' -ex continue -ex 'print $rax' \
	-ex 'print $orig_rax' -ex stepi -ex 'print $orig_rax' > catch.out 2>&1
expect catch.out 'Catchpoint 1 \(call to syscall write\)' "catch syscall: entry"
expect catch.out 'Catchpoint 1 \(returned from syscall write\)' "catch syscall: return"
# The registers of a live process at those ptrace stops: at the entry rax
# is the kernel's -ENOSYS and orig_rax the number (1, write); at the return
# orig_rax is still the number; a stop that is no syscall's shows -1.
expect catch.out '^\$1 = -38$' "catch syscall: rax at the entry is -ENOSYS"
expect catch.out '^\$2 = 1$' "catch syscall: orig_rax at the entry is the syscall"
expect catch.out '^\$3 = [1-9]' "catch syscall: the result after return"
expect catch.out '^\$4 = 1$' "catch syscall: orig_rax at the return is the syscall"
expect catch.out '^\$5 = -1$' "catch syscall: orig_rax after a step is -1"
# ... and stop reverse-continue where they stop continue.
gdb -batch -nx -ex "$slow_link" ./sigusr1 -ex "target remote | $build/ttreplay sig.idna" \
	-ex 'break sigusr1_siginfo.c:44' -ex continue -ex continue -ex continue -ex 'monitor when' \
	-ex reverse-continue -ex 'monitor when' -ex reverse-continue -ex 'monitor when' \
	-ex reverse-continue -ex 'monitor when' > sig-back.out 2>&1
# The times monitor when printed after the breakpoint: at a signal each.
bp_time=$(sed -n 's/^time \([0-9]*\) of .*/\1/p' sig-back.out | head -1)
sig_times=$(awk '/^Program received signal SIGUSR1/ { sig = 1 } /^time [0-9]+ of/ { if (seen && sig) printf "%s ", $2; seen = 1; sig = 0 }' sig-back.out)
set -- $sig_times
if [ $# -eq 2 ] && [ "$1" -lt "$bp_time" ] && [ "$2" -lt "$1" ] &&
   grep -q 'No more reverse-execution history' sig-back.out; then ok
else bad "reverse-continue to received signals: times $sig_times after the breakpoint at $bp_time"; fi
gdb -batch -nx -ex "$slow_link" ./counter -ex "target remote | $build/ttreplay c.idna" -ex 'catch syscall write' \
	-ex continue -ex continue -ex continue -ex reverse-continue -ex 'print $rax' -ex reverse-continue \
	> catch-back.out 2>&1
last_two=$(grep -o 'Catchpoint 1 ([a-z ]*syscall write)' catch-back.out | tail -2 | tr '\n' '|')
if [ "$last_two" = "Catchpoint 1 (returned from syscall write)|Catchpoint 1 (call to syscall write)|" ] &&
   grep -q '^\$1 = [1-9]' catch-back.out; then ok
else bad "reverse-continue to caught syscalls: $last_two"; fi

# What the kernel wrote (KERNEL_WRITE records) shows at every time: pipe's
# fds, read's buffer, stat's struct, the signal frame (bt through the
# handler), and write watchpoints stop at the syscall both ways.
cc -D_GNU_SOURCE -g -O0 -o kernel_writes "$here/../programs/kernel_writes.c" || exit 1
verify_program kernel_writes ./kernel_writes
pipe_line=$(grep -n 'if (pipe(fds)' "$here/../programs/kernel_writes.c" | cut -d: -f1)
gdb -batch -nx -ex "$slow_link" ./kernel_writes -ex "target remote | $build/ttreplay kernel_writes.idna" \
	-ex 'handle SIGUSR1 nostop noprint' -ex "break kernel_writes.c:$pipe_line" -ex continue \
	-ex 'print fds' -ex next -ex 'print fds' -ex next -ex next -ex next -ex 'print buf' \
	-ex next -ex next -ex 'print st.st_mode & 0170000' -ex 'break on_usr1' -ex continue -ex bt \
	-ex delete -ex continue -ex 'watch fds[0]' -ex reverse-continue -ex 'print fds' \
	-ex reverse-continue -ex continue -ex 'print fds' > kernel-writes.out 2>&1
expect kernel-writes.out '^\$1 = \{-1, -1\}' "kernel writes: fds before pipe"
expect kernel-writes.out '^\$2 = \{3, 4\}' "kernel writes: fds after pipe, before the program reads them"
expect kernel-writes.out '^\$3 = "kernel' "kernel writes: read's buffer"
expect kernel-writes.out '^\$4 = 16384' "kernel writes: stat's st_mode"
expect_seq kernel-writes.out '^#1 .*<signal handler called>' '^#2 ' "kernel writes: bt through the signal frame"
expect kernel-writes.out '#[0-9]+ +0x[0-9a-f]+ in main \(.*\) at .*kernel_writes.c:' "kernel writes: bt reaches main"
expect_seq kernel-writes.out 'Old value = 3' 'New value = -1' "kernel writes: watchpoint backward to pipe"
expect kernel-writes.out '^\$5 = \{-1, -1\}' "kernel writes: before pipe after reverse-continue"
expect_seq kernel-writes.out 'Old value = -1' 'New value = 3' "kernel writes: watchpoint forward at pipe"
expect kernel-writes.out '^\$6 = \{3, 4\}' "kernel writes: after pipe after continue"
if [ "$(grep -c 'in __GI___pipe\|^__GI___pipe' kernel-writes.out)" -ge 2 ]; then ok
else bad "kernel writes: the watchpoint stops are in pipe"; fi
# The pipe alone in its replay segment: the backward search replays it
# only if the segment's written-pages summary counts the kernel's writes.
"$build/ttrec" run -q -o kernel-writes-alone.idna ./kernel_writes alone > /dev/null
gdb -batch -nx -ex "$slow_link" ./kernel_writes -ex "target remote | $build/ttreplay kernel-writes-alone.idna" \
	-ex 'handle SIGUSR1 nostop noprint' -ex continue -ex 'watch fds[0]' -ex reverse-continue \
	> kernel-writes-alone.out 2>&1
expect_seq kernel-writes-alone.out 'Old value = 3' 'New value = -1' "kernel writes: segment summaries count them"
# monitor last-write names the syscall instruction where the watchpoint stops.
gdb -batch -nx -ex "$slow_link" ./kernel_writes -ex "target remote | $build/ttreplay kernel_writes.idna" \
	-ex 'handle SIGUSR1 nostop noprint' -ex continue -ex 'eval "monitor last-write %lu 8", &fds' \
	-ex 'watch fds[0]' -ex reverse-continue -ex 'printf "pc %#lx\n", $pc' -ex 'x/i $pc' \
	> kernel-writes-last.out 2>&1
last_rip=$(sed -n 's/^last-write of .* by the instruction at \(0x[0-9a-f]*\) .*/\1/p' kernel-writes-last.out)
if [ -n "$last_rip" ] && grep -q "^pc $last_rip\$" kernel-writes-last.out &&
   grep -q '=> .*:[[:space:]]*syscall' kernel-writes-last.out; then ok
else bad "kernel writes: monitor last-write names the syscall ($last_rip)"; fi
# catch syscall: its entry stop is before the kernel's writes, its return after.
gdb -batch -nx -ex "$slow_link" ./kernel_writes -ex "target remote | $build/ttreplay kernel_writes.idna" \
	-ex 'catch syscall pipe pipe2' -ex continue -ex 'print fds' -ex continue -ex 'print fds' \
	> kernel-writes-catch.out 2>&1
expect kernel-writes-catch.out 'Catchpoint 1 \(call to syscall pipe' "kernel writes: catch syscall entry"
expect kernel-writes-catch.out '^\$1 = \{-1, -1\}' "kernel writes: before the writes at the syscall's entry"
expect kernel-writes-catch.out '^\$2 = \{3, 4\}' "kernel writes: after them at its return"

# Threads: a two-thread trace written by tests/threads-trace, which follows
# the recorder's thread contract (man/idna.5, THREADS), debugged without
# symbols. Thread 2 (tid 4242) starts at 0x10100; both add to the counter
# at 0x20000.
"$build/tests/bin/threads-trace" threads.idna > /dev/null || bad "threads-trace"
if "$build/ttreplay" --verify threads.idna > threads.verify 2>&1 &&
   grep -q "consistent with the recording" threads.verify; then ok
else bad "ttreplay --verify of two threads: $(tail -1 threads.verify)"; fi
"$build/ttreplay" --info threads.idna > threads.info 2>&1
expect threads.info '^threads: 2$' "--info counts two threads"
expect threads.info '^thread: tid 4242, stream 2, [1-9][0-9]* instructions, exit status 0$' "--info lists the second thread"
gdb -batch -nx -ex "$slow_link" -ex 'set architecture i386:x86-64' \
	-ex "target remote | $build/ttreplay threads.idna" -ex 'info threads' \
	-ex 'break *0x10100' -ex continue -ex 'info threads' -ex 'print $rcx' \
	-ex continue -ex 'print $rcx' -ex reverse-continue -ex 'print $rcx' -ex delete \
	-ex stepi -ex 'print/x $pc' -ex 'thread 1' -ex 'print/x $pc' -ex stepi -ex 'print/x $pc' \
	-ex reverse-stepi -ex 'print/x $pc' \
	-ex 'watch *(long *)0x20000' -ex reverse-continue -ex 'print/x $pc' \
	> threads.out 2>&1
expect threads.out '^\* 1 +Thread 1 +0x0*10000 in' "one thread at the start"
expect threads.out 'Thread 2 hit Breakpoint 1, 0x0*10100' "a breakpoint stops the thread that hit it"
expect threads.out '^\* 2 +Thread 4242 +0x0*10100' "info threads: the second thread current"
expect threads.out '^  1 +Thread 1 +0x0*10014 in' "info threads: the first thread where it stopped"
expect threads.out '^\$1 = 0$' "the first hit"
expect threads.out '^\$2 = 1$' "continue to the second hit"
expect threads.out '^\$3 = 0$' "reverse-continue to the earlier hit"
expect threads.out '^\$4 = 0x10108$' "stepi of the running thread"
expect threads.out '^\$5 = 0x10014$' "registers of a thread not running"
expect threads.out '^\$6 = 0x10017$' "stepi of a thread not running: one of its instructions"
expect threads.out '^\$7 = 0x10014$' "reverse-stepi of that thread"
expect threads.out 'Thread 2 hit Hardware watchpoint 2' "watch backward: the last write was the other thread's"
expect threads.out '^\$8 = 0x1010c$' "stopped at the other thread's store"
if grep -q 'Remote connection closed\|internal-error\|Switching to Remote target\|New Remote target' threads.out; then
	bad "gdb lost the stub or a thread: $(grep -m1 'Remote' threads.out)"
else ok; fi

# Real threaded programs: replayed to the end, and debugged. threads_sync's
# workers print in turn (turn++ hands over), so at worker 1's print the
# last write to turn was worker 0's.
programs=$(cd "$here/../programs" && pwd)
for p in pthread_create threads_sync threads_exit threads_signals; do
	cc -D_GNU_SOURCE -g -O0 -pthread -o "$p" "$programs/$p.c" || exit 1
	verify_program "$p" "./$p"
done
"$build/ttreplay" --info threads_sync.idna > sync.info 2>&1
expect sync.info '^threads: 6$' "--info: threads_sync's six threads"
"$build/ttreplay" --info --json threads_sync.idna > sync.json 2>&1
# The initial thread's tid is the recorded pid.
"$build/ttdump" --json threads_sync.idna > sync.dump.json 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["thread-list"]
assert d["threads"] == len(t) == 6 and sum(x["instructions"] for x in t) == d["instructions"]
pid = json.load(open(sys.argv[2]))["pid"]
assert [x["stream"] for x in t] == list(range(1, 7)) and t[0]["tid"] == pid > 1' sync.json sync.dump.json
then ok; else bad "--info --json thread-list of threads_sync"; fi
print_line=$(grep -n 'printf("worker %ld done' "$programs/threads_sync.c" | cut -d: -f1)
gdb -batch -nx -ex "$slow_link" ./threads_sync -ex "target remote | $build/ttreplay threads_sync.idna" \
	-ex "break threads_sync.c:$print_line" -ex continue -ex 'info threads' -ex 'print id' \
	-ex continue -ex 'print id' -ex 'eval "monitor last-write %lu 4", &turn' \
	-ex 'watch -l turn' -ex reverse-continue -ex 'print id' \
	-ex 'delete 2' -ex reverse-continue -ex 'print id' -ex next -ex 'print id' > sync.out 2>&1
expect sync.out 'Thread [0-9]+ hit Breakpoint 1, worker \(arg=0x0\)' "a breakpoint in the thread function stops in that thread"
if [ "$(grep -cE '^[* ] +[0-9]+ +Thread [0-9.]+ ' sync.out)" -ge 2 ]; then ok
else bad "info threads shows several threads: $(grep -A3 'Target Id' sync.out | head -4)"; fi
expect sync.out '^\$1 = 0$' "the first worker's breakpoint"
expect sync.out '^\$2 = 1$' "continue: the next worker's breakpoint"
expect sync.out 'Thread [0-9]+ hit Hardware watchpoint 2: -location turn' "watch -l backward"
expect sync.out '^44[[:space:]]+turn\+\+;' "the last write to turn"
expect sync.out '^\$3 = 0$' "the last write was by the other worker"
if [ "$(grep -cE 'hit Breakpoint 1, worker \(arg=0x0\)' sync.out)" -eq 2 ]; then ok
else bad "reverse-continue back to the earlier breakpoint"; fi
expect sync.out '^\$4 = 0$' "reverse-continue: the earlier worker"
expect sync.out '^43[[:space:]]+fflush' "next in a thread"
expect sync.out '^\$5 = 0$' "next stays in its thread"
# At worker 1's print, turn was last written by worker 0: the thread of
# the first stop.
worker0=$(sed -n 's/^\[Switching to Thread \([0-9]*\.\)\{0,1\}\([0-9]*\)\]$/\2/p' sync.out | head -1)
expect sync.out "^last-write of \\[0x[0-9a-f]+, \\+4\\): time [0-9]+, by the instruction at 0x[0-9a-f]+ of thread ${worker0:-none} " \
	"monitor last-write names the writing thread"
if grep -q 'Remote connection closed\|internal-error' sync.out; then bad "gdb lost the stub (threads)"; else ok; fi

# Threads that die with the process (blocked in pause, join, read or a
# condition wait when another thread exits) are listed while the process
# lives, every thread has its exit in --info, and at the end of history
# only the thread that ended the process is left.
verify_program threads_exit-blocked ./threads_exit blocked-workers
for t in threads_exit threads_exit-blocked; do
	"$build/ttreplay" --info --json $t.idna > $t.json 2>&1
	if python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["thread-list"]
assert len(t) == 3 and all(x["exit-status"] is not None for x in t), t' $t.json
	then ok; else bad "--info --json: every thread of $t exited: $(cat $t.json)"; fi
done
gdb -batch -nx -ex "$slow_link" ./threads_exit -ex "target remote | $build/ttreplay threads_exit.idna" \
	-ex 'break finisher' -ex continue -ex 'info threads' -ex continue -ex 'info threads' \
	> exit_threads.out 2>&1
if [ "$(grep -cE '^[* ] +[0-9]+ +Thread [0-9.]+ ' exit_threads.out)" -eq 4 ]; then ok
else bad "info threads: three threads at the finisher's start, one at the end: $(grep -E 'Thread [0-9.]+ ' exit_threads.out)"; fi
expect exit_threads.out '^  [0-9]+ +Thread [0-9.]+ +.* in __libc_pause' "the thread blocked in pause is listed while the process lives"
expect exit_threads.out '^\* [0-9]+ +Thread [0-9.]+ +.* in _*[A-Za-z_]*exit \(status=[a-z@=]*5\)' "at the end, the thread that called exit(5)"
gdb -batch -nx -ex "$slow_link" ./threads_exit -ex "target remote | $build/ttreplay threads_exit-blocked.idna" \
	-ex continue -ex 'info threads' > exit_blocked.out 2>&1
if [ "$(grep -cE '^[* ] +[0-9]+ +Thread [0-9.]+ ' exit_blocked.out)" -eq 1 ]; then ok
else bad "info threads at the end lists only main: $(grep -E 'Thread [0-9.]+ ' exit_blocked.out)"; fi
expect exit_blocked.out '^\* 1 +Thread [0-9.]+ +.* in _*[A-Za-z_]*exit \(status=[a-z@=]*3\)' "at the end, main in exit(3)"

# Ring mode with threads: the ring wraps (the main thread's first chunks
# are gone), every thread, the ones that waited in join or read all along
# included, is replayed from a checkpoint the ring kept, to the exit.
cc -D_GNU_SOURCE -g -O0 -pthread -o threads_ring "$programs/threads_ring.c" || exit 1
verify_program threads_ring --ring 1M --checkpoint-interval 1M ./threads_ring
# Many threads that end early, in a ring: their last records replay (a
# ring whose wrap dropped the process's end replays up to its end).
cc -D_GNU_SOURCE -g -O1 -pthread -o threads_many "$programs/threads_many.c" || exit 1
"$build/ttrec" run -q -o threads_many.idna --ring 1M ./threads_many > threads_many.out 2>&1
if "$build/ttreplay" --verify threads_many.idna > threads_many.verify 2>&1 &&
   ! grep -q diverged threads_many.verify; then ok
else bad "ttreplay --verify threads_many (ring): $(tail -1 threads_many.verify)"; fi
"$build/ttdump" threads_ring.idna > ring.dump 2>&1
if grep -q 'ring mode' ring.dump && ! awk '$2 == 1 && $3 == 0 { found = 1 } END { exit !found }' ring.dump
then ok; else bad "the ring did not wrap: $(grep -A3 '^chunks' ring.dump | tr '\n' ' ')"; fi
"$build/ttreplay" --info --json threads_ring.idna > ring.json 2>&1
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["thread-list"]
assert [x["stream"] for x in t] == list(range(1, 6)), t
assert d["exit-status"] == "0" and d["instructions"] > 0' ring.json
then ok; else bad "--info of a ring trace: every thread replayed: $(cat ring.json)"; fi
# gdb on the wrapped ring: the initial stack is gone, so the program's
# relocation (a PIE) and the shared libraries come from the module list.
# The breakpoint is in the workers' loop: their first instructions may be
# in evicted chunks.
ring_line=$(grep -n 'meetings++' "$programs/threads_ring.c" | cut -d: -f1)
gdb -batch -nx -ex "$slow_link" ./threads_ring -ex "target remote | $build/ttreplay threads_ring.idna" \
	-ex 'info sharedlibrary' -ex "break threads_ring.c:$ring_line" -ex 'continue' -ex 'bt 1' > ring_gdb.out 2>&1
expect ring_gdb.out '^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes.*/libc\.so\.6' "ring: gdb lists libc"
expect ring_gdb.out 'hit Breakpoint 1, worker \(arg=' "ring: a breakpoint in the PIE program is hit"
if grep -q 'library list' ring_gdb.out; then bad "ring: gdb rejects the library list: $(grep 'library list' ring_gdb.out | head -1)"; else ok; fi

# A system call made through a libc wrapper (getppid: mov; syscall; ret)
# stops at its syscall instruction, before the kernel ran it, in both
# directions; reverse-step and reverse-next through the wrapper stop where
# gdb's own `record full` does. (record full shows rax after the syscall
# already at the syscall instruction when replaying: only stops are
# compared with it.)
wrappers_expected='getppid + 7,getppid + 5,getppid,getppid@plt,getppid,getppid + 5,getppid + 7,getppid + 5,main + 16,main + 8,main + 16,main + 24,'
stops_of() { sed -n 's/^\([A-Za-z_@.]*\( + [0-9]*\)\{0,1\}\) in section .*/\1/p' "$1" | tr '\n' ,; }
cc -g -O0 -o syscall_wrappers "$here/../programs/syscall_wrappers.c" || exit 1
"$build/ttrec" run -q -o wrappers.idna ./syscall_wrappers > /dev/null
timeout 600 gdb -batch -nx -ex "$slow_link" ./syscall_wrappers -ex "target remote | $build/ttreplay wrappers.idna" \
	-ex 'break main' -ex continue -x "$here/syscall_wrappers.gdb" > wrappers.out 2>&1
if [ "$(stops_of wrappers.out)" = "$wrappers_expected" ]; then ok
else bad "stops across getppid's syscall: $(stops_of wrappers.out)"; fi
ppid=$(sed -n 's/^\$1 = //p' wrappers.out)
values=$(sed -n 's/^\$[2-6] = //p' wrappers.out | tr '\n' ,)
if [ -n "$ppid" ] && [ "$ppid" -gt 1 ] && [ "$values" = "$ppid,110,110,$ppid,110," ]; then ok
else bad "rax at getppid's syscall (110 before it, the parent's pid $ppid after): $values"; fi
# The same commands under gdb's record full, where this gdb can record.
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512BW,-AVX512VL,-AVX512DQ,-AVX_Usable,-AVX2_Usable,-ERMS \
	timeout 600 gdb -batch -nx ./syscall_wrappers -ex 'break main' -ex run -ex 'record full' \
	-x "$here/syscall_wrappers.gdb" > wrappers-native.out 2>&1
if grep -q 'Process record\|not support\|Target .* does not support' wrappers-native.out ||
   [ -z "$(stops_of wrappers-native.out)" ]; then
	echo "replay: skipped the comparison with record full (gdb cannot record here)"
elif [ "$(stops_of wrappers-native.out)" = "$wrappers_expected" ]; then ok
else bad "record full stops elsewhere: $(stops_of wrappers-native.out)"; fi

# rdrand and rdseed (emulated, their numbers logged) and instructions the
# CPU ran for the recorder (xgetbv; AVX-512 where this CPU has it) are one
# stop each: stepi through a block and reverse-stepi back, the pc's offset
# from the block's label after each step.
offsets_of() { # program trace label steps
	{ echo "$slow_link"; echo "break *$3"; echo continue
	  for _ in $(seq "$4"); do echo stepi; echo "print/d \$pc - (long)&$3"; done
	  for _ in $(seq "$4"); do echo reverse-stepi; echo "print/d \$pc - (long)&$3"; done
	} > "$3.gdb"
	timeout 600 gdb -batch -nx "./$1" -ex "target remote | $build/ttreplay $2" -x "$3.gdb" 2>&1 |
		sed -n 's/^\$[0-9]* = //p' | tr '\n' ' '
}
cc -g -O0 -o random_insns "$here/../programs/random_insns.c" || exit 1
native_insns=xgetbv
if grep -qw avx512f /proc/cpuinfo; then native_insns="xgetbv avx512"
else echo "replay: this CPU has no AVX-512: only xgetbv is run natively"; fi
"$build/ttrec" run -q -o random.idna ./random_insns $native_insns > random.out
if grep -q 'no rdrand or rdseed' random.out; then
	echo "replay: skipped the rdrand/rdseed stepping test (this CPU lacks them)"
else
	"$build/ttreplay" --info random.idna > random.info 2>&1
	n_native=$(sed -n 's/^native-fallbacks: //p' random.info)
	# xgetbv, and vpternlogd, vpmovd2m, kmovw.
	if [ "$n_native" = "$([ "$native_insns" = xgetbv ] && echo 1 || echo 4)" ]; then ok
	else bad "native fallbacks: $n_native (rdrand and rdseed must be emulated)"; fi
	got=$(offsets_of random_insns random.idna random_block 7)
	if [ "$got" = "1 4 5 8 12 13 14 13 12 8 5 4 1 0 " ]; then ok
	else bad "stepping over rdrand/rdseed: offsets $got"; fi
	got=$(offsets_of random_insns random.idna xgetbv_block 4)
	if [ "$got" = "1 4 5 6 5 4 1 0 " ]; then ok
	else bad "stepping over a natively run xgetbv: offsets $got"; fi
	if [ "$native_insns" != xgetbv ]; then
		got=$(offsets_of random_insns random.idna avx512_block 5)
		if [ "$got" = "1 8 14 18 19 18 14 8 1 0 " ]; then ok
		else bad "stepping over natively run AVX-512 instructions: offsets $got"; fi
	fi
	# next over the line, then reverse-next back to where it started.
	for label in random_block xgetbv_block; do
		line=$(grep -n "$label:" "$here/../programs/random_insns.c" | cut -d: -f1)
		timeout 600 gdb -batch -nx -ex "$slow_link" ./random_insns -ex "target remote | $build/ttreplay random.idna" \
			-ex "break $line" -ex continue -ex 'print/x $pc' -ex next -ex 'print/x $pc' -ex reverse-next \
			-ex 'print/x $pc' > "$label-next.out" 2>&1
		if [ "$(sed -n 's/^\$1 = //p' "$label-next.out")" = "$(sed -n 's/^\$3 = //p' "$label-next.out")" ] &&
		   [ "$(sed -n 's/^\$1 = //p' "$label-next.out")" != "$(sed -n 's/^\$2 = //p' "$label-next.out")" ] &&
		   grep -q '^\$3 = 0x' "$label-next.out"; then ok
		else bad "next then reverse-next over the line of $label: $(grep '^\$' "$label-next.out" | tr '\n' ' ')"; fi
	done
fi

# Backward steps one after another start from states kept near the
# recent positions (not from the first pass's snapshot): 40 stepi then 40
# reverse-stepi through main show the same pcs, stack pointers and stack
# words in mirror order, and all but the first backward moves start from
# a kept state.
{ echo "$slow_link"; echo 'break bump'; echo continue
  for _ in $(seq 40); do echo stepi; echo 'printf "at %#lx %#lx %#lx\n", $pc, $sp, *(long *)$sp'; done
  echo 'printf "turn\n"'
  for _ in $(seq 40); do echo 'printf "at %#lx %#lx %#lx\n", $pc, $sp, *(long *)$sp'; echo reverse-stepi; done
  echo 'monitor info'
} > mirror.gdb
timeout 600 gdb -batch -nx ./counter -ex "target remote | $build/ttreplay c.idna" -x mirror.gdb > mirror.out 2>&1
forward=$(sed -n '/^turn$/q; s/^at //p' mirror.out | sed '$d' | tr '\n' '|')
backward=$(sed -n '/^turn$/,$ s/^at //p' mirror.out | sed '1d' | tac | tr '\n' '|')
if [ -n "$forward" ] && [ "$(echo "$forward" | tr '|' '\n' | wc -l)" -ge 39 ] && [ "$forward" = "$backward" ]; then ok
else bad "40 stepi then 40 reverse-stepi do not mirror: $(diff <(echo "$forward" | tr '|' '\n') <(echo "$backward" | tr '|' '\n') | head -4 | tr '\n' ' ')"; fi
kept=$(sed -n 's/^moves started from a kept nearby state: \([0-9]*\) of \([0-9]*\)$/\1 \2/p' mirror.out)
set -- $kept
if [ $# -eq 2 ] && [ "$1" -ge 39 ] && [ "$2" -ge 40 ]; then ok
else bad "backward steps from kept states: '$kept' (want at least 39 of 40)"; fi

# GDB/MI, as IDEs drive it.
gdb --interpreter=mi2 -nx -q -ex "$slow_link" ./counter -ex "target remote | $build/ttreplay c.idna" < "$here/mi.txt" > mi.out 2>&1
expect mi.out '"reverse"' "MI -list-target-features has reverse"
expect mi.out '\*stopped,reason="breakpoint-hit".*func="bump"' "MI continue to a breakpoint"
expect mi.out '\*stopped,reason="end-stepping-range"|\*stopped,reason="function-finished"' "MI reverse finish/step"

# gdb is answered at once, before ttreplay's first pass over the trace
# (seconds on late.idna, more under the sanitizers; gdb gives up on its
# first packets after 2 s): no remotetimeout here. The pass runs when
# continue first needs the end of history.
gdb -batch -nx ./late -ex "target remote | $build/ttreplay late.idna" -ex 'info registers rip' \
	-ex 'x/4x $sp' -ex continue -ex reverse-stepi -ex 'monitor when' > lazy.out 2>&1
expect lazy.out '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <_start>' "registers at the start, before the first pass"
expect lazy.out '^0x[0-9a-f]+:[[:space:]]+0x00000001[[:space:]]' "memory at the start (argc), before the first pass"
expect lazy.out 'No more reverse-execution history' "continue to the end after a quick connection"
expect lazy.out "^time $((all - 1)) of $all\$" "reverse-stepi from the end after a quick connection"
if grep -q 'Remote replied unexpectedly\|Ignoring packet error\|Remote connection closed' lazy.out; then
	bad "gdb timed out on a quick connection: $(grep -m1 'Remote' lazy.out)"
else ok; fi
# A monitor command that needs the whole history first: the pass prints
# progress every second, so gdb's 2 s waits for a packet never run out
# (without it gdb complains after three, when the pass is that slow, as
# under the sanitizers). (monitor info alone does not run the pass.)
gdb -batch -nx ./late -ex "target remote | $build/ttreplay late.idna" -ex 'monitor info' \
	-ex 'monitor snapshots' -ex 'monitor info' > lazy-monitor.out 2>&1
expect lazy-monitor.out '^first pass: read to time [0-9]+ of the history, not finished' \
	"monitor info as the first command"
expect lazy-monitor.out '^instructions: [0-9]+$' "monitor info after a monitor command that ran the pass"
if grep -q 'Ignoring packet error\|Remote connection closed' lazy-monitor.out; then
	bad "gdb timed out on monitor info: $(grep -m1 'packet error\|Remote' lazy-monitor.out)"
else ok; fi

# Bytes the replay learns from 16-byte loads alone (their first accesses,
# zeros of a fresh mapping, across words and a page boundary: the replay
# stores such reads a word's piece at a time) show in gdb as they were.
cc -g -O0 -o vector_first_reads "$here/programs/vector_first_reads.c" || exit 1
"$build/ttrec" run -q -o vector_first_reads.idna ./vector_first_reads > /dev/null 2>&1
gdb -batch -nx -ex "$slow_link" ./vector_first_reads \
	-ex "target remote | $build/ttreplay vector_first_reads.idna" -ex 'break done' -ex continue \
	-ex 'x/16xb fresh + 3' -ex 'x/16xb fresh + 4096 - 11' > vector_first_reads.out 2>&1
if [ "$(grep -cE '^0x[0-9a-f]+:(\s+0x00){8}\s*$' vector_first_reads.out)" = 4 ]; then ok
else bad "bytes learnt from vector loads: $(grep -E '^0x' vector_first_reads.out | tr '\n' ' ')"; fi

echo "replay: $pass passed, $fail failed"
[ $fail -eq 0 ]
