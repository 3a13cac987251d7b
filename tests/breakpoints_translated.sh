#!/usr/bin/env bash
# Breakpoints cost only the blocks they are in (emu_observer's
# block_watched): a loop translated long before, a breakpoint then put in
# its body, continues forward and backward stop where they should, with
# the values a session that interprets everything (--no-jit) shows.
set -u
here=$(cd "$(dirname "$0")/replay" && pwd)
. "$(dirname "$0")/shared/checks.sh"

cc -g -O0 -o hot_loop "$here/programs/hot_loop.c" || exit 1
"$build/ttrec" run -q -o hot_loop.idna ./hot_loop > native.out || exit 1
body=$(grep -n 'the loop.s body' "$here/programs/hot_loop.c" | cut -d: -f1)

session() { # OUT OPTIONS
	gdb -batch -nx -ex 'set remotetimeout 600' ./hot_loop \
		-ex "target remote | $build/ttreplay --no-index $2 hot_loop.idna" \
		-ex 'break marker' -ex continue -ex 'print v' \
		-ex "break hot_loop.c:$body" -ex continue -ex 'print i' -ex 'print sum' \
		-ex 'delete' -ex 'break marker' -ex continue -ex 'print v' \
		-ex 'delete' -ex "break hot_loop.c:$body" -ex reverse-continue -ex 'print i' \
		-ex 'delete' -ex 'break marker' -ex reverse-continue -ex 'print v' > "$1" 2>&1
	grep -E '^\$[0-9]+ = ' "$1" > "$1.values"
}
session jit.out ''
session interpreted.out --no-jit

# sum over i <= n of 7i + i/8 (integer division)
sum_to() { python3 -c "print(sum(7*i + i//8 for i in range($1 + 1)))"; }
at_marker=$(sum_to 150000) at_end=$(sum_to 199999)
expect jit.out.values "^\\\$1 = $at_marker\$" "the first marker, reached over the translated loop"
expect jit.out.values '^\$2 = 150001$' "a breakpoint put in the translated loop stops at its next turn"
expect jit.out.values "^\\\$3 = $at_marker\$" "the sum there"
expect jit.out.values "^\\\$4 = $at_end\$" "the last marker"
expect jit.out.values '^\$5 = 199999$' "reverse-continue to the loop's last turn"
expect jit.out.values "^\\\$6 = $at_marker\$" "reverse-continue from there to the marker in the loop"
[ "$(cat native.out)" = "$at_end" ] && ok || bad "the program printed $(cat native.out)"
same jit.out.values interpreted.out.values "the values without translation"

finish breakpoints_translated
