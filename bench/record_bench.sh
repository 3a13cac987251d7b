#!/bin/bash
# record_bench.sh — the recorder's speed and trace size on CPU-bound
# programs: each runs natively, then under `ttrec run`, in this one
# invocation. Prints native and recorded seconds, the slowdown,
# instructions recorded, instructions per second of recording, trace bytes
# and bits per instruction (the figures BENCHMARKS.md keeps).
#
#   BUILD=build bash bench/record_bench.sh [--quick]
set -u
NAME=record_bench
. "$(dirname "$0")/cpu_set_inputs.bash"

printf '%-14s %9s %9s %8s %13s %12s %12s %8s\n' program native_s recorded_s slowdown \
	instructions insn_per_s trace_bytes bits/insn
# bench NAME INPUT -- COMMAND...: one row of the table.
bench() {
	local name=$1 input=$2
	shift 3
	local native t1 t2
	native=$(native_run "$name" "$input" -- "$@") || return
	t1=$(now)
	"$TTREC" run -o "$tmp/$name.idna" -- "$@" <"$input" >"$tmp/rec.out" 2>"$tmp/rec.err"
	local rc=$?
	t2=$(now)
	if [ $rc -ne 0 ] || ! cmp -s "$tmp/native.out" "$tmp/rec.out"; then
		echo "$name: the recorded run differs from the native one (exit $rc):" >&2
		cat "$tmp/rec.err" >&2
		return
	fi
	local insns bytes
	insns=$(sed -n 's/^ttrec: trace .*: \([0-9]*\) instructions,.*/\1/p' "$tmp/rec.err")
	bytes=$(stat -c %s "$tmp/$name.idna")
	awk -v name="$name" -v n="$native" -v t1="$t1" -v t2="$t2" -v i="$insns" -v b="$bytes" 'BEGIN {
		r = t2 - t1
		printf "%-14s %9.3f %9.2f %7.1fx %13.0f %12.3g %12.0f %8.3f\n", name, n, r, r / n, i, i / r, b, b * 8 / i }'
	rm -f "$tmp/$name.idna"
}

bench compute /dev/null -- "$BUILD/bench/record_workload" $scale
bench gzip-6 "$tmp/data.txt" -- gzip -6 -c
bench xz "$tmp/data-small.txt" -- xz -c
bench sort-n "$tmp/numbers.txt" -- sort --parallel=1 -n
bench python3 /dev/null -- "$PYTHON" -c "print(sum(i * i % 7 for i in range($loops)))"
