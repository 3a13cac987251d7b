#!/usr/bin/env bash
# Diversions: gdb calls functions of a replayed program (a recursive one,
# one over a list, glibc's strlen through its ifunc, one that makes a
# system call, one that crashes, ones that print), changes a variable, and afterwards the
# session shows exactly the recorded state: registers, memory below the
# stack pointer (where the calls' frames were), stepi and reverse-stepi
# land where a session that made no call lands. GDB/MI's
# -data-evaluate-expression calls a function too.
set -u
. "$(dirname "$0")/shared/checks.sh"

prog="$build/tests/programs/calls_from_gdb"
"$build/ttrec" run -q -o calls.idna "$prog" > calls.out 2> calls.err
status_is 0 $? "ttrec run calls_from_gdb"

slow_link='set remotetimeout 600'
# session NAME GDB-COMMANDS...: gdb stopped in stop_here, then the
# commands; the output in NAME.out.
session() {
	local name=$1; shift
	local args=() c
	for c in "$@"; do args+=(-ex "$c"); done
	timeout 300 gdb -batch -nx -ex "$slow_link" "$prog" -ex "target remote | $build/ttreplay calls.idna" \
		-ex 'break stop_here' -ex continue "${args[@]}" > "$name.out" 2>&1
}
# The state a session shows after what it did, between two marks.
state=(
	'echo ==state==\n' 'info registers' 'x/64gx $sp-512' 'stepi' 'info registers rip rsp'
	'reverse-stepi' 'reverse-stepi' 'info registers rip rsp' 'monitor when' 'echo ==end==\n'
)
state_of() { sed -n '/^==state==/,/^==end==/p' "$1"; }

session plain "${state[@]}"
expect plain.out '^==end==' "the session without calls ran to its end"

session calls 'print fact(5)' 'print sum_list(list)' 'print (int)strlen(name)' 'print ask_pid()' \
	"${state[@]}"
expect calls.out '^\$1 = 120$' "a recursive function called from gdb"
expect calls.out '^\$2 = 6$' "a function walking the program's list"
expect calls.out '^\$3 = 9$' "glibc's strlen (an ifunc) on a local string"
expect calls.out 'system call 39 not made.*returns -ENOSYS' "a system call in a called function is refused, and said so"
expect calls.out '^\$4 = -1$' "the refused system call fails in the function"
if state_of calls.out | diff <(state_of plain.out) - > calls.diff; then ok
else bad "after the calls the state differs from the recording's: $(head -5 calls.diff)"; fi
refuse calls.out 'Could not write' "no register write refused"

# Functions that print: write and writev to standard output and error
# reach gdb's console; a write elsewhere is refused. stdio buffers as
# natively: puts adds to stdout's buffer (the program's stdout is a file)
# and shows nothing; fflush shows what the buffer held ("start", which the
# recorded program had not flushed yet; the puts was in a diversion that
# ended with its call).
session output 'print dump(list)' 'call complain()' 'print write_elsewhere()' \
	'call (void)puts(name)' 'echo ==puts==\n' 'print (int)fflush(stdout)' 'echo ==flushed==\n' \
	"${state[@]}"
expect output.out '^value=1$' "a called function's write to standard output is shown"
if [ "$(grep -E '^value=[0-9]$' output.out | tr '\n' ' ')" = 'value=1 value=2 value=3 ' ]; then ok
else bad "the called function's lines in order: $(grep value= output.out | tr '\n' ' ')"; fi
expect output.out '^\$1 = 24$' "write returns the count written"
expect output.out '^on stderr: two pieces$' "writev to standard error is shown whole"
expect output.out '^\$2 = 22$' "writev returns the count written"
expect output.out 'system call 1 not made.*returns -ENOSYS' "a write to another descriptor is refused, and said so"
expect output.out '^\$3 = -1$' "the refused write fails in the function"
if sed -n '/^\$3 = /,/^==puts==/p' output.out | grep -q diversion; then
	bad "puts to a buffered stdout printed at once"; else ok; fi
if [ "$(sed -n '/^==puts==/,/^==flushed==/p' output.out | grep -v '^==' | tr '\n' ' ')" = 'start $4 = 0 ' ]; then ok
else bad "fflush shows the buffered text: $(sed -n '/^==puts==/,/^==flushed==/p' output.out | tr '\n' ' ')"; fi
if state_of output.out | diff <(state_of plain.out) - > output.diff; then ok
else bad "after the printing calls the state differs: $(head -5 output.diff)"; fi

