#!/usr/bin/env bash
# step_latency.sh — how long one small backward step takes in gdb: the
# median (and the largest) time of reverse-stepi, reverse-step and
# reverse-next on bench/step_workload.c, through ttreplay, and through
# gdb's own `record full` on the same program and commands where this gdb
# can record it. Each command is timed inside gdb (its Python), from the
# same place: the printf after the loop. Two sizes: 200 iterations (about
# 115,000 instructions, less than one snapshot interval) and 100,000
# (about 4.9 M: the position is 700,000 instructions into the second
# snapshot segment); record full only on the small one. Then 200 again
# with calls that make no system call ("pure"), which the undo log of the
# last instructions replayed can span (a backward continue to the call
# answered from it).
#   BUILD=build bash bench/step_latency.sh [REPEATS]
set -eu
build=$(cd "${BUILD:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repeats=${1:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cc -g -O0 -o step_workload "$here/step_workload.c"
line=$(grep -n 'printf("total' "$here/step_workload.c" | cut -d: -f1)
cat > timed.gdb <<EOF2
python
import statistics, time
def timed(cmd, n):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        gdb.execute(cmd, to_string=True)
        ts.append((time.perf_counter() - t0) * 1000)
    print("%-14s median %8.2f ms   max %8.2f ms   (%d)" % (cmd, statistics.median(ts), max(ts), n))
gdb.execute("reverse-stepi", to_string=True)
gdb.execute("stepi", to_string=True)
timed("reverse-stepi", $repeats)
timed("reverse-step", $repeats)
timed("reverse-next", $repeats)
end
EOF2
# ttreplay's own CPU time per command (perf stat's task-clock of whole
# sessions, less one that only gets there): on a loaded machine the wall
# times above are mostly waiting for a core, gdb's and ttreplay's turns.
session_cpu_ms() { # command count
	local cmds=() i
	for ((i = 0; i < $2; i++)); do cmds+=(-ex "$1"); done
	gdb -batch -nx ./step_workload -ex 'set remotetimeout 600' \
		-ex "target remote | perf stat -x, -e task-clock -o cpu.txt $build/ttreplay steps.idna" \
		-ex "break $line" -ex continue -ex reverse-stepi -ex stepi "${cmds[@]}" > /dev/null 2>&1
	sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1/p' cpu.txt
}
for args in 200 100000 "200 pure"; do
	"$build/ttrec" run -q -o steps.idna ./step_workload $args > /dev/null
	echo "ttreplay, $args iterations ($("$build/ttreplay" --info steps.idna | sed -n 's/^instructions: //p') instructions):"
	gdb -batch -nx ./step_workload -ex 'set remotetimeout 600' -ex "target remote | $build/ttreplay steps.idna" \
		-ex "break $line" -ex continue -x timed.gdb 2>&1 | grep ' median '
	if command -v perf > /dev/null && base=$(session_cpu_ms stepi 0) && [ -n "$base" ]; then
		for cmd in reverse-stepi reverse-step reverse-next; do
			total=$(session_cpu_ms $cmd "$repeats")
			printf '%-14s ttreplay CPU %6.2f ms per command\n' $cmd "$(echo "($total - $base) / $repeats" | bc -l)"
		done
	fi
done
echo "gdb record full, 200 iterations:"
GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-AVX512F,-AVX512BW,-AVX512VL,-AVX512DQ,-AVX_Usable,-AVX2_Usable,-ERMS \
	gdb -batch -nx ./step_workload -ex 'break main' -ex run -ex 'record full' \
	-ex "break $line" -ex continue -x timed.gdb 2>&1 | grep ' median \|Process record' || true
