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

# dumps: what each stop shows (all registers, the stack, the memory the
# programs write).
dumps() {
	echo 'info all-registers'
	echo 'x/8gx $sp'
	local v
	for v in "$@"; do echo "$v"; done
}
# commands SETUP EXTRA N MEMORY...: SETUP, then N reverse-stepi (stepi
# at the 40th and 41st), EXTRA after each step, and what it shows.
commands() {
	echo "$1"
	local extra=$2 n=$3 i
	shift 3
	for i in $(seq "$n"); do
		if [ "$i" = 40 ] || [ "$i" = 41 ]; then echo stepi; else echo reverse-stepi; fi
		[ -n "$extra" ] && echo "$extra"
		echo "echo ==== step $i\\n"
		dumps "$@"
	done
	echo 'monitor info'
}
# What each step shows, without the monitor's answers.
shown() { sed -n '/^==== step 1$/,$p' "$1" | grep -vE '^(first pass|instructions|syscalls|signals|snapshots|moves|segments|trace|replay index|  )'; }
# compare NAME PROGRAM TRACE N WANT_UNDONE SETUP MEMORY...: the steps
# undone and replayed show the same; at least WANT_UNDONE were undone.
compare() {
	local name=$1 prog=$2 trace=$3 n=$4 want=$5 setup=$6
	shift 6
	commands "$setup" '' "$n" "$@" > "$name-undo.gdb"
	commands "$setup" 'monitor info' "$n" "$@" > "$name-replayed.gdb"
	local side
	for side in undo replayed; do
		gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
			-ex "target remote | $build/ttreplay $trace" -x "$name-$side.gdb" \
			< /dev/null > "$name-$side.out" 2>&1
		shown "$name-$side.out" > "$name-$side.shown"
	done
	if [ "$(grep -c '^==== step' "$name-undo.shown")" = "$n" ] &&
	   cmp -s "$name-undo.shown" "$name-replayed.shown"; then ok
	else bad "$name: undone steps differ from replayed ones: $(diff "$name-undo.shown" "$name-replayed.shown" | head -6 | tr '\n' ' ')"; fi
	expect "$name-undo.shown" '^st0 ' "$name: the x87 registers are shown"
	expect "$name-undo.shown" '^xmm15 |^ymm15 |^zmm15 ' "$name: the vector registers are shown"
	local undone
	undone=$(sed -n 's/^moves undone from the log of the last steps replayed: //p' "$name-undo.out")
	if [ -n "$undone" ] && [ "$undone" -ge "$want" ]; then ok
	else bad "$name: steps undone from the log: '$undone' (want at least $want of $n)"; fi
	undone=$(sed -n 's/^moves undone from the log of the last steps replayed: //p' "$name-replayed.out" | tail -1)
	if [ "$undone" = 0 ]; then ok
	else bad "$name: the reference session undid steps: '$undone'"; fi
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
