#!/usr/bin/env bash
# Stepping inside rep string instructions where record full cannot be
# the oracle (tests/reverse_oracle/rep_steps.gdb is where it can):
# hardware watchpoints going backward, which record full misses while it
# replays its log, stop where software ones do (before the iteration that
# wrote the watched byte, inside the instruction), read and access
# watchpoints before the iteration that read (gdb has no software read
# watchpoints: the stops are the CPU's), and a monitor command inside an
# instruction leaves the session there.
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
prog=$build/tests/reverse_programs/rep_steps
[ -x "$prog" ] || { bad "no program $prog (make builds it)"; finish rep_steps; exit; }
setarch -R "$build/ttrec" run -q -o rep.idna "$prog" > rec.out 2>&1
status_is 0 $? "ttrec run rep_steps"

# back_over HW: reverse-continue three times from the end of rep_sequence
# with three watched bytes, each written by one iteration of a different
# instruction; what gdb shows at each stop.
back_over() {
	gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
		-ex "target remote | $build/ttreplay rep.idna" -ex 'break *rep_sequence+105' \
		-ex continue -ex delete -ex "set can-use-hw-watchpoints $1" \
		-ex 'watch dst_bytes[14]' -ex 'watch quads[1]' -ex 'watch dst_bytes[2]' \
		-ex reverse-continue -ex 'info registers rcx rsi rdi rip' \
		-ex reverse-continue -ex 'info registers rcx rsi rdi rip' \
		-ex reverse-continue -ex 'info registers rcx rsi rdi rip' -ex 'x/16xb dst_bytes' \
		< /dev/null 2>&1 | sed -n '/^Breakpoint 1,/,$p' | sed 's/^Hardware watchpoint/Watchpoint/'
}
back_over 1 > hardware.out
back_over 0 > software.out
if cmp -s hardware.out software.out; then ok
else bad "hardware watchpoints backward differ from software ones: $(diff software.out hardware.out | head -20)"; fi
# Inside the instructions: the backward movsb before its second
# iteration, the stosq before its second, the movsb before its third.
expect hardware.out '^rcx +0x2 +2$' "stop inside rep movsb (std), rcx 2"
expect hardware.out '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <rep_sequence\+102>$' "stop at the rep movsb (std)"
expect hardware.out '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <rep_sequence\+39>$' "stop at the rep stosq"
expect hardware.out '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <rep_sequence\+20>$' "stop at the rep movsb"

# From inside an instruction (four of the movsb's five iterations done),
# back to before the third, which wrote the watched byte.
inside() {
	gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
		-ex "target remote | $build/ttreplay rep.idna" -ex 'break *rep_sequence+20' \
		-ex continue -ex delete -ex 'stepi 4' -ex "set can-use-hw-watchpoints $1" \
		-ex 'watch dst_bytes[2]' -ex reverse-continue -ex 'info registers rcx rsi rdi rip' \
		< /dev/null 2>&1 | sed -n '/^Breakpoint 1,/,$p' | sed 's/^Hardware watchpoint/Watchpoint/'
}
inside 1 > hardware-inside.out
inside 0 > software-inside.out
if cmp -s hardware-inside.out software-inside.out; then ok
else bad "from inside, hardware watchpoints backward differ from software ones: $(diff software-inside.out hardware-inside.out | head -20)"; fi
expect hardware-inside.out '^rcx +0x3 +3$' "from inside rep movsb: before its third iteration"

# A monitor command inside: the next stepi goes on from there.
gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$prog" \
	-ex "target remote | $build/ttreplay rep.idna" -ex 'break *rep_sequence+20' \
	-ex continue -ex delete -ex 'stepi 2' -ex 'monitor info' -ex 'info registers rcx' \
	-ex stepi -ex 'info registers rcx' -ex 'x/5xb dst_bytes' < /dev/null > monitor.out 2>&1
expect monitor.out '^rcx +0x3 +3$' "inside rep movsb after a monitor command"
expect monitor.out '^rcx +0x2 +2$' "a stepi after a monitor command goes on inside"
expect monitor.out '0x61[[:space:]]+0x62[[:space:]]+0x63[[:space:]]+0x00[[:space:]]+0x00$' \
	"the memory three iterations wrote"

# Read and access watchpoints backward (rep_read_watch.c): before the
# iteration that read the watched byte, inside the backward movsb, the
# scasb, the cmpsb (twice: an access watchpoint on what it reads at rdi,
# then from inside, a read one at rsi) and the lodsb.
reads=$build/tests/reverse_programs/rep_read_watch
setarch -R "$build/ttrec" run -q -o reads.idna "$reads" > rec-reads.out 2>&1
status_is 0 $? "ttrec run rep_read_watch"
back=()
for n in 1 2 3 4 5; do back+=(-ex reverse-continue -ex 'info registers rcx rip'); done
gdb -batch -nx -ex 'set pagination off' -ex 'set remotetimeout 600' "$reads" \
	-ex "target remote | $build/ttreplay reads.idna" -ex 'break *rep_reads+98' \
	-ex continue -ex delete -ex 'rwatch src[12]' -ex 'rwatch cmp_a[1]' -ex 'rwatch src[9]' \
	-ex 'awatch cmp_b[2]' "${back[@]}" < /dev/null 2>&1 |
	sed -n '/^Breakpoint 1,/,$p' | grep -E '^(rcx|rip) ' | paste -sd' ' | tr -s ' ' > reads-back.out
want='rcx 0x2 2 rip 0x[0-9a-f]+ 0x[0-9a-f]+ <rep_reads\+96> '
want+='rcx 0x7 7 rip 0x[0-9a-f]+ 0x[0-9a-f]+ <rep_reads\+74> '
want+='rcx 0x5 5 rip 0x[0-9a-f]+ 0x[0-9a-f]+ <rep_reads\+55> '
want+='rcx 0x6 6 rip 0x[0-9a-f]+ 0x[0-9a-f]+ <rep_reads\+55> '
want+='rcx 0x3 3 rip 0x[0-9a-f]+ 0x[0-9a-f]+ <rep_reads\+34>$'
expect reads-back.out "^$want" "read watchpoints backward stop before the iteration that read"
finish rep_steps