# A function that crashes: gdb's usual message; unwinding restores the state.
session crash 'set unwindonsignal on' 'print read_through(0)' "${state[@]}"
expect crash.out 'read 0x0 \(at 0x[0-9a-f]+\), memory whose value the recording never revealed' "the bad read is explained"
expect crash.out 'signaled while in a function called from GDB' "gdb's message for a crashing call"
if state_of crash.out | diff <(state_of plain.out) - > crash.diff; then ok
else bad "after the crashing call the state differs: $(head -5 crash.diff)"; fi

# Left in the crashed function (gdb's default), a backward step goes back
# to the recording, one instruction before the time of the call.
session crash_stay 'print read_through(0)' 'bt' 'reverse-stepi' 'info registers rip' 'monitor when'
expect crash_stay.out '<function called from gdb>' "gdb stays in the crashed function"
expect crash_stay.out 'going backward from a function called from gdb: .*back to the recording' "going back leaves the diversion"
session back 'reverse-stepi' 'info registers rip' 'monitor when'
if diff <(grep -E '^rip|^current time' back.out) <(grep -E '^rip|^current time' crash_stay.out) > stay.diff; then ok
else bad "reverse-stepi from the crashed call is not the recorded one: $(head -5 stay.diff)"; fi

# set var: the value shows until the next resume, which replays the
# recording as it was.
session setvar 'print counter' 'set var counter = 42' 'print counter' 'stepi' 'print counter'
expect setvar.out '^\$1 = 0$' "counter as recorded"
expect setvar.out '^\$2 = 42$' "set var changes what gdb is shown"
expect setvar.out 'resuming with the registers as recorded: what gdb changed is dropped' "the resume says the change is dropped"
expect setvar.out '^\$3 = 0$' "after the resume the recorded value"

# Threads: a call runs the calling thread alone. gdb steps another thread
# standing at a breakpoint first unless scheduler-locking is on: that step
# does not move it, and ttreplay says why the call is abandoned.
tprog="$build/tests/programs/thread_ids"
"$build/ttrec" run -q -o ids.idna "$tprog" > ids.out 2> ids.err
status_is 0 $? "ttrec run thread_ids"
abs_call='print ((int (*)(int))abs)(-5)'
timeout 300 gdb -batch -nx -ex "$slow_link" "$tprog" -ex "target remote | $build/ttreplay ids.idna" \
	-ex 'break worker' -ex continue -ex 'thread 1' -ex 'info registers rip rsp' \
	-ex 'set scheduler-locking on' -ex "$abs_call" -ex 'info registers rip rsp' -ex 'info threads' \
	-ex 'set scheduler-locking off' -ex "$abs_call" > threads.out 2>&1
expect threads.out '^\$1 = 5$' "a call in a thread that is not the running one"
if [ "$(grep -cE '^rip ' threads.out)" -eq 2 ] && [ "$(grep -E '^rip ' threads.out | sort -u | wc -l)" -eq 1 ]
then ok; else bad "the calling thread is back where it was: $(grep -E '^rip ' threads.out)"; fi
expect threads.out '^  2 +Thread [0-9.]+ +worker ' "the other thread stays at its breakpoint"
expect threads.out 'only the thread that calls a function runs; thread [0-9]+ stays where it is' \
	"without scheduler-locking, why the call is abandoned"

# GDB/MI, as IDEs evaluate watch expressions.
printf '%s\n' '-break-insert stop_here' '-exec-continue' '-data-evaluate-expression fact(4)' \
	'-data-evaluate-expression "sum_list(list) + 1"' '-data-evaluate-expression "dump(list) + 100"' '-gdb-exit' |
	timeout 300 gdb --interpreter=mi2 -nx -q -ex "$slow_link" "$prog" \
		-ex "target remote | $build/ttreplay calls.idna" > mi.out 2>&1
expect mi.out '\^done,value="24"' "MI -data-evaluate-expression with a call"
expect mi.out '\^done,value="7"' "MI evaluation of a call inside an expression"
expect mi.out '^@"value=2\\n"' "MI: what a called function writes is a target stream record"
expect mi.out '\^done,value="124"' "MI: the printing call's value"

finish diversions
