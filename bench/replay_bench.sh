#!/usr/bin/env bash
# Records a CPU-bound program (bench/workloads/compute.c) natively and under
# ttrec, then measures replay: first pass, backward steps, jumps.
#   bench/replay_bench.sh [BUILD_DIR] [ITERATIONS]
set -eu
build=$(cd "${1:-build}" && pwd)
iterations=${2:-3000000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cc -O2 -o compute "$here/workloads/compute.c"
t0=$(date +%s.%N); ./compute "$iterations" > native.out; t1=$(date +%s.%N)
"$build/ttrec" run -q -o compute.idna ./compute "$iterations" > recorded.out
t2=$(date +%s.%N)
cmp -s native.out recorded.out || { echo "replay_bench: recorded output differs"; exit 1; }
native=$(echo "$t1 - $t0" | bc -l); record=$(echo "$t2 - $t1" | bc -l)
printf '%-34s %10.3f s\n' "native run" "$native"
printf '%-34s %10.3f s (%.1fx native)\n' "recording" "$record" "$(echo "$record / $native" | bc -l)"
printf '%-34s %10d bytes\n' "trace" "$(stat -c %s compute.idna)"
"$build/bench/replay_bench" compute.idna "$record"
