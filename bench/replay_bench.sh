#!/usr/bin/env bash
# Records the CPU-bound workload of bench/record_workload.c, then measures
# replay on its trace: first pass, backward steps, jumps.
#   BUILD=build bash bench/replay_bench.sh [SCALE]
set -eu
build=$(cd "${BUILD:-build}" && pwd)
scale=${1:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
t0=$(date +%s.%N)
"$build/ttrec" run -q -o workload.idna "$build/bench/record_workload" "$scale" > recorded.out
t1=$(date +%s.%N)
record=$(echo "$t1 - $t0" | bc -l)
printf '%-34s %10.2f s\n' "recording" "$record"
printf '%-34s %10d bytes\n' "trace" "$(stat -c %s workload.idna)"
"$build/bench/replay_bench" workload.idna "$record"
