#!/usr/bin/env bash
# Backward single steps undone from the log of the last instructions
# replayed (replayer/undo_log.h, gdb_undo.c) show what replayed steps
# show: through insn_sequence (general, SSE, x87 and string instructions,
# rdtsc, rdrand and cpuid, memory written by each kind) and on back into
# main and the start of the program, every register gdb knows (vector and
# x87 included), the stack and the memory the function writes, at each
# of 120 reverse-stepi, with two stepi forward on the way. The same
# session with `monitor info` after each step (which brings the replay to
# the time shown and forgets the log: every step replays) is the
# reference; the first session must have undone most of its steps. Then
# the same back over a signal's arrival in a busy loop.
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
prog=$build/tests/reverse_programs/insn
[ -x "$prog" ] || { bad "no program $prog (make builds it)"; finish undo_steps; exit; }
setarch -R "$build/ttrec" run -q -o insn.idna "$prog" > rec.out 2>&1
status_is 0 $? "ttrec run insn"
# insn_sequence's ret.
ret=$(gdb -batch -nx -ex 'disassemble insn_sequence' "$prog" | sed -n 's/.*<+\([0-9]*\)>:[[:space:]]*ret.*/\1/p')

. "$src/shared/undo_sessions.sh"

# compare NAME PROGRAM TRACE N WANT_UNDONE SETUP MEMORY...: N
# reverse-stepi (stepi at the 40th and 41st), each showing all registers,
# the stack and MEMORY, undone and replayed, show the same; at least
# WANT_UNDONE were undone.
compare() {
	local name=$1 prog=$2 trace=$3 n=$4 want=$5 setup=$6 moves i
	shift 6
	moves=$(for i in $(seq "$n"); do
		if [ "$i" = 40 ] || [ "$i" = 41 ]; then echo stepi; else echo reverse-stepi; fi
	done)
	undo_sessions "$name" "$prog" "$trace" "$setup" "$moves" 'info all-registers' 'x/8gx $sp' "$@"
	expect "$name-undo.shown" '^st0 ' "$name: the x87 registers are shown"
	expect "$name-undo.shown" '^xmm15 |^ymm15 |^zmm15 ' "$name: the vector registers are shown"
	undo_at_least "$name" 'undone from the log of the last steps replayed' "$want"
}
compare insn "$prog" insn.idna 120 40 "break *insn_sequence+$ret
continue" 'x/2gx &x87_out' 'x/4wx &sse_out' 'x/32xb &dst_bytes'

# Back over a signal's arrival in the middle of a loop (no system call
# there: only what the log's stretch sees cuts it), from the signal
# trampoline (the handler is two instructions) through the handler's
# entry, the arrival where gdb shows it, the loop before.
alarm=$build/tests/programs/busy_alarm
"$build/ttrec" run -q -o alarm.idna "$alarm" > alarm-rec.out 2>&1
status_is 0 $? "ttrec run busy_alarm"
compare alarm "$alarm" alarm.idna 60 20 "break on_alarm
continue
stepi
stepi
stepi" 'print fired' 'x/i $pc'
finish undo_steps
