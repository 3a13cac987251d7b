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
# reference; the first session must have undone most of its steps.
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
prog=$build/tests/reverse_programs/insn
[ -x "$prog" ] || { bad "no program $prog (make builds it)"; finish undo_steps; exit; }
setarch -R "$build/ttrec" run -q -o insn.idna "$prog" > rec.out 2>&1
status_is 0 $? "ttrec run insn"
# insn_sequence's ret.
ret=$(gdb -batch -nx -ex 'disassemble insn_sequence' "$prog" | sed -n 's/.*<+\([0-9]*\)>:[[:space:]]*ret.*/\1/p')

# commands EXTRA: the script, EXTRA after each step.
commands() {
	echo "break *insn_sequence+$ret"
	echo 'continue'
	local i
	for i in $(seq 120); do
		if [ "$i" = 40 ] || [ "$i" = 41 ]; then echo stepi; else echo reverse-stepi; fi
		[ -n "$1" ] && echo "$1"
		echo "echo ==== step $i\\n"
		echo 'info all-registers'
		echo 'x/4gx $sp'
		echo 'x/2gx &x87_out'
		echo 'x/4wx &sse_out'
		echo 'x/32xb &dst_bytes'
	done
	echo 'monitor info'
}
commands '' > undo.gdb
commands 'monitor info' > replayed.gdb
session() {
	gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
		-ex "target remote | $build/ttreplay insn.idna" -x "$1" < /dev/null > "$2" 2>&1
}
session undo.gdb undo.out
session replayed.gdb replayed.out
# What each step shows, without the monitor's answers.
shown() { sed -n '/^==== step 1$/,$p' "$1" | grep -vE '^(first pass|instructions|syscalls|signals|snapshots|moves|segments|trace|replay index|  )'; }
shown undo.out > undo.shown
shown replayed.out > replayed.shown
if [ "$(grep -c '^==== step' undo.shown)" = 120 ] && cmp -s undo.shown replayed.shown; then ok
else bad "undone steps differ from replayed ones: $(diff undo.shown replayed.shown | head -6 | tr '\n' ' ')"; fi
expect undo.shown '^st0 ' "the x87 registers are shown"
expect undo.shown '^xmm15 |^ymm15 |^zmm15 ' "the vector registers are shown"
undone=$(sed -n 's/^moves undone from the log of the last steps replayed: //p' undo.out)
if [ -n "$undone" ] && [ "$undone" -ge 40 ]; then ok
else bad "steps undone from the log: '$undone' (want at least 40 of 118)"; fi
undone=$(sed -n 's/^moves undone from the log of the last steps replayed: //p' replayed.out | tail -1)
if [ "$undone" = 0 ]; then ok
else bad "the reference session undid steps: '$undone'"; fi
finish undo_steps
