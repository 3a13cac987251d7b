#!/bin/bash
# gdbstub.sh — drives the real gdb (batch scripts and GDB/MI) against the
# gdbstub test target serving a recorded run of a freestanding fixture, and
# checks what gdb prints. Needs BUILD (the build directory).
set -u
BUILD=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
scripts=$here/gdbstub-target/scripts
target=$BUILD/tests/bin/gdbstub-target
fixture=$BUILD/tests/fixtures/recurse
if ! command -v gdb >/dev/null; then
	echo "gdbstub.sh: gdb is not installed" >&2
	exit 1
fi
for f in "$target" "$fixture"; do
	[ -x "$f" ] || { echo "gdbstub.sh: $f is missing (make check builds it)" >&2; exit 1; }
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0

run_batch() { # NAME: runs scripts/NAME.gdb, output in $out/NAME
	timeout 120 gdb -batch -nx -ex "target remote | $target $fixture" \
		-x "$scripts/$1.gdb" >"$out/$1" 2>&1
}

run_mi() { # NAME: feeds scripts/NAME.mi to gdb/MI, output in $out/mi-NAME
	{ echo "-target-select remote | $target $fixture"; cat "$scripts/$1.mi"; } |
		timeout 120 gdb --interpreter=mi2 -nx -q >"$out/mi-$1" 2>&1
}

# The lines gdb printed after "==SECTION" and before the next "==".
section() { # FILE SECTION
	awk -v s="==$2" '$0 == s { on = 1; next } /^==/ { on = 0 } on' "$1"
}

expect() { # FILE SECTION REGEX
	if ! section "$out/$1" "$2" | grep -Eq -- "$3"; then
		echo "FAIL $1/$2: no line matches: $3"
		echo "---- $1/$2 printed:"; section "$out/$1" "$2" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
}

run_batch breakpoints
expect breakpoints regs-at-start '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <_start>'
expect breakpoints regs-at-start '^eflags +0x202 +\[ IF \]'
expect breakpoints regs-at-start '^fs_base +0x0 '
expect breakpoints bt '^#0  sum_down \(n=3\)'
expect breakpoints bt '^#1  0x[0-9a-f]+ in sum_down \(n=4\)'
expect breakpoints bt '^#2  0x[0-9a-f]+ in _start \(\)'
# The frame of sum_down(3) holds n=3 in its second quadword.
expect breakpoints stack '^0x7fffffff[0-9a-f]+:	0x0{16}	0x0{15}3$'
expect breakpoints reverse-continue '^Breakpoint 1, sum_down \(n=4\)'
expect breakpoints reverse-continue-to-start '^No more reverse-execution history\.'
expect breakpoints reverse-continue-to-start '^_start \(\) at'
expect breakpoints continue-to-end '^No more reverse-execution history\.'
expect breakpoints continue-to-end 'in raw_syscall3 \(number=60, '
# Going back from the end of history works: one instruction before it.
expect breakpoints after-end '^rip +0x401020 '

run_batch watch
for s in forward-1 forward-2 backward-1 backward-2; do
	expect watch $s '^Hardware watchpoint 2: counter'
done
expect watch forward-1 '^Old value = 7$'
expect watch forward-1 '^New value = 8$'
expect watch forward-2 '^Old value = 8$'
expect watch forward-2 '^New value = 10$'
expect watch backward-1 '^Old value = 10$'
expect watch backward-1 '^New value = 8$'
expect watch backward-2 '^Old value = 8$'
expect watch backward-2 '^New value = 7$'
expect watch backward-2 '^bump \(by=1\) at'

