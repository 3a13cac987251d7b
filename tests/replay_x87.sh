#!/usr/bin/env bash
# gdb's views of the x87 registers in a replay, in the middle of x87
# sequences (x87_modulo's fld, fld, fprem loop, fstp, fstp): at a
# breakpoint on the fprem after both loads, after stepping through the
# loop, and after stepping back over a pop. The recorder and the
# replay's unobserved stretches keep the guest's registers in the host's
# x87 unit between instructions (emulator/ops_x87.c); whatever way the
# replay reaches a stop, gdb must see them whole.
set -u
src=$(cd "$(dirname "$0")" && pwd)
. "$src/shared/checks.sh"
prog=$build/tests/programs/x87_modulo
[ -x "$prog" ] || { bad "no program $prog (make builds it)"; finish replay_x87; exit; }
"$build/ttrec" run -q -o mod.idna "$prog" > rec.out 2>&1
status_is 0 $? "ttrec run x87_modulo"
# The first fprem of main.
dis=$(gdb -batch -nx -ex 'disassemble main' "$prog")
fprem=$(echo "$dis" | sed -n 's/^ *0x[0-9a-f]* <+\([0-9]*\)>:[[:space:]]*fprem.*/\1/p' | head -1)
[ -n "$fprem" ] || { bad "no fprem in main"; finish replay_x87; exit; }
# Turn i computes (s + i*i) mod 1000003 with s the turn before's result:
# the third turn's dividend is 1 + 4.
cat > x87.gdb <<GDB
break *(main+$fprem)
continue
continue
continue
echo ==== at fprem\\n
p \$st0
p \$st1
delete
stepi 4
echo ==== after one loop turn\\n
x/i \$pc
p \$st0
p \$st1
stepi
echo ==== after fstp st1\\n
p \$st0
reverse-stepi
echo ==== stepped back\\n
p \$st0
p \$st1
info float
GDB
gdb -batch -nx -ex 'set pagination off' "$prog" -ex "target remote | $build/ttreplay mod.idna" \
	-x x87.gdb < /dev/null > x87.out 2>&1
# want LABEL LINES...: the lines after "==== LABEL" are LINES.
want() {
	local label=$1 got
	shift
	got=$(sed -n "/^==== $label\$/,/^====/p" x87.out | grep '^\$' | sed 's/^\$[0-9]* = //' | head -$#)
	if [ "$got" = "$(printf '%s\n' "$@")" ]; then ok
	else bad "$label: st registers '$(echo $got)', want '$*'"; fi
}
want "at fprem" 5 1000003
want "after one loop turn" 5 1000003
want "after fstp st1" 5
want "stepped back" 5 1000003
expect x87.out '^  R7: Valid +0x4012f424300000000000 \+1000003 *$' "info float shows st1's register"
expect x87.out '^=>R6: Valid +0x4001a000000000000000 \+5 *$' "info float shows st0's register"
finish replay_x87