run_batch stepping
expect stepping reverse-finish 'in loop_bumps \(times=5\) at .*:42$'
expect stepping reverse-next '^42	'
expect stepping reverse-step '^41	'
expect stepping reverse-step-2 '^43	'
expect stepping reverse-step-into '^bump \(by=0\) at .*:25$'
expect stepping reverse-step-into '^#1  0x[0-9a-f]+ in loop_bumps'
expect stepping reverse-stepi '^\$1 = .* <bump\+[0-9]+>'
expect stepping reverse-stepi '^\$2 = .* <bump\+[0-9]+>'
expect stepping stepi-again '^\$3 = .* <bump\+[0-9]+>'
expect stepping next-over-call '^43	'
# The reverse-stepi went back exactly one instruction: stepi returns to $1's pc.
pc1=$(section "$out/stepping" reverse-stepi | sed -n 's/^\$1 = .* \(0x[0-9a-f]*\) <.*/\1/p')
pc2=$(section "$out/stepping" reverse-stepi | sed -n 's/^\$2 = .* \(0x[0-9a-f]*\) <.*/\1/p')
pc3=$(section "$out/stepping" stepi-again | sed -n 's/^\$3 = .* \(0x[0-9a-f]*\) <.*/\1/p')
if [ -z "$pc1" ] || [ "$pc1" = "$pc2" ] || [ "$pc1" != "$pc3" ]; then
	echo "FAIL stepping: reverse-stepi went from '$pc1' to '$pc2', stepi back to '$pc3'"
	failures=$((failures + 1))
fi

run_mi stepping
mi=$out/mi-stepping
if ! grep -Eq '^\^done,features=\[.*"reverse"' "$mi"; then
	echo "FAIL mi: -list-target-features does not list \"reverse\""
	failures=$((failures + 1))
fi
# Each *stopped record in order: where every command of stepping.mi stops.
expected_stops=(
	'func="_start"'                                    # connect
	'reason="breakpoint-hit".*func="sum_down",args=\[\{name="n",value="4"\}\]'
	'reason="breakpoint-hit".*func="sum_down",args=\[\{name="n",value="3"\}\]'
	'reason="breakpoint-hit".*func="sum_down",args=\[\{name="n",value="2"\}\]'
	'reason="breakpoint-hit".*func="sum_down",args=\[\{name="n",value="3"\}\]'  # --reverse
	'func="sum_down",args=\[\{name="n",value="4"\}\].*line="34"'                 # finish --reverse
	'reason="end-stepping-range".*func="sum_down".*line="34"'                    # step --reverse
)
mapfile -t stops < <(grep '^\*stopped' "$mi")
if [ ${#stops[@]} -ne ${#expected_stops[@]} ]; then
	echo "FAIL mi: ${#stops[@]} stops, expected ${#expected_stops[@]}"
	failures=$((failures + 1))
fi
for i in "${!expected_stops[@]}"; do
	if ! grep -Eq -- "${expected_stops[$i]}" <<<"${stops[$i]:-}"; then
		echo "FAIL mi: stop $i does not match ${expected_stops[$i]}: ${stops[$i]:-none}"
		failures=$((failures + 1))
	fi
done
# finish --reverse stops at the call instruction, step --reverse before it.
finish_pc=$(sed -n 's/.*addr="\(0x[0-9a-f]*\)".*/\1/p' <<<"${stops[5]:-}")
step_pc=$(sed -n 's/.*addr="\(0x[0-9a-f]*\)".*/\1/p' <<<"${stops[6]:-}")
if [ -z "$finish_pc" ] || [ -z "$step_pc" ] || (( step_pc >= finish_pc )); then
	echo "FAIL mi: -exec-step --reverse did not go back from $finish_pc (got $step_pc)"
	failures=$((failures + 1))
fi

# The same stub over a loopback TCP port.
"$target" --port 0 "$fixture" 2>"$out/tcp-server" &
server=$!
for _ in $(seq 50); do
	port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out/tcp-server")
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	echo "FAIL tcp: the target did not report a port"
	failures=$((failures + 1))
	kill "$server" 2>/dev/null
else
	timeout 60 gdb -batch -nx -ex "target remote 127.0.0.1:$port" -ex 'break sum_down' \
		-ex continue -ex reverse-continue >"$out/tcp" 2>&1
	if ! grep -q '^Breakpoint 1, sum_down (n=4)' "$out/tcp" ||
	   ! grep -q '^No more reverse-execution history\.' "$out/tcp"; then
		echo "FAIL tcp: gdb over TCP printed:"; sed 's/^/    /' "$out/tcp"
		failures=$((failures + 1))
	fi
fi
wait "$server" || { echo "FAIL tcp: the target exited with an error"; failures=$((failures + 1)); }

if [ $failures -ne 0 ]; then
	echo "gdbstub.sh: $failures checks failed"
	exit 1
fi
echo "gdbstub.sh: all gdb checks passed"
